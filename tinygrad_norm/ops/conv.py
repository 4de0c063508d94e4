"""Convolution as windows times a matrix: two movement primitives and two GEMMs.

`Unfold` (im2col) copies every window of the input into a column; `Fold` (col2im) is its
adjoint: it adds every column back where its window came from. Each is the other's backward,
and both are linear, so every derivative of any order is again an Unfold or a Fold.

A convolution is then one matrix product per group, and its gradients are two more:

    cols   = unfold(x)                       (N, C·k, L)   k = kernel elements, L = windows
    y      = W @ cols                        (N, O, L)     W is the weight as (O, C·k)
    grad_W = sum_n grad_y[n] @ cols[n]^T     (O, C·k)      MatMul's gradient for its left side
    grad_x = fold(W^T @ grad_y)              (N, C, *S)    MatMul's gradient for its right side,
                                                           then Unfold's own: col2im
Composed from Unfold and MatMul (`fused/conv.py`'s `conv_reference`), autograd derives the two
gradient lines; the convolution node itself (`fused/conv.py`'s `Conv`) writes them out, with
the whole batch's columns side by side so that each line is one GEMM.

A transposed convolution is the gradient of a convolution with respect to its input, used as a
layer: `conv_transpose(x, W) = fold(W^T @ x)` (`conv_transpose`), so its own gradients are
again an unfold and two GEMMs.

Shapes here are channels-first with any number of spatial axes (1-d, 2-d, 3-d alike):
x (N, C, *S), windows (N, C, *K, *O): K the kernel's sizes, O the number of windows per axis.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..autograd.function import Function


@dataclass(frozen=True)
class Windows:
    """Where the windows of a convolution or pooling lie, per spatial axis.

    Window o along an axis covers the padded positions o·stride + j·dilation, j < kernel; the
    input's position i is padded position i + pads[axis][0]. `out` is the number of windows.
    """

    size: tuple  # S: the input's spatial sizes
    kernel: tuple  # K
    stride: tuple
    dilation: tuple
    pads: tuple  # ((low, high), ...): zeros (or `fill`) added before and after each axis
    out: tuple  # O

    @property
    def span(self) -> tuple:
        """How many padded positions one window covers: dilation·(kernel - 1) + 1."""
        return tuple(d * (k - 1) + 1 for k, d in zip(self.kernel, self.dilation))


def window_count(size: int, span: int, stride: int, low: int, high: int, ceil_mode=False) -> int:
    """Windows along one axis: floor((S + low + high - span) / stride) + 1 (or ceil).

    With ceil_mode (pooling), a last window that would start in the right padding is dropped,
    as PyTorch does.
    """
    room = size + low + high - span
    count = (-(-room // stride) if ceil_mode else room // stride) + 1
    if ceil_mode and (count - 1) * stride >= size + low:
        count -= 1
    return count


def windows(op: str, size, kernel, stride, dilation, pads, *, ceil_mode=False, out=None) -> Windows:
    """The `Windows` of an input of spatial `size`; a clear error when no window fits.

    `out` fixes the number of windows (a transposed convolution knows it); otherwise it is
    computed, and the high padding is extended so that ceil_mode's last window fits.
    """
    size, kernel = tuple(size), tuple(kernel)
    spans = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    if out is None:
        out = tuple(
            window_count(n, sp, s, lo, hi, ceil_mode)
            for n, sp, s, (lo, hi) in zip(size, spans, stride, pads)
        )
        if any(o < 1 for o in out):
            padded = tuple(n + lo + hi for n, (lo, hi) in zip(size, pads))
            raise RuntimeError(
                f"{op}: the padded input has spatial size {padded}, smaller than the kernel's "
                f"span {spans} (kernel {kernel}, dilation {tuple(dilation)}), so no window fits; "
                "use a smaller kernel or dilation, more padding, or a larger input"
            )
    # the high padding must reach the end of the last window (ceil_mode may need more)
    pads = tuple(
        (lo, max(hi, (o - 1) * s + sp - n - lo))
        for n, sp, s, (lo, hi), o in zip(size, spans, stride, pads, out)
    )
    return Windows(size, kernel, tuple(stride), tuple(dilation), pads, tuple(out))


class Unfold(Function):
    """im2col: out[n, c, *j, *o] = padded(x)[n, c, *(o·stride + j·dilation)].

    x (N, C, *S) -> (N, C, *K, *O): each window of x copied out, zero-padded (or `fill`, e.g.
    -inf for max pooling) outside the input. A copy through a strided view: no loop.
    Each input element appears in every window that covers it, so its gradient is the sum of
    the gradients of all its copies: exactly what `Fold` computes.
    """

    formula = "grad_x = fold(grad_out): every window's gradient added back where it was read"

    @staticmethod
    def forward(ctx, x, geometry: Windows, fill=0.0):
        return unfold_array(x, geometry, fill)

    @staticmethod
    def backward(ctx, grad_output):
        return Fold.apply(grad_output, ctx.geometry), None  # (no gradient for geometry, fill)


def unfold_array(x: np.ndarray, geometry: Windows, fill=0.0) -> np.ndarray:
    """`Unfold`'s forward on an array: the windows of x copied out, (N, C, *K, *O)."""
    return np.ascontiguousarray(window_view(x, geometry, fill))


