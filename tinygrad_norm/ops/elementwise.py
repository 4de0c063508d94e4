"""Elementwise primitives: each output element depends on the same element of each input.

Every backward here is written as if the inputs had the output's shape; when an input was
broadcast, the engine sums its gradient back to the input's shape (`sum_to_shape`), so no op
has to. The backwards that are plain arithmetic read the same for arrays and Tensors
(`xp.py`): on Tensors under `create_graph=True`, so that every gradient is itself
differentiable, and on the bare arrays otherwise, with no op overhead. Pow, Where and Cast
apply Functions in their backward, so they always run on Tensors.
"""

import math

import numpy as np

from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..dtypes import get_default_dtype
from .erf_numpy import erf as erf_array
from .xp import exp, imul, operands, sigmoid, times_mask


class Add(Function):
    """out = a + b"""

    formula = "grad_a = grad_out;  grad_b = grad_out"

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output


def _bool_minus(op: str) -> RuntimeError:
    """PyTorch's error for the - operator on bool tensors (NumPy's TypeError names no op)."""
    return RuntimeError(
        f"{op}: the - operator on bool tensors is not supported (as in PyTorch); to invert a "
        "mask use ~mask or mask.logical_not(), or convert first, e.g. x.long()"
    )


class Sub(Function):
    """out = a - b"""

    formula = "grad_a = grad_out;  grad_b = -grad_out"

    @staticmethod
    def forward(ctx, a, b):
        try:
            return a - b
        except TypeError:
            if a.dtype == b.dtype == np.bool_:  # NumPy refuses bool - bool
                raise _bool_minus("sub") from None
            raise

    @staticmethod
    def backward(ctx, grad_output):
        (g,) = operands(grad_output)
        return g, (-g if ctx.needs_input_grad[1] else None)


class Neg(Function):
    """out = -a"""

    formula = "grad_a = -grad_out"

    @staticmethod
    def forward(ctx, a):
        try:
            return -a
        except TypeError:
            if a.dtype == np.bool_:  # NumPy refuses -bool
                raise _bool_minus("neg") from None
            raise

    @staticmethod
    def backward(ctx, grad_output):
        (g,) = operands(grad_output)
        return -g


class Mul(Function):
    """out = a * b"""

    formula = "grad_a = grad_out * b;  grad_b = grad_out * a"

    @staticmethod
    def forward(ctx, a, b):
        # Keep only what backward will read: a constant factor needs no copy of the other side.
        ctx.save_for_backward(
            b if ctx.needs_input_grad[0] else None, a if ctx.needs_input_grad[1] else None
        )
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        g, b, a = operands(grad_output, *ctx.saved_tensors)
        return (
            g * b if ctx.needs_input_grad[0] else None,
            g * a if ctx.needs_input_grad[1] else None,
        )


class Div(Function):
    """out = a / b"""

    formula = "grad_a = grad_out / b;  grad_b = -grad_out * a / b**2"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b)
        if a.dtype.kind in "biu" and b.dtype.kind in "biu":
            # NOTE: integers divide into the default float dtype, as in PyTorch (NumPy: float64).
            return (a / b).astype(get_default_dtype())
        return a / b

    @staticmethod
    def backward(ctx, grad_output):
        g, a, b = operands(grad_output, *ctx.saved_tensors)
        grad_a = g / b if ctx.needs_input_grad[0] else None
        grad_b = -g * a / (b * b) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Pow(Function):
    """out = a ** b

    d(a^b)/da = b * a^(b-1) and d(a^b)/db = a^b * log(a); the second is only computed when the
    exponent is a tensor that requires grad (a plain number exponent never does).
    """

    formula = "grad_a = grad_out * b * a**(b-1);  grad_b = grad_out * a**b * log(a)"

    @staticmethod
    def forward(ctx, a, b):
        try:
            out = np.power(a, b)
        except ValueError:  # NumPy refuses integers to negative integer powers; PyTorch does not
            return integer_power(a, b)  # (integers never need a gradient)
        ctx.save_for_backward(a, b, out if ctx.needs_input_grad[1] else None)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        a, b, out = ctx.saved_tensors
        zero = np.zeros((), dtype=grad_output.dtype)
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            grad_a = grad_output * b * a ** (b - 1)
            # NOTE: a^0 = 1 is flat, also at a = 0, where b * a^(b-1) is 0 * inf = nan.
            if (b.array == 0).any():
                grad_a = Where.apply(b.array == 0, zero, grad_a)
        if ctx.needs_input_grad[1]:
            grad_b = grad_output * out * a.log()
            # NOTE: 0^b is 0 for every b > 0 (and 1 at b = 0): flat in b, as PyTorch has it,
            # where out * log(a) would be 0 * -inf = nan.
            flat = (a.array == 0) & (b.array >= 0)
            if flat.any():
                grad_b = Where.apply(flat, zero, grad_b)
        return grad_a, grad_b


