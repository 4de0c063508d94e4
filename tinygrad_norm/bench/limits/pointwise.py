"""Limits of the elementwise ops: arithmetic with broadcasting, the unary math (trig,
hyperbolic, exponentials, logarithms, error functions) and rounding (gradient 0).

Unary ops are a table: the forward and the derivative times g, each written once. Inputs the
case transforms first (`(x - 1.25).asin()`, `floor(x * 3)`) are transformed here too: the
case's maths. erf, erfc and erfinv have no NumPy function: the forward is the project's NumPy
kernel (`ops/erf_numpy.py`, `ops/erfinv_numpy.py`), as a NumPy program would need one.
"""

from __future__ import annotations

import math

import numpy as np

from ...ops.erf_numpy import erf, erfc
from ...ops.erfinv_numpy import erfinv
from ...testing.op_cases import _COND
from .common import sum_to, unary, zero_grad

TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
LN2, LN10 = math.log(2.0), math.log(10.0)


def _times_g(values, g):
    """values *= g in place (values is a fresh temporary of the forward or backward)."""
    values *= g
    return values


def _shifted(op, shift, derivative):
    """op(x + shift), d = derivative(u, out) with u = x + shift."""

    def limit(xs, g):
        u = xs[0] + shift
        out = op(u)
        return [_times_g(derivative(u, out), g)]

    return limit


def _scaled(op, scale, derivative):
    """op(x * scale), d/dx = scale * derivative(u, out) with u = x * scale."""

    def limit(xs, g):
        u = xs[0] * scale
        out = op(u)
        gx = derivative(u, out)
        gx *= g
        gx *= scale
        return [gx]

    return limit


def _recip_sqrt(values):
    """1 / sqrt(values), in place."""
    np.sqrt(values, out=values)
    return np.reciprocal(values, out=values)


UNARY = {
    "neg": unary(np.negative, lambda x, out, g: np.negative(g)),
    "neg_method": unary(np.negative, lambda x, out, g: np.negative(g)),
    "rsub_scalar": unary(lambda x: 1.5 - x, lambda x, out, g: np.negative(g)),
    "rdiv_scalar": unary(lambda x: 2.0 / x, lambda x, out, g: np.negative(_times_g(out / x, g))),
    "reciprocal": unary(np.reciprocal, lambda x, out, g: np.negative(_times_g(out * out, g))),
    "square": unary(np.square, lambda x, out, g: _times_g(x * 2.0, g)),
    "rsqrt": unary(
        lambda x: np.reciprocal(np.sqrt(x)), lambda x, out, g: _times_g(out / x, g * -0.5)
    ),
    "rpow": unary(lambda x: np.power(2.0, x), lambda x, out, g: _times_g(out * LN2, g)),
    "rpow_function": unary(
        lambda x: np.power(3.0, x), lambda x, out, g: _times_g(out * math.log(3.0), g)
    ),
    "sin": unary(np.sin, lambda x, out, g: _times_g(np.cos(x), g)),
    "cos": unary(np.cos, lambda x, out, g: np.negative(_times_g(np.sin(x), g))),
    "tan": _scaled(np.tan, 0.3, lambda u, out: np.add(np.square(out), 1.0)),
    "asin": _shifted(np.arcsin, -1.25, lambda u, out: _recip_sqrt(1.0 - u * u)),
    "acos": _shifted(np.arccos, -1.25, lambda u, out: np.negative(_recip_sqrt(1.0 - u * u))),
    "atan": unary(np.arctan, lambda x, out, g: np.divide(g, np.square(x).__iadd__(1.0))),
    "sinh": unary(np.sinh, lambda x, out, g: _times_g(np.cosh(x), g)),
    "cosh": unary(np.cosh, lambda x, out, g: _times_g(np.sinh(x), g)),
    "asinh": unary(np.arcsinh, lambda x, out, g: _times_g(_recip_sqrt(x * x + 1.0), g)),
    "acosh": _shifted(np.arccosh, 1.0, lambda u, out: _recip_sqrt(u * u - 1.0)),
    "atanh": _shifted(np.arctanh, -1.25, lambda u, out: np.reciprocal(1.0 - u * u)),
    "expm1": unary(np.expm1, lambda x, out, g: _times_g(out + 1.0, g)),
    "log1p": _shifted(np.log1p, -0.4, lambda u, out: np.reciprocal(u + 1.0)),
    "log2": unary(np.log2, lambda x, out, g: np.divide(g, x * LN2)),
    "log10": unary(np.log10, lambda x, out, g: np.divide(g, x * LN10)),
    "exp2": unary(np.exp2, lambda x, out, g: _times_g(out * LN2, g)),
    "erf": unary(erf, lambda x, out, g: _times_g(np.exp(-(x * x)).__imul__(TWO_OVER_SQRT_PI), g)),
    "erfc": unary(
        erfc, lambda x, out, g: _times_g(np.exp(-(x * x)).__imul__(-TWO_OVER_SQRT_PI), g)
    ),
    # NOTE d erfinv(u) = sqrt(pi) / 2 exp(erfinv(u)^2)
    "erfinv": _shifted(
        erfinv, -1.25, lambda u, out: np.exp(out * out).__imul__(1.0 / TWO_OVER_SQRT_PI)
    ),
    "nan_to_num": unary(
        lambda x: np.nan_to_num(x, nan=1.0), lambda x, out, g: np.multiply(g, np.isfinite(x))
    ),
    "tril": unary(np.tril, lambda x, out, g: np.tril(g)),
    "tril_batch_diag": unary(lambda x: np.tril(x, -1), lambda x, out, g: np.tril(g, -1)),
    "triu_diag": unary(lambda x: np.triu(x, 1), lambda x, out, g: np.triu(g, 1)),
}


