"""scatter, scatter_add and scatter_reduce: src values written into input along `dim`.

out[index[i][j]][j] = src[i][j] (here dim 0). `scatter` overwrites with IndexPut (the primitive
behind `x[idx] = v`): input's gradient is zero exactly at the overwritten places, src's is
grad_out gathered at index. `scatter_reduce` combines everything that lands on one place with
sum, prod, mean, amax or amin (ScatterAdd for sums, a product of slots for prod, tie-sharing
weights for amax / amin).
"""

from __future__ import annotations

import numpy as np

from ..autograd.node import GraphTensor
from .composite import as_tensor
from .elementwise import Where
from .indexing import as_1d, check_index_shape, check_range, constant, grid, index_array, one_dim
from .movement import IndexPut, ScatterAdd

REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
ALIASES = {"max": "amax", "min": "amin"}  # accepted by PyTorch too, undocumented


def scatter(input, dim, index, src=None, reduce=None, *, value=None):  # noqa: A002
    """out = input with out[index[i][j]][j] = src[i][j] along `dim` (here dim 0).

    `src` may be a tensor or a number (`value=` too). `reduce="add"` / `"multiply"` combine
    with the old value instead of overwriting. The gradient of input is grad_out with zeros at
    the overwritten places; the gradient of src is grad_out gathered at index.
    """
    src = value if src is None else src
    if src is None:
        raise TypeError("scatter: give src (a tensor) or value (a number)")
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError(f"scatter: reduce must be 'add' or 'multiply', got {reduce!r}")
        reduce = {"add": "sum", "multiply": "prod"}[reduce]
        if not isinstance(src, (GraphTensor, np.ndarray)):
            index = index_array("scatter", index)
            src = constant(np.full(index.shape, src, dtype=input.dtype), input)
        return scatter_reduce(input, dim, index, src, reduce)
    x, targets, values, _ = _scatter_parts("scatter", input, dim, index, src)
    return IndexPut.apply(x, values, ints=(), rest=targets).reshape(input.shape)


def scatter_add(input, dim, index, src):  # noqa: A002
    """out = input with src[i][j] added to out[index[i][j]][j] along `dim` (here dim 0)."""
    return scatter_reduce(input, dim, index, src, "sum")


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):  # noqa: A002
    """Combine every src element with the others (and, with include_self, the old value) that
    land on the same place: reduce is "sum", "prod", "mean", "amax" or "amin".

    Gradients: sum passes grad_out to each; mean divides it by the count; prod is composed as a
    product of slots (see `_scatter_prod`), exact at zeros; amax / amin send grad_out to the
    elements equal to the result, shared equally between ties (as PyTorch).
    """
    reduce = ALIASES.get(reduce, reduce)
    if reduce not in REDUCTIONS:
        raise RuntimeError(
            f"scatter_reduce: reduce must be one of {', '.join(REDUCTIONS)}, got {reduce!r}"
        )
    op = f"scatter_reduce({reduce})"
    x, targets, values, written = _scatter_parts(op, input, dim, index, src)
    if x.dtype.kind not in "fc":  # integers never need a gradient: plain NumPy
        out = _reduce_numpy(x.array, targets, values.array, reduce, include_self)
        return constant(out.reshape(input.shape), input)
    neutral = np.ones((), x.dtype) if reduce == "prod" else np.zeros((), x.dtype)
    base = x if include_self else Where.apply(written, neutral, x)
    if reduce == "prod":
        out = base * _scatter_prod(values, targets, x.shape)
    elif reduce in ("sum", "mean"):
        out = base + ScatterAdd.apply(values, index=targets, shape=x.shape)
        if reduce == "mean":
            count = np.zeros(x.shape, x.dtype)
            np.add.at(count, targets, 1)
            out = out / np.maximum(count + include_self, 1)
    else:
        result = _reduce_numpy(x.array, targets, values.array, reduce, include_self)
        src_hit = (values.array == result[targets]).astype(x.dtype)
        self_hit = ((x.array == result) & (include_self | ~written)).astype(x.dtype)
        ties = self_hit.copy()
        np.add.at(ties, targets, src_hit)
        shared = ScatterAdd.apply(values * (src_hit / ties[targets]), index=targets, shape=x.shape)
        out = x * (self_hit / ties) + shared
    return Where.apply(written, out, x).reshape(input.shape)


