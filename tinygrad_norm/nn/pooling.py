"""Pooling, resampling and reshaping layers with PyTorch's arguments; none has parameters.

MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool1d/2d, AdaptiveMaxPool1d/2d, Upsample (and
UpsamplingNearest2d / UpsamplingBilinear2d), PixelShuffle / PixelUnshuffle, Unfold / Fold,
ZeroPad1d / ZeroPad2d, Flatten / Unflatten. Each stores its options and calls `nn.functional`.
"""

from __future__ import annotations

import numpy as np

from ..functions.creation import as_tensor
from ..ops import composite as C
from ..ops.shape import cat
from ..tensor import Tensor
from . import functional as F
from .module import Module


class _MaxPool(Module):
    def __init__(
        self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False
    ):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor):  # noqa: A002 - PyTorch's name
        pool = F.max_pool1d if isinstance(self, MaxPool1d) else F.max_pool2d
        return pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPool):
    """The largest element of each window over (N, C, L), as `torch.nn.MaxPool1d`."""


class MaxPool2d(_MaxPool):
    """The largest element of each kH x kW window over (N, C, H, W), as `torch.nn.MaxPool2d`;
    stride defaults to kernel_size (windows side by side).

    >>> import tinygrad_norm as tg
    >>> MaxPool2d(2)(tg.ones(1, 3, 8, 6)).shape
    torch.Size([1, 3, 4, 3])
    """


class AvgPool1d(Module):
    """The mean of each window over (N, C, L), as `torch.nn.AvgPool1d`."""

    def __init__(
        self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True
    ):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.ceil_mode, self.count_include_pad = padding, ceil_mode, count_include_pad

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.avg_pool1d(input, *self._options())

    def _options(self) -> tuple:
        """The options avg_pool1d and avg_pool2d share, in their order."""
        return (self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(AvgPool1d):
    """The mean of each kH x kW window over (N, C, H, W), as `torch.nn.AvgPool2d`."""

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode=False,
        count_include_pad=True,
        divisor_override=None,  # when given, every window's sum is divided by it
    ):
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.avg_pool2d(input, *self._options(), self.divisor_override)


class _Adaptive(Module):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_Adaptive):
    """Average pooling of (N, C, L) to a fixed output length."""

    def __init__(self, output_size):
        super().__init__(output_size)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_Adaptive):
    """Average pooling of (N, C, H, W) to a fixed (H_out, W_out), whatever the input size:
    `AdaptiveAvgPool2d(1)` is the global average pooling before a CNN's classifier.

    >>> import tinygrad_norm as tg
    >>> AdaptiveAvgPool2d((1, 1))(tg.ones(2, 5, 7, 3)).shape
    torch.Size([2, 5, 1, 1])
    """

    def __init__(self, output_size):
        super().__init__(output_size)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveMaxPool1d(_Adaptive):
    """Max pooling of (N, C, L) to a fixed output length."""

    def forward(self, input: Tensor):  # noqa: A002 - PyTorch's name
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_Adaptive):
    """Max pooling of (N, C, H, W) to a fixed (H_out, W_out)."""

    def forward(self, input: Tensor):  # noqa: A002 - PyTorch's name
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class Upsample(Module):
    """Resize the spatial axes, as `torch.nn.Upsample`: `F.interpolate` with these options.

    >>> import tinygrad_norm as tg
    >>> Upsample(scale_factor=2, mode="nearest")(tg.ones(1, 1, 2, 3)).shape
    torch.Size([1, 1, 4, 6])
    """

    def __init__(
        self,
        size=None,
        scale_factor=None,
        mode="nearest",
        align_corners=None,
        recompute_scale_factor=None,
    ):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.interpolate(
            input,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            self.recompute_scale_factor,
        )

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            return f"scale_factor={float(self.scale_factor)}, mode={self.mode!r}"
        return f"size={self.size}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class _PixelRearrange(Module):
    """PixelShuffle and PixelUnshuffle: one factor, named `factor_name`, handed to `function`."""

    factor_name = ""
    function = None

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        return type(self).function(input, getattr(self, self.factor_name))

    def extra_repr(self) -> str:
        return f"{self.factor_name}={getattr(self, self.factor_name)}"