def lib_log_sqrt_tanh(xs, g):
    """tanh(log(sqrt(x))): d/dx = (1 - t^2) / (2 x)."""
    (x,) = xs
    t = np.tanh(np.log(np.sqrt(x)))
    np.multiply(t, t, out=t)
    np.subtract(1.0, t, out=t)
    t *= g
    t /= x
    t *= 0.5
    return [t]


def frac3(xs, g):
    """frac(3 x) = u - trunc(u), u = 3 x: d = 3."""
    u = xs[0] * 3.0
    u - np.trunc(u)
    return [g * 3.0]


ROUNDING = {
    "floor": zero_grad(lambda x: np.floor(x * 3)),
    "ceil": zero_grad(lambda x: np.ceil(x * 3)),
    "trunc": zero_grad(lambda x: np.trunc(x * 3)),
    "round_decimals": zero_grad(lambda x: np.round(x, 1)),
    "sign": zero_grad(np.sign),
    "div_trunc": zero_grad(lambda a, b: np.trunc(a / b)),
    "div_floor": zero_grad(lambda a, b: np.floor_divide(a * 2, b)),
    "floor_divide_operator": zero_grad(lambda a, b: np.floor_divide(a * 4, b)),
}


# --- binary, with broadcasting -----------------------------------------------------------------
def add_alpha(alpha):
    """a + alpha b: da = g, db = alpha g (each summed to its input's shape)."""

    def limit(xs, g):
        a, b = xs
        a + alpha * b if alpha != 1 else a + b
        gb = sum_to(g, b.shape)
        return [sum_to(g, a.shape), gb * alpha if alpha != 1 else gb]

    return limit


def pow_tensor(xs, g):
    """x^y: dx = g y x^y / x, dy = g x^y log x."""
    x, y = xs
    out = np.power(x, y)
    gy = np.log(x)
    gy *= out
    gy *= g
    out /= x
    out *= y
    out *= g
    return [sum_to(out, x.shape), sum_to(gy, y.shape)]


