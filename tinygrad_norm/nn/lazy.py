"""Lazy layers: `nn.LazyLinear(out_features)`, `nn.LazyConv2d(out_channels, kernel_size)`,
`nn.LazyBatchNorm2d()` ... leave the input size out; the first call reads it from its input.

    model = nn.Sequential(nn.LazyConv2d(8, 3), nn.Flatten(), nn.LazyLinear(10))
    model(torch.zeros(1, 3, 28, 28))     # now Conv2d(3, 8, 3) and Linear(5408, 10)

Until then each parameter is an empty placeholder (shape (0,)). At the first call the layer
fills its placeholders in place (so an optimizer built before it holds the real parameters),
draws its initial values as the eager layer would (PyTorch's order), and becomes that layer:
its class is then `nn.Linear`, `nn.Conv2d`, ... as in PyTorch.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .conv import (
    Conv1d,
    Conv2d,
    Conv3d,
    ConvTranspose1d,
    ConvTranspose2d,
    ConvTranspose3d,
)
from .linear import Linear


def _placeholder(parameter) -> None:
    if parameter is not None:
        parameter.array = np.empty((0,), parameter.array.dtype)


def _fill(parameter, shape: tuple) -> None:
    if parameter is not None:
        parameter.array = np.empty(shape, parameter.array.dtype)


class _Lazy:
    """The first call: infer the input size, become `cls_to_become`, initialise, run."""

    cls_to_become: type = None

    def reset_parameters(self) -> None:
        """Nothing to initialise before the input size is known."""

    def has_uninitialized_params(self) -> bool:
        return True

    def initialize_parameters(self, input) -> None:  # noqa: A002 - PyTorch's name
        raise NotImplementedError

    def forward(self, input, *args, **kwargs):  # noqa: A002
        x = input if isinstance(input, Tensor) else Tensor(np.asarray(input))
        self.initialize_parameters(x)
        self.__class__ = self.cls_to_become
        self.reset_parameters()
        return self.forward(input, *args, **kwargs)


class LazyLinear(_Lazy, Linear):
    """Linear whose in_features is the last size of its first input."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, *, device=None, dtype=None):
        super().__init__(0, out_features, bias, dtype=dtype)
        _placeholder(self.weight)
        _placeholder(self.bias)

    def initialize_parameters(self, input) -> None:  # noqa: A002
        self.in_features = input.shape[-1]
        _fill(self.weight, (self.out_features, self.in_features))
        _fill(self.bias, (self.out_features,))


class _LazyConv(_Lazy):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, *args, **kwargs):
        groups = kwargs.get("groups", args[1] if len(args) > 1 else 1)
        super().__init__(groups, out_channels, kernel_size, stride, padding, *args, **kwargs)
        self.in_channels = 0
        _placeholder(self.weight)
        _placeholder(self.bias)

    def initialize_parameters(self, input) -> None:  # noqa: A002
        batched = input.ndim == self.n_space + 2
        self.in_channels = input.shape[1 if batched else 0]
        g, k = self.groups, self.kernel_size
        if self.transposed:
            shape = (self.in_channels, self.out_channels // g) + k
        else:
            shape = (self.out_channels, self.in_channels // g) + k
        _fill(self.weight, shape)
        _fill(self.bias, (self.out_channels,))


class LazyConv1d(_LazyConv, Conv1d):
    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    """Conv2d whose in_channels is the channel count (axis 1) of its first input."""

    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConv, ConvTranspose1d):
    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConv, ConvTranspose2d):
    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConv, ConvTranspose3d):
    cls_to_become = ConvTranspose3d


class _LazyBatchNorm(_Lazy):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, **kwargs):
        super().__init__(0, eps, momentum, affine, track_running_stats)

    def initialize_parameters(self, input) -> None:  # noqa: A002
        c = self.num_features = input.shape[1]
        for name in ("weight", "bias", "running_mean", "running_var"):
            _fill(getattr(self, name), (c,))

    def reset_parameters(self) -> None:
        if self.num_features:  # the real reset once the size is known (weight 1, bias 0, ...)
            super().reset_parameters()


class LazyBatchNorm1d(_LazyBatchNorm, BatchNorm1d):
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyBatchNorm, BatchNorm2d):
    """BatchNorm2d whose num_features is the channel count of its first input."""

    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyBatchNorm, BatchNorm3d):
    cls_to_become = BatchNorm3d
