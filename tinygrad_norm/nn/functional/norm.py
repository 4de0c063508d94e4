"""The normalizations as functions (`F.layer_norm`, `F.batch_norm`, `F.instance_norm`,
`F.group_norm`, `F.rms_norm`): (x - mean) / sqrt(var + eps), then an optional affine, each
over its own axes (see `nn/normalization.py`'s table). `nn.functional` re-exports them.
"""

from __future__ import annotations

import math

import numpy as np

from ...broadcast import ShapeError, broadcasts_to
from ...functions.creation import as_tensor
from ...ops import fused
from ...ops import shape as S
from ...ops.composite import require_floating
from ...tensor import Tensor


# --- normalization ------------------------------------------------------------------------------
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """(x - mean) / sqrt(var + eps) * weight + bias over the last len(normalized_shape) axes.

    The variance is the biased one (divided by the number of normalized elements), as in
    PyTorch. weight and bias have the normalized shape (or one that broadcasts to it).
    Fused, with the backward derived in `ops/fused/layer_norm.py`. Ba et al., 2016.

    >>> import tinygrad_norm as tg
    >>> layer_norm(tg.tensor([[1.0, 2.0, 3.0]]), (3,), eps=0.0)
    tensor([[-1.2247,  0.0000,  1.2247]])
    """
    x = as_tensor(input)
    require_floating("layer_norm", x, NotImplementedError, "F.layer_norm(x.float(), ...)")
    shape = _normalized_shape("layer_norm", x, normalized_shape)
    weight, bias = _maybe(weight), _maybe(bias)
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and not broadcasts_to(t.array.shape, shape):
            raise ShapeError(  # PyTorch's RuntimeError
                f"layer_norm: {name} of shape {t.array.shape} does not match "
                f"normalized_shape {shape}; give it normalized_shape's shape"
            )
    return fused.layer_norm(x, weight, bias, len(shape), eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):  # noqa: A002
    """x / sqrt(mean(x^2) + eps) * weight over the last len(normalized_shape) axes.

    No centering and no bias (Zhang & Sennrich, 2019, "Root Mean Square Layer Normalization").
    `eps=None` means the machine epsilon of the input's dtype, as PyTorch
    (torch.finfo(dtype).eps: 1.19e-07 for float32, 2.22e-16 for float64).

    >>> import tinygrad_norm as tg
    >>> rms_norm(tg.tensor([[3.0, 4.0]]), (2,), eps=0.0)   # rms = sqrt(12.5)
    tensor([[0.8485, 1.1314]])
    """
    x = as_tensor(input)
    require_floating("rms_norm", x, NotImplementedError, "F.rms_norm(x.float(), normalized_shape)")
    shape = _normalized_shape("rms_norm", x, normalized_shape)
    if eps is None:
        eps = float(np.finfo(x.dtype).eps)
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    y = x * ((x * x).mean(dim=axes, keepdim=True) + eps).rsqrt()
    if weight is not None:
        if not broadcasts_to(np.shape(weight), shape):
            raise ValueError(
                f"rms_norm: weight of shape {tuple(np.shape(weight))} does not match "
                f"normalized_shape {shape}"
            )
        y = y * weight
    return y


def _normalized_shape(op: str, x, normalized_shape) -> tuple:
    if isinstance(normalized_shape, (int, np.integer)):
        normalized_shape = (int(normalized_shape),)
    shape = tuple(int(n) for n in normalized_shape)
    if not shape or len(shape) > x.ndim or x.shape[x.ndim - len(shape) :] != shape:
        raise ShapeError(  # PyTorch's RuntimeError
            f"{op}: normalized_shape {shape} must equal the last axes of the input, but the "
            f"input has shape {x.shape}; pass the input's trailing sizes, e.g. {x.shape[-1:]}"
        )
    return shape


def _same_dtype(t, x) -> bool:
    """t is None or a Tensor of x's dtype (the fused BatchNorm then keeps it)."""
    return t is None or (isinstance(t, Tensor) and t.array.dtype == x.array.dtype)


