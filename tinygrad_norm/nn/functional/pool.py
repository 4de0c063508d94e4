"""nn.functional's pooling and resampling, with PyTorch's arguments.

The maths lives in `ops/pool.py` (max and average pooling over the windows of `ops/conv.py`,
adaptive pooling and interpolation as per-axis matrices); this file turns PyTorch's arguments
into those windows and matrices. Inputs are channels-first, (N, C, L) or (N, C, H, W); an
unbatched (C, ...) input gives an unbatched output, as in PyTorch.
"""

from __future__ import annotations

import math

import numpy as np

from ...functions.creation import as_tensor
from ...ops import conv as conv_ops
from ...ops import pool as pool_ops
from ...tensor import Tensor
from .conv import _batched, _ntuple, _unbatch

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "interpolate",
    "max_pool1d",
    "max_pool2d",
    "pixel_shuffle",
    "pixel_unshuffle",
]


# --- pooling ------------------------------------------------------------------------------------
def _pool_windows(op, x, n_space, kernel_size, stride, padding, dilation, ceil_mode):
    kernel = _ntuple(op, "kernel_size", kernel_size, n_space)
    stride = kernel if stride is None or stride == () else _ntuple(op, "stride", stride, n_space)
    padding = _ntuple(op, "padding", padding, n_space)
    dilation = _ntuple(op, "dilation", dilation, n_space)
    for p, k, d in zip(padding, kernel, dilation):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(
                f"{op}: padding should be at most half of the effective kernel size, but got "
                f"padding={padding}, kernel_size={kernel} and dilation={dilation}"
            )
    pads = tuple((p, p) for p in padding)
    geometry = conv_ops.windows(
        op, x.shape[2:], kernel, stride, dilation, pads, ceil_mode=ceil_mode
    )
    return geometry, padding


def _max_pool(
    op, n_space, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
):  # noqa: A002
    x, unbatched = _batched(op, input, n_space, pooling=True)
    geometry, _ = _pool_windows(op, x, n_space, kernel_size, stride, padding, dilation, ceil_mode)
    if not return_indices:
        return _unbatch(pool_ops.max_pool(x, geometry), unbatched)
    values, indices = pool_ops.max_pool(x, geometry, return_indices=True)
    return _unbatch(values, unbatched), _unbatch(Tensor(indices), unbatched)


def max_pool1d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):  # noqa: A002 - PyTorch's names
    """The largest element of each window of length kernel_size (stride defaults to it).

    input (N, C, L) -> (N, C, L_out). The gradient reaches only each window's maximum.
    return_indices also gives each maximum's position along L (for max_unpool).
    """
    return _max_pool(
        "max_pool1d", 1, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
    )


def max_pool2d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):  # noqa: A002 - PyTorch's names
    """The largest element of each kH x kW window: input (N, C, H, W) -> (N, C, H_out, W_out).

    H_out = floor((H + 2p - d(kH - 1) - 1) / s) + 1 (ceil with ceil_mode); padding counts as
    -inf. The gradient of each window goes to its maximum alone (the first, on ties).
    return_indices also gives each maximum's flat index h·W + w in its input plane.

    >>> import tinygrad_norm as tg
    >>> max_pool2d(tg.arange(16.0).reshape(1, 1, 4, 4), 2).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
    """
    return _max_pool(
        "max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
    )


def _avg_pool(
    op, n_space, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
):  # noqa: A002
    x, unbatched = _batched(op, input, n_space, pooling=True)
    geometry, padding = _pool_windows(op, x, n_space, kernel_size, stride, padding, 1, ceil_mode)
    y = pool_ops.avg_pool(x, geometry, padding, count_include_pad, divisor_override)
    return _unbatch(y, unbatched)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):  # noqa: A002 - PyTorch's names
    """The mean of each window of length kernel_size: input (N, C, L) -> (N, C, L_out).

    count_include_pad: whether the zero padding counts in each window's mean.
    """
    return _avg_pool(
        "avg_pool1d", 1, input, kernel_size, stride, padding, ceil_mode, count_include_pad, None
    )


