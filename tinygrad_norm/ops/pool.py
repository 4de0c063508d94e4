"""Pooling and resampling, composed from the windows of `conv.py` and matrix products.

- max pooling: the windows (padded with -inf), the largest element of each picked by a one-hot
  mask of its argmax. The gradient is routed through that mask: each window's gradient goes to
  its maximum alone (the first one on ties, as PyTorch), and overlapping windows add up.
- average pooling: the windows summed, divided by how many elements each window counts.
- adaptive pooling and interpolation: each output axis is a weighted sum of the input axis, a
  constant (out, in) matrix applied along that axis, one axis at a time.

Shapes: x (N, C, *S) -> (N, C, *O), with any number of spatial axes.
"""

from __future__ import annotations

import math

import numpy as np

from ..autograd.function import Function
from .composite import as_tensor
from .conv import Unfold, Windows, fold, in_memory_order_of, window_view
from .shape import cat
from .xp import operands


class MaxPool(Function):
    """y[n, c, o] = max over j of windows[n, c, j, o], the windows of x padded with -inf, j
    running over the k = prod(kernel) elements of window o. One node.

    Forward: a running maximum over the k kernel offsets, each a strided view of x that holds
    the j-th element of every window (`window_view`): k vectorised passes over the output,
    no copy of the windows. It notes j* = the index of each window's maximum: the first on
    ties, and the last NaN when there is one, as PyTorch (`_window_max`).
    Backward: y is windows[j*], so dy/dwindows[j] is 1 at j* and 0 elsewhere: grad_windows =
    grad_out where j == j* else 0, folded back onto x (col2im, `fold`), where overlapping
    windows add up. Linear in grad_out; the same lines run on arrays or, under create_graph,
    on Tensors (Mul by the constant mask, Fold), so it is differentiable again.
    The composed form, `max_pool_reference` (Unfold, masked_fill, sum: three nodes and a
    masked copy of every window) is the test reference; the running maximum takes no argmax
    over a copy of the windows (what each was worth on the course LeNet: docs/speed.md).

    >>> import tinygrad_norm as tg
    >>> from tinygrad_norm.ops.conv import windows
    >>> g = windows("max_pool2d", (2, 2), (2, 2), (2, 2), (1, 1), ((0, 0), (0, 0)))
    >>> x = tg.tensor([[[[1.0, 4.0], [3.0, 2.0]]]], requires_grad=True)
    >>> MaxPool.apply(x, g).sum().backward()
    >>> x.grad.tolist()
    [[[[0.0, 1.0], [0.0, 0.0]]]]
    """

    formula = "grad_x = fold(grad_out at each window's first maximum, 0 elsewhere)"

    @staticmethod
    def forward(ctx, x, geometry: Windows):
        y, best = _window_max(x, geometry)
        if ctx.needs_input_grad[0]:
            ctx.best = best  # (N, C, *O): j* of each window
        return y

    @staticmethod
    def backward(ctx, grad_output):
        geometry = ctx.geometry
        (grad_output,) = operands(grad_output)
        grad_output = in_memory_order_of(ctx.best, grad_output)
        n, c, k = *grad_output.shape[:2], math.prod(geometry.kernel)
        chosen = _chosen(ctx.best, k)  # (N, C, k, *O)
        grad_windows = grad_output.reshape((n, c, 1) + geometry.out) * chosen  # (N, C, k, *O)
        return fold(grad_windows.reshape((n, c) + geometry.kernel + geometry.out), geometry), None


def _window_max(x: np.ndarray, geometry: Windows) -> tuple:
    """(y, best): each window's maximum and its index j* (row-major over the kernel), the
    first one on ties; a NaN wins (the last NaN), as in PyTorch's loop
    `if (val > maxval || isnan(val))`. One pass per kernel offset j, over strided views."""
    every = (slice(None), slice(None))
    windows = window_view(x, geometry, -np.inf)  # (N, C, *K, *O), no copy
    offsets = list(np.ndindex(*geometry.kernel))
    y = windows[every + offsets[0]].copy(order="K")  # (N, C, *O), x's memory order
    best = np.zeros_like(y, dtype=np.min_scalar_type(len(offsets) - 1))
    for j, offset in enumerate(offsets[1:], start=1):
        candidate = windows[every + offset]
        better = np.greater(candidate, y)
        better |= np.isnan(candidate)
        np.maximum(y, candidate, out=y)  # NaN propagates
        # NOTE: j only grows, so "best = j where better" is a maximum (a cheaper pass than where)
        np.maximum(best, better * best.dtype.type(j), out=best)
    return y, best


