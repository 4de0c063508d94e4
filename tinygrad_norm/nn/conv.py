"""Convolution layers with PyTorch's arguments, parameter names, shapes and initialisation, so
PyTorch state dicts load: Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d.

(`nn.Conv1d` is PyTorch's convolution; `nn.Conv1D` is GPT-2's linear layer, in linear.py.)
Each owns `weight` and `bias` and calls the function of the same name in `nn.functional`.
"""

from __future__ import annotations

import math

from ..functions.creation import empty
from ..tensor import Tensor
from . import functional as F
from . import init
from .functional.conv import _ntuple
from .module import Module
from .parameter import Parameter

PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    """What the convolution layers share: arguments (PyTorch's Conv signature, inherited by
    Conv1d, Conv2d and Conv3d), parameters, initialisation, repr.

    Initialisation (PyTorch's): weight from kaiming_uniform_(a=sqrt(5)), which is
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = weight.shape[1] · kernel elements, then
    bias from the same interval.
    """

    n_space = 2
    transposed = False

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,  # an int, a tuple, "same" or "valid" (a transposed convolution: numbers)
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
        *,
        device=None,
        dtype=None,
    ):
        super().__init__()
        name, n = type(self).__name__, self.n_space
        if in_channels % groups or out_channels % groups:
            raise ValueError(
                f"{name}: in_channels ({in_channels}) and out_channels ({out_channels}) must "
                f"both be divisible by groups ({groups})"
            )
        if padding_mode not in PADDING_MODES:
            raise ValueError(f"{name}: padding_mode must be one of {PADDING_MODES}")
        if isinstance(padding, str) and padding not in ("same", "valid"):
            raise ValueError(f"{name}: padding must be 'same', 'valid', an int or a tuple")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = _ntuple(name, "kernel_size", kernel_size, n)
        self.stride = _ntuple(name, "stride", stride, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(name, "padding", padding, n)
        self.dilation = _ntuple(name, "dilation", dilation, n)
        self.output_padding = (0,) * n  # a transposed convolution's own (`_ConvTranspose`)
        self.padding_mode = padding_mode
        if self.transposed:  # (in, out / groups, *kernel)
            shape = (in_channels, out_channels // groups) + self.kernel_size
        else:  # (out, in / groups, *kernel)
            shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = Parameter(empty(*shape, dtype=dtype))
        self.bias = Parameter(empty(out_channels, dtype=dtype)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0.0
            init.uniform_(self.bias, -bound, bound)

    def _padded(self, x):
        """x padded by padding_mode (reflect, replicate, circular) when it is not "zeros"."""
        if self.padding_mode == "zeros":
            return x, self.padding
        pads = []
        padding = self.padding
        if padding == "same":
            totals = [d * (k - 1) for k, d in zip(self.kernel_size, self.dilation)]
            pairs = [(t // 2, t - t // 2) for t in totals]
        else:
            pairs = [(p, p) for p in ((0,) * self.n_space if padding == "valid" else padding)]
        for low, high in reversed(pairs):  # F.pad's order: the last axis first
            pads += [low, high]
        return F.pad(x, pads, mode=self.padding_mode), 0

    def extra_repr(self) -> str:
        text = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}"
        text += f", stride={self.stride}"
        if self.padding != (0,) * self.n_space:
            text += f", padding={self.padding}"  # "same" without quotes, as PyTorch prints it
        if self.dilation != (1,) * self.n_space:
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self.n_space:
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class _Conv(_ConvNd):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        x, padding = self._padded(input)
        conv = (F.conv1d, F.conv2d, F.conv3d)[self.n_space - 1]
        return conv(x, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class Conv1d(_Conv):
    """1-d convolution over (N, C_in, L): y = bias + weight ⋆ x, as `torch.nn.Conv1d`.

    weight (out_channels, in_channels / groups, kernel_size), bias (out_channels,).

    >>> import tinygrad_norm as tg
    >>> Conv1d(2, 4, 3, padding="same")(tg.ones(1, 2, 5)).shape
    torch.Size([1, 4, 5])
    """

    n_space = 1


class Conv2d(_Conv):
    """2-d convolution over (N, C_in, H, W), as `torch.nn.Conv2d`: each output channel is a
    sum over input channels of a kH x kW filter slid over the image, plus a bias.

    weight (out_channels, in_channels / groups, kH, kW), bias (out_channels,); output
    H_out = floor((H + 2·padding - dilation·(kH - 1) - 1) / stride) + 1 (the same for W).

    >>> import tinygrad_norm as tg
    >>> layer = Conv2d(3, 8, 3, stride=2, padding=1)
    >>> layer
    Conv2d(3, 8, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1))
    >>> layer(tg.ones(2, 3, 9, 9)).shape
    torch.Size([2, 8, 5, 5])
    """

    n_space = 2


class Conv3d(_Conv):
    """3-d convolution over (N, C_in, D, H, W), as `torch.nn.Conv3d`."""

    n_space = 3


class _ConvTranspose(_ConvNd):
    transposed = True

    def __init__(  # PyTorch's ConvTranspose signature: output_padding, and dilation moved last
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        bias=True,
        dilation=1,
        padding_mode="zeros",
        *,
        device=None,
        dtype=None,
    ):
        name = type(self).__name__
        if padding_mode != "zeros":
            raise ValueError(f"{name}: only padding_mode='zeros' is supported")
        # the same settings in the order of a convolution's signature (_ConvNd's, PyTorch's)
        args = (in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias)
        super().__init__(*args, dtype=dtype)
        self.output_padding = _ntuple(name, "output_padding", output_padding, self.n_space)

    def forward(self, input: Tensor, output_size=None) -> Tensor:  # noqa: A002
        """output_size (the last n sizes are used) picks output_padding, as PyTorch: a strided
        convolution maps several input sizes to one output size, and this says which."""
        extra = self.output_padding
        if output_size is not None:
            extra = self._output_padding(input, tuple(output_size)[-self.n_space :])
        conv = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[self.n_space - 1]
        return conv(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            extra,
            self.groups,
            self.dilation,
        )

    def _output_padding(self, x, size: tuple) -> tuple:
        extra = []
        for n, want, k, s, p, d in zip(
            x.shape[-self.n_space :],
            size,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
        ):
            smallest = (n - 1) * s - 2 * p + d * (k - 1) + 1
            if not smallest <= want < smallest + s:
                raise ValueError(
                    f"{type(self).__name__}: output_size {size} is not reachable: along each "
                    f"axis it must lie in [{smallest}, {smallest + s - 1}] here"
                )
            extra.append(want - smallest)
        return tuple(extra)


class ConvTranspose1d(_ConvTranspose):
    """1-d transposed convolution over (N, C_in, L), as `torch.nn.ConvTranspose1d`: the
    gradient of a Conv1d with respect to its input, used as a layer that upsamples.

    weight (in_channels, out_channels / groups, kernel_size), bias (out_channels,).
    """

    n_space = 1


class ConvTranspose2d(_ConvTranspose):
    """2-d transposed convolution over (N, C_in, H, W), as `torch.nn.ConvTranspose2d`.

    weight (in_channels, out_channels / groups, kH, kW), bias (out_channels,); output
    H_out = (H - 1)·stride - 2·padding + dilation·(kH - 1) + output_padding + 1.

    >>> import tinygrad_norm as tg
    >>> ConvTranspose2d(4, 2, 2, stride=2)(tg.ones(1, 4, 3, 3)).shape
    torch.Size([1, 2, 6, 6])
    """

    n_space = 2


class ConvTranspose3d(_ConvTranspose):
    """3-d transposed convolution over (N, C_in, D, H, W), as `torch.nn.ConvTranspose3d`;
    weight (in_channels, out_channels / groups, kD, kH, kW)."""

    n_space = 3