def _maybe(t):
    return None if t is None else as_tensor(t)


def _channel_shape(x) -> tuple:
    """(1, C, 1, ...): a per-channel vector broadcast along x (N, C, *spatial)."""
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


def _affine(y, weight, bias):
    """y * weight + bias with per-channel weight and bias (C,)."""
    shape = _channel_shape(y)
    if weight is not None:
        y = y * as_tensor(weight).reshape(shape)
    if bias is not None:
        y = y + as_tensor(bias).reshape(shape)
    return y


def _check_channels(op: str, x, **per_channel) -> None:
    shape = x.array.shape  # NOTE: the array's, not x.shape (a new Size per call)
    if len(shape) < 2:
        raise ValueError(f"{op}: input must be (N, C, ...), got shape {shape}")
    expected = shape[1:2]  # (C,)
    for name, t in per_channel.items():
        if t is None:
            continue
        # NOTE: a Tensor's own shape, not np.shape(t) (which goes through NumPy's dispatch)
        got = t.array.shape if isinstance(t, Tensor) else tuple(np.shape(t))
        if got != expected:
            raise ValueError(
                f"{op}: {name} must have shape ({shape[1]},), one value per channel of "
                f"the input {shape}, got {got}"
            )


def _array(t):
    """The array of a Tensor, the array itself, or None."""
    return t.array if isinstance(t, Tensor) else t


def _update_running(running, momentum, batch_value: np.ndarray) -> None:
    """running = (1 - momentum) * running + momentum * batch_value, in place on its array."""
    if running is not None:
        array = running.array if isinstance(running, Tensor) else running
        array[...] = (1 - momentum) * array + momentum * batch_value


def batch_norm(
    input,  # noqa: A002 - PyTorch's name
    running_mean,
    running_var,
    weight=None,
    bias=None,
    training=False,
    momentum=0.1,
    eps=1e-5,
):
    """Normalize each channel over the batch (and spatial) axes: input (N, C), (N, C, L) or
    (N, C, H, W). Ioffe & Szegedy, 2015, "Batch Normalization".

    training=True: batch mean and biased variance normalize; running_mean and running_var
    (arrays or Tensors of shape (C,), or None) are updated in place with
    running = (1 - momentum) * running + momentum * batch statistic, using the UNBIASED
    variance (divided by n - 1), as PyTorch. training=False: the running statistics normalize.
    """
    x = as_tensor(input)
    require_floating("batch_norm", x, NotImplementedError, "F.batch_norm(x.float(), ...)")
    _check_channels("batch_norm", x, running_mean=running_mean, running_var=running_var,
                    weight=weight, bias=bias)  # fmt: skip
    if training:
        shape = x.array.shape
        n = shape[0] * math.prod(shape[2:])  # values per channel (also when C = 0)
        if n <= 1:
            raise ValueError(
                f"batch_norm: training needs more than one value per channel to compute a "
                f"variance, got input of shape {x.shape}; use a batch of 2 or more, or call "
                ".eval() to normalize with the running statistics"
            )
        fusable = x.array.dtype.kind == "f" and _same_dtype(weight, x) and _same_dtype(bias, x)
        running = (_array(running_mean), _array(running_var), momentum)
        if fusable:  # one node, which also updates the running statistics
            return fused.batch_norm(x, weight, bias, eps, running)  # (Tensors or None)
        axes = (0,) + tuple(range(2, x.ndim))
        if running_mean is not None or running_var is not None:
            _update_running(running_mean, momentum, x.array.mean(axis=axes))
            _update_running(running_var, momentum, x.array.var(axis=axes) * (n / (n - 1)))
        return _affine(_normalize_channels(x, eps), weight, bias)
    else:
        if running_mean is None or running_var is None:
            raise ValueError(
                "batch_norm: evaluation (training=False) normalizes with running_mean and "
                "running_var; pass them, or use training=True for batch statistics"
            )
        mean = _constant(running_mean, x).reshape(_channel_shape(x))
        var = _constant(running_var, x).reshape(_channel_shape(x))
    return _affine((x - mean) * (var + eps).rsqrt(), weight, bias)


