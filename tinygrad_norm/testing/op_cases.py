"""One table of every Tensor operation, used three ways: gradcheck, NumPy, and PyTorch.

Each `OpCase` holds a function written once, `fn(lib, *xs)`, that runs unchanged on
tinygrad_norm tensors (`lib` = `tinygrad_norm`) and on PyTorch tensors (`lib` = `torch`),
a plain-NumPy formula `ref(*arrays)` for the forward value, and the input shapes. The test
suite gradchecks every case in float64 (first and second order) and compares its forward with
the NumPy formula; the oracle tests compare values and gradients with PyTorch;
`python -m tinygrad_norm gradcheck` prints the same checks as a table.
"""

from __future__ import annotations

import math

import numpy as np

from .op_case import POSITIVE, REAL, OpCase  # noqa: F401 - the case format, re-exported

# Constant, input-independent patterns shared by the cases below.
_COND = np.array([[True, False, True], [False, False, True]])  # (2, 3), broadcasts over (4, 2, 3)
_INDEX = [0, 2, 0, 0]  # repeated indices: their gradients must add up


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _log_softmax(x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def _erf(x):
    return np.vectorize(math.erf)(x)


def _take_max(x, axis):
    return np.take_along_axis(x, np.expand_dims(x.argmax(axis), axis), axis).squeeze(axis)


CASES = [
    # --- elementwise, binary, with broadcasting -------------------------------------------------
    OpCase("add", lambda lib, x, y: x + y, lambda x, y: x + y, ((2, 3), (2, 3))),
    OpCase("add_broadcast", lambda lib, x, y: x + y, lambda x, y: x + y, ((2, 1, 4), (3, 1))),
    OpCase("sub_broadcast", lambda lib, x, y: x - y, lambda x, y: x - y, ((3, 1), (1, 4))),
    OpCase("mul", lambda lib, x, y: x * y, lambda x, y: x * y, ((2, 3), (2, 3))),
    OpCase("mul_broadcast", lambda lib, x, y: x * y, lambda x, y: x * y, ((4, 1, 3), (2, 3))),
    OpCase("div_broadcast", lambda lib, x, y: x / y, lambda x, y: x / y, ((2, 3), (3,)), POSITIVE),
    OpCase("pow_tensor", lambda lib, x, y: x**y, lambda x, y: x**y, ((2, 3), (2, 3)), POSITIVE),
    OpCase("pow_scalar", lambda lib, x: x**3, lambda x: x**3, ((2, 3),)),
    OpCase("pow_half", lambda lib, x: x**0.5, lambda x: x**0.5, ((2, 3),), POSITIVE),
    OpCase("rpow", lambda lib, x: 2.0**x, lambda x: 2.0**x, ((2, 3),)),
    OpCase("rsub_scalar", lambda lib, x: 1.5 - x, lambda x: 1.5 - x, ((2, 3),)),
    OpCase("rdiv_scalar", lambda lib, x: 2.0 / x, lambda x: 2.0 / x, ((2, 3),), POSITIVE),
    OpCase("neg", lambda lib, x: -x, lambda x: -x, ((2, 3),)),
    # --- elementwise, unary ----------------------------------------------------------------------
    OpCase("exp", lambda lib, x: x.exp(), np.exp, ((2, 3),)),
    OpCase("log", lambda lib, x: x.log(), np.log, ((2, 3),), POSITIVE),
    OpCase("sqrt", lambda lib, x: x.sqrt(), np.sqrt, ((2, 3),), POSITIVE),
    OpCase("rsqrt", lambda lib, x: x.rsqrt(), lambda x: 1 / np.sqrt(x), ((2, 3),), POSITIVE),
    OpCase("tanh", lambda lib, x: x.tanh(), np.tanh, ((2, 3),)),
    OpCase("sigmoid", lambda lib, x: x.sigmoid(), lambda x: 1 / (1 + np.exp(-x)), ((2, 3),)),
    OpCase("relu", lambda lib, x: x.relu(), lambda x: np.maximum(x, 0), ((2, 3),)),
    OpCase("abs", lambda lib, x: x.abs(), np.abs, ((2, 3),)),
    OpCase("erf", lambda lib, x: x.erf(), _erf, ((2, 3),)),
    OpCase("lib_exp", lambda lib, x: lib.exp(x), np.exp, ((3,),)),
    OpCase(
        "lib_log_sqrt_tanh",
        lambda lib, x: lib.tanh(lib.log(lib.sqrt(x))),
        lambda x: np.tanh(np.log(np.sqrt(x))),
        ((3,),),
        POSITIVE,
    ),
    OpCase("pow_method", lambda lib, x: x.pow(2.5), lambda x: x**2.5, ((3,),), POSITIVE),
    OpCase("clip", lambda lib, x: x.clip(max=0.2), lambda x: np.minimum(x, 0.2), ((3, 4),)),
    OpCase("clamp", lambda lib, x: x.clamp(-0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5), ((3, 4),)),
    OpCase("clamp_min", lambda lib, x: x.clamp(min=0.1), lambda x: np.maximum(x, 0.1), ((3, 4),)),
    OpCase("maximum", lambda lib, x, y: lib.maximum(x, y), np.maximum, ((2, 3), (3,))),
    OpCase("minimum", lambda lib, x, y: lib.minimum(x, y), np.minimum, ((2, 3), (2, 3))),
    OpCase(
        "where_broadcast",
        lambda lib, x, y: lib.where(lib.tensor(_COND), x, y),
        lambda x, y: np.where(_COND, x, y),
        ((4, 2, 3), (3,)),
    ),
    OpCase(
        "masked_fill",
        lambda lib, x: x.masked_fill(lib.tensor(_COND), -1.0),
        lambda x: np.where(_COND, -1.0, x),
        ((2, 3),),
    ),
    OpCase("tril", lambda lib, x: x.tril(), np.tril, ((3, 4),)),
    OpCase(
        "tril_batch_diag",
        lambda lib, x: lib.tril(x, diagonal=-1),
        lambda x: np.tril(x, -1),
        ((2, 3, 3),),
    ),
    OpCase("triu_diag", lambda lib, x: x.triu(1), lambda x: np.triu(x, 1), ((3, 4),)),
    # --- reductions ------------------------------------------------------------------------------
    OpCase("sum_all", lambda lib, x: x.sum(), np.sum, ((2, 3),)),
    OpCase("sum_dim", lambda lib, x: x.sum(dim=1), lambda x: x.sum(1), ((2, 3, 4),)),
    OpCase(
        "sum_tuple_neg_keepdim",
        lambda lib, x: x.sum(dim=(0, -1), keepdim=True),
        lambda x: x.sum(axis=(0, -1), keepdims=True),
        ((2, 3, 4),),
    ),
    OpCase("mean_all", lambda lib, x: x.mean(), np.mean, ((2, 3),)),
    OpCase(
        "lib_sum_mean_var",
        lambda lib, x: lib.sum(x, 0) + lib.mean(x, 0) + lib.var(x, 0),
        lambda x: x.sum(0) + x.mean(0) + x.var(0, ddof=1),
        ((3, 2),),
    ),
    OpCase(
        "lib_max_norm",
        lambda lib, x: lib.max(x) + lib.norm(x),
        lambda x: x.max() + np.sqrt((x * x).sum()),
        ((3, 2),),
    ),
    OpCase(
        "mean_dims_keepdim",
        lambda lib, x: x.mean(dim=[-1, -2], keepdim=True),
        lambda x: x.mean(axis=(-1, -2), keepdims=True),
        ((2, 3, 4),),
    ),
    OpCase("var_unbiased", lambda lib, x: x.var(dim=1), lambda x: x.var(axis=1, ddof=1), ((3, 5),)),
    OpCase(
        "var_biased_keepdim",
        lambda lib, x: x.var(dim=-1, unbiased=False, keepdim=True),
        lambda x: x.var(axis=-1, keepdims=True),
        ((3, 5),),
    ),
    OpCase("var_all", lambda lib, x: x.var(), lambda x: x.var(ddof=1), ((3, 4),)),
    OpCase(
        "var_tuple",
        lambda lib, x: x.var(dim=(0, 2), unbiased=False),
        lambda x: x.var(axis=(0, 2)),
        ((2, 3, 4),),
    ),
    OpCase("std", lambda lib, x: x.std(dim=0), lambda x: x.std(axis=0, ddof=1), ((4, 3),)),
    OpCase("amax", lambda lib, x: x.amax(dim=-1), lambda x: x.max(-1), ((3, 4),)),
    OpCase(
        "amin_keepdim",
        lambda lib, x: x.amin(dim=0, keepdim=True),
        lambda x: x.min(0, keepdims=True),
        ((3, 4),),
    ),
    OpCase("max_all", lambda lib, x: x.max(), np.max, ((3, 4),)),
    OpCase(
        "max_dim_values",
        lambda lib, x: x.max(dim=1).values,
        lambda x: _take_max(x, 1),
        ((3, 4, 2),),
    ),
    OpCase(
        "min_dim_keepdim",
        lambda lib, x: x.min(dim=-1, keepdim=True)[0],
        lambda x: x.min(-1, keepdims=True),
        ((3, 4),),
    ),
    OpCase("norm", lambda lib, x: x.norm(), lambda x: np.sqrt((x * x).sum()), ((3, 4),)),
    OpCase(
        "norm_dim",
        lambda lib, x: x.norm(dim=1, keepdim=True),
        lambda x: np.sqrt((x * x).sum(1, keepdims=True)),
        ((3, 4),),
    ),
    OpCase("softmax", lambda lib, x: x.softmax(-1), lambda x: _softmax(x, -1), ((3, 5),)),
    OpCase("softmax_dim0", lambda lib, x: x.softmax(dim=0), lambda x: _softmax(x, 0), ((3, 5),)),
    OpCase(
        "log_softmax", lambda lib, x: x.log_softmax(1), lambda x: _log_softmax(x, 1), ((2, 4, 3),)
    ),
    # --- movement --------------------------------------------------------------------------------
    OpCase("reshape", lambda lib, x: x.reshape(3, 2, 2), lambda x: x.reshape(3, 2, 2), ((2, 6),)),
    OpCase("view_infer", lambda lib, x: x.view(-1, 4), lambda x: x.reshape(-1, 4), ((2, 3, 4),)),
    OpCase("flatten", lambda lib, x: x.flatten(1), lambda x: x.reshape(2, -1), ((2, 3, 4),)),
    OpCase(
        "permute", lambda lib, x: x.permute(2, 0, 1), lambda x: x.transpose(2, 0, 1), ((2, 3, 4),)
    ),
    OpCase(
        "transpose",
        lambda lib, x: x.transpose(0, -1),
        lambda x: np.swapaxes(x, 0, -1),
        ((2, 3, 4),),
    ),
    OpCase("T", lambda lib, x: x.T, lambda x: x.T, ((2, 3),)),
    OpCase(
        "swapaxes_contiguous",
        lambda lib, x: x.swapaxes(0, 1).contiguous(),
        lambda x: x.swapaxes(0, 1),
        ((2, 3),),
    ),
    OpCase("squeeze", lambda lib, x: x.squeeze(), np.squeeze, ((2, 1, 3, 1),)),
    OpCase("squeeze_dim", lambda lib, x: x.squeeze(-1), lambda x: x.squeeze(-1), ((2, 1, 3, 1),)),
    OpCase("unsqueeze", lambda lib, x: x.unsqueeze(-1), lambda x: x[..., None], ((2, 3),)),
    OpCase(
        "expand",
        lambda lib, x: x.expand(2, 3, 4),
        lambda x: np.broadcast_to(x, (2, 3, 4)),
        ((3, 1),),
    ),
    OpCase("repeat", lambda lib, x: x.repeat(2, 1, 3), lambda x: np.tile(x, (2, 1, 3)), ((2, 3),)),
    OpCase(
        "index_basic",
        lambda lib, x: x[1:, None, ..., ::2],
        lambda x: x[1:, None, ..., ::2],
        ((3, 4, 5),),
    ),
    OpCase("index_int", lambda lib, x: x[1, -1], lambda x: x[1, -1], ((3, 4),)),
    OpCase("index_repeated", lambda lib, x: x[_INDEX], lambda x: x[_INDEX], ((3, 2),)),
    OpCase(
        "index_pairs",
        lambda lib, x: x[[0, 0, 1], [2, 2, 0]],
        lambda x: x[[0, 0, 1], [2, 2, 0]],
        ((2, 3),),
    ),
    OpCase("index_bool", lambda lib, x: x[lib.tensor(_COND)], lambda x: x[_COND], ((2, 3),)),
    OpCase(
        "cat",
        lambda lib, x, y: lib.cat([x, y, x], dim=-1),
        lambda x, y: np.concatenate([x, y, x], -1),
        ((2, 3), (2, 1)),
    ),
    OpCase(
        "stack",
        lambda lib, x, y: lib.stack([x, y], dim=1),
        lambda x, y: np.stack([x, y], 1),
        ((2, 3), (2, 3)),
    ),
    OpCase(
        "split",
        lambda lib, x: x.split(2, dim=-1),
        lambda x: (x[:, :2], x[:, 2:4], x[:, 4:]),
        ((2, 5),),
    ),
    OpCase(
        "split_sizes",
        lambda lib, x: lib.split(x, [1, 3], dim=0),
        lambda x: (x[:1], x[1:]),
        ((4, 2),),
    ),
    OpCase("chunk", lambda lib, x: x.chunk(2, dim=1), lambda x: (x[:, :2], x[:, 2:]), ((2, 4),)),
    OpCase("clone", lambda lib, x: x.clone(), np.copy, ((2, 3),)),
    # --- linear algebra --------------------------------------------------------------------------
    OpCase("matmul", lambda lib, a, b: a @ b, np.matmul, ((2, 3), (3, 4))),
    OpCase("matmul_batch_broadcast", lambda lib, a, b: a @ b, np.matmul, ((2, 1, 3, 4), (5, 4, 2))),
    OpCase("matmul_vec_mat", lambda lib, a, b: lib.matmul(a, b), np.matmul, ((3,), (3, 4))),
    OpCase("matmul_mat_vec", lambda lib, a, b: a.matmul(b), np.matmul, ((2, 3), (3,))),
    OpCase("matmul_vec_vec", lambda lib, a, b: a @ b, np.matmul, ((3,), (3,))),
    OpCase(
        "addmm",
        lambda lib, c, a, b: lib.addmm(c, a, b),
        lambda c, a, b: c + a @ b,
        ((4,), (2, 3), (3, 4)),
    ),
    # --- composed, as the seeds use them ---------------------------------------------------------
    OpCase(
        "layer_norm_by_hand",
        lambda lib, x, g, b: (
            (x - x.mean(dim=[-1, -2], keepdim=True))
            / (x.var(dim=[-1, -2], unbiased=False, keepdim=True) + 1e-5).sqrt()
            * g
            + b
        ),
        lambda x, g, b: (
            (x - x.mean((-1, -2), keepdims=True))
            / np.sqrt(x.var((-1, -2), keepdims=True) + 1e-5)
            * g
            + b
        ),
        ((2, 1, 3), (1, 3), (1, 3)),
    ),
]

from . import op_cases_shape  # noqa: E402 - indexing, shape ops, products, einsum, norms

CASES += op_cases_shape.CASES

from . import op_cases_nn  # noqa: E402 - convolution, pooling and the losses, in their own file

CASES += op_cases_nn.CASES

from . import op_cases_math  # noqa: E402 - the elementwise math, reductions and sorting, in their own file

CASES += op_cases_math.CASES
CASES_BY_NAME = {case.name: case for case in CASES}
