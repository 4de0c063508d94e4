"""The activation functions of `nn.functional`: relu, gelu, softmax, log_softmax and the rest.

Each is composed from primitives, so autograd derives its gradient. Piecewise ones are a
`Where` between their pieces with a constant mask: the gradient goes to the piece that was
chosen and exactly 0 to the other. A piece that would overflow where it is not chosen (exp of a
large input) is fed a clamped input, so its unused gradient is 0, not 0 * inf = NaN.
Boundaries follow PyTorch's backward (hardtanh passes no gradient at min_val and max_val;
elu's slope at 0 is alpha). softplus and logsigmoid are one node each
(`ops/fused/softplus.py`, beside their composed forms as references).
"""

from __future__ import annotations

import numpy as np

from ...functions.creation import as_tensor
from ...ops import fused
from ...ops.composite import require_floating
from ...ops.elementwise import Where
from ...ops.fused.softplus import LogSigmoid, Softplus
from ...tensor import Tensor

__all__ = [
    "celu",
    "elu",
    "glu",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "leaky_relu",
    "logsigmoid",
    "mish",
    "prelu",
    "relu6",
    "selu",
    "silu",
    "softmin",
    "softplus",
    "softsign",
    "tanhshrink",
]

SELU_ALPHA = 1.6732632423543772848170429916717  # Klambauer et al. (2017), self-normalizing
SELU_SCALE = 1.0507009873554804934193349852946


def _float(input) -> Tensor:  # noqa: A002
    x = as_tensor(input)
    return x if x.dtype.kind == "f" else x.float()


def _floating_only(op: str, input) -> Tensor:  # noqa: A002
    """The input of an activation PyTorch defines for floating dtypes only: an integer or bool
    tensor is its NotImplementedError, not a silent conversion."""
    x = as_tensor(input)
    require_floating(op, x, NotImplementedError, f"F.{op}(x.float())")
    return x


def _constant(values: np.ndarray, like: Tensor) -> np.ndarray:
    return np.asarray(values, dtype=like.dtype)


def leaky_relu(input, negative_slope=0.01, inplace=False):  # noqa: A002 - PyTorch's names
    """x for x > 0, negative_slope * x otherwise (slope negative_slope at 0, as PyTorch)."""
    x = _floating_only("leaky_relu", input)
    return fused.LeakyRelu.apply(x, negative_slope)  # one node: ops/fused/leaky_relu.py


def elu(input, alpha=1.0, inplace=False):  # noqa: A002
    """x for x > 0, alpha * (exp(x) - 1) otherwise (Clevert et al., 2015).

    >>> import tinygrad_norm as tg
    >>> elu(tg.tensor([-1.0, 2.0]))
    tensor([-0.6321,  2.0000])
    """
    x = _floating_only("elu", input)
    return fused.elu(x, alpha)  # one node: ops/fused/elu.py


def selu(input, inplace=False):  # noqa: A002
    """scale * elu(x, alpha) with PyTorch's constants alpha = 1.6733, scale = 1.0507."""
    return fused.elu(_floating_only("selu", input), SELU_ALPHA, scale=SELU_SCALE)


def celu(input, alpha=1.0, inplace=False):  # noqa: A002
    """x for x > 0, alpha * (exp(x / alpha) - 1) otherwise: elu with a slope of 1 at 0."""
    x = _floating_only("celu", input)
    return fused.elu(x, alpha, input_scale=1 / alpha)


def silu(input, inplace=False):  # noqa: A002
    """x * sigmoid(x), also called swish."""
    x = _floating_only("silu", input)
    return fused.silu(x)  # one node


def softplus(input, beta=1.0, threshold=20.0):  # noqa: A002
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold (as PyTorch)."""
    x = _floating_only("softplus", input)
    return Softplus.apply(x, beta, threshold)  # one node (ops/fused/softplus.py)


def mish(input, inplace=False):  # noqa: A002
    """x * tanh(softplus(x)) (Misra, 2019)."""
    x = _floating_only("mish", input)
    return x * softplus(x).tanh()


def softsign(input):  # noqa: A002
    """x / (1 + |x|)."""
    x = _float(input)
    return x / (x.abs() + 1)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):  # noqa: A002
    """x clipped to [min_val, max_val]; gradient 1 strictly inside, 0 outside and at the ends.

    An integer input stays integer, as in PyTorch (the limits are truncated toward zero:
    hardtanh of int64 [-2, 1, 7] with -0.5, 2.5 is [0, 1, 2]); a bool input is refused.
    """
    if min_val > max_val:
        raise ValueError(f"hardtanh: min_val ({min_val}) must not exceed max_val ({max_val})")
    x = as_tensor(input)
    if x.dtype.kind in "biu":
        return _clip_integers(x, min_val, max_val)
    # NOTE: a NaN gets gradient 0 (PyTorch's vectorized kernel agrees; its scalar tail loop
    # passes the gradient through instead)
    return fused.Hardtanh.apply(x, min_val, max_val)  # one node: ops/fused/clamp.py


def _clip_integers(x: Tensor, min_val, max_val) -> Tensor:
    """hardtanh of an integer tensor: np.clip, in x's dtype (no gradient: x cannot need one)."""
    if x.dtype.kind == "b":
        raise RuntimeError(
            "hardtanh: bool inputs are not supported (as in PyTorch); convert first, "
            "e.g. x.long() or x.float()"
        )
    if x.dtype.kind == "u" and int(min_val) < 0:  # the limits are truncated toward 0 first
        raise RuntimeError(
            f"hardtanh: cannot clip an unsigned {x.dtype} tensor to negative limits (min_val "
            f"{min_val}), as in PyTorch; use min_val >= 0 (relu6 does) or convert first, "
            "e.g. x.long()"
        )
    return Tensor._make(np.clip(x.array, min_val, max_val).astype(x.array.dtype))


def relu6(input, inplace=False):  # noqa: A002
    """min(max(x, 0), 6) = hardtanh(x, 0, 6)."""
    return hardtanh(input, 0.0, 6.0)


def hardsigmoid(input, inplace=False):  # noqa: A002
    """0 for x <= -3, 1 for x >= 3, x / 6 + 1/2 between (a piecewise-linear sigmoid)."""
    x = _floating_only("hardsigmoid", input)
    inside = (x.array > -3) & (x.array < 3)
    return Where.apply(inside, x / 6 + 0.5, _constant(np.clip(x.array / 6 + 0.5, 0, 1), x))


def hardswish(input, inplace=False):  # noqa: A002
    """x * hardsigmoid(x): 0 for x <= -3, x for x >= 3, x (x + 3) / 6 between (MobileNetV3).

    NOTE: at the kinks x = -3 and x = 3 the slope is taken from the outer piece (0 and 1), as
    PyTorch's backward does.
    """
    x = _floating_only("hardswish", input)
    return fused.hardswish(x)  # one node: ops/fused/elu.py


def logsigmoid(input):  # noqa: A002
    """log(sigmoid(x)) = -softplus(-x), as x - log(1 + e^x) for x < 0 and -log(1 + e^-x) for
    x >= 0: each piece only exponentiates a number <= 0, so nothing overflows."""
    x = _floating_only("logsigmoid", input)
    return LogSigmoid.apply(x)  # one node (ops/fused/softplus.py)


def tanhshrink(input):  # noqa: A002
    """x - tanh(x)."""
    x = _float(input)
    return x - x.tanh()


def softmin(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    """softmax(-x) along `dim`: the smallest entries get the largest weights."""
    if dim is None:
        raise TypeError("softmin: pass dim=, the axis whose entries should form a distribution")
    x = as_tensor(input)
    return fused.softmax(-(x if dtype is None else x.to(dtype)), dim)


def glu(input, dim=-1):  # noqa: A002
    """a * sigmoid(b), where a and b are the two halves of the input along `dim` (Dauphin et
    al., 2017). The size along `dim` must be even; the output has half of it."""
    x = _floating_only("glu", input)
    if x.ndim == 0:
        raise RuntimeError("glu: does not take a 0-d tensor: there is no dim to halve")
    size = x.shape[dim]
    if size % 2:
        raise RuntimeError(
            f"glu: the size along dim {dim} must be even to split it into two halves, "
            f"got {size} (input shape {x.shape})"
        )
    a, b = x.chunk(2, dim)
    return a * b.sigmoid()


def prelu(input, weight):  # noqa: A002
    """x for x > 0, weight * x otherwise; weight has 1 or C (= input.shape[1]) entries, one
    learned slope per channel (He et al., 2015)."""
    x, weight = _float(input), as_tensor(weight)
    channels = x.shape[1] if x.ndim >= 2 else 1
    if weight.numel() == 1:
        weight = weight.reshape(())
    elif weight.ndim != 1 or weight.numel() != channels:
        raise RuntimeError(
            f"prelu: weight has {weight.numel()} entries but the input of shape {x.shape} has "
            f"{channels} channels (dim 1); give 1 weight or one per channel"
        )
    else:
        weight = weight.reshape((channels,) + (1,) * (x.ndim - 2))  # (C, 1, ..., 1)
    return Where.apply(x.array > 0, x, x * weight)


def relu(input):  # noqa: A002 - PyTorch's name
    """max(input, 0); the gradient at 0 is 0."""
    return as_tensor(input).relu()


def gelu(input, approximate="none"):  # noqa: A002 - PyTorch's name
    """x * Phi(x) (`approximate="none"`) or GPT-2's tanh form; fused (`ops/fused/gelu.py`).

    >>> import tinygrad_norm as tg
    >>> gelu(tg.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.1587,  0.0000,  0.8413])
    """
    return fused.gelu(as_tensor(input), approximate)


def softmax(input, dim=None, dtype=None):  # noqa: A002 - PyTorch's name
    """exp(x_i) / sum_j exp(x_j) along `dim`; fused (`ops/fused/softmax.py`)."""
    x = _float_input("softmax", input, dim, dtype)
    return fused.softmax(x, dim)


def log_softmax(input, dim=None, dtype=None):  # noqa: A002 - PyTorch's name
    """x_i - log(sum_j exp(x_j)) along `dim`; fused (`ops/fused/softmax.py`)."""
    x = _float_input("log_softmax", input, dim, dtype)
    return fused.log_softmax(x, dim)


def _float_input(op: str, input, dim, dtype):  # noqa: A002
    if dim is None:
        raise TypeError(
            f"{op}: pass dim=, the axis whose entries should form a distribution "
            "(PyTorch's guess for a missing dim is deprecated)"
        )
    x = as_tensor(input)
    return x if dtype is None else x.to(dtype)
