"""The registry of `bench --suite ops`'s limits: op-table case name -> limit.

A limit is the best plain-NumPy forward + backward of the case's maths (see `common.py` for
the calling convention); the files hold them by concept:

- `../ops_limits.py`: the ops courses use most (add, matmul, softmax, GELU, LayerNorm, ...),
  the first ones written; `COURSE` below names them;
- `pointwise.py`: elementwise arithmetic, unary math, rounding;
- `activations.py`: `nn.functional`'s activations;
- `reductions.py`: sums, variances, extremes, norms, scans, sorting and selection;
- `shape.py`: movement ops; `indexing.py`: gather, scatter, index_put, masks;
- `linalg.py`: products, einsum equations, matrix norms; `nn.py`: convolution, pooling,
  resampling; `losses.py`: losses and distances.

`find(name, xs)` is what `ops_cases.limit_for` asks; a few limits depend on the inputs'
shapes (embedding's ids, cross_entropy's targets, the causal mask), so they are made here.
"""

from __future__ import annotations

import numpy as np

from ...testing.op_cases import _COND
from .. import ops_limits as lim
from . import activations, indexing, linalg, losses, nn, pointwise, reductions, shape

COURSE = {
    "add": lim.add,
    "add_broadcast": lim.add,
    "mul": lim.mul,
    "mul_broadcast": lim.mul,
    "method_mul": lim.mul,
    "div_broadcast": lim.div,
    "div_method": lim.div,
    "pow_scalar": lim.pow3,
    "pow_float_3": lim.pow3,
    "pow_half": lim.pow_half,
    "pow_method": lim.pow_general(2.5),
    "exp": lim.exp,
    "lib_exp": lim.exp,
    "log": lim.log,
    "sqrt": lim.sqrt,
    "tanh": lim.tanh,
    "sigmoid": lim.sigmoid,
    "F_silu": lim.silu,
    "relu": lim.relu,
    "abs": lim.abs_,
    "clamp": lim.clamp(-0.5, 0.5),
    "clamp_min": lim.clamp(0.1, None),
    "clip": lim.clamp(None, 0.2),
    "masked_fill": lim.masked_fill(_COND, -1.0),
    "softmax": lim.softmax(-1),
    "softmax_dim0": lim.softmax(0),
    "log_softmax": lim.log_softmax(1),
    "sum_all": lim.reduce_sum(None),
    "sum_dim": lim.reduce_sum(1),
    "var_unbiased": lim.var(1, 1),
    "matmul": lim.matmul,
    "mm": lim.matmul,
    "cumsum": lim.cumsum(-1),
    "cumsum_dim0": lim.cumsum(0),
    "stack": lim.stack(1),
    "gelu": lim.gelu,
    "gelu_tanh": lim.gelu_tanh_formula,
    "mingpt_gelu_formula": lim.gelu_tanh_formula,
    "layer_norm": lim.layer_norm,
    "linear": lim.linear,
    "mse_loss": lim.mse_loss,
}

LIMITS = {
    **pointwise.LIMITS,
    **activations.LIMITS,
    **reductions.LIMITS,
    **shape.LIMITS,
    **indexing.LIMITS,
    **linalg.LIMITS,
    **nn.LIMITS,
    **losses.LIMITS,
    **COURSE,
    **nn.LIMITS,  # conv2d and LeNet's layers too
}


def token_ids(rows: int, vocab: int) -> np.ndarray:
    return np.random.default_rng(1).integers(0, vocab, (rows, 32))


def class_targets(rows: int, classes: int) -> np.ndarray:
    return np.random.default_rng(2).integers(0, classes, rows)


def causal_mask(t: int) -> np.ndarray:
    return np.triu(np.ones((t, t), bool), 1)


def find(name: str, xs):
    """The limit of the case `name` at the inputs `xs`, or None."""
    if name == "embedding":
        return lim.embedding(token_ids(16, xs[0].shape[0]))
    if name == "cross_entropy":
        return lim.cross_entropy(class_targets(*xs[0].shape))
    if name == "masked_fill_softmax":
        return lim.masked_softmax(causal_mask(xs[0].shape[-1]))
    if name == "max_pool2d":
        return nn.max_pool(2)
    return LIMITS.get(name)