def window_view(x: np.ndarray, geometry: Windows, fill=0.0) -> np.ndarray:
    """The windows of x (N, C, *S) as a read-only strided view (N, C, *K, *O), no copy (but
    of the padded x, when there is padding): view[n, c, *j, *o] = padded(x)[n, c, *(o·stride +
    j·dilation)]. The axes may be permuted before copying it out (the convolution does). The
    padded copy keeps x's memory order (np.pad would make it row-major)."""
    n_space = len(geometry.size)
    if any(lo or hi for lo, hi in geometry.pads):
        padded = tuple(n + lo + hi for n, (lo, hi) in zip(geometry.size, geometry.pads))
        inside = tuple(slice(lo, lo + n) for n, (lo, _) in zip(geometry.size, geometry.pads))
        x_padded = np.full_like(x, fill, shape=x.shape[:2] + padded)  # x's memory order
        x_padded[(slice(None), slice(None)) + inside] = x
        x = x_padded
    space_strides = x.strides[2 : 2 + n_space]
    return np.lib.stride_tricks.as_strided(
        x,
        shape=x.shape[:2] + geometry.kernel + geometry.out,
        strides=x.strides[:2]
        + tuple(st * d for st, d in zip(space_strides, geometry.dilation))
        + tuple(st * s for st, s in zip(space_strides, geometry.stride)),
        writeable=False,
    )


def kernel_offsets(geometry: Windows):
    """For each kernel offset j (row-major): (j, the slices of the padded input that the
    j-th elements of all windows read, o·stride + j·dilation for every window o)."""
    for offset in np.ndindex(*geometry.kernel):
        yield (
            offset,
            tuple(
                slice(j * d, j * d + s * (o - 1) + 1, s)
                for j, d, s, o in zip(offset, geometry.dilation, geometry.stride, geometry.out)
            ),
        )


class Fold(Function):
    """col2im: out = zeros (N, C, *S), with each column cols[n, c, *j, *o] added at position
    o·stride + j·dilation - low pad (positions in the padding are dropped).

    The adjoint of `Unfold`: sum(fold(c) * x) = sum(c * unfold(x)) for any c, x. So its
    gradient is Unfold, and Unfold's gradient is Fold. One vectorised addition per kernel
    offset j (k of them), never a loop over windows: windows overlap when stride < span, and
    the additions of one offset never do.
    """

    formula = "grad_cols = unfold(grad_out): every window read back from the gradient"

    @staticmethod
    def forward(ctx, cols, geometry: Windows):
        return fold_array(cols, geometry)

    @staticmethod
    def backward(ctx, grad_output):
        return Unfold.apply(grad_output, ctx.geometry), None


