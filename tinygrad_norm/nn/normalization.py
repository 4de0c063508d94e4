"""Normalization layers: thin Modules that hold the weights and statistics and call `F`.

Every layer computes (x - mean) / sqrt(var + eps), then an optional affine (weight, bias); they
differ only in which axes the mean and the (biased) variance are taken over:

    LayerNorm      each sample, over the trailing normalized_shape        (N, *, D...) -> (N, *)
    BatchNorm      each channel, over the batch and spatial axes           (N, C, *)    -> (C,)
    InstanceNorm   each sample and channel, over the spatial axes          (N, C, *)    -> (N, C)
    GroupNorm      each sample and group of channels, over group + space  (N, C, *)    -> (N, G)
    RMSNorm        like LayerNorm, without the mean: x / sqrt(mean(x^2) + eps)

The formulas, the backward passes and the running-statistics updates live in
`nn/functional.py` (and `ops/fused/layer_norm.py`); here are the parameters, the buffers, the
input checks and the choice between batch and running statistics.
"""

from __future__ import annotations

import numpy as np

from ..broadcast import ShapeError
from ..dtypes import get_default_dtype
from ..functions.creation import as_tensor
from . import functional as F
from .module import Module
from .parameter import Parameter


def _shape_tuple(normalized_shape) -> tuple:
    if isinstance(normalized_shape, (int, np.integer)):
        return (int(normalized_shape),)
    return tuple(int(n) for n in normalized_shape)


def _trailing(x, n: int) -> tuple:
    """The last n axes of x's shape (all of it if x has fewer)."""
    return x.shape[max(x.ndim - n, 0) :]