def _scatter_parts(op: str, input, dim, index, src):  # noqa: A002
    """What every scatter needs: input (as at least 1-D), the target places, the src values
    that land there (src cut to index's shape), and a bool mask of the places written."""
    x = input
    index = index_array(op, index)
    d = one_dim(op, dim, x.ndim)
    x, index = as_1d(x, index)
    if isinstance(src, (GraphTensor, np.ndarray)):
        src = as_tensor(src, x)
        src = src.reshape(1) if src.ndim == 0 else src
        if src.dtype != x.dtype:
            raise RuntimeError(
                f"{op}: src ({src.dtype}) and input ({x.dtype}) must have the same dtype; "
                "convert one with .to(...)"
            )
        check_index_shape(op, x, index, d, src)
        values = src[tuple(slice(0, n) for n in index.shape)]
    else:
        check_index_shape(op, x, index, d)
        values = constant(np.full(index.shape, src, dtype=x.dtype), x)
    index = check_range(op, index, x.shape[d], d)
    targets = grid(index.shape, d, index)
    written = np.zeros(x.shape, dtype=bool)
    written[targets] = True
    return x, targets, values, written


def _reduce_numpy(x, targets, values, reduce, include_self):
    """The forward of scatter_reduce on arrays (ufunc.at applies each src element in turn)."""
    written = np.zeros(x.shape, dtype=bool)
    written[targets] = True
    start = {"sum": 0, "mean": 0, "prod": 1}.get(reduce)
    if start is None:  # amax / amin start from the other extreme
        info = np.finfo(x.dtype) if x.dtype.kind == "f" else np.iinfo(x.dtype)
        start = info.min if reduce == "amax" else info.max
        if x.dtype.kind == "f":
            start = -np.inf if reduce == "amax" else np.inf
    out = x.copy() if include_self else np.where(written, np.asarray(start, x.dtype), x)
    ufunc = {"sum": np.add, "mean": np.add, "prod": np.multiply}.get(reduce)
    ufunc = ufunc or (np.maximum if reduce == "amax" else np.minimum)
    ufunc.at(out, targets, values)
    if reduce == "mean":
        count = np.zeros(x.shape, np.int64)
        np.add.at(count, targets, 1)
        count = np.maximum(count + include_self, 1)
        out = out / count if x.dtype.kind in "fc" else out // count
    return np.asarray(out, x.dtype)


def _scatter_prod(values, targets: tuple, shape: tuple):
    """The product of the values landing on each place (1 where none lands), composed so that
    autograd derives an exact gradient, zeros included.

    Each value gets a slot: how many earlier values land on the same place. IndexPut writes
    them into a (*shape, K) tensor of ones (K = the most values on one place), whose K slices
    are multiplied: d(prod)/d(v) = product of the others, never a division by v.
    """
    place = np.ravel_multi_index(np.broadcast_arrays(*targets), shape).reshape(-1)
    order = np.argsort(place, kind="stable")
    sorted_place = place[order]
    first = np.searchsorted(sorted_place, sorted_place)  # where each run of a place starts
    slot = np.empty_like(place)
    slot[order] = np.arange(place.size) - first
    slots = int(slot.max()) + 1 if place.size else 0
    if slots == 0:
        return constant(np.ones(shape, values.dtype), values)
    spots = np.unravel_index(place, shape) + (slot,)
    ones = constant(np.ones(shape + (slots,), values.dtype), values)
    table = IndexPut.apply(ones, values.reshape(-1), ints=(), rest=spots)  # (*shape, K)
    product = table[..., 0]
    for k in range(1, slots):
        product = product * table[..., k]
    return product
