"""Sorting and searching, and `take_along`, the gather they share with the
order-statistic reductions (median, mode, kthvalue, cummax).

No new primitive: NumPy finds the order (`np.argsort`, stable, NaN last as PyTorch), and the
values are read from the input with an index (`GetItem`), so the gradient of each value flows
back to the element it came from (GetItem's backward adds it there). Indices, searches and
`unique` are integer results and never differentiable.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..autograd.node import GraphTensor
from .composite import ValuesIndices, normalize_dims
from .movement import GetItem


def constant(array, like):
    """`array` as a Tensor outside the graph (`like`: any Tensor, to reach the class)."""
    return like._make(np.asarray(array))


def axis_of(op: str, x, dim) -> int | None:
    """`dim` as an axis >= 0 (None for a 0-d tensor, whose dim 0 and -1 name its one value)."""
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{op}: dim must be an int, got {dim!r}")
    dims = normalize_dims(op, dim, x.ndim)
    return dims[0] if dims else None


def axis_for_k(op: str, x, dim, k: int, smallest: int) -> int | None:
    """`dim` as an axis (as `axis_of`), after checking that k elements can be taken along it:
    smallest <= k <= n (topk may take 0 elements, kthvalue counts from 1)."""
    axis = axis_of(op, x, dim)
    n = 1 if axis is None else x.shape[axis]
    if not smallest <= k <= n:
        raise RuntimeError(
            f"{op}: k ({k}) is out of range: dim {dim} of the input of shape {x.shape} has "
            f"{n} elements; k must be from {smallest} to {n}"
        )
    return axis


def take_along(x, indices: np.ndarray, axis: int | None):
    """x's elements at `indices` along `axis` (np.take_along_axis), differentiably: the gradient
    of each taken value is added back at the place it was taken from."""
    if axis is None:  # a 0-d tensor: its only element
        return x
    index = []
    for i, n in enumerate(indices.shape):
        if i == axis:
            index.append(indices)
        else:  # an arange shaped to broadcast along axis i only
            index.append(np.arange(n).reshape((-1,) + (1,) * (indices.ndim - i - 1)))
    return GetItem.apply(x, index=tuple(index))


def argsort_array(a: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Stable order along `axis` (equal elements keep their order; NaN sorts as the largest)."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    # NOTE: stable and descending: sort the reversed array ascending (equal elements come out in
    # reversed order), reverse the result, and map the positions back (n - 1 - i).
    n = a.shape[axis]
    reversed_order = np.argsort(np.flip(a, axis), axis=axis, kind="stable")
    return n - 1 - np.flip(reversed_order, axis)


def _rows(a: np.ndarray, axis: int) -> np.ndarray:
    """a with `axis` last, as (rows, n)."""
    moved = np.moveaxis(a, axis, -1)
    return moved.reshape(-1, moved.shape[-1])


def _ties_taken(rows: np.ndarray, k: int, descending: bool):
    """For (rows, n) without NaN: (before, kth_ties) masks. `before`: the elements that come
    before the k-th (1-based) in stable order; `kth_ties`: the elements equal to the k-th that
    come up to it (equal elements keep their order), so that together they are the first k.

    A partition finds the k-th value v per row (O(n), where a sort is O(n log n)); the others
    are comparisons with v and a running count of the elements equal to it."""
    n = rows.shape[1]
    at = n - k if descending else k - 1
    v = np.partition(rows, at, axis=1)[:, at : at + 1]
    before = rows > v if descending else rows < v
    equal = rows == v
    need = k - np.count_nonzero(before, axis=1)[:, None]  # >= 1: v itself is one of them
    seen = np.cumsum(equal, axis=1)
    equal &= seen <= need
    return before, equal, seen == need


FEW = 4  # up to this k, `first_in_order` takes one maximum (or minimum) at a time


def _by_extremes(rows: np.ndarray, k: int, descending: bool) -> np.ndarray | None:
    """The first k of the stable order of float (rows, n) without NaN, for small k: k passes of
    argmax (argmin), each taking the first largest (smallest) by index and then replacing it
    by -inf (inf) in a copy. None if a taken value is that infinity itself (then an
    earlier replaced element could tie with it)."""
    work = rows.copy()
    fill = -np.inf if descending else np.inf
    pick = np.argmax if descending else np.argmin
    positions = np.empty((len(rows), k), np.int64)
    row_index = np.arange(len(rows))
    for j in range(k):
        positions[:, j] = pick(work, axis=1)
        taken = work[row_index, positions[:, j]]
        if (taken == fill).any():  # maybe an element replaced before
            return None
        work[row_index, positions[:, j]] = fill
    return positions


def first_in_order(a: np.ndarray, axis: int, k: int, descending: bool) -> np.ndarray | None:
    """The first k positions of `argsort_array(a, axis, descending)` along `axis`, by a
    partition and a sort of those k only; None where the partition cannot stand in for the
    sort (a NaN, which sorts last; k not small against the length)."""
    n = a.shape[axis]
    if not 0 < k <= n // 2 or (a.dtype.kind == "f" and np.isnan(a).any()):
        return None
    rows = _rows(a, axis)
    few = k <= FEW and rows.dtype.kind == "f"  # (integers: the partition, exact)
    positions = _by_extremes(rows, k, descending) if few else None
    if positions is not None:
        return np.moveaxis(positions.reshape(np.moveaxis(a, axis, -1).shape[:-1] + (k,)), -1, axis)
    at = n - k if descending else k - 1
    chosen = np.argpartition(rows, at, axis=1)
    positions = chosen[:, at:] if descending else chosen[:, : at + 1]
    kth = np.take_along_axis(rows, chosen[:, at : at + 1], 1)
    if np.count_nonzero(rows == kth) == len(rows):  # no ties with the k-th: the set is right
        positions = np.sort(positions, axis=1)  # index order, for the stable sort below
    else:  # which of the equal ones: the first by index (`_ties_taken`)
        before, ties, _ = _ties_taken(rows, k, descending)
        before |= ties
        positions = np.nonzero(before)[1].reshape(len(rows), k)  # k per row, in index order
    order = argsort_array(np.take_along_axis(rows, positions, 1), 1, descending)
    positions = np.take_along_axis(positions, order, 1)
    moved_shape = np.moveaxis(a, axis, -1).shape[:-1] + (k,)
    return np.moveaxis(positions.reshape(moved_shape), -1, axis)


def kth_in_order(a: np.ndarray, axis: int, k: int) -> np.ndarray | None:
    """Per row along `axis`, the position of the k-th (1-based) element of the stable
    ascending order (the first of equal ones by index), by a partition; shape a's without
    `axis`. None for NaN (see `first_in_order`)."""
    if a.dtype.kind == "f" and np.isnan(a).any():
        return None
    rows = _rows(a, axis)
    _, ties, last = _ties_taken(rows, k, False)
    positions = np.argmax(ties & last, axis=1)  # the last tie taken is the k-th
    return positions.reshape(np.moveaxis(a, axis, -1).shape[:-1])


def sort(input, dim=-1, descending=False, stable=False):  # noqa: A002 - PyTorch's names
    """(values, indices): input sorted along `dim`, and where each value came from.

    Equal elements keep their original order (a stable sort, whatever `stable` says).
    """
    x = input
    axis = axis_of("sort", x, dim)
    if axis is None:
        return ValuesIndices(x, constant(np.zeros((), np.int64), x))
    order = argsort_array(x.array, axis, descending).astype(np.int64)
    return ValuesIndices(take_along(x, order, axis), constant(order, x))


def argsort(input, dim=-1, descending=False, stable=False):  # noqa: A002
    """The indices that sort input along `dim` (stable)."""
    return sort(input, dim, descending, stable).indices


def msort(input):  # noqa: A002
    """input sorted along its first dim."""
    return sort(input, 0).values


def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002 - PyTorch's names
    """(values, indices) of the k largest (or, with largest=False, smallest) elements along
    `dim`, largest first. Among equal elements the earlier ones are taken first."""
    x = input
    axis = axis_for_k("topk", x, dim, k, smallest=0)
    if axis is None:
        return ValuesIndices(x, constant(np.zeros((), np.int64), x))
    order = first_in_order(x.array, axis, k, descending=largest)
    if order is None:
        order = argsort_array(x.array, axis, descending=largest)
        order = np.take(order, np.arange(k), axis=axis)
    order = order.astype(np.int64)
    return ValuesIndices(take_along(x, order, axis), constant(order, x))


def searchsorted(
    sorted_sequence,
    input,
    *,
    out_int32=False,
    right=False,
    side=None,
    sorter=None,  # noqa: A002
):
    """For each value, the index where it would go in `sorted_sequence` (sorted along its last
    dim) to keep it sorted: before equal entries, or after them with `right=True`/`side="right"`.
    A sequence with more dims searches each of its rows with the matching row of values."""
    sequence = np.asarray(
        sorted_sequence.array if hasattr(sorted_sequence, "array") else sorted_sequence
    )
    values = np.asarray(input.array if hasattr(input, "array") else input)
    if side is not None and side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if side == "left" and right:
        raise RuntimeError("searchsorted: side='left' contradicts right=True; give one of them")
    side = side or ("right" if right else "left")
    if sorter is not None:
        sorter = np.asarray(sorter.array if isinstance(sorter, GraphTensor) else sorter)
        sequence = np.take_along_axis(sequence, sorter, axis=-1)
    dtype = np.int32 if out_int32 else np.int64
    if sequence.ndim == 1:
        return constant(np.searchsorted(sequence, values, side=side).astype(dtype), input)
    if sequence.shape[:-1] != values.shape[:-1]:
        raise RuntimeError(
            f"searchsorted: the leading dims of sorted_sequence {sequence.shape} and of the "
            f"values {values.shape} must match (all but the last); or give a 1-D sequence"
        )
    rows = sequence.reshape(-1, sequence.shape[-1])
    queries = values.reshape(-1, values.shape[-1])
    out = np.stack([np.searchsorted(r, q, side=side) for r, q in zip(rows, queries)])
    return constant(out.reshape(values.shape).astype(dtype), input)


def bucketize(input, boundaries, *, out_int32=False, right=False):  # noqa: A002
    """The bucket of each value between the sorted 1-D `boundaries`: i with
    boundaries[i-1] < x <= boundaries[i] (with right=True: boundaries[i-1] <= x < boundaries[i])."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"bucketize: boundaries must be 1-D, got shape {boundaries.shape}")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The distinct values (sorted), and optionally where each input element went
    (`inverse`, of the input's shape) and how often each value occurs (`counts`). With `dim`,
    the distinct slices along that dim."""
    x = input
    axis = None if dim is None else normalize_dims("unique", dim, x.ndim)[0]
    values, inverse, counts = np.unique(  # NaNs kept apart: NaN != NaN, as PyTorch
        x.array, return_inverse=True, return_counts=True, axis=axis, equal_nan=False
    )
    inverse = inverse.reshape(x.shape if axis is None else (x.shape[axis],))
    out = [constant(values, x)]
    if return_inverse:
        out.append(constant(inverse.astype(np.int64), x))
    if return_counts:
        out.append(constant(counts.astype(np.int64), x))
    return out[0] if len(out) == 1 else tuple(out)


class MinMax(NamedTuple):
    """What `aminmax` returns, as in PyTorch: `low, high = x.aminmax()`."""

    min: object
    max: object
