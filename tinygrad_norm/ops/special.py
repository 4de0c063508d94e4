"""More elementwise primitives: expm1, log1p, log2, log10, erfc, erfinv (of one tensor), then
maximum/minimum and fmod/remainder (of two).

Each is a primitive for a reason a composition cannot meet: expm1, log1p and erfc keep their
digits where exp(x) - 1, log(1 + x) or 1 - erf(x) would lose them (log2 and log10 are exact at
powers of their base); erfinv has no closed form; `np.maximum` propagates NaN from either side
(a `where` on a comparison would not); fmod and remainder are exact in NumPy where
a - b * trunc(a / b) rounds twice.
"""

import math

import numpy as np

from ..autograd.function import Function
from .elementwise import float_array
from .erfinv_numpy import erfc as erfc_array
from .erfinv_numpy import erfinv as erfinv_array


class FloatUnary(Function):
    """A float-valued function of one tensor, out = f(a), whose derivative is written in a.

    Forward: `numpy_fn(a)` (integer and bool inputs become the default float dtype), keeping a.
    Backward: the chain rule, grad_a = grad_out * f'(a). Each subclass names its `numpy_fn` and
    writes `derivative`, f'(a) with Tensor operations, so that it can be differentiated again.
    """

    numpy_fn = None  # the NumPy function, e.g. np.sin

    @staticmethod
    def derivative(a):
        """f'(a), a Tensor of a's shape."""
        raise NotImplementedError("a FloatUnary subclass must define derivative(a)")

    @classmethod
    def forward(cls, ctx, a):
        ctx.save_for_backward(a)
        return cls.numpy_fn(float_array(a))

    @classmethod
    def backward(cls, ctx, grad_output):
        (kept,) = ctx.saved_tensors
        return grad_output * cls.derivative(kept)


class FloatUnaryOfOutput(FloatUnary):
    """As FloatUnary, but keeps the output, and `derivative` is written in it: for a derivative
    with a closed form in the output (d tan(a)/da = 1 + tan(a)^2, d expm1(a)/da = expm1(a) + 1)."""

    @classmethod
    def forward(cls, ctx, a):
        out = cls.numpy_fn(float_array(a))
        ctx.save_for_backward(out)
        return out


class Expm1(FloatUnaryOfOutput):
    """out = exp(a) - 1, exact for small a (np.expm1); d out/da = exp(a) = out + 1."""

    formula = "grad_a = grad_out * (out + 1)     (out = expm1(a))"
    numpy_fn = np.expm1

    @staticmethod
    def derivative(out):
        return out + 1


class Log1p(FloatUnary):
    """out = log(1 + a), exact for small a (np.log1p); d out/da = 1 / (1 + a)."""

    formula = "grad_a = grad_out / (1 + a)"
    numpy_fn = np.log1p

    @staticmethod
    def derivative(a):
        return 1 / (a + 1)


class LogOfBase(FloatUnary):
    """out = log_base(a), exact at powers of the base (which log(a) / log(base) is not);
    d log_base(a)/da = 1 / (a ln base). Subclasses name `numpy_fn` and `base`."""

    base = None  # 2 or 10

    @staticmethod
    def backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        return grad_output / (a * math.log(ctx.fn.base))


class Log2(LogOfBase):
    """out = log2(a); d/da = 1 / (a ln 2)."""

    formula = "grad_a = grad_out / (a * ln(2))"
    numpy_fn, base = np.log2, 2


class Log10(LogOfBase):
    """out = log10(a); d/da = 1 / (a ln 10)."""

    formula = "grad_a = grad_out / (a * ln(10))"
    numpy_fn, base = np.log10, 10


class Erfc(FloatUnary):
    """out = erfc(a) = 1 - erf(a), with full precision where erf(a) is close to 1.

    d erfc(a)/da = -2/sqrt(pi) * exp(-a^2), minus erf's derivative.
    """

    formula = "grad_a = -grad_out * 2/sqrt(pi) * exp(-a**2)"
    numpy_fn = erfc_array

    @staticmethod
    def derivative(a):
        return (-(a * a)).exp() * (-2 / math.sqrt(math.pi))


class Erfinv(FloatUnaryOfOutput):
    """out = erfinv(a), the x with erf(x) = a, for a in [-1, 1] (NaN outside).

    The inverse function rule: d erfinv(a)/da = 1 / erf'(out) = sqrt(pi)/2 * exp(out^2),
    infinite at a = +-1.
    """

    formula = "grad_a = grad_out * sqrt(pi)/2 * exp(out**2)     (out = erfinv(a))"
    numpy_fn = erfinv_array

    @staticmethod
    def derivative(out):
        return (out * out).exp() * (math.sqrt(math.pi) / 2)


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
