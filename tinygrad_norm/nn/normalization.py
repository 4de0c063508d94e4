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

from ..creation import as_tensor
from ..dtypes import get_default_dtype
from ..tensor import Tensor
from . import functional as F
from .module import Module, Parameter


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
    ((4, 5, 8), (5, 8), True)
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
            if _trailing(x, len(shape)) != shape:
                raise ValueError(
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
        self.weight.data = np.ones(shape, dtype)
        if self.bias is not None:
            self.bias.data = np.zeros(shape, dtype)
        self.normalized_shape = shape

    def extra_repr(self) -> str:
        if self.dimensions is not None:
            shape = f"dimensions={self.dimensions}"
        else:
            shape = str(self.normalized_shape)
        return f"{shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


# --- BatchNorm and InstanceNorm -----------------------------------------------------------------
class _NormBase(Module):
    """What BatchNorm and InstanceNorm share: per-channel weight and bias (C,), the running
    statistics buffers, and the momentum of their update.

    Subclasses set `_ranks` (the accepted input ranks), `_shapes` (how to say them) and, if
    an input may come without its batch axis, `_unbatched_rank`.
    """

    _ranks: tuple = ()
    _shapes: str = ""
    _unbatched_rank: int | None = None  # InstanceNorm accepts an input without the batch axis

    def __init__(self, num_features, eps, momentum, affine, track_running_stats):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        dtype = get_default_dtype()
        if affine:
            self.weight = Parameter(np.ones(num_features, dtype))
            self.bias = Parameter(np.zeros(num_features, dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", Tensor(np.zeros(num_features, dtype)))
            self.register_buffer("running_var", Tensor(np.ones(num_features, dtype)))
            self.register_buffer("num_batches_tracked", Tensor(np.array(0, np.int64)))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self) -> None:
        """running_mean = 0, running_var = 1, num_batches_tracked = 0 (in place)."""
        if self.track_running_stats:
            self.running_mean.data[...] = 0
            self.running_var.data[...] = 1
            self.num_batches_tracked.data[...] = 0

    def reset_parameters(self) -> None:
        """Running statistics reset, weight = 1 and bias = 0 (in place)."""
        self.reset_running_stats()
        if self.affine:
            self.weight.data[...] = 1
            self.bias.data[...] = 0

    def _check_input(self, x) -> None:
        name = type(self).__name__
        if x.ndim not in self._ranks:
            raise ValueError(
                f"{name}: expected a {' or '.join(f'{r}D' for r in self._ranks)} input "
                f"{self._shapes}, got a {x.ndim}D input of shape {x.shape}"
            )
        axis = 0 if x.ndim == self._unbatched_rank else 1
        if x.shape[axis] != self.num_features:
            raise ValueError(
                f"{name}({self.num_features}) expects {self.num_features} channels (C) in "
                f"axis {axis} of its input {self._shapes}, got {x.shape[axis]} channels in an "
                f"input of shape {x.shape}; channels come first (for channels-last data "
                f"(N, L, C), pass x.transpose(1, 2))"
            )

    def _momentum(self) -> float:
        """The weight of this batch in the running statistics; counts the batch when training.

        momentum=None means the cumulative average: 1/k for the k-th batch, so the running
        statistic is the plain mean of all batch statistics seen.
        """
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.data += 1
            if self.momentum is None:
                return 1.0 / int(self.num_batches_tracked.data)
        return 0.0 if self.momentum is None else self.momentum

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, track_running_stats={self.track_running_stats}"
        )


class _BatchNorm(_NormBase):
    r"""Batch normalization (Ioffe & Szegedy, 2015): each channel over the batch (and space).

        y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias

    In training, E and Var (biased) are the statistics of the batch for each channel, and the
    running statistics move towards them:

        running_mean = (1 - momentum) * running_mean + momentum * E[x]
        running_var  = (1 - momentum) * running_var  + momentum * Var[x] * n / (n - 1)

    (the unbiased variance of the n values per channel, as PyTorch). momentum=None uses the
    cumulative average instead (momentum = 1 / num_batches_tracked). In evaluation the running
    statistics normalize, so one sample's output does not depend on the rest of its batch.
    With track_running_stats=False there are no running statistics: batch statistics always.

    Args: num_features C; eps=1e-5; momentum=0.1; affine=True (weight ones (C,), bias zeros
    (C,)); track_running_stats=True (buffers running_mean (C,), running_var (C,),
    num_batches_tracked (int64)).
    """

    def forward(self, input):  # noqa: A002 - PyTorch's name
        x = as_tensor(input)
        self._check_input(x)
        momentum = self._momentum()
        use_running = not self.training or self.track_running_stats
        return F.batch_norm(
            x,
            self.running_mean if use_running else None,
            self.running_var if use_running else None,
            self.weight,
            self.bias,
            training=self.training or self.running_mean is None,
            momentum=momentum,
            eps=self.eps,
        )


class BatchNorm1d(_BatchNorm):
    __doc__ = (
        _BatchNorm.__doc__
        + """
    Shapes: input (N, C) or (N, C, L); output the same.

    >>> import tinygrad_norm as tg
    >>> from tinygrad_norm import nn
    >>> bn = nn.BatchNorm1d(2)
    >>> bn(tg.tensor([[1.0, 10.0], [3.0, 30.0]]))
    tensor([[-1.0000, -1.0000],
            [ 1.0000,  1.0000]], grad_fn=<AddBackward>)
    >>> bn.running_mean, bn.running_var   # 0.9 * (0, 0) + 0.1 * (2, 20); 0.9 + 0.1 * (2, 200)
    (tensor([0.2000, 2.0000]), tensor([ 1.1000, 20.9000]))
    """
    )
    _ranks = (2, 3)
    _shapes = "(N, C) or (N, C, L)"

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True):  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, track_running_stats)


