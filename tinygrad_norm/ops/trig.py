"""Trigonometric and hyperbolic primitives: sin, cos, tan, their inverses, atan2, and sinh, cosh
and their inverses.

Each forward is NumPy's function (integer and bool inputs become the default float dtype, as in
PyTorch); each class writes the derivative from calculus (`derivative`), with Tensor operations
so that it can be differentiated again, and `FloatUnary`'s backward applies the chain rule.
Where a derivative has a closed form in the output (tan), the output is saved instead of the
input. The inverse functions' derivatives come from the inverse function rule,
d f^-1(y)/dy = 1 / f'(f^-1(y)); e.g. for asin, cos(asin(y)) = sqrt(1 - y^2).
"""

import numpy as np

from ..autograd.function import Function
from .elementwise import Where, float_array
from .special import FloatUnary, FloatUnaryOfOutput


class Sin(FloatUnary):
    """out = sin(a); d sin(a)/da = cos(a)."""

    formula = "grad_a = grad_out * cos(a)"
    numpy_fn = np.sin

    @staticmethod
    def derivative(a):
        return Cos.apply(a)


class Cos(FloatUnary):
    """out = cos(a); d cos(a)/da = -sin(a)."""

    formula = "grad_a = -grad_out * sin(a)"
    numpy_fn = np.cos

    @staticmethod
    def derivative(a):
        return -Sin.apply(a)


class Tan(FloatUnaryOfOutput):
    """out = tan(a); d tan(a)/da = 1 / cos(a)^2 = 1 + tan(a)^2."""

    formula = "grad_a = grad_out * (1 + out**2)     (out = tan(a))"
    numpy_fn = np.tan

    @staticmethod
    def derivative(out):
        return out * out + 1


class Asin(FloatUnary):
    """out = asin(a) for a in [-1, 1]; d asin(a)/da = 1 / sqrt(1 - a^2) (infinite at +-1)."""

    formula = "grad_a = grad_out / sqrt(1 - a**2)"
    numpy_fn = np.arcsin

    @staticmethod
    def derivative(a):
        return 1 / (1 - a * a).sqrt()


class Acos(FloatUnary):
    """out = acos(a) for a in [-1, 1]; acos = pi/2 - asin, so d acos(a)/da = -1 / sqrt(1 - a^2)."""

    formula = "grad_a = -grad_out / sqrt(1 - a**2)"
    numpy_fn = np.arccos

    @staticmethod
    def derivative(a):
        return -1 / (1 - a * a).sqrt()


class Atan(FloatUnary):
    """out = atan(a); d atan(a)/da = 1 / (1 + a^2)."""

    formula = "grad_a = grad_out / (1 + a**2)"
    numpy_fn = np.arctan

    @staticmethod
    def derivative(a):
        return 1 / (a * a + 1)


class Atan2(Function):
    """out = atan2(y, x), the angle of the point (x, y), in (-pi, pi].

    Away from the negative x axis (where it jumps by 2 pi) it is atan(y / x) plus a constant, so
    d out/dy = x / (x^2 + y^2) and d out/dx = -y / (x^2 + y^2).
    """

    formula = "grad_y = grad_out * x / (x**2 + y**2);  grad_x = -grad_out * y / (x**2 + y**2)"

    @staticmethod
    def forward(ctx, y, x):
        ctx.save_for_backward(y, x)
        return np.arctan2(float_array(y), float_array(x))

    @staticmethod
    def backward(ctx, grad_output):
        y, x = ctx.saved_tensors
        squared_radius = x * x + y * y
        # NOTE: at the origin the angle is undefined; PyTorch sends 0 there, and so do we
        # (dividing by inf instead of 0 gives 0, not 0 / 0 = nan).
        origin = squared_radius.array == 0
        if origin.any():
            squared_radius = Where.apply(origin, np.asarray(np.inf, x.dtype), squared_radius)
        scale = grad_output / squared_radius
        return (
            scale * x if ctx.needs_input_grad[0] else None,
            -scale * y if ctx.needs_input_grad[1] else None,
        )


class Sinh(FloatUnary):
    """out = sinh(a) = (e^a - e^-a) / 2.

    Differentiating each exponential: d sinh(a)/da = (e^a + e^-a) / 2 = cosh(a).
    """

    formula = "grad_a = grad_out * cosh(a)"
    numpy_fn = np.sinh

    @staticmethod
    def derivative(a):
        return Cosh.apply(a)


class Cosh(FloatUnary):
    """out = cosh(a) = (e^a + e^-a) / 2.

    Likewise d cosh(a)/da = (e^a - e^-a) / 2 = sinh(a): no minus sign, unlike d cos(a)/da.
    """

    formula = "grad_a = grad_out * sinh(a)"
    numpy_fn = np.cosh

    @staticmethod
    def derivative(a):
        return Sinh.apply(a)


class Asinh(FloatUnary):
    """out = asinh(a) = log(a + sqrt(a^2 + 1)).

    Inverse function rule: d asinh(a)/da = 1 / cosh(asinh(a)) = 1 / sqrt(a^2 + 1), because
    cosh^2 = 1 + sinh^2 (and cosh > 0).
    """

    formula = "grad_a = grad_out / sqrt(a**2 + 1)"
    numpy_fn = np.arcsinh

    @staticmethod
    def derivative(a):
        return 1 / (a * a + 1).sqrt()


class Acosh(FloatUnary):
    """out = acosh(a) for a >= 1, the non-negative root.

    Inverse function rule: d acosh(a)/da = 1 / sinh(acosh(a)) = 1 / sqrt(a^2 - 1), because
    sinh^2 = cosh^2 - 1 and sinh >= 0 on acosh's range; infinite at a = 1.
    """

    formula = "grad_a = grad_out / sqrt(a**2 - 1)"
    numpy_fn = np.arccosh

    @staticmethod
    def derivative(a):
        return 1 / (a * a - 1).sqrt()


class Atanh(FloatUnary):
    """out = atanh(a) for a in (-1, 1).

    Inverse function rule: d atanh(a)/da = 1 / tanh'(atanh(a)) = 1 / (1 - a^2), because
    tanh' = 1 - tanh^2.
    """

    formula = "grad_a = grad_out / (1 - a**2)"
    numpy_fn = np.arctanh

    @staticmethod
    def derivative(a):
        return 1 / (1 - a * a)