def _chosen(best: np.ndarray, k: int) -> np.ndarray:
    """The one-hot (N, C, k, *O) mask of each window's maximum j* = best."""
    ks = np.arange(k, dtype=best.dtype).reshape((1, 1, k) + (1,) * (best.ndim - 2))
    return ks == best[:, :, None]


def max_pool(x, geometry: Windows, return_indices: bool = False):
    """The largest element of each window (one `MaxPool` node), and with `return_indices` its
    flat index in the input's spatial axes.

    Returns values (N, C, *O), and (values, indices (N, C, *O) int64 array) with return_indices.
    """
    values = MaxPool.apply(x, geometry)
    if not return_indices:
        return values
    return values, _flat_indices(_window_max(x.array, geometry)[1], geometry)


def max_pool_reference(x, geometry: Windows):
    """The largest element of each window composed from primitives: the windows (Unfold), a
    one-hot mask of each argmax, masked_fill and a sum (autograd routes the gradient through
    the mask). The test reference of `MaxPool`."""
    n, c = x.shape[:2]
    k = math.prod(geometry.kernel)
    cols = Unfold.apply(x, geometry, -np.inf).reshape((n, c, k) + geometry.out)  # (N, C, k, *O)
    best = np.argmax(cols.array, axis=2)  # (N, C, *O): the first maximum of each window
    return cols.masked_fill(~_chosen(best, k), 0.0).sum(dim=2)


def _flat_indices(best: np.ndarray, geometry: Windows) -> np.ndarray:
    """Window o's element j sits at input position o·stride + j·dilation - low pad."""
    offsets = np.unravel_index(best, geometry.kernel)
    position = []
    for axis, (j, s, d, (lo, _)) in enumerate(
        zip(offsets, geometry.stride, geometry.dilation, geometry.pads)
    ):
        o = np.arange(geometry.out[axis]).reshape((-1,) + (1,) * (len(geometry.out) - axis - 1))
        position.append(o * s + j * d - lo)
    return np.ravel_multi_index(tuple(position), geometry.size).astype(np.int64)


def avg_pool(x, geometry: Windows, padding: tuple, count_include_pad=True, divisor_override=None):
    """The sum of each window divided by its count.

    The count is PyTorch's: the window's elements inside the input and its symmetric
    `padding` when count_include_pad (ceil_mode's extra padding never counts), else only
    those inside the input; `divisor_override` replaces it.
    """
    n, c = x.shape[:2]
    k = math.prod(geometry.kernel)
    cols = Unfold.apply(x, geometry).reshape((n, c, k) + geometry.out)  # (N, C, k, *O)
    total = cols.sum(dim=2)  # (N, C, *O)
    if divisor_override:
        return total / divisor_override
    counts = np.ones((), dtype=np.int64)
    for size, kernel, s, p, o in zip(
        geometry.size, geometry.kernel, geometry.stride, padding, geometry.out
    ):
        start = np.arange(o) * s - p
        end = np.minimum(start + kernel, size + p)
        if not count_include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, size)
        counts = np.multiply.outer(counts, end - start)
    return total / as_tensor(counts.astype(x.dtype), x)


def apply_along(x, matrix: np.ndarray, axis: int):
    """x with `axis` replaced by matrix @ (that axis): matrix (out, in) as a constant."""
    moved = x.transpose(axis, -1)  # (..., in)
    out = moved @ as_tensor(np.ascontiguousarray(matrix.T, dtype=x.dtype), x)  # (..., out)
    return out.transpose(axis, -1)