def float_array(a: np.ndarray) -> np.ndarray:
    """Integer and bool inputs of a float-valued op become the default float dtype, as in
    PyTorch (NumPy would give float64, or float16 for bool and 8-bit integers)."""
    return a.astype(get_default_dtype()) if a.dtype.kind in "biu" else a


def integer_power(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a ** b of integer arrays, as PyTorch: a negative exponent gives 1 / a^|b| truncated
    toward zero, that is 1 for a = 1, (-1)^b for a = -1 and 0 for any other a (0 too), where
    NumPy raises "Integers to negative integer powers are not allowed".

    >>> integer_power(np.array([2, 1, -1, -1, 3]), np.array([-1, -2, -3, -2, 2]))
    array([ 0,  1, -1,  1,  9])
    """
    negative = b < 0
    out = np.power(a, np.where(negative, 0, b))
    minus_one_to_b = np.where(b % 2 == 0, 1, -1)
    tiny = np.where(a == 1, 1, np.where(a == -1, minus_one_to_b, 0))  # 1 / a^|b|, truncated
    return np.where(negative, tiny, out).astype(out.dtype, copy=False)


class Exp(Function):
    """out = exp(a); its derivative is itself, so backward reuses the output."""

    formula = "grad_a = grad_out * out     (out = exp(a))"

    @staticmethod
    def forward(ctx, a):
        out = np.exp(float_array(a))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        g, out = operands(grad_output, *ctx.saved_tensors)
        return g * out


class Log(Function):
    """out = log(a), the natural logarithm."""

    formula = "grad_a = grad_out / a"

    @staticmethod
    def forward(ctx, a):
        a = float_array(a)
        ctx.save_for_backward(a)
        return np.log(a)

    @staticmethod
    def backward(ctx, grad_output):
        g, a = operands(grad_output, *ctx.saved_tensors)
        return g / a


class Sqrt(Function):
    """out = sqrt(a); d sqrt(a)/da = 1 / (2 sqrt(a))."""

    formula = "grad_a = grad_out / (2 * out)     (out = sqrt(a))"

    @staticmethod
    def forward(ctx, a):
        out = np.sqrt(float_array(a))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        g, out = operands(grad_output, *ctx.saved_tensors)
        return g / (out * 2)


class Tanh(Function):
    """out = tanh(a); d tanh(a)/da = 1 - tanh(a)^2."""

    formula = "grad_a = grad_out * (1 - out**2)     (out = tanh(a))"

    @staticmethod
    def forward(ctx, a):
        out = np.tanh(float_array(a))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        g, out = operands(grad_output, *ctx.saved_tensors)
        return g * (1 - out * out)  # (g - g*out*out would round worse near |out| = 1)


class Sigmoid(Function):
    """out = 1 / (1 + exp(-a)); d out/da = out * (1 - out).

    NOTE: computed in place by `xp.sigmoid` (where exp(-a) may overflow to inf: 1 / inf = 0).
    """

    formula = "grad_a = grad_out * out * (1 - out)     (out = sigmoid(a))"

    @staticmethod
    def forward(ctx, a):
        a = float_array(a)
        out = sigmoid(a).astype(a.dtype, copy=False)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        g, out = operands(grad_output, *ctx.saved_tensors)
        grad = imul(1 - out, out)  # (1 - out) out, then times g: no other temporary
        return imul(grad, g)


class Relu(Function):
    """out = max(a, 0).

    NOTE: at a == 0 the derivative is undefined; like PyTorch we use 0 there. The mask
    `a > 0` is a constant: its own derivative is zero almost everywhere.
    """

    formula = "grad_a = grad_out * (a > 0)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a > 0)
        return np.maximum(a, 0)

    @staticmethod
    def backward(ctx, grad_output):
        g, positive = operands(grad_output, *ctx.saved_tensors)
        return times_mask(g, positive)


class Abs(Function):
    """out = |a|; the derivative is sign(a), taken as 0 at a == 0 (as PyTorch)."""

    formula = "grad_a = grad_out * sign(a)"

    @staticmethod
    def forward(ctx, a):
        if a.dtype == np.bool_:
            raise NotImplementedError(
                "abs: not implemented for bool tensors (as in PyTorch); a bool is its own "
                "absolute value, or convert first, e.g. x.long().abs()"
            )
        ctx.save_for_backward(np.sign(a))
        return np.abs(a)

    @staticmethod
    def backward(ctx, grad_output):
        g, sign = operands(grad_output, *ctx.saved_tensors)
        return g * sign


class Erf(Function):
    """out = erf(a) = 2/sqrt(pi) * integral from 0 to a of exp(-t^2) dt.

    By the fundamental theorem of calculus, d erf(a)/da = 2/sqrt(pi) * exp(-a^2).
    """

    formula = "grad_a = grad_out * 2/sqrt(pi) * exp(-a**2)"

    @staticmethod
    def forward(ctx, a):
        a = float_array(a)
        ctx.save_for_backward(a)
        return erf_array(a)

    @staticmethod
    def backward(ctx, grad_output):
        g, a = operands(grad_output, *ctx.saved_tensors)
        return g * (2 / math.sqrt(math.pi)) * exp(-(a * a))


class Where(Function):
    """out = a where `condition` is True, else b (`condition` is a bool array, not a tensor).

    Each gradient goes to the side that was chosen; the other side gets exactly 0 (not
    grad * 0, which would turn an infinite gradient into NaN).
    """

    formula = "grad_a = grad_out where cond else 0;  grad_b = 0 where cond else grad_out"

    @staticmethod
    def forward(ctx, condition, a, b):
        ctx.condition = condition
        return np.where(condition, a, b)

    @staticmethod
    def backward(ctx, grad_output):
        zero = np.zeros((), dtype=grad_output.dtype)
        grad_a = Where.apply(ctx.condition, grad_output, zero) if ctx.needs_input_grad[1] else None
        grad_b = Where.apply(ctx.condition, zero, grad_output) if ctx.needs_input_grad[2] else None
        return None, grad_a, grad_b


class MaskedFill(Function):
    """out = value where `mask` (a bool array broadcasting to x's shape), else x: `Where` of a
    number and x (its reference, which the tests compare with) without NumPy's `where`, slow on
    a mask of mixed values: a copy of x, then `value` written where the mask holds. Backward
    is the same on the gradient: a copy with 0 written there (exactly 0, as in `Where`)."""

    formula = "grad_x = grad_out, 0 where mask"

    @staticmethod
    def forward(ctx, x, mask, value):
        ctx.mask = mask
        out = np.empty(x.shape, x.dtype)
        np.copyto(out, x)
        np.copyto(out, value, where=mask)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        if is_grad_enabled():  # recorded, for higher derivatives
            return Where.apply(ctx.mask, np.zeros((), grad_output.dtype), grad_output)
        g = grad_output.array
        grad = np.empty(g.shape, g.dtype)
        np.copyto(grad, g)
        np.copyto(grad, 0, where=ctx.mask)
        return grad


class Cast(Function):
    """out = a converted to `dtype`; the gradient is converted back to a's dtype."""

    formula = "grad_a = grad_out converted to a's dtype"

    @staticmethod
    def forward(ctx, a, dtype):
        return a.astype(dtype)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.to(ctx.input_dtype), None


# --- maximum, minimum, fmod, remainder ---------------------------------------------------------
# NOTE: primitives, not compositions: `np.maximum` propagates NaN from either side (a `where` on a
# comparison would not); fmod and remainder are exact in NumPy where a - b * trunc(a / b) rounds
# twice.


def _tie_shares(a: np.ndarray, b: np.ndarray, a_wins: np.ndarray):
    """How much of the gradient each side of maximum/minimum gets, as PyTorch shares it:
    all to the winner, half each at a tie, and all to both where a NaN makes them unordered."""
    tie = a == b
    share_a = np.where(tie, 0.5, np.where(a_wins | np.isnan(a) | np.isnan(b), 1.0, 0.0))
    share_b = np.where(tie, 0.5, np.where(a_wins, 0.0, 1.0))
    dtype = np.result_type(a, b)
    return share_a.astype(dtype), share_b.astype(dtype)


class _Extremum(Function):
    """The common forward and backward of maximum and minimum: each side's gradient is
    grad_out times its share (`_tie_shares`); `numpy_fn` picks, `a_wins` says where a is taken."""

    numpy_fn = None  # np.maximum or np.minimum
    a_wins = None  # np.greater or np.less

    @classmethod
    def forward(cls, ctx, a, b):
        if ctx.needs_input_grad[0] or ctx.needs_input_grad[1]:
            ctx.share_a, ctx.share_b = _tie_shares(a, b, cls.a_wins(a, b))
        return cls.numpy_fn(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.share_a, grad_output * ctx.share_b


class Maximum(_Extremum):
    """out = max(a, b) elementwise; NaN if either is NaN (np.maximum).

    NOTE: at a tie (a == b) the function has a kink; the gradient is split 0.5 / 0.5 between the
    two sides, as PyTorch does. Where a NaN is involved both sides get the whole gradient.
    """

    formula = "grad_a = grad_out * [a > b] (0.5 at a == b);  grad_b = grad_out * [b > a] (0.5)"
    numpy_fn, a_wins = np.maximum, np.greater


class Minimum(_Extremum):
    """out = min(a, b) elementwise; NaN if either is NaN (np.minimum).

    NOTE: a kink at a == b, where the gradient is split 0.5 / 0.5, as PyTorch does.
    """

    formula = "grad_a = grad_out * [a < b] (0.5 at a == b);  grad_b = grad_out * [b < a] (0.5)"
    numpy_fn, a_wins = np.minimum, np.less


class _Modulo(Function):
    """The common forward and backward of fmod and remainder: out = a - b * k with the count
    k = `count_fn`(a / b), constant between jumps, so d out/da = 1 and d out/db = -k."""

    numpy_fn = None  # np.fmod or np.remainder
    count_fn = None  # np.trunc or np.floor

    @classmethod
    def forward(cls, ctx, a, b):
        if ctx.needs_input_grad[1]:
            ctx.count = cls.count_fn(a / b)
        return cls.numpy_fn(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        grad_b = -grad_output * ctx.count if ctx.needs_input_grad[1] else None
        return grad_output, grad_b


class Fmod(_Modulo):
    """out = a - b * trunc(a / b), the remainder with the sign of a (C's fmod, np.fmod).

    Between jumps, trunc(a / b) is a constant count k: d out/da = 1 and d out/db = -k.
    NOTE: out jumps where a / b is an integer; the gradient there is PyTorch's one-sided one.
    """

    formula = "grad_a = grad_out;  grad_b = -grad_out * trunc(a / b)   (jumps where a / b is whole)"
    numpy_fn, count_fn = np.fmod, np.trunc


class Remainder(_Modulo):
    """out = a - b * floor(a / b), the remainder with the sign of b (Python's %, np.remainder).

    Between jumps, floor(a / b) is a constant count k: d out/da = 1 and d out/db = -k.
    """

    formula = "grad_a = grad_out;  grad_b = -grad_out * floor(a / b)   (jumps where a / b is whole)"
    numpy_fn, count_fn = np.remainder, np.floor
