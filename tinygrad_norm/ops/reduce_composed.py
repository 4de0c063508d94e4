"""Reductions composed from the primitives: prod, logsumexp, std_mean, var_mean, all, any,
count_nonzero, median, mode, kthvalue, aminmax. Composed, no new primitive.

- prod multiplies in a tree (pairs, then pairs of pairs), so its gradient, the product of all
  the other elements, comes out of autograd exactly, also where some elements are 0 (where the
  textbook out / x_i would divide by zero).
- median, mode and kthvalue choose an element with NumPy and read it with an index, so the
  gradient goes to the chosen element (as PyTorch).
- all, any and count_nonzero give bool or integer tensors, never differentiable.
"""

from __future__ import annotations

import numpy as np

from .composite import (
    ValuesIndices,
    amax,
    amin,
    in_dtype,
    mean,
    normalize_dims,
    reduction_dims,
    require_floating,
    std,
    var,
)
from .elementwise import Where
from .pointwise_composed import to_float
from .reduce import Max, Sum
from .scan import _along
from .shape import cat
from .sort import MinMax, argsort_array, axis_for_k, axis_of, constant, kth_in_order, take_along
from .xp import exp_shift


def prod(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002 - PyTorch's names
    """The product of all elements, or along `dim` (integers and bools give int64; `dtype=`
    converts the input first and gives the product in that dtype, as PyTorch)."""
    x = input
    if dtype is not None:
        return in_dtype(prod, x, dtype, dim, keepdim)
    if dim is None:
        x, axis = x.reshape(-1), 0
        keepdim_shape = (1,) * input.ndim
    else:
        axis = axis_of("prod", x, dim)
        if axis is None:  # a 0-d tensor is its own product
            return x * 1 if x.dtype.kind == "f" else x
        keepdim_shape = x.shape[:axis] + (1,) + x.shape[axis + 1 :]
    if x.dtype.kind in "bui":
        out = constant(np.prod(x.array, axis=axis, dtype=np.int64), x)
    else:
        out = _product_tree(x, axis).squeeze(axis)
    return out.reshape(keepdim_shape) if keepdim else out


def _product_tree(x, axis: int):
    """Multiply neighbours pairwise along `axis` until one element is left (kept as size 1)."""
    if x.shape[axis] == 0:  # the empty product is 1; x * 0 keeps the (empty) gradient path
        return Sum.apply(x, (axis,), True) * 0 + 1
    while x.shape[axis] > 1:
        if x.shape[axis] % 2:  # an odd count: pad with a 1
            pad_shape = x.shape[:axis] + (1,) + x.shape[axis + 1 :]
            x = cat([x, constant(np.ones(pad_shape, x.dtype), x)], axis)
        x = x[_along(axis, x.ndim, slice(0, None, 2))] * x[_along(axis, x.ndim, slice(1, None, 2))]
    return x


def logsumexp(input, dim, keepdim=False):  # noqa: A002
    """log(sum(exp(x))) over `dim`, computed as m + log(sum(exp(x - m))) with m the maximum
    (held constant: it cancels), so nothing overflows. Its gradient is softmax(x)."""
    x = to_float(input)
    dims = reduction_dims("logsumexp", dim, x.ndim)  # () is every axis, as for sum
    m = exp_shift(x.array, dims, finite=True)  # all -inf (or an inf): shift by 0
    with np.errstate(divide="ignore"):
        out = Sum.apply((x - m).exp(), dims, True).log() + m
    if keepdim or x.ndim == 0:
        return out
    return out.reshape(
        tuple(n for i, n in enumerate(x.shape) if dims is not None and i not in dims)
    )


def var_mean(input, dim=None, unbiased=True, keepdim=False, *, correction=None):  # noqa: A002
    """(var, mean) over `dim`, as torch.var_mean."""
    x = input
    require_floating("var_mean", x, fix="tg.var_mean(x.float())")  # (var would name var)
    return var(x, dim, unbiased, keepdim, correction=correction), mean(x, dim, keepdim)


def std_mean(input, dim=None, unbiased=True, keepdim=False, *, correction=None):  # noqa: A002
    """(std, mean) over `dim`, as torch.std_mean."""
    x = input
    require_floating("std_mean", x, fix="tg.std_mean(x.float())")
    return std(x, dim, unbiased, keepdim, correction=correction), mean(x, dim, keepdim)


def _logical(op: str, reduce, input, dim, keepdim):  # noqa: A002
    x = input
    dims = normalize_dims(op, dim, x.ndim)
    out = np.asarray(reduce(x.array, axis=dims, keepdims=keepdim))
    return constant(out.astype(np.uint8) if x.dtype == np.uint8 else out, x)  # uint8 stays uint8


def all(input, dim=None, keepdim=False):  # noqa: A001, A002 - PyTorch's names
    """True where every element (over `dim`) is nonzero."""
    return _logical("all", np.all, input, dim, keepdim)


def any(input, dim=None, keepdim=False):  # noqa: A001, A002
    """True where some element (over `dim`) is nonzero."""
    return _logical("any", np.any, input, dim, keepdim)


def count_nonzero(input, dim=None):  # noqa: A002
    """How many elements (over `dim`) are not 0, as int64."""
    x = input
    dims = normalize_dims("count_nonzero", dim, x.ndim)
    return constant(np.count_nonzero(x.array, axis=dims).astype(np.int64), x)


def aminmax(input, *, dim=None, keepdim=False):  # noqa: A002
    """(min, max) over all elements or along `dim`; at ties the gradient is shared equally."""
    x = input
    if dim is not None:
        axis_of("aminmax", x, dim)  # one int, as PyTorch
    return MinMax(amin(x, dim, keepdim), amax(x, dim, keepdim))


# --- order statistics: an element chosen by rank ------------------------------------------------
def _pick(op: str, x, axis, keepdim: bool, choose, k=None) -> ValuesIndices:
    """Values and indices of the element `choose(sorted_values, order)` picks along `axis`:
    `choose` returns, per row, the position in sorted order of the element to take. With `k`
    (the same k-th element for every row, 1-based) a partition finds it instead of a sort
    (`kth_in_order`), where the input holds no NaN."""
    if axis is None:
        return ValuesIndices(
            x * 1 if x.dtype.kind == "f" else x, constant(np.zeros((), np.int64), x)
        )
    if x.shape[axis] == 0:
        raise IndexError(
            f"{op}: dim {axis} of the input of shape {x.shape} is empty: there is no element "
            "to choose"
        )
    position = None if k is None else kth_in_order(x.array, axis, k)
    if position is not None:
        indices = np.expand_dims(position, axis).astype(np.int64)
    else:
        order = argsort_array(x.array, axis, descending=False)
        ranked = np.take_along_axis(x.array, order, axis)
        rank = np.expand_dims(choose(ranked, order), axis)  # position in sorted order, per row
        indices = np.take_along_axis(order, rank, axis).astype(np.int64)
    values = take_along(x, indices, axis)
    if not keepdim:
        values, indices = values.squeeze(axis), indices.squeeze(axis)
    return ValuesIndices(values, constant(indices, x))


def median(input, dim=None, keepdim=False):  # noqa: A002
    """The lower median (the middle element, or the lower of the two middle ones), or with
    `dim` (values, indices) along it. A NaN makes the result NaN.

    Without `dim` the gradient is shared equally by every element equal to the median (as
    PyTorch, and as max shares it among ties); with `dim` it goes to the element at the index.
    """
    x = input
    if dim is None:
        if x.array.size == 0:  # NaN, as PyTorch; x.sum() * 0 keeps the (empty) gradient path
            return x.sum() * 0 + np.nan
        value = median(x.reshape(-1), 0).values
        if x.dtype.kind != "f" or np.isnan(value.array):
            return value
        # the maximum of the elements equal to the median (the others made -inf): Max shares
        # the gradient among them
        ties = x.array == value.array
        return Max.apply(Where.apply(ties, x, np.asarray(-np.inf, x.dtype)), None, False)
    axis = axis_of("median", x, dim)

    def choose(ranked, order):
        n = ranked.shape[axis]
        nans = np.isnan(ranked).sum(axis=axis) if ranked.dtype.kind == "f" else 0
        return np.where(nans > 0, n - nans, (n - 1) // 2)  # NaNs sort last

    middle = None if axis is None else (x.shape[axis] - 1) // 2 + 1
    return _pick("median", x, axis, keepdim, choose, k=middle)


def kthvalue(input, k, dim=-1, keepdim=False):  # noqa: A002
    """(values, indices) of the k-th smallest element along `dim` (k counts from 1)."""
    x = input
    axis = axis_for_k("kthvalue", x, dim, k, smallest=1)

    def choose(ranked, order):
        return np.full(ranked.shape[:axis] + ranked.shape[axis + 1 :], k - 1)

    return _pick("kthvalue", x, axis, keepdim, choose, k=k)


def _mode_ranks(rows: np.ndarray) -> np.ndarray:
    """For sorted (R, n) rows, n >= 1: per row the position of the last element of the
    longest run of equal values (the first such run: the smallest value). All rows at once:
    the runs of the flattened rows (each row begins one), their lengths, each row's longest
    (np.maximum.reduceat over its runs) and the first run of that length. A NaN is a run of
    its own (NaN != NaN)."""
    n_rows, n = rows.shape
    if n_rows == 0:
        return np.zeros(0, np.int64)
    begins = np.ones(rows.shape, dtype=bool)
    np.not_equal(rows[:, 1:], rows[:, :-1], out=begins[:, 1:])
    starts = np.flatnonzero(begins)  # where each run begins, in the flattened rows
    counts = np.diff(np.append(starts, n_rows * n))
    run_row = starts // n
    row_first_run = np.flatnonzero(starts % n == 0)  # one per row
    longest = np.maximum.reduceat(counts, row_first_run)
    best = np.flatnonzero(counts == longest[run_row])
    best_rows = run_row[best]
    first = best[np.append(True, best_rows[1:] != best_rows[:-1])]  # one per row, in order
    return starts[first] % n + counts[first] - 1


def mode(input, dim=-1, keepdim=False):  # noqa: A002
    """(values, indices) of the most frequent value along `dim`; among equally frequent values
    the smallest, and its last occurrence as the index (as PyTorch)."""
    x = input
    axis = axis_of("mode", x, dim)

    def choose(ranked, order):
        rows = np.moveaxis(ranked, axis, -1)
        return _mode_ranks(rows.reshape(-1, rows.shape[-1])).reshape(rows.shape[:-1])

    if axis is None or x.array.size == 0:
        return _pick("mode", x, axis, keepdim, choose)
    # the values sorted (no positions: faster than the stable argsort), the mode's value per
    # row from them, then its last occurrence in the row (the first NaN for a NaN mode, which
    # only a row of NaNs has: NaN's runs are single)
    moved = np.moveaxis(x.array, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    ranked = np.sort(rows, axis=1)
    value = ranked[np.arange(len(rows)), _mode_ranks(ranked)][:, None]
    last = rows.shape[1] - 1 - np.argmax((rows == value)[:, ::-1], axis=1)
    if rows.dtype.kind == "f" and np.isnan(value).any():
        nan_rows = np.flatnonzero(np.isnan(value[:, 0]))
        last[nan_rows] = np.argmax(np.isnan(rows[nan_rows]), axis=1)
    indices = np.expand_dims(last.reshape(moved.shape[:-1]), axis).astype(np.int64)
    values = take_along(x, indices, axis)
    if not keepdim:
        values, indices = values.squeeze(axis), indices.squeeze(axis)
    return ValuesIndices(values, constant(indices, x))