def adaptive_avg_matrix(size: int, out: int) -> np.ndarray:
    """(out, size): row i averages input [floor(i·S/O), ceil((i+1)·S/O)), as PyTorch."""
    start = np.arange(out) * size // out
    end = -(-(np.arange(out) + 1) * size // out)
    cols = np.arange(size)
    inside = (cols >= start[:, None]) & (cols < end[:, None])
    return inside / (end - start)[:, None]


def adaptive_max(x, out: tuple):
    """Adaptive max pooling over the last len(out) axes: windows of varying sizes.

    Each axis gets an (O, longest window) index table; short windows point past the end, at a
    -inf appended to the axis, so they never win. Returns (values, flat indices array).
    """
    n_space = len(out)
    size = x.shape[2:]
    tables = []
    for axis, (s, o) in enumerate(zip(size, out)):
        start = np.arange(o) * s // o
        end = -(-(np.arange(o) + 1) * s // o)
        j = np.arange((end - start).max())
        table = np.where(start[:, None] + j < end[:, None], start[:, None] + j, s)  # (O, w)
        tables.append(table)
        pad_shape = x.shape[: 2 + axis] + (1,) + x.shape[3 + axis :]
        x = cat([x, as_tensor(np.full(pad_shape, -np.inf, dtype=x.dtype), x)], dim=2 + axis)
    index = [slice(None), slice(None)]
    for axis, table in enumerate(tables):  # table i broadcast over axes (O_i, w_i)
        shape = [1] * (2 * n_space)
        shape[2 * axis : 2 * axis + 2] = table.shape
        index.append(table.reshape(shape))
    win = x[tuple(index)]  # (N, C, O1, w1, O2, w2, ...)
    order = (0, 1) + tuple(range(2, 2 + 2 * n_space, 2)) + tuple(range(3, 2 + 2 * n_space, 2))
    win = win.permute(*order)  # (N, C, *O, *w)
    widths = tuple(t.shape[1] for t in tables)
    win = win.reshape(win.shape[: 2 + n_space] + (math.prod(widths),))  # (N, C, *O, w1·w2·...)
    best = np.argmax(win.array, axis=-1)
    chosen = np.arange(win.shape[-1]) == best[..., None]
    values = win.masked_fill(~chosen, 0.0).sum(dim=-1)
    offsets = np.unravel_index(best, widths)
    position = tuple(
        tables[a][np.arange(out[a]).reshape((-1,) + (1,) * (n_space - a - 1)), offsets[a]]
        for a in range(n_space)
    )
    return values, np.ravel_multi_index(position, size).astype(np.int64)


def resample_matrix(
    size: int, out: int, mode: str, align_corners: bool | None, scale: float | None
) -> np.ndarray:
    """(out, size): how interpolate's output positions mix the input's, along one axis.

    `scale` is the input step per output step (in / out, or 1 / scale_factor when given).
    nearest: src = min(floor(dst · scale), S - 1); nearest-exact: floor((dst + 0.5) · scale).
    linear: src = (dst + 0.5) · scale - 0.5 clamped at 0, or with align_corners
    dst · (S - 1) / (O - 1); the output is (1 - t) · x[floor(src)] + t · x[floor(src) + 1].
    """
    dst = np.arange(out, dtype=np.float64)
    matrix = np.zeros((out, size))
    rows = np.arange(out)
    if mode in ("nearest", "nearest-exact"):
        step = scale if scale is not None else size / out
        src = np.floor((dst + (0.5 if mode == "nearest-exact" else 0.0)) * step)
        matrix[rows, np.minimum(src.astype(np.int64), size - 1)] = 1.0
        return matrix
    if align_corners:
        src = dst * ((size - 1) / (out - 1) if out > 1 else 0.0)
    else:
        step = scale if scale is not None else size / out
        src = np.maximum((dst + 0.5) * step - 0.5, 0.0)
    low = np.minimum(np.floor(src).astype(np.int64), size - 1)
    high = np.minimum(low + 1, size - 1)
    t = src - low
    np.add.at(matrix, (rows, low), 1.0 - t)
    np.add.at(matrix, (rows, high), t)
    return matrix
