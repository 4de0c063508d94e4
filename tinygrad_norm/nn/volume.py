"""3-d pooling layers and max-unpooling, as `torch.nn`: MaxPool3d, AvgPool3d, MaxUnpool1d,
MaxUnpool2d, MaxUnpool3d (the functions are in `functional/volume.py`)."""

from __future__ import annotations

from . import functional as F
from .module import Module
from .pooling import AvgPool2d, _MaxPool


class MaxPool3d(_MaxPool):
    """The largest element of each kD x kH x kW window over (N, C, D, H, W)."""

    def forward(self, input):  # noqa: A002 - PyTorch's name
        return F.max_pool3d(
            input, self.kernel_size, self.stride, self.padding, self.dilation,
            ceil_mode=self.ceil_mode, return_indices=self.return_indices,
        )  # fmt: skip


class AvgPool3d(AvgPool2d):
    """The mean of each kD x kH x kW window over (N, C, D, H, W)."""

    def forward(self, input):  # noqa: A002 - PyTorch's name
        return F.avg_pool3d(input, *self._options(), self.divisor_override)


class _MaxUnpool(Module):
    unpool = None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.padding = kernel_size, padding
        self.stride = stride if stride is not None else kernel_size

    def forward(self, input, indices, output_size=None):  # noqa: A002 - PyTorch's name
        return type(self).unpool(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpool):
    """Values of MaxPool1d(..., return_indices=True) back at their positions; zeros elsewhere."""

    unpool = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpool):
    """Values of MaxPool2d(..., return_indices=True) back at their positions; zeros elsewhere."""

    unpool = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpool):
    """Values of MaxPool3d(..., return_indices=True) back at their positions; zeros elsewhere."""

    unpool = staticmethod(F.max_unpool3d)
