"""Float functions of one tensor as single nodes with a backward on arrays: expm1, log1p,
log10, exp2, atan, atanh, sinh, cosh.

Their references are the primitives of `special.py` and `trig.py` (and the composed
`pointwise_composed.exp2`, 2 ** x by Pow), whose backward builds f'(a) from Tensor operations,
one node per step. Here a plain backward computes f'(a) on the arrays, in place on one
temporary; under `create_graph=True` the reference's `derivative` runs on Tensors (recorded, so
differentiable again). The forwards are NumPy's functions (sinh and cosh from expm1):

    expm1:  out = expm1(a)                                    grad_a = grad_out * (out + 1)
    log1p:  out = log1p(a)                                    grad_a = grad_out / (1 + a)
    log10:  out = log10(a)                                    grad_a = grad_out / (a ln 10)
    exp2:   out = 2^a                                         grad_a = grad_out * out ln 2
    atan:   out = atan(a)                                     grad_a = grad_out / (1 + a^2)
    atanh:  out = atanh(a)                                    grad_a = grad_out / (1 - a^2)
    sinh:   t = expm1(|a|), q = t / (t + 1),  out = sign(a) (t + q) / 2   grad_a = grad_out cosh(a)
    cosh:   t = expm1(|a|), q = t / (t + 1),  out = 1 + t q / 2          grad_a = grad_out sinh(a)

sinh and cosh in t: with e = exp(|a|) = t + 1, 1/e = 1 - q, so e - 1/e = t + q and
e + 1/e = 2 + t - q = 2 + t q, free of the cancellation of e - 1/e for small a. Where t overflows
(|a| > 88, where cosh still has a float32 value) NumPy's np.sinh / np.cosh take those elements.
The tests compare each with its reference (values, gradients, second derivatives, float32 and
float64).
"""

import math

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ..elementwise import float_array
from ..pointwise_composed import exp2 as exp2_reference
from ..special import Expm1 as Expm1Reference
from ..special import Log1p as Log1pReference
from ..special import Log10 as Log10Reference
from ..trig import Atan as AtanReference
from ..trig import Atanh as AtanhReference
from ..trig import Cosh as CoshReference
from ..trig import Sinh as SinhReference

__all__ = ["Atan", "Atanh", "Cosh", "Exp2", "Expm1", "Log1p", "Log10", "Sinh", "REFERENCES"]

_BIG = 88.0  # |a| above which expm1(|a|) may overflow in float32