# --- LayerNorm ----------------------------------------------------------------------------------
class LayerNorm(Module):
    r"""Layer normalization (Ba et al., 2016): each sample normalized over its trailing axes.

        y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias

    E and Var are taken over the last axes of the input, separately for every position of the
    leading axes; Var is the biased variance (divided by the number of elements, ddof 0). The
    statistics always come from the input, in training and in evaluation alike.

    Which trailing axes: give exactly one of
      - `normalized_shape` (PyTorch): an int or a tuple, the trailing shape itself, e.g.
        `LayerNorm(768)` for (B, T, 768), or `LayerNorm((C, H, W))` for (N, C, H, W);
      - `dimensions` (giagrad): how many trailing axes, e.g. `LayerNorm(dimensions=1)` for the
        embedding axis, `LayerNorm(dimensions=3)` for (C, H, W). The weights take the shape
        `input.shape[-dimensions:]` and the input's dtype at the first call. The Parameter
        objects exist from construction (empty until then), so an optimizer built before the
        first call holds them and trains them; a later input must keep that trailing shape.

    Args: eps=1e-5 (added to the variance); elementwise_affine=True (learn `weight`, ones, and
    `bias`, zeros, of the normalized shape); bias=True (False: `weight` only).
    `gamma` and `beta` are other names for `weight` and `bias` (the same objects).
    Shapes: input (*, *normalized_shape), output the same.

    >>> import tinygrad_norm as tg
    >>> from tinygrad_norm import nn
    >>> ln = nn.LayerNorm(3)
    >>> ln
    LayerNorm((3,), eps=1e-05, elementwise_affine=True)
    >>> ln(tg.tensor([[1.0, 2.0, 3.0]]))
    tensor([[-1.2247,  0.0000,  1.2247]], grad_fn=<LayerNormBackward>)
    >>> ln = nn.LayerNorm(dimensions=2)   # normalize each (T, C) slice
    >>> ln(tg.randn(4, 5, 8)).shape, ln.weight.shape, ln.gamma is ln.weight
    (torch.Size([4, 5, 8]), torch.Size([5, 8]), True)
    """

    _aliases = {"gamma": "weight", "beta": "bias"}

    def __init__(
        self,
        normalized_shape=None,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        *,
        dimensions: int | None = None,
    ):
        super().__init__()
        if (normalized_shape is None) == (dimensions is None):
            raise TypeError(
                "LayerNorm: give exactly one of normalized_shape (PyTorch: the trailing shape, "
                "e.g. LayerNorm(768) or LayerNorm((C, H, W))) and dimensions (giagrad: how many "
                "trailing axes, e.g. LayerNorm(dimensions=1)); got "
                f"normalized_shape={normalized_shape!r}, dimensions={dimensions!r}"
            )
        if dimensions is not None and (not isinstance(dimensions, int) or dimensions < 1):
            raise ValueError(
                f"LayerNorm: dimensions is the number of trailing axes to normalize over, a "
                f"positive int, got {dimensions!r}"
            )
        self.normalized_shape = None if normalized_shape is None else _shape_tuple(normalized_shape)
        self.dimensions = dimensions
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            # With `dimensions` the shape is known at the first call: empty placeholders until then.
            shape = self.normalized_shape or (0,)
            self.weight = Parameter(np.ones(shape, get_default_dtype()))
            if bias:
                self.bias = Parameter(np.zeros(shape, get_default_dtype()))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    # gamma / beta: the notebooks' names, read and written through to weight / bias, so the
    # parameters are registered (and saved in state_dict) once, under PyTorch's names.
    @property
    def gamma(self):
        return self.weight

    @property
    def beta(self):
        return self.bias

    def __setattr__(self, name, value) -> None:
        super().__setattr__(self._aliases.get(name, name), value)

    def forward(self, input):  # noqa: A002 - PyTorch's name
        x = as_tensor(input)
        shape = self._shape_for(x)
        return F.layer_norm(x, shape, self.weight, self.bias, self.eps)

    def _shape_for(self, x) -> tuple:
        """The trailing shape to normalize x over; fills in lazy weights at the first call."""
        if self.dimensions is None:
            shape = self.normalized_shape
            if _trailing(x, len(shape)) != shape:  # PyTorch's RuntimeError
                raise ShapeError(
                    f"LayerNorm: expected an input whose last {len(shape)} axes are "
                    f"normalized_shape {shape}, got an input of shape {x.shape} (last axes "
                    f"{_trailing(x, len(shape))}); give LayerNorm the input's trailing shape"
                )
            return shape
        if x.ndim < self.dimensions:
            raise ValueError(
                f"LayerNorm(dimensions={self.dimensions}) normalizes over the last "
                f"{self.dimensions} axes, but the input has shape {x.shape}"
            )
        shape = _trailing(x, self.dimensions)
        if self.elementwise_affine:
            self._materialize(shape, x.dtype)
        return shape

    def _takes_checkpoint_shape(self, name: str, shape: tuple) -> bool:
        """Before its first call, LayerNorm(dimensions=k) takes its weights' shape (k axes)
        from a checkpoint, so a saved model loads into a fresh one."""
        return (
            self.normalized_shape is None
            and self.elementwise_affine
            and name in ("weight", "bias")
            and len(shape) == self.dimensions
        )

    def _materialize(self, shape: tuple, dtype) -> None:
        """Give the placeholder weights their shape at the first call (in place: same objects)."""
        if self.normalized_shape is not None:
            if shape != self.normalized_shape:
                raise ValueError(
                    f"LayerNorm(dimensions={self.dimensions}) took its weights' shape "
                    f"{self.normalized_shape} from its first input; this input's last "
                    f"{self.dimensions} axes are {shape}. Every input must have the same "
                    "trailing shape (or use a separate LayerNorm)"
                )
            return
        if not isinstance(self._parameters["weight"], Parameter):
            raise RuntimeError(
                f"LayerNorm(dimensions={self.dimensions}) has not been called yet, so its "
                "weights have no shape; call it once on an input (e.g. before check_module)"
            )
        dtype = dtype if np.dtype(dtype).kind == "f" else get_default_dtype()
        self.weight.array = np.ones(shape, dtype)
        if self.bias is not None:
            self.bias.array = np.zeros(shape, dtype)
        self.normalized_shape = shape

    def extra_repr(self) -> str:
        if self.dimensions is not None:
            shape = f"dimensions={self.dimensions}"
        else:
            shape = str(self.normalized_shape)
        return f"{shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


