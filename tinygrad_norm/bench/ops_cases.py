"""What `bench --suite ops` times: the op table's cases at course shapes, a few ops the table
reaches only through `nn.functional` or modules (GELU, LayerNorm, embedding, ...), and for
each its limit, the hand-written NumPy forward + backward of `limits/` (the registry) and
`ops_limits.py`.

Shapes. A case of the table is run at the first of these that its function accepts:
1. an elementwise-like case (all inputs of one shape, the output of that shape too): every
   input at (16, 32, 512), the size of a course activation ("course"), or (4, 32, 128)
   ("small");
2. any other case: every dimension above 1 of the table's shapes multiplied by one factor, so
   that equal sizes stay equal (matrix products still fit) and the largest input holds about
   as many numbers as (1);
3. the table's own shapes, when the function holds constants of the table's sizes (a mask of
   (2, 3), a reshape to (3, 2, 2)): said in the output as "table shape".
Convolution and pooling have LeNet's shapes (batch 64, 28x28; "small": batch 8).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..testing.op_case import OpCase
from ..testing.op_cases import CASES
from . import ops_limits as lim
from .limits import causal_mask, class_targets, find, token_ids

SIZES = {"small": (4, 32, 128), "course": (16, 32, 512)}
TINY = "tiny"  # the table's own shapes, for the test of the suite


def _batch(size: str) -> int:
    return 64 if size == "course" else 8


def _lenet(size: str) -> dict:
    """LeNet-shaped inputs (batch, channels, height, width) for the convolution cases."""
    n = _batch(size)
    return {
        "conv1d": ((n, 16, 128), (32, 16, 3), (32,)),
        "conv2d": ((n, 6, 12, 12), (16, 6, 5, 5), (16,)),
        "conv2d_stride_pad_groups": ((n, 8, 12, 12), (8, 4, 3, 2)),
        "conv2d_same_dilation": ((n, 6, 12, 12), (16, 6, 3, 2)),
        "conv_transpose1d": ((n, 16, 64), (16, 32, 3), (32,)),
        "conv_transpose2d_output_padding": ((n, 8, 12, 12), (8, 4, 2, 3)),
        "unfold": ((n, 6, 12, 12),),
        "max_pool2d": ((n, 6, 24, 24),),
        "max_pool2d_pad_ceil": ((n, 6, 24, 24),),
        "max_pool1d_dilation": ((n, 16, 128),),
        "avg_pool2d": ((n, 6, 24, 24),),
        "avg_pool2d_ceil_no_pad_count": ((n, 6, 24, 24),),
        "avg_pool1d_pad": ((n, 16, 128),),
        "adaptive_avg_pool2d": ((n, 6, 24, 24),),
        "adaptive_avg_pool1d": ((n, 16, 128),),
        "adaptive_max_pool2d": ((n, 6, 24, 24),),
        "interpolate_nearest": ((n, 6, 12, 12),),
        "interpolate_bilinear": ((n, 6, 12, 12),),
        "interpolate_bilinear_align_corners": ((n, 6, 12, 12),),
        "pixel_shuffle": ((n, 8, 12, 12),),
        "lenet_conv1": ((n, 1, 28, 28), (6, 1, 5, 5), (6,)),
        "lenet_conv2": ((n, 6, 12, 12), (16, 6, 5, 5), (16,)),
        "lenet_pool": ((n, 6, 24, 24),),
    }


_CACHE: dict = {}


def _constant(lib, key, make):
    """`make()` as a `lib` tensor, made once per library and key (not timed after the first)."""
    if (lib.__name__, key) not in _CACHE:
        _CACHE[lib.__name__, key] = lib.tensor(make())
    return _CACHE[lib.__name__, key]


def _F(lib):
    return lib.nn.functional


def _mingpt_gelu(lib, x):
    return 0.5 * x * (1.0 + lib.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * lib.pow(x, 3.0))))


def _embedding(lib, w):
    ids = _constant(lib, ("ids", w.shape[0]), lambda: token_ids(16, w.shape[0]))
    return _F(lib).embedding(ids, w)


def _cross_entropy(lib, x):
    targets = _constant(lib, ("targets", x.shape), lambda: class_targets(*x.shape))
    return _F(lib).cross_entropy(x, targets)


def _masked_softmax(lib, x):
    mask = _constant(lib, ("causal", x.shape[-1]), lambda: causal_mask(x.shape[-1]))
    return x.masked_fill(mask, float("-inf")).softmax(-1)


def _no_ref(*arrays):
    raise NotImplementedError("timed against its hand-written limit only")


# Ops a course reaches through nn.functional or modules rather than the table's calls.
EXTRA = [
    OpCase("gelu", lambda lib, x: _F(lib).gelu(x), _no_ref, ((2, 3),)),
    OpCase("gelu_tanh", lambda lib, x: _F(lib).gelu(x, approximate="tanh"), _no_ref, ((2, 3),)),
    OpCase("mingpt_gelu_formula", _mingpt_gelu, _no_ref, ((2, 3),)),
    OpCase("pow_float_3", lambda lib, x: lib.pow(x, 3.0), _no_ref, ((2, 3),)),
    OpCase(
        "layer_norm",
        lambda lib, x, w, b: _F(lib).layer_norm(x, (x.shape[-1],), w, b),
        _no_ref,
        ((2, 3), (3,), (3,)),
    ),
    OpCase("linear", lambda lib, x, w, b: _F(lib).linear(x, w, b), _no_ref, ((2, 3), (4, 3), (4,))),
    OpCase("embedding", _embedding, _no_ref, ((5, 3),)),
    OpCase("cross_entropy", _cross_entropy, _no_ref, ((4, 5),)),
    OpCase("mse_loss", lambda lib, x, y: _F(lib).mse_loss(x, y), _no_ref, ((2, 3), (2, 3))),
    OpCase("masked_fill_softmax", _masked_softmax, _no_ref, ((2, 4, 4),)),
]


def _extra_shapes(size: str) -> dict:
    rows, t, e = SIZES[size]
    return {
        "gelu": ((rows, t, e),),
        "gelu_tanh": ((rows, t, e),),
        "mingpt_gelu_formula": ((rows, t, e),),
        "pow_float_3": ((rows, t, e),),
        "layer_norm": ((rows, t, e), (e,), (e,)),
        "linear": ((rows, t, e), (e, e), (e,)),
        "embedding": ((65, e),),
        "cross_entropy": ((rows * t, 65),),
        "mse_loss": ((rows, t, e), (rows, t, e)),
        "masked_fill_softmax": ((rows, 4, t * 2, t * 2),),
    }


@dataclass(frozen=True)
class Limit:
    kind: str  # "hand" or "generic"
    fn: object  # fn(arrays, g) -> input gradients


def limit_for(case: OpCase, xs) -> Limit:
    """The hand-written limit of `case` at the inputs `xs` (`limits/`), else the generic
    lower bound."""
    made = find(case.name, xs)
    if made is not None:
        return Limit("hand", made)
    return Limit("generic", lambda arrays, g: lim.generic(case, arrays, g))


def bench_cases() -> list[OpCase]:
    """The table's cases, then the extra ones (LeNet's layers among them)."""
    lenet = [
        OpCase("lenet_conv1", lambda lib, x, w, b: _F(lib).conv2d(x, w, b), _no_ref, ()),
        OpCase("lenet_conv2", lambda lib, x, w, b: _F(lib).conv2d(x, w, b), _no_ref, ()),
        OpCase("lenet_pool", lambda lib, x: _F(lib).max_pool2d(x, 2), _no_ref, ()),
    ]
    return [*CASES, *EXTRA, *lenet]


def shape_tries(case: OpCase, size: str) -> list[tuple[str, tuple]]:
    """[(how, shapes)] to try in order for `case` at `size` (see the module docstring)."""
    table = (TINY, case.shapes)
    if size == TINY:
        return [table] if case.shapes else [(TINY, _lenet("small")[case.name])]
    fixed = {**_lenet(size), **_extra_shapes(size)}
    if case.name in fixed:
        return [(size, fixed[case.name])] + ([table] if case.shapes else [])
    tries = []
    xs = case.inputs()
    if _elementwise_like(case, xs):
        tries.append((size, (SIZES[size],) * len(case.shapes)))
    tries.append((size, scaled(case.shapes, math.prod(SIZES[size]))))
    return [*tries, table]


def _elementwise_like(case: OpCase, xs) -> bool:
    if len({x.shape for x in xs}) != 1:
        return False
    try:
        out = case.ref(*xs)
    except Exception:  # noqa: BLE001 - a reference that cannot run says "not elementwise"
        return False
    out = out[0] if isinstance(out, tuple) else out
    return np.shape(out) == xs[0].shape


def scaled(shapes: tuple, numbers: int) -> tuple:
    """`shapes` with every size above 1 times one whole factor, the largest input holding
    about `numbers` numbers (at most)."""
    factors = []
    for shape in shapes:
        stretched = [n for n in shape if n > 1]
        if stretched:
            factors.append((numbers / math.prod(stretched)) ** (1 / len(stretched)))
    if not factors:
        return shapes
    factor = max(1, int(min(factors)))
    return tuple(tuple(n * factor if n > 1 else n for n in shape) for shape in shapes)
