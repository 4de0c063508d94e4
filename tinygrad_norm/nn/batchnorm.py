"""BatchNorm and InstanceNorm: per-channel statistics over the batch (or each sample), with
optional running statistics for evaluation; the layers of `normalization.py`'s table.

The formulas and the running-statistics updates live in `nn/functional_norm.py`.
"""

from __future__ import annotations

import numpy as np

from ..broadcast import ShapeError
from ..dtypes import get_default_dtype
from ..functions.creation import as_tensor
from ..tensor import Tensor
from . import functional as F
from .module import Module
from .parameter import Parameter


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
            self.running_mean.array[...] = 0
            self.running_var.array[...] = 1
            self.num_batches_tracked.array[...] = 0

    def reset_parameters(self) -> None:
        """Running statistics reset, weight = 1 and bias = 0 (in place)."""
        self.reset_running_stats()
        if self.affine:
            self.weight.array[...] = 1
            self.bias.array[...] = 0

    def _check_input(self, x) -> Tensor:
        """The input as a Tensor, once its rank and its number of channels are checked."""
        x = as_tensor(x)
        shape, name = x.array.shape, type(self).__name__  # NOTE: not x.shape (a new Size)
        if len(shape) not in self._ranks:
            raise ValueError(
                f"{name}: expected a {' or '.join(f'{r}D' for r in self._ranks)} input "
                f"{self._shapes}, got a {x.ndim}D input of shape {x.shape}"
            )
        axis = 0 if len(shape) == self._unbatched_rank else 1
        if shape[axis] != self.num_features:  # PyTorch's RuntimeError
            raise ShapeError(
                f"{name}({self.num_features}) expects {self.num_features} channels (C) in "
                f"axis {axis} of its input {self._shapes}, got {x.shape[axis]} channels in an "
                f"input of shape {x.shape}; channels come first (for channels-last data "
                f"(N, L, C), pass x.transpose(1, 2))"
            )
        return x

    def _momentum(self) -> float:
        """The weight of this batch in the running statistics; counts the batch when training.

        momentum=None means the cumulative average: 1/k for the k-th batch, so the running
        statistic is the plain mean of all batch statistics seen.
        """
        tracked = self.num_batches_tracked if self.training and self.track_running_stats else None
        if tracked is not None:
            tracked.array[()] += 1  # NOTE: through the 0-d array's item: no ufunc call
            if self.momentum is None:
                return 1.0 / int(tracked.array)
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

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True):  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, track_running_stats)

    def forward(self, input):  # noqa: A002 - PyTorch's name
        x = self._check_input(input)
        momentum = self._momentum()
        use_running = not self.training or self.track_running_stats
        running_mean = self.running_mean if use_running else None
        return F.batch_norm(
            x,
            running_mean,
            self.running_var if use_running else None,
            self.weight,
            self.bias,
            training=self.training or running_mean is None,
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
            [ 1.0000,  1.0000]], grad_fn=<BatchNormBackward>)
    >>> bn.running_mean, bn.running_var   # 0.9 * (0, 0) + 0.1 * (2, 20); 0.9 + 0.1 * (2, 200)
    (tensor([0.2000, 2.0000]), tensor([ 1.1000, 20.9000]))
    """
    )
    _ranks = (2, 3)
    _shapes = "(N, C) or (N, C, L)"


class BatchNorm2d(_BatchNorm):
    __doc__ = (
        _BatchNorm.__doc__
        + """
    Shapes: input (N, C, H, W); output the same.

    >>> import tinygrad_norm as tg
    >>> from tinygrad_norm import nn
    >>> bn = nn.BatchNorm2d(3)
    >>> bn(tg.randn(4, 3, 5, 5)).shape, bn.num_batches_tracked
    (torch.Size([4, 3, 5, 5]), tensor(1))
    """
    )
    _ranks = (4,)
    _shapes = "(N, C, H, W)"


class BatchNorm3d(_BatchNorm):
    __doc__ = _BatchNorm.__doc__ + "\n    Shapes: input (N, C, D, H, W); output the same.\n"
    _ranks = (5,)
    _shapes = "(N, C, D, H, W)"


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

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False):  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, track_running_stats)

    def forward(self, input):  # noqa: A002 - PyTorch's name
        x = self._check_input(input)
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
            # PyTorch's InstanceNorm never counts num_batches_tracked (it stays 0), and
            # momentum=None leaves the running statistics where they are
            momentum=0.0 if self.momentum is None else self.momentum,
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


class InstanceNorm2d(_InstanceNorm):
    __doc__ = (
        _InstanceNorm.__doc__
        + """
    Shapes: input (N, C, H, W) or (C, H, W); output the same.

    >>> import tinygrad_norm as tg
    >>> from tinygrad_norm import nn
    >>> nn.InstanceNorm2d(3, affine=True)(tg.randn(2, 3, 4, 4)).shape
    torch.Size([2, 3, 4, 4])
    """
    )
    _ranks = (3, 4)
    _shapes = "(N, C, H, W) or (C, H, W)"
    _unbatched_rank = 3