class _Unary(Function):
    """out = f(a) (integer and bool inputs become the default float dtype), keeping a (or the
    output, `of_output`). Subclasses write `values(x)` and `array_gradient(g, kept)` (a plain
    backward: arrays, in place) and name their `reference`, whose `derivative(kept)` on
    Tensors is the recorded backward."""

    reference = None
    of_output = False

    @staticmethod
    def values(x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    @staticmethod
    def array_gradient(g: np.ndarray, kept: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    @classmethod
    def forward(cls, ctx, a):
        x = float_array(a)
        out = cls.values(x)
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(out if cls.of_output else a)
        return out

    @classmethod
    def backward(cls, ctx, grad_output):
        (kept,) = ctx.saved_tensors
        if is_grad_enabled():  # create_graph: recorded, differentiable again
            return grad_output * cls.reference.derivative(kept)
        return cls.array_gradient(grad_output.array, kept.array)


def _new(a: np.ndarray, g: np.ndarray) -> np.ndarray:
    """An empty array for a gradient: the result dtype of a and g (a 0-d a stays an array)."""
    return np.empty(np.broadcast_shapes(a.shape, g.shape), np.result_type(a, g))


class Expm1(_Unary):
    """out = exp(a) - 1; d out/da = exp(a) = out + 1."""

    formula = "grad_a = grad_out * (out + 1)     (out = expm1(a))"
    reference, of_output = Expm1Reference, True
    values = staticmethod(np.expm1)

    @staticmethod
    def array_gradient(g, out):
        d = np.add(out, 1, out=_new(out, g))
        d *= g
        return d


class Log1p(_Unary):
    """out = log(1 + a); d out/da = 1 / (1 + a)."""

    formula = "grad_a = grad_out / (1 + a)"
    reference = Log1pReference
    values = staticmethod(np.log1p)

    @staticmethod
    def array_gradient(g, a):
        d = np.add(a, 1, out=_new(a, g))
        return np.divide(g, d, out=d)


class Log10(_Unary):
    """out = log10(a) (NumPy's: exact at powers of 10); d out/da = 1 / (a ln 10)."""

    formula = "grad_a = grad_out / (a * ln(10))"
    reference = Log10Reference
    values = staticmethod(np.log10)

    @classmethod
    def backward(cls, ctx, grad_output):
        (a,) = ctx.saved_tensors
        if is_grad_enabled():
            return grad_output / (a * math.log(10))
        g, a = grad_output.array, a.array
        d = np.multiply(a, math.log(10), out=_new(a, g))
        return np.divide(g, d, out=d)


class Exp2(_Unary):
    """out = 2^a; d out/da = 2^a ln 2 = out ln 2."""

    formula = "grad_a = grad_out * out * ln(2)     (out = 2**a)"
    of_output = True
    values = staticmethod(np.exp2)

    class reference:  # noqa: N801 - the derivative of the composed exp2 (Pow's), in out
        @staticmethod
        def derivative(out):
            return out * math.log(2)

    @staticmethod
    def array_gradient(g, out):
        d = np.multiply(out, math.log(2), out=_new(out, g))
        d *= g
        return d


class Atan(_Unary):
    """out = atan(a) (NumPy's); d out/da = 1 / (1 + a^2)."""

    formula = "grad_a = grad_out / (1 + a**2)"
    reference = AtanReference
    values = staticmethod(np.arctan)

    @staticmethod
    def array_gradient(g, a):
        d = np.multiply(a, a, out=_new(a, g))
        d += 1
        return np.divide(g, d, out=d)


class Atanh(_Unary):
    """out = atanh(a), |a| <= 1; d out/da = 1 / (1 - a^2)."""

    formula = "grad_a = grad_out / (1 - a**2)"
    reference = AtanhReference
    values = staticmethod(np.arctanh)

    @staticmethod
    def array_gradient(g, a):
        d = np.multiply(a, a, out=_new(a, g))
        np.subtract(1, d, out=d)
        with np.errstate(divide="ignore"):
            return np.divide(g, d, out=d)


def _expm1_abs(x: np.ndarray) -> np.ndarray:
    """t = expm1(|x|) = exp(|x|) - 1 >= 0."""
    return np.expm1(np.abs(x))


def _ratio(t: np.ndarray) -> np.ndarray:
    """q = t / (t + 1), in [0, 1) (NaN where t is inf: those elements are patched)."""
    q = np.add(t, 1)
    with np.errstate(invalid="ignore"):
        return np.divide(t, q, out=q)


def _sinh_of(t: np.ndarray, x: np.ndarray) -> np.ndarray:
    """sinh(x) from t = expm1(|x|): sign(x) (t + q) / 2; NumPy's sinh where |x| is big."""
    out = _ratio(t)
    out += t
    out *= 0.5
    np.copysign(out, x, out=out)
    return _patch_big(out, x, np.sinh)


def _cosh_of(t: np.ndarray, x: np.ndarray) -> np.ndarray:
    """cosh(x) from t = expm1(|x|): 1 + t q / 2 (t^2 / (t + 1) would overflow for |x| > 44);
    NumPy's cosh where |x| is big."""
    out = _ratio(t)
    with np.errstate(invalid="ignore"):
        out *= t
    out *= 0.5
    out += 1
    return _patch_big(out, x, np.cosh)


def _patch_big(out: np.ndarray, x: np.ndarray, numpy_fn) -> np.ndarray:
    big = np.abs(x) > _BIG  # (NaN: not big; it stays NaN)
    if big.any():
        with np.errstate(over="ignore"):
            out[big] = numpy_fn(x[big])
    return out


class _Hyperbolic(_Unary):
    """sinh or cosh for float32 from t = expm1(|a|), kept for the backward (the other one of
    the pair, from the same t); NumPy's functions for other dtypes."""

    numpy_fn = derivative_fn = None  # np.sinh / np.cosh
    of_t = derivative_of_t = None  # _sinh_of / _cosh_of

    @classmethod
    def forward(cls, ctx, a):
        x = float_array(a)
        if x.dtype != np.float32 or x.ndim == 0:
            ctx.save_for_backward(a, None)
            return cls.numpy_fn(x)
        t = _expm1_abs(x)
        ctx.save_for_backward(a, t)
        return cls.of_t(t, x)

    @classmethod
    def backward(cls, ctx, grad_output):
        a, t = ctx.saved_tensors
        if is_grad_enabled():
            return grad_output * cls.reference.derivative(a)
        x = float_array(a.array)
        if t is None:
            return grad_output.array * cls.derivative_fn(x)
        d = cls.derivative_of_t(t.array, x)  # (...) a new array, x's shape
        d *= grad_output.array
        return d


class Sinh(_Hyperbolic):
    """out = sinh(a); d out/da = cosh(a)."""

    formula = "grad_a = grad_out * cosh(a)"
    reference = SinhReference
    numpy_fn, derivative_fn = np.sinh, np.cosh
    of_t, derivative_of_t = staticmethod(_sinh_of), staticmethod(_cosh_of)


class Cosh(_Hyperbolic):
    """out = cosh(a); d out/da = sinh(a)."""

    formula = "grad_a = grad_out * sinh(a)"
    reference = CoshReference
    numpy_fn, derivative_fn = np.cosh, np.sinh
    of_t, derivative_of_t = staticmethod(_cosh_of), staticmethod(_sinh_of)


# each fast op and its reference (a primitive class, or exp2's composed function)
REFERENCES = {
    Expm1: Expm1Reference.apply,
    Log1p: Log1pReference.apply,
    Log10: Log10Reference.apply,
    Exp2: exp2_reference,
    Atan: AtanReference.apply,
    Atanh: AtanhReference.apply,
    Sinh: SinhReference.apply,
    Cosh: CoshReference.apply,
}
