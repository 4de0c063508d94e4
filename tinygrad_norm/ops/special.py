"""Special functions of one tensor: expm1, log1p, log2, log10, erfc, erfinv (`torch.special`'s
names), each a primitive on floats.

Each is a primitive for a reason a composition cannot meet: expm1, log1p and erfc keep their
digits where exp(x) - 1, log(1 + x) or 1 - erf(x) would lose them (log2 and log10 are exact at
powers of their base); erfinv has no closed form. (maximum, minimum, fmod and remainder, of two
tensors, are in `elementwise.py`.)
"""

import math

import numpy as np

from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from .elementwise import float_array
from .erf_numpy import erfc as erfc_array
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


def _times_exp_of_square(grad_output, x, sign, scale):
    """grad_out * scale * exp(sign * x^2) on the arrays (a plain backward): one temporary,
    changed in place (the backward of erfc and erfinv, whose `derivative` is the same maths on
    Tensors, for create_graph)."""
    d = np.multiply(x, x, out=np.empty_like(x))  # an array also when x is 0-d
    if sign < 0:
        np.negative(d, out=d)
    np.exp(d, out=d)
    d *= scale
    d *= grad_output
    return d


class Erfc(FloatUnary):
    """out = erfc(a) = 1 - erf(a), with full precision where erf(a) is close to 1
    (`erf_numpy.erfc`, Cody's rational functions).

    d erfc(a)/da = -2/sqrt(pi) * exp(-a^2), minus erf's derivative.
    """

    formula = "grad_a = -grad_out * 2/sqrt(pi) * exp(-a**2)"
    numpy_fn = erfc_array

    @staticmethod
    def derivative(a):
        return (-(a * a)).exp() * (-2 / math.sqrt(math.pi))

    @classmethod
    def backward(cls, ctx, grad_output):
        (a,) = ctx.saved_tensors
        if is_grad_enabled():  # create_graph: recorded, differentiable again
            return grad_output * cls.derivative(a)
        return _times_exp_of_square(grad_output.array, a.array, -1, -2 / math.sqrt(math.pi))


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

    @classmethod
    def backward(cls, ctx, grad_output):
        (out,) = ctx.saved_tensors
        if is_grad_enabled():  # create_graph: recorded, differentiable again
            return grad_output * cls.derivative(out)
        return _times_exp_of_square(grad_output.array, out.array, 1, math.sqrt(math.pi) / 2)