def _normalize_channels(x, eps):
    """(x - mean) / sqrt(var + eps) with each channel's batch mean and biased variance, as one
    fused LayerNorm node: with the channels moved to the front, a channel's values are the
    last ndim - 1 axes. Composed it is seven nodes; this way three.
    """
    order = (1, 0) + tuple(range(2, x.ndim))  # swaps N and C: its own inverse
    return S.permute(fused.layer_norm(S.permute(x, order), None, None, x.ndim - 1, eps), order)


def _constant(t, like) -> Tensor:
    """A buffer (Tensor or array) as a constant Tensor of `like`'s dtype: no gradient."""
    array = np.asarray(t.array if isinstance(t, Tensor) else t)
    return Tensor._make(array.astype(like.dtype, copy=False))


def instance_norm(
    input,  # noqa: A002 - PyTorch's name
    running_mean=None,
    running_var=None,
    weight=None,
    bias=None,
    use_input_stats=True,
    momentum=0.1,
    eps=1e-5,
):
    """Normalize each channel of each sample over its spatial axes: input (N, C, L, ...).
    Ulyanov et al., 2016, "Instance Normalization".

    With use_input_stats, each (sample, channel) uses its own mean and biased variance, and
    running_mean / running_var (if given) move towards the batch average of them (unbiased
    variance), as PyTorch. Otherwise the running statistics normalize.
    """
    x = as_tensor(input)
    _check_channels("instance_norm", x, running_mean=running_mean, running_var=running_var,
                    weight=weight, bias=bias)  # fmt: skip
    if x.ndim < 3:
        raise ValueError(
            f"instance_norm: input must be (N, C, L, ...) with spatial axes, got {x.shape}"
        )
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise ValueError("instance_norm: use_input_stats=False needs running_mean/var")
        mean = _constant(running_mean, x).reshape(_channel_shape(x))
        var = _constant(running_var, x).reshape(_channel_shape(x))
        return _affine((x - mean) * (var + eps).rsqrt(), weight, bias)
    n = int(np.prod(x.shape[2:]))
    if n <= 1:
        raise ValueError(
            f"instance_norm: needs more than one spatial element per channel, got input "
            f"of shape {x.shape}"
        )
    flat = x.array.reshape(x.shape[0], x.shape[1], n)
    _update_running(running_mean, momentum, flat.mean(axis=2).mean(axis=0))
    _update_running(running_var, momentum, flat.var(axis=2, ddof=1).mean(axis=0))
    y = fused.layer_norm(x.reshape(x.shape[0], x.shape[1], n), None, None, 1, eps)
    return _affine(y.reshape(x.shape), weight, bias)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """Split the C channels into num_groups groups and normalize each group of each sample
    over its channels and spatial axes (Wu & He, 2018, "Group Normalization"); then a
    per-channel affine. num_groups = 1 is a LayerNorm over (C, ...), num_groups = C an
    InstanceNorm. input (N, C, ...), weight and bias (C,).
    """
    x = as_tensor(input)
    require_floating("group_norm", x, NotImplementedError, "F.group_norm(x.float(), ...)")
    _check_channels("group_norm", x, weight=weight, bias=bias)
    channels = x.shape[1]
    if num_groups <= 0 or channels % num_groups:
        raise ValueError(
            f"group_norm: the {channels} channels of input {x.shape} cannot be split into "
            f"{num_groups} groups of equal size; num_groups must divide {channels}"
        )
    group_size = math.prod(x.shape[1:]) // num_groups  # not -1: ambiguous for N = 0
    grouped = x.reshape(x.shape[0], num_groups, group_size)  # (N, G, C/G * spatial)
    y = fused.layer_norm(grouped, None, None, 1, eps).reshape(x.shape)
    return _affine(y, weight, bias)
