"""nn.functional's 3-d pooling and transposed convolution, and max-unpooling.

The 3-d functions are the 1-d and 2-d ones with a third spatial axis (D, H, W): `ops/conv.py`
and `ops/pool.py` work on any number of spatial axes. `max_unpool` is the inverse of max
pooling with `return_indices=True`: each pooled value goes back to the position its index
names (a flat index into its input plane), everything else is zero:

    out.view(N, C, -1)[n, c, indices[n, c, i]] = input[n, c, i]

so its gradient with respect to input gathers the output's gradient at those positions.
"""

from __future__ import annotations

import math

from ...functions.creation import as_tensor, zeros
from .conv import _conv_transpose, _ntuple
from .pool import _avg_pool, _max_pool

__all__ = [
    "avg_pool3d",
    "conv_transpose3d",
    "max_pool3d",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
]


def max_pool3d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):  # noqa: A002 - PyTorch's names
    """The largest element of each kD x kH x kW window: (N, C, D, H, W) -> (N, C, D', H', W')."""
    return _max_pool(
        "max_pool3d", 3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
    )


def avg_pool3d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None,
):  # noqa: A002 - PyTorch's names  # fmt: skip
    """The mean of each kD x kH x kW window: (N, C, D, H, W) -> (N, C, D', H', W')."""
    return _avg_pool(
        "avg_pool3d", 3, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
        divisor_override,
    )  # fmt: skip


def conv_transpose3d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):  # noqa: A002 - PyTorch's names
    """3-d transposed convolution: input (N, C_in, D, H, W), weight (C_in, C_out / groups,
    kD, kH, kW); each output size (n - 1)·s - 2·p + d·(k - 1) + output_padding + 1."""
    return _conv_transpose(
        "conv_transpose3d", input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def _max_unpool(op, n_space, input, indices, kernel_size, stride, padding, output_size):  # noqa: A002
    x, idx = as_tensor(input), as_tensor(indices)
    if x.shape != idx.shape or x.ndim not in (n_space + 1, n_space + 2):
        raise RuntimeError(
            f"{op}: input {x.shape} and indices {idx.shape} must have one shape, (N, C, ...) "
            f"with {n_space} spatial axes (or unbatched)"
        )
    if idx.dtype.kind not in "iu":
        raise RuntimeError(f"{op}: indices must be an integer tensor, got {idx.dtype}")
    kernel = _ntuple(op, "kernel_size", kernel_size, n_space)
    stride = kernel if stride is None else _ntuple(op, "stride", stride, n_space)
    padding = _ntuple(op, "padding", padding, n_space)
    if output_size is None:
        size = tuple(
            (n - 1) * s - 2 * p + k
            for n, s, p, k in zip(x.shape[-n_space:], stride, padding, kernel)
        )
    else:
        size = tuple(int(n) for n in tuple(output_size)[-n_space:])
    plane = math.prod(size)
    if idx.numel() and (int(idx.min()) < 0 or int(idx.max()) >= plane):
        raise RuntimeError(
            f"{op}: found an index out of bounds ({int(idx.min())}..{int(idx.max())}) for an "
            f"output plane of size {size} ({plane} elements)"
        )
    batch = x.shape[:-n_space]
    flat_x, flat_idx = x.reshape(*batch, -1), idx.reshape(*batch, -1)
    out = zeros(*batch, plane, dtype=x.dtype).scatter(-1, flat_idx, flat_x)
    return out.reshape(*batch, *size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    """Put each value of a max-pooled (N, C, L) back where `indices` says; zeros elsewhere."""
    return _max_unpool("max_unpool1d", 1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    """The partial inverse of max_pool2d(..., return_indices=True): (N, C, H, W) values go back
    to their flat positions h·W_out + w in (N, C, H_out, W_out); the rest is zero."""
    return _max_unpool("max_unpool2d", 2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    """max_unpool2d with a third spatial axis: (N, C, D, H, W)."""
    return _max_unpool("max_unpool3d", 3, input, indices, kernel_size, stride, padding, output_size)
