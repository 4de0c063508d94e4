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
    order = argsort_array(x.array, axis, descending=largest).astype(np.int64)
    order = np.take(order, np.arange(k), axis=axis)
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