def avg_pool2d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):  # noqa: A002
    """The mean of each kH x kW window: input (N, C, H, W) -> (N, C, H_out, W_out).

    Each window's sum is divided by its size, counting the zero padding when
    count_include_pad (default), or by divisor_override when given.

    >>> import tinygrad_norm as tg
    >>> avg_pool2d(tg.arange(16.0).reshape(1, 1, 4, 4), 2).tolist()
    [[[[2.5, 4.5], [10.5, 12.5]]]]
    """
    return _avg_pool(
        "avg_pool2d",
        2,
        input,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
    )


def _output_size(op: str, x, output_size, n_space: int) -> tuple:
    if isinstance(output_size, (int, np.integer)) or output_size is None:
        output_size = (output_size,) * n_space
    output_size = tuple(output_size)
    if len(output_size) != n_space:
        raise TypeError(f"{op}: output_size must be an int or {n_space} ints, got {output_size}")
    return tuple(n if o is None else int(o) for o, n in zip(output_size, x.shape[2:]))


def _adaptive_avg(op, n_space, input, output_size):  # noqa: A002
    x, unbatched = _batched(op, input, n_space, pooling=True)
    out = _output_size(op, x, output_size, n_space)
    for axis, (n, o) in enumerate(zip(x.shape[2:], out)):
        x = pool_ops.apply_along(x, pool_ops.adaptive_avg_matrix(n, o), 2 + axis)
    return _unbatch(x, unbatched)


def adaptive_avg_pool1d(input, output_size):  # noqa: A002 - PyTorch's name
    """Average pooling to a fixed output length: output i averages the input over
    [floor(i·L/out), ceil((i+1)·L/out))."""
    return _adaptive_avg("adaptive_avg_pool1d", 1, input, output_size)


def adaptive_avg_pool2d(input, output_size):  # noqa: A002 - PyTorch's name
    """Average pooling to a fixed (H_out, W_out) (None keeps that size): each output averages
    a window of about H/H_out x W/W_out inputs. `adaptive_avg_pool2d(x, 1)` is global
    average pooling.

    >>> import tinygrad_norm as tg
    >>> adaptive_avg_pool2d(tg.arange(16.0).reshape(1, 1, 4, 4), 1).tolist()
    [[[[7.5]]]]
    """
    return _adaptive_avg("adaptive_avg_pool2d", 2, input, output_size)


def _adaptive_max(op, n_space, input, output_size, return_indices):  # noqa: A002
    x, unbatched = _batched(op, input, n_space, pooling=True)
    out = _output_size(op, x, output_size, n_space)
    values, indices = pool_ops.adaptive_max(x, out)
    values = _unbatch(values, unbatched)
    return (values, _unbatch(Tensor(indices), unbatched)) if return_indices else values