def fold(cols, geometry: Windows):
    """col2im on an array (`fold_array`) or on a Tensor (`Fold`, recorded)."""
    return (
        fold_array(cols, geometry) if isinstance(cols, np.ndarray) else Fold.apply(cols, geometry)
    )


def fold_array(cols: np.ndarray, geometry: Windows) -> np.ndarray:
    """`Fold`'s forward on an array: (N, C, *K, *O) -> (N, C, *S), any strides (a permuted
    view is fine). One vectorised pass per kernel offset: an addition where windows overlap,
    a plain copy where they cannot (stride >= span on every axis, e.g. 2x2 pooling). The
    image's memory keeps the order of cols' batch, channel and window axes, so each pass reads
    and writes along matching memory (the convolution's batch-last columns)."""
    every = (slice(None), slice(None))
    padded = tuple(n + lo + hi for n, (lo, hi) in zip(geometry.size, geometry.pads))
    out = _zeros_in_memory_order_of(cols, cols.shape[:2] + padded)
    overlap = any(s < span for s, span in zip(geometry.stride, geometry.span))
    for offset, target in kernel_offsets(geometry):
        if overlap:
            out[every + target] += cols[every + offset]
        else:
            out[every + target] = cols[every + offset]
    inside = tuple(slice(lo, lo + n) for n, (lo, _) in zip(geometry.size, geometry.pads))
    return out[every + inside]


def in_memory_order_of(like: np.ndarray, a):
    """The array `a` with its axes in the memory order of `like`'s (a copy if they differ; a
    Tensor as it is). NOTE: a NumPy pass over arrays of different memory orders walks one of
    them against its grain; one copy first is cheaper (2x2 max pooling's backward in the
    course LeNet, with a row-major gradient and batch-last windows)."""
    if not isinstance(a, np.ndarray) or _axis_order(a) == _axis_order(like):
        return a
    out = np.empty_like(like, dtype=a.dtype)
    out[...] = a
    return out


def _axis_order(a: np.ndarray) -> list:
    """The axes of `a` from the outermost in memory (largest stride) to the innermost."""
    return sorted(range(a.ndim), key=lambda i: -a.strides[i])


def _zeros_in_memory_order_of(cols: np.ndarray, shape: tuple) -> np.ndarray:
    """Zeros of `shape` (N, C, *S) whose memory order of axes is that of cols' (N, C, *O)."""
    n_space = len(shape) - 2
    strides = cols.strides[:2] + cols.strides[2 + n_space :]
    order = sorted(range(len(shape)), key=lambda a: -strides[a])  # outermost axis first
    out = np.zeros(tuple(shape[a] for a in order), dtype=cols.dtype)
    return out.transpose(np.argsort(order))


def conv_transpose(x, weight, bias, geometry: Windows, groups: int):
    """y = fold(W^T @ x) (+ bias): the gradient of `conv` with respect to its input.

    x (N, C_in, *S_in), weight (C_in, C_out/groups, *K) (PyTorch's layout, the same weight a
    convolution from C_out to C_in channels would have), `geometry` the windows of the
    convolution that maps the output y (N, C_out, *geometry.size) back to x: geometry.out is
    S_in. Each input element scatters a kernel-shaped stamp, weighted by W, into y.
    """
    n, c_in = x.shape[:2]
    c_out = weight.shape[1] * groups
    k = math.prod(geometry.kernel)
    xs = x.reshape(n, groups, c_in // groups, math.prod(geometry.out))  # (N, g, C_in/g, L)
    w = weight.reshape(groups, c_in // groups, c_out // groups * k)  # (g, C_in/g, C_out/g·k)
    cols = w.transpose(-1, -2) @ xs  # (N, g, C_out/g·k, L)
    y = Fold.apply(cols.reshape((n, c_out) + geometry.kernel + geometry.out), geometry)
    if bias is not None:
        y = y + bias.reshape((c_out,) + (1,) * len(geometry.out))
    return y  # (N, C_out, *S_out)