# --- GroupNorm and RMSNorm ----------------------------------------------------------------------
class GroupNorm(Module):
    r"""Group normalization (Wu & He, 2018): each sample's channels in groups, over group + space.

        y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias

    The C channels are split into num_groups consecutive groups of C / num_groups channels;
    E and Var (biased) are taken over each group's channels and spatial axes, for every sample.
    num_groups = 1 is a LayerNorm over (C, *); num_groups = C an InstanceNorm. The affine is
    per channel. Statistics always come from the input (no running statistics).

    Args: num_groups (must divide num_channels); num_channels C; eps=1e-5; affine=True
    (weight ones (C,), bias zeros (C,)).
    Shapes: input (N, C, *); output the same.

    >>> import tinygrad_norm as tg
    >>> from tinygrad_norm import nn
    >>> gn = nn.GroupNorm(2, 4)
    >>> gn
    GroupNorm(2, 4, eps=1e-05, affine=True)
    >>> gn(tg.tensor([[1.0, 3.0, 10.0, 10.0]]))   # groups (1, 3) and (10, 10)
    tensor([[-1.0000,  1.0000,  0.0000,  0.0000]], grad_fn=<AddBackward>)
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine=True):
        super().__init__()
        if num_groups < 1 or num_channels % num_groups:
            raise ValueError(
                f"GroupNorm: num_channels ({num_channels}) must be divisible by num_groups "
                f"({num_groups}), so that every group has the same number of channels; "
                f"divisors of {num_channels}: "
                f"{[g for g in range(1, num_channels + 1) if num_channels % g == 0]}"
            )
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = Parameter(np.ones(num_channels, get_default_dtype()))
            self.bias = Parameter(np.zeros(num_channels, get_default_dtype()))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):  # noqa: A002 - PyTorch's name
        x = as_tensor(input)
        if x.ndim < 2 or x.shape[1] != self.num_channels:
            got = f"{x.shape[1]} channels" if x.ndim >= 2 else "no channel axis"
            raise ValueError(
                f"GroupNorm({self.num_groups}, {self.num_channels}) expects an input (N, C, *) "
                f"with C = {self.num_channels} channels in axis 1, got {got} in an input of "
                f"shape {x.shape}; channels come first (for channels-last data (N, L, C), "
                "pass x.transpose(1, 2))"
            )
        return F.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"


class RMSNorm(Module):
    r"""Root-mean-square normalization (Zhang & Sennrich, 2019): rescale, without centering.

        y = x / sqrt(mean(x^2) + eps) * weight

    mean over the trailing normalized_shape axes, for every position of the leading ones.
    Args: normalized_shape (int or tuple); eps=None (the machine epsilon of the input's dtype,
    as PyTorch); elementwise_affine=True (weight ones of normalized_shape; no bias).
    Shapes: input (*, *normalized_shape); output the same.

    >>> import tinygrad_norm as tg
    >>> from tinygrad_norm import nn
    >>> rms = nn.RMSNorm(2)
    >>> rms
    RMSNorm((2,), eps=None, elementwise_affine=True)
    >>> rms(tg.tensor([[3.0, 4.0]]))   # sqrt((9 + 16) / 2) = 3.5355
    tensor([[0.8485, 1.1314]], grad_fn=<MulBackward>)
    """

    def __init__(self, normalized_shape, eps: float | None = None, elementwise_affine=True):
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(np.ones(self.normalized_shape, get_default_dtype()))
        else:
            self.register_parameter("weight", None)

    def forward(self, input):  # noqa: A002 - PyTorch's name
        x = as_tensor(input)
        shape = self.normalized_shape
        if _trailing(x, len(shape)) != shape:
            raise ValueError(
                f"RMSNorm: expected an input whose last {len(shape)} axes are "
                f"normalized_shape {shape}, got an input of shape {x.shape}; give RMSNorm the "
                "input's trailing shape"
            )
        return F.rms_norm(x, shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )
