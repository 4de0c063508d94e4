"""Elementwise math composed from primitives: no backward of their own.

exp2 is a Pow, frac a Sub of a Trunc, hypot a square root of squares, lerp a Where of two
affine forms, logaddexp a maximum plus a softplus of minus the distance, copysign an abs times
a sign factor. Tests, comparisons and logical or bitwise ops give bool or integer tensors that
are never differentiable.
"""

import numpy as np

from ..autograd.node import GraphTensor
from ..broadcast import broadcast_shape
from ..convert import number_as
from ..dtypes import get_default_dtype, refuse_bool, result_type
from .composite import as_tensor, maximum, promote_pair, require_floating
from .elementwise import Where
from .fused.lerp import Lerp
from .fused.logaddexp import LogAddExp
from .fused.modulo import Fmod, Remainder, RoundedDiv
from .rounding import SignOf, Trunc
from .special import Log1p


def constant(array, like):
    """A Tensor outside the graph holding `array` (bool and integer results); `like` is any
    Tensor, to reach the class."""
    return like._make(np.asarray(array))


def to_float(x):
    """x, or x converted to the default float dtype when it holds integers or bools."""
    return x if x.dtype.kind in "fc" else x.to(get_default_dtype())


def pair(op: str, a, b):
    """Two operands of `op` as Tensors in one dtype (a Python number takes the other side's),
    after checking that their shapes broadcast (a ShapeError naming both otherwise)."""
    like = a if isinstance(a, GraphTensor) else b
    a, b = as_tensor(a, like), as_tensor(b, like)
    broadcast_shape(op, a.shape, b.shape)
    return promote_pair(a, b)


def refuse_integer_zero(op: str, a, b) -> None:
    """PyTorch raises for an integer // or % by zero (there is no integer infinity or NaN);
    NumPy would return 0 with a warning, a silent wrong number."""
    if a.array.dtype == np.bool_:
        raise NotImplementedError(
            f"{op}: not implemented for bool tensors (as in PyTorch); convert first, e.g. x.long()"
        )
    if a.array.dtype.kind in "biu" and not b.array.all():
        raise RuntimeError(
            f"{op}: ZeroDivisionError: an integer tensor divided by zero (the divisor of shape "
            f"{tuple(b.shape)} holds a 0); integers have no infinity: convert to float first "
            "(x.float()), or mask the zeros out"
        )


def _some_tensor(a, b):
    return a if isinstance(a, GraphTensor) else b


def array_of(v) -> np.ndarray:
    return v.array if isinstance(v, GraphTensor) else np.asarray(v)


# --- arithmetic, PyTorch's method names ---------------------------------------------------------
def add(input, other, *, alpha=1):  # noqa: A002 - PyTorch's names
    """input + alpha * other."""
    return input + (other if alpha == 1 else other * alpha)


def sub(input, other, *, alpha=1):  # noqa: A002
    """input - alpha * other."""
    return input - (other if alpha == 1 else other * alpha)