def _select(pick):
    """max / min of two arrays: the gradient goes to the chosen one (`pick(x, y)`: x chosen)."""

    def limit(xs, g):
        x, y = xs
        chosen = pick(x, y)
        np.where(chosen, x, y)
        gx = np.where(chosen, g, 0.0)
        return [sum_to(gx, x.shape), sum_to(np.subtract(g, gx), y.shape)]

    return limit


def where_broadcast(xs, g):
    x, y = xs
    np.where(_COND, x, y)
    gx = np.where(_COND, g, 0.0)
    return [sum_to(gx, x.shape), sum_to(np.subtract(g, gx), y.shape)]


def copysign(xs, g):
    """|a| sign(b): da = g copysign(a, b) / a (0 where a = 0), db = 0."""
    a, b = xs
    ratio = np.copysign(a, b)
    np.divide(ratio, a, out=ratio)
    ratio[a == 0] = 0.0
    ratio *= g
    return [ratio, np.zeros_like(b)]


def lerp_tensor(xs, g):
    """a + w (b - a): da = g (1 - w), db = g w, dw = g (b - a)."""
    a, b, w = xs
    d = b - a
    out = w * d
    out += a
    gw = g * d
    gwb = g * w
    return [sum_to(np.subtract(g, gwb), a.shape), sum_to(gwb, b.shape), sum_to(gw, w.shape)]


def lerp_scalar(xs, g):
    a, b = xs
    out = b - a
    out *= 0.75
    out += a
    return [g * 0.25, g * 0.75]


def hypot(xs, g):
    """sqrt(a^2 + b^2): da = g a / out, db = g b / out."""
    a, b = xs
    out = a * a
    out += b * b
    np.sqrt(out, out=out)
    ratio = np.divide(g, out, out=out)
    return [sum_to(ratio * a, a.shape), sum_to(ratio * b, b.shape)]


def atan2(xs, g):
    """atan2(y, x): dy = g x / r, dx = -g y / r, r = x^2 + y^2."""
    y, x = xs
    np.arctan2(y, x)
    r = y * y
    r += x * x
    np.divide(g, r, out=r)
    return [sum_to(r * x, y.shape), sum_to(np.negative(r.__imul__(y)), x.shape)]


def logaddexp(xs, g):
    """log(e^a + e^b): da = g e^(a - out), db = g e^(b - out)."""
    a, b = xs
    out = np.logaddexp(a, b)
    ga = np.exp(a - out)
    ga *= g
    return [sum_to(ga, a.shape), sum_to(np.subtract(g, ga), b.shape)]


def _modulo(rounding):
    """(5 (a - 1.25)) mod b: da = 5 g, db = -g rounding(u / b) (trunc: fmod, floor: %)."""

    def limit(xs, g):
        a, b = xs
        u = a - 1.25
        u *= 5.0
        np.fmod(u, b) if rounding is np.trunc else np.remainder(u, b)
        u /= b
        quotient = rounding(u, out=u)
        quotient *= g
        return [sum_to(g * 5.0, a.shape), sum_to(np.negative(quotient, out=quotient), b.shape)]

    return limit


def sub_broadcast(xs, g):
    x, y = xs
    x - y
    return [sum_to(g, x.shape), np.negative(sum_to(g, y.shape))]


LIMITS = {
    **UNARY,
    **ROUNDING,
    "lib_log_sqrt_tanh": lib_log_sqrt_tanh,
    "frac": frac3,
    "sub_broadcast": sub_broadcast,
    "add_alpha": add_alpha(-2.5),
    "sub_alpha_method": add_alpha(-3.0),
    "pow_tensor": pow_tensor,
    "pow_method_tensor": pow_tensor,
    "maximum": _select(np.greater),
    "minimum": _select(np.less),
    "where_broadcast": where_broadcast,
    "copysign": copysign,
    "lerp_tensor_weight": lerp_tensor,
    "lerp_scalar_weight": lerp_scalar,
    "hypot": hypot,
    "atan2_broadcast": atan2,
    "logaddexp_broadcast": logaddexp,
    "fmod": _modulo(np.trunc),
    "remainder_operator": _modulo(np.floor),
}