def adaptive_max_pool1d(input, output_size, return_indices=False):  # noqa: A002
    """Max pooling to a fixed output length, over windows as in adaptive_avg_pool1d."""
    return _adaptive_max("adaptive_max_pool1d", 1, input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    """Max pooling to a fixed (H_out, W_out), over windows as in adaptive_avg_pool2d."""
    return _adaptive_max("adaptive_max_pool2d", 2, input, output_size, return_indices)


# --- resampling ---------------------------------------------------------------------------------
_LINEAR_MODES = {"linear": 1, "bilinear": 2, "trilinear": 3}


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):  # noqa: A002
    """Resize the spatial axes of (N, C, *S) to `size` or `floor(S · scale_factor)`.

    mode: "nearest" (copy the input at floor(dst · S / O)), "nearest-exact", "linear" (3-d
    input), "bilinear" (4-d), "trilinear" (5-d) (with align_corners), or "area" (adaptive
    average pooling). Each axis is resampled by an (O, S) matrix, so the gradient is that
    matrix transposed.

    >>> import tinygrad_norm as tg
    >>> interpolate(tg.tensor([[[1.0, 2.0]]]), scale_factor=2).tolist()
    [[[1.0, 1.0, 2.0, 2.0]]]
    """
    x = as_tensor(input)
    n_space = x.ndim - 2
    if n_space < 1:
        raise ValueError(f"interpolate: expected an input (N, C, *spatial), got shape {x.shape}")
    if mode in _LINEAR_MODES and _LINEAR_MODES[mode] != n_space:
        raise ValueError(
            f"interpolate: mode {mode!r} needs a {_LINEAR_MODES[mode] + 2}-d input, got shape "
            f"{x.shape}; 'linear' is for (N, C, L), 'bilinear' for (N, C, H, W)"
        )
    if mode not in ("nearest", "nearest-exact", "area") and mode not in _LINEAR_MODES:
        raise NotImplementedError(f"interpolate: mode {mode!r} is not implemented here")
    if align_corners is not None and mode not in _LINEAR_MODES:
        raise ValueError("interpolate: align_corners only goes with the linear modes")
    if antialias:
        raise NotImplementedError("interpolate: antialias is not implemented here")
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor")
    sizes = x.shape[2:]
    if size is not None:
        out, scales = _ntuple("interpolate", "size", size, n_space), (None,) * n_space
    else:
        factors = scale_factor if isinstance(scale_factor, (tuple, list)) else (scale_factor,)
        factors = tuple(float(f) for f in factors) * (n_space if len(factors) == 1 else 1)
        out = tuple(int(math.floor(n * f)) for n, f in zip(sizes, factors))
        scales = (None,) * n_space if recompute_scale_factor else tuple(1 / f for f in factors)
    if 0 in sizes or 0 in out:
        raise RuntimeError(
            f"interpolate: input sizes {sizes} and output sizes {out} must all be positive"
        )

    if mode == "area":
        return (
            adaptive_avg_pool1d(x, out)
            if n_space == 1
            else _adaptive_avg("interpolate", n_space, x, out)
        )
    matrix_mode = "linear" if mode in _LINEAR_MODES else mode
    for axis, (n, o, scale) in enumerate(zip(sizes, out, scales)):
        matrix = pool_ops.resample_matrix(n, o, matrix_mode, align_corners, scale)
        x = pool_ops.apply_along(x, matrix, 2 + axis)
    return x


def pixel_shuffle(input, upscale_factor):  # noqa: A002 - PyTorch's name
    """(N, C·r², H, W) -> (N, C, H·r, W·r): each group of r² channels becomes an r x r block
    of pixels (sub-pixel convolution, Shi et al., 2016). Pure reshapes and a permute."""
    x, r = as_tensor(input), int(upscale_factor)
    *batch, c, h, w = x.shape
    if x.ndim < 3 or c % (r * r):
        raise RuntimeError(
            f"pixel_shuffle: input of shape {x.shape} needs a channel count divisible by "
            f"upscale_factor² = {r * r}"
        )
    x = x.reshape(*batch, c // (r * r), r, r, h, w)  # (..., C, r, r, H, W)
    n = len(batch)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)  # (..., C, H, r, W, r)
    return x.reshape(*batch, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):  # noqa: A002 - PyTorch's name
    """(N, C, H·r, W·r) -> (N, C·r², H, W): the inverse of pixel_shuffle."""
    x, r = as_tensor(input), int(downscale_factor)
    *batch, c, hr, wr = x.shape
    if x.ndim < 3 or hr % r or wr % r:
        raise RuntimeError(
            f"pixel_unshuffle: input of shape {x.shape} needs height and width divisible by "
            f"downscale_factor = {r}"
        )
    x = x.reshape(*batch, c, hr // r, r, wr // r, r)  # (..., C, H, r, W, r)
    n = len(batch)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)  # (..., C, r, r, H, W)
    return x.reshape(*batch, c * r * r, hr // r, wr // r)