def div(input, other, *, rounding_mode=None):  # noqa: A002
    """input / other; `rounding_mode="trunc"` rounds towards 0, `"floor"` down (Python's //).

    A rounded quotient is flat between its jumps: its gradient is 0 (as PyTorch's).
    """
    if rounding_mode is None:
        return input / other
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(
            f"div: rounding_mode must be None, 'trunc' or 'floor', got {rounding_mode!r}"
        )
    a, b = pair("div", input, other)
    refuse_integer_zero(f"div(rounding_mode={rounding_mode!r})", a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        return RoundedDiv.apply(a, b, rounding_mode)


def floor_divide(input, other):  # noqa: A002
    """floor(input / other), Python's //; gradient 0 (PyTorch has none)."""
    return div(input, other, rounding_mode="floor")


def fmod(input, other):  # noqa: A002
    """input - other * trunc(input / other): the remainder with the sign of input (C's fmod)."""
    a, b = pair("fmod", input, other)
    refuse_integer_zero("fmod", a, b)
    return Fmod.apply(a, b)


def remainder(input, other):  # noqa: A002
    """input - other * floor(input / other): the remainder with the sign of other (Python's %)."""
    a, b = pair("remainder", input, other)
    refuse_integer_zero("remainder (%)", a, b)
    return Remainder.apply(a, b)


def pow(input, exponent):  # noqa: A001 - PyTorch's name
    """input ** exponent; either may be a number (torch.pow(2, x) is 2 ** x)."""
    if not isinstance(input, GraphTensor):
        input = as_tensor(input, exponent)
    return input**exponent


# --- composed elementwise functions -------------------------------------------------------------
def exp2(x):
    """2 ** x; d/dx = 2 ** x * ln 2 (Pow's gradient with respect to its exponent)."""
    x = to_float(x)
    return as_tensor(2.0, like=x) ** x


def frac(x):
    """x - trunc(x): the fractional part, with the sign of x; its gradient is 1."""
    refuse_bool("frac", x)
    return x - Trunc.apply(x)


def reciprocal(x):
    """1 / x (integers give the default float dtype)."""
    return 1 / to_float(x)


def square(x):
    """x * x; a bool x gives int64, as PyTorch's x ** 2 (bool * bool would stay bool)."""
    return x * x if x.dtype.kind != "b" else x.long() * x.long()


def hypot(input, other):  # noqa: A002
    """sqrt(input^2 + other^2), the length of the vector (input, other)."""
    a, b = pair("hypot", input, other)
    return (a * a + b * b).sqrt()


def lerp(input, end, weight):  # noqa: A002
    """input + weight * (end - input), linear interpolation from input (weight 0) to end (1).

    As PyTorch, for |weight| >= 0.5 it is computed as end - (end - input) * (1 - weight), which
    gives exactly `end` at weight 1. Integer or bool ends are refused, as PyTorch does (a uint8
    difference would wrap around).
    """
    for name, v in (("input", input), ("end", end)):
        if isinstance(v, GraphTensor):
            fix = "tg.lerp(input.float(), end.float(), weight)"
            require_floating("lerp", v, NotImplementedError, fix, name)
    tensors = [v for v in (input, end, weight) if isinstance(v, GraphTensor)]
    for v in tensors[1:]:
        if v.array.dtype != tensors[0].array.dtype:
            raise RuntimeError(
                f"lerp: expected one dtype for input, end and a weight tensor, got "
                f"{[str(t.dtype) for t in tensors]} (PyTorch does not promote here); convert "
                "them first, e.g. end.to(input.dtype)"
            )
    start, end = pair("lerp", input, end)
    if not isinstance(weight, GraphTensor):
        diff = end - start
        return start + diff * weight if abs(weight) < 0.5 else end - diff * (1 - weight)
    broadcast_shape("lerp", start.shape, end.shape, weight.shape)
    if start.array.dtype.kind == "f" and start.array.dtype == end.array.dtype:
        return Lerp.apply(start, end, weight)  # one node (fused/lerp.py)
    return lerp_reference(start, end, weight)


def lerp_reference(start, end, weight):
    """lerp with a tensor weight, composed: a Where between start + diff weight (|weight| < 1/2)
    and end - diff (1 - weight): the reference of `fused.lerp.Lerp`."""
    diff = end - start
    small = np.abs(weight.array) < 0.5
    return Where.apply(small, start + diff * weight, end - diff * (1 - weight))


def logaddexp(input, other):  # noqa: A002
    """log(exp(a) + exp(b)), which never overflows: one node (`fused.logaddexp.LogAddExp`) for
    two float tensors of one dtype, else `logaddexp_reference`."""
    a, b = pair("logaddexp", input, other)
    a, b = to_float(a), to_float(b)
    if a.array.dtype == b.array.dtype and a.array.dtype.kind == "f":
        return LogAddExp.apply(a, b)
    return logaddexp_reference(a, b)


def logaddexp_reference(input, other):  # noqa: A002
    """log(exp(a) + exp(b)) = max(a, b) + log1p(exp(-|a - b|)), which never overflows.

    d/da = exp(a) / (exp(a) + exp(b)) = sigmoid(a - b); at a == b the maximum and abs are kinks
    whose one-sided slopes average to the true derivative 1/2, which is what they send.
    """
    a, b = pair("logaddexp", input, other)
    a, b = to_float(a), to_float(b)
    same_infinity = np.isinf(a.array) & (a.array == b.array)
    if same_infinity.any():  # inf - inf would be NaN: log(e^inf + e^inf) = inf, likewise -inf
        zero = np.zeros((), a.dtype)
        safe = logaddexp_reference(
            Where.apply(same_infinity, zero, a), Where.apply(same_infinity, zero, b)
        )
        return Where.apply(same_infinity, a, safe)
    return maximum(a, b) + Log1p.apply((-(a - b).abs()).exp())


def copysign(input, other):  # noqa: A002
    """|input| with the sign of other (its sign bit: -0.0 counts as negative).

    The gradient to input is sign(input) * sign(other) (0 at input = 0, as PyTorch); other gets 0.
    """
    a, b = pair("copysign", input, other)
    a = to_float(a)
    return a.abs() * SignOf.apply(b, a.dtype)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):  # noqa: A002
    """NaN -> nan, inf -> posinf, -inf -> neginf (default: the dtype's largest and smallest
    finite values). The gradient passes where the input was finite and is 0 elsewhere."""
    if input.dtype.kind not in "fc":
        return input.clone()
    info = np.finfo(input.dtype)
    x = input.array
    high = info.max if posinf is None else posinf
    low = info.min if neginf is None else neginf
    replaced = np.where(np.isnan(x), nan, np.where(x > 0, high, low)).astype(x.dtype)
    return Where.apply(np.isfinite(x), input, replaced)


