"""fmax, fmin, diff, quantile and unique_consecutive, composed from the primitives.

fmax(a, b) is maximum(a, b) except where one side is NaN: then the other side (NumPy's fmax,
PyTorch's too). diff(x, n, dim) is the n-th forward difference x[i + 1] - x[i] along dim.
"""

from __future__ import annotations

import numpy as np

from .composite import maximum, minimum, normalize_dims, promote, where
from .shape import cat, stack
from .sort import sort


def fmax(input, other):  # noqa: A002 - PyTorch's names
    """Elementwise maximum that ignores a NaN on one side (NaN only where both are NaN)."""
    a, b = promote(input, other)
    both = maximum(a, b)
    return where(np.isnan(a.array), b, where(np.isnan(b.array), a, both))


def fmin(input, other):  # noqa: A002
    """Elementwise minimum that ignores a NaN on one side."""
    a, b = promote(input, other)
    both = minimum(a, b)
    return where(np.isnan(a.array), b, where(np.isnan(b.array), a, both))


def diff(input, n=1, dim=-1, prepend=None, append=None):  # noqa: A002
    """out[i] = x[i + 1] - x[i] along dim, n times; prepend/append are joined on first."""
    x = input
    if x.ndim == 0:
        raise RuntimeError("diff: expected at least a 1-dimensional tensor, got a 0-d one")
    d = dim + x.ndim if dim < 0 else dim
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = cat(parts, d)
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        x = x.narrow(d, 1, length - 1) - x.narrow(d, 0, length - 1)
    return x


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):  # noqa: A002
    """The q-th quantiles along dim (of the flattened tensor without dim): the sorted values
    at position q (n - 1), between two neighbours by `interpolation` (linear, lower, higher,
    midpoint, nearest). A 1-D q puts its quantiles in a new first dimension."""
    x = input
    if x.dtype.kind != "f":
        raise RuntimeError(f"quantile: input must be a float tensor, got {x.dtype}")
    qs = np.asarray(getattr(q, "array", q), dtype=np.float64)
    if qs.ndim > 1 or ((qs < 0) | (qs > 1)).any():
        raise RuntimeError(f"quantile: q must be a number or 1-D tensor in [0, 1], got {q}")
    if dim is None:
        x, dim = x.reshape(-1), 0
    d = dim + x.ndim if dim < 0 else dim
    values = sort(x, d)[0]
    n = x.shape[d]
    position = qs.reshape(-1) * (n - 1)
    low, high = np.floor(position).astype(np.int64), np.ceil(position).astype(np.int64)
    if interpolation == "lower":
        high = low
    elif interpolation == "higher":
        low = high
    elif interpolation == "nearest":  # round half to even, as PyTorch
        low = high = np.round(position).astype(np.int64)
    elif interpolation not in ("linear", "midpoint"):
        raise ValueError(f"quantile: unknown interpolation {interpolation!r}")
    weight = 0.5 * (low != high) if interpolation == "midpoint" else position - low
    out = []
    for lo, hi, w in zip(low, high, weight):
        a, b = values.narrow(d, int(lo), 1), values.narrow(d, int(hi), 1)
        picked = a if lo == hi else a + (b - a) * float(w)
        out.append(picked if keepdim else picked.squeeze(d))
    return out[0] if qs.ndim == 0 else stack(out, 0)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """Each run of equal consecutive values once (of the flattened tensor), or with `dim` each
    run of equal consecutive slices along `dim` once; optionally where each element (slice)
    went and each run's length. NaN never equals NaN, so NaNs are never merged (as PyTorch)."""
    x = input
    if dim is None:
        rows, shape = x.array.reshape(-1, 1), x.shape  # every element is a "slice"
    else:
        if x.ndim == 0:
            raise IndexError(f"unique_consecutive: dim {dim} given, but the tensor is 0-d")
        (d,) = normalize_dims("unique_consecutive", dim, x.ndim)
        if 0 in x.shape[:d] + x.shape[d + 1 :]:  # PyTorch's RuntimeError
            raise RuntimeError(
                f"unique_consecutive: the input of shape {x.shape} has a size-0 axis other than "
                f"dim {dim}, so it has no slices to compare; select that axis or drop it"
            )
        moved = np.moveaxis(x.array, d, 0)
        rows = moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:])))
        shape = (x.shape[d],)
    starts = np.ones(rows.shape[0], dtype=bool)
    starts[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    if dim is None:
        values = rows[starts, 0]
    else:
        values = np.moveaxis(moved[starts], 0, d)
    out = [x._make(np.ascontiguousarray(values))]
    if return_inverse:
        out.append(x._make((np.cumsum(starts) - 1).reshape(shape).astype(np.int64)))
    if return_counts:
        edges = np.append(np.flatnonzero(starts), rows.shape[0])
        out.append(x._make(np.diff(edges).astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)