class BatchNorm2d(_BatchNorm):
    __doc__ = (
        _BatchNorm.__doc__
        + """
    Shapes: input (N, C, H, W); output the same.

    >>> import tinygrad_norm as tg
    >>> from tinygrad_norm import nn
    >>> bn = nn.BatchNorm2d(3)
    >>> bn(tg.randn(4, 3, 5, 5)).shape, bn.num_batches_tracked
    ((4, 3, 5, 5), tensor(1))
    """
    )
    _ranks = (4,)
    _shapes = "(N, C, H, W)"

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True):  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, track_running_stats)


class _InstanceNorm(_NormBase):
    r"""Instance normalization (Ulyanov et al., 2016): each channel of each sample, over space.

        y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias

    E and Var (biased) are taken over the spatial axes, separately for every (sample, channel).
    affine=False and track_running_stats=False by default. With track_running_stats, training
    moves running_mean / running_var towards the batch averages of the per-instance mean and
    unbiased variance (as PyTorch), and evaluation normalizes with them. momentum=None is the
    cumulative average, as for BatchNorm (PyTorch's InstanceNorm then never updates them).
    An input without the batch axis is treated as a batch of one.

    Args: num_features C; eps=1e-5; momentum=0.1; affine=False (weight ones (C,), bias zeros
    (C,)); track_running_stats=False.
    """

    def forward(self, input):  # noqa: A002 - PyTorch's name
        x = as_tensor(input)
        self._check_input(x)
        if x.ndim == self._unbatched_rank:  # (C, *) -> (1, C, *) -> (C, *)
            return self._normalize(x.unsqueeze(0)).squeeze(0)
        return self._normalize(x)

    def _normalize(self, x):
        return F.instance_norm(
            x,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            use_input_stats=self.training or not self.track_running_stats,
            momentum=self._momentum(),
            eps=self.eps,
        )


class InstanceNorm1d(_InstanceNorm):
    __doc__ = (
        _InstanceNorm.__doc__
        + """
    Shapes: input (N, C, L) or (C, L); output the same.

    >>> import tinygrad_norm as tg
    >>> from tinygrad_norm import nn
    >>> nn.InstanceNorm1d(1)(tg.tensor([[[1.0, 3.0]], [[5.0, 5.0]]]))   # (N, C, L) = (2, 1, 2)
    tensor([[[-1.0000,  1.0000]],
    <BLANKLINE>
            [[ 0.0000,  0.0000]]])
    """
    )
    _ranks = (2, 3)
    _shapes = "(N, C, L) or (C, L)"
    _unbatched_rank = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False):  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, track_running_stats)


class InstanceNorm2d(_InstanceNorm):
    __doc__ = (
        _InstanceNorm.__doc__
        + """
    Shapes: input (N, C, H, W) or (C, H, W); output the same.

    >>> import tinygrad_norm as tg
    >>> from tinygrad_norm import nn
    >>> nn.InstanceNorm2d(3, affine=True)(tg.randn(2, 3, 4, 4)).shape
    (2, 3, 4, 4)
    """
    )
    _ranks = (3, 4)
    _shapes = "(N, C, H, W) or (C, H, W)"
    _unbatched_rank = 3

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False):  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, track_running_stats)


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