# --- tests: bool results, never differentiable --------------------------------------------------
def isnan(x):
    return constant(np.isnan(x.array), x)


def isinf(x):
    return constant(np.isinf(x.array), x)


def isfinite(x):
    return constant(np.isfinite(x.array), x)


def logical_and(input, other):  # noqa: A002
    return constant(np.logical_and(array_of(input), array_of(other)), _some_tensor(input, other))


def logical_or(input, other):  # noqa: A002
    return constant(np.logical_or(array_of(input), array_of(other)), _some_tensor(input, other))


def logical_xor(input, other):  # noqa: A002
    return constant(np.logical_xor(array_of(input), array_of(other)), _some_tensor(input, other))


def logical_not(input):  # noqa: A002
    return constant(np.logical_not(input.array), input)


# --- bitwise: integers and bools only -----------------------------------------------------------
def _integers(op: str, *values) -> list:
    arrays = []
    for v in values:
        array = array_of(v)
        if array.dtype.kind not in "biu":
            raise NotImplementedError(
                f"{op}: works on integer and bool tensors, got {array.dtype}; for a truth test "
                "of floats use logical_and / logical_or, or convert with .long() or .bool()"
            )
        arrays.append(array)
    return arrays


def bitwise(op: str, ufunc, input, other, bools=True):  # noqa: A002
    """`ufunc` of two integer (or bool) operands in PyTorch's result dtype (`result_type`: a
    0-d tensor or a Python int beside a uint8 tensor stays uint8); a result of bools is refused
    where PyTorch has no bool kernel (`bools=False`: the shifts)."""
    _integers(op, input, other)
    dtype = result_type(input, other)
    if not bools:
        refuse_bool(op, np.zeros(0, dtype))
    a, b = (
        v.array.astype(dtype, copy=False) if isinstance(v, GraphTensor) else number_as(op, v, dtype)
        for v in (input, other)
    )
    return constant(ufunc(a, b), _some_tensor(input, other))


def bitwise_and(input, other):  # noqa: A002
    return bitwise("bitwise_and", np.bitwise_and, input, other)


def bitwise_or(input, other):  # noqa: A002
    return bitwise("bitwise_or", np.bitwise_or, input, other)


def bitwise_xor(input, other):  # noqa: A002
    return bitwise("bitwise_xor", np.bitwise_xor, input, other)


def bitwise_not(input):  # noqa: A002
    return constant(np.invert(*_integers("bitwise_not", input)), input)