class PixelShuffle(_PixelRearrange):
    """(N, C·r², H, W) -> (N, C, H·r, W·r), as `torch.nn.PixelShuffle`."""

    factor_name, function = "upscale_factor", F.pixel_shuffle

    def __init__(self, upscale_factor: int):
        super().__init__()
        self.upscale_factor = upscale_factor


class PixelUnshuffle(_PixelRearrange):
    """(N, C, H·r, W·r) -> (N, C·r², H, W), as `torch.nn.PixelUnshuffle`: its inverse."""

    factor_name, function = "downscale_factor", F.pixel_unshuffle

    def __init__(self, downscale_factor: int):
        super().__init__()
        self.downscale_factor = downscale_factor


class Unfold(Module):
    """im2col as a layer: (N, C, H, W) -> (N, C·kH·kW, L), as `torch.nn.Unfold`."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = (
            kernel_size,
            dilation,
            padding,
            stride,
        )

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
            f"padding={self.padding}, stride={self.stride}"
        )


class Fold(Unfold):
    """col2im as a layer: (N, C·kH·kW, L) -> (N, C, *output_size), as `torch.nn.Fold`."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__(kernel_size, dilation, padding, stride)
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}, " + super().extra_repr()


def zero_pad(x, pads: tuple):
    """x with zeros added (or, for negative sizes, elements cropped) at both ends of its last
    axes; pads = (left, right, top, bottom, ...) as F.pad: the last axis first."""
    for i in range(len(pads) // 2):
        axis = x.ndim - 1 - i
        for low, at_start in ((pads[2 * i], True), (pads[2 * i + 1], False)):
            if low < 0:
                n = x.shape[axis]
                keep = slice(-low, n) if at_start else slice(0, n + low)
                x = x[(slice(None),) * axis + (keep,)]
            elif low > 0:
                shape = x.shape[:axis] + (low,) + x.shape[axis + 1 :]
                zeros = C.as_tensor(np.zeros(shape, dtype=x.dtype), x)
                x = cat([zeros, x] if at_start else [x, zeros], dim=axis)
    return x


class ZeroPad1d(Module):
    """Zeros before and after the last axis: padding an int or (left, right)."""

    n_pairs = 1

    def __init__(self, padding):
        super().__init__()
        n = 2 * self.n_pairs
        self.padding = (padding,) * n if isinstance(padding, int) else tuple(padding)
        if len(self.padding) != n:
            raise ValueError(f"{type(self).__name__}: padding must be an int or {n} ints")

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        return zero_pad(as_tensor(input), self.padding)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ZeroPad1d):
    """Zeros around the last two axes: padding an int or (left, right, top, bottom); negative
    values crop, as `torch.nn.ZeroPad2d`.

    >>> import tinygrad_norm as tg
    >>> ZeroPad2d((1, 0, 0, 2))(tg.ones(1, 1, 2)).tolist()
    [[[0.0, 1.0, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]
    """

    n_pairs = 2


class Flatten(Module):
    """Flatten axes start_dim..end_dim into one, as `torch.nn.Flatten` (default: all but the
    batch axis)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        return as_tensor(input).flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split axis `dim` into `unflattened_size`, as `torch.nn.Unflatten`.

    >>> import tinygrad_norm as tg
    >>> Unflatten(1, (2, 3))(tg.ones(4, 6)).shape
    torch.Size([4, 2, 3])
    """

    def __init__(self, dim: int, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        x = as_tensor(input)
        dim = self.dim % x.ndim
        return x.reshape(x.shape[:dim] + self.unflattened_size + x.shape[dim + 1 :])

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
