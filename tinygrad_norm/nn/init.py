"""Weight initialisation, as `torch.nn.init`: fill a tensor in place and return it.

Every function writes into `tensor.array` (so a Parameter keeps its identity and memory), records
nothing for backward, and draws from the global generator, so `tg.manual_seed` makes it
repeatable.

Why the scales: a layer `y = W x` with `fan_in` inputs of variance 1 and weights of variance
`s²` gives outputs of variance `fan_in * s²`. Keeping that near 1, layer after layer, keeps
activations (forward) and gradients (backward, where `fan_out` plays the same role) from
shrinking or exploding. Xavier/Glorot (2010) compromises between the two directions with
`s² = 2 / (fan_in + fan_out)`; Kaiming/He (2015) keeps the forward variance under a ReLU, which
zeroes half the signal, with `s² = 2 / fan_in`. A nonlinearity's `gain` is the factor that
restores the variance it removes.

>>> import tinygrad_norm as tg
>>> from tinygrad_norm import nn
>>> w = nn.init.xavier_uniform_(tg.empty(3, 5))
>>> bool((abs(w.array) <= (6 / (5 + 3)) ** 0.5).all())
True
"""

import math

import numpy as np

from ..random import resolve, transforms
from ..tensor import Tensor


def _data(tensor, fn: str) -> np.ndarray:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"nn.init.{fn}: expected a Tensor, got {type(tensor).__name__}")
    return tensor.array


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill with samples of U(a, b), from `generator` (a tg.Generator) or the global one."""
    data = _data(tensor, "uniform_")
    gen = resolve(generator, "nn.init.uniform_")
    values = transforms.uniform(gen, data.shape, data.dtype, a, b)
    data[...] = transforms.in_memory_order(values, data)
    return tensor


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill with samples of N(mean, std²), from `generator` (a tg.Generator) or the global one."""
    data = _data(tensor, "normal_")
    gen, contiguous = resolve(generator, "nn.init.normal_"), data.flags.c_contiguous
    values = transforms.normal(gen, data.shape, data.dtype, mean, std, contiguous)
    data[...] = transforms.in_memory_order(values, data)
    return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with the value `val`."""
    _data(tensor, "constant_")[...] = val
    return tensor


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """`(fan_in, fan_out)` of a weight of shape `(out, in, *kernel)`, as PyTorch computes them.

    Each output sums `in * prod(kernel)` products (fan_in); each input reaches
    `out * prod(kernel)` outputs (fan_out). For a Linear weight `(out, in)` the kernel is empty.
    """
    shape = _data(tensor, "_calculate_fan_in_and_fan_out").shape
    if len(shape) < 2:
        raise ValueError(
            f"fan in and fan out can not be computed for a tensor of shape {shape}: it needs "
            "at least 2 dimensions (out_features, in_features, ...)"
        )
    receptive_field = math.prod(shape[2:])
    return shape[1] * receptive_field, shape[0] * receptive_field


_GAIN_ONE = ("linear", "sigmoid", "conv1d", "conv2d", "conv3d")
_GAIN_ONE += ("conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The factor by which to scale the std so that `nonlinearity` keeps the variance.

    linear, conv and sigmoid: 1; tanh: 5/3; relu: sqrt(2); leaky_relu with negative slope `param`
    (0.01 by default): sqrt(2 / (1 + slope²)); selu: 3/4.
    """
    if nonlinearity in _GAIN_ONE:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"calculate_gain: negative_slope {param!r} is not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(
        f"calculate_gain: unsupported nonlinearity {nonlinearity!r}; use one of linear, sigmoid, "
        "tanh, relu, leaky_relu, selu, conv1d, conv2d, conv3d"
    )


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot & Bengio (2010): U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)).

    U(-a, a) has variance a² / 3 = gain² * 2 / (fan_in + fan_out).
    """
    if _empty(tensor):
        return tensor
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / (fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot & Bengio (2010): N(0, std²) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    if _empty(tensor):
        return tensor
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / (fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _empty(tensor: Tensor) -> bool:
    """A tensor with no elements: initialising it does nothing (as PyTorch, which warns)."""
    return _data(tensor, "init").size == 0


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode {mode!r} is not supported, use 'fan_in' or 'fan_out'")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """He et al. (2015): U(-bound, bound) with bound = gain * sqrt(3 / fan), where
    gain = calculate_gain(nonlinearity, a) and fan is fan_in (keeps the forward variance) or
    fan_out (keeps the backward variance). Variance: gain² / fan.

    `nn.Linear`'s default is `kaiming_uniform_(w, a=sqrt(5))`, i.e. bound = 1 / sqrt(fan_in).
    """
    if _empty(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """He et al. (2015): N(0, std²) with std = gain / sqrt(fan) (see `kaiming_uniform_`)."""
    if _empty(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def trunc_normal_(
    tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
    generator=None,
) -> Tensor:  # fmt: skip
    """Samples of N(mean, std²) conditioned on a <= x <= b (ViT, timm), by rejection as
    PyTorch draws them: when [a, b] holds more than 30% of the mass, normal draws of the
    whole tensor, redrawn where out of range; else uniform candidates x on [a, b] accepted
    where log(u) <= -((x - mean) / std)² / 2 - log_peak (u uniform, log_peak the log-density
    ratio at the mode), the rejected ones drawn again."""
    data = _data(tensor, "trunc_normal_")
    gen, shape, dtype = resolve(generator, "nn.init.trunc_normal_"), data.shape, data.dtype
    mass = _normal_cdf((b - mean) / std) - _normal_cdf((a - mean) / std)
    if mass > 0.3:
        lo, hi = dtype.type(a), dtype.type(b)
        result = transforms.normal(gen, shape, dtype, mean, std)
        while ((result < lo) | (result > hi)).any():
            redraw = transforms.normal(gen, shape, dtype, mean, std)
            result = np.where((result < lo) | (result > hi), redraw, result)
        data[...] = result
        return tensor
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2

    def rejected(candidates):
        log_density = ((candidates - dtype.type(mean)) / dtype.type(std)) ** 2
        log_density = log_density * dtype.type(-0.5) - dtype.type(log_peak)
        return np.log(transforms.uniform(gen, shape, dtype)) > log_density

    result = transforms.uniform(gen, shape, dtype, a, b)
    pending = rejected(result)
    while pending.any():
        candidates = transforms.uniform(gen, shape, dtype, a, b)
        result = np.where(pending, candidates, result)
        pending = np.where(pending, rejected(candidates), pending)
    data[...] = result
    return tensor


def _normal_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix times `gain` (Saxe et al., 2013): the Q of the QR of a
    Gaussian matrix, its signs fixed by R's diagonal so Q is uniform over the orthogonal
    group; a tensor of more dimensions is flattened to (size(0), rest)."""
    data = _data(tensor, "orthogonal_")
    if data.ndim < 2:
        raise ValueError(
            "nn.init.orthogonal_: only tensors with 2 or more dimensions are supported"
        )
    if data.size == 0:
        return tensor
    rows, cols = data.shape[0], data.size // data.shape[0]
    gen = resolve(generator, "nn.init.orthogonal_")
    flat = transforms.normal(gen, (rows, cols), data.dtype).astype(np.float64)
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    data[...] = (gain * q).reshape(data.shape)
    return tensor
