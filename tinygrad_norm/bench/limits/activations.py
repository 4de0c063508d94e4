"""Limits of the activations of `nn.functional` (the op table's F_* cases), each the forward
and the derivative written from the output where that saves a pass (elu's is out + alpha).
Inputs the case scales first (`softplus(x * 10)`, `hardswish(x * 3)`) are scaled here too.
"""

from __future__ import annotations

import numpy as np

from .. import ops_limits as lim

SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _sigmoid(x):
    s = np.negative(x)
    np.exp(s, out=s)
    s += 1.0
    return np.reciprocal(s, out=s)


def leaky_relu(xs, g):
    (x,) = xs
    positive = x > 0
    np.where(positive, x, x * 0.2)
    return [np.where(positive, g, g * 0.2)]


def _elu(alpha, scale, inner=1.0):
    """scale (x if x > 0 else alpha (exp(x / inner) - 1)); x < 0: d = (out + scale alpha) / inner"""

    def limit(xs, g):
        (x,) = xs
        positive = x > 0
        low = np.expm1(x / inner) if inner != 1.0 else np.expm1(x)
        low *= alpha * scale
        np.where(positive, x * scale if scale != 1.0 else x, low)
        low += alpha * scale
        if inner != 1.0:
            low /= inner
        low *= g
        return [np.where(positive, g * scale if scale != 1.0 else g, low)]

    return limit


def mish(xs, g):
    """x tanh(softplus(x)): d = t + x (1 - t^2) sigmoid(x), sigmoid(x) = -expm1(-softplus(x))."""
    (x,) = xs
    sp = np.logaddexp(0.0, x)
    t = np.tanh(sp)
    x * t
    np.negative(sp, out=sp)
    sig = np.expm1(sp, out=sp)
    np.negative(sig, out=sig)
    gx = np.multiply(t, t)
    np.subtract(1.0, gx, out=gx)
    gx *= sig
    gx *= x
    gx += t
    return [gx.__imul__(g)]


def _softplus(beta, threshold, scale=1.0):
    """softplus(scale x) with beta, threshold: d = sigmoid(beta u) below the threshold, else 1."""

    def limit(xs, g):
        (x,) = xs
        u = x * scale if scale != 1.0 else x
        bu = u * beta if beta != 1.0 else u
        linear = bu > threshold
        sig = _sigmoid(bu)
        np.where(linear, u, np.logaddexp(0.0, bu) / beta)
        gx = np.where(linear, g, sig.__imul__(g))
        if scale != 1.0:
            gx *= scale
        return [gx]

    return limit


def softsign(xs, g):
    """x / (1 + |x|): d = 1 / (1 + |x|)^2."""
    (x,) = xs
    d = np.abs(x)
    d += 1.0
    x / d
    d *= d
    return [np.divide(g, d, out=d)]


def _window(low, high, scale=1.0, shift=0.0):
    """clip(scale x + shift, low, high): d = scale inside (low, high), else 0."""

    def limit(xs, g):
        (x,) = xs
        u = x * scale if scale != 1.0 else x
        if shift:
            u = u + shift
        np.clip(u, low, high)
        inside = u > low
        inside &= u < high
        gx = np.multiply(g, inside)
        if scale != 1.0:
            gx *= scale
        return [gx]

    return limit


def hardsigmoid(xs, g):
    """clip(3x / 6 + 0.5, 0, 1): d = 3 / 6 for |3x| < 3."""
    (x,) = xs
    u = x * 0.5
    u += 0.5
    np.clip(u, 0.0, 1.0)
    inside = np.abs(x) < 1.0
    gx = np.multiply(g, inside)
    gx *= 0.5
    return [gx]


def hardswish(xs, g):
    """u relu6(u + 3) / 6, u = 3x: du = 0 below -3, 1 above 3, (2u + 3) / 6 between."""
    (x,) = xs
    u = x * 3.0
    gate = u + 3.0
    np.clip(gate, 0.0, 6.0, out=gate)
    gate *= u
    gate /= 6.0
    d = u * (1.0 / 3.0)
    d += 0.5
    d = np.where(u < -3.0, 0.0, np.where(u > 3.0, 1.0, d))
    d *= g
    d *= 3.0
    return [d]


def logsigmoid(xs, g):
    """log sigmoid(u), u = 5x: du = 1 - sigmoid(u) = -expm1(out)."""
    (x,) = xs
    u = x * -5.0
    out = np.logaddexp(0.0, u)
    np.negative(out, out=out)
    d = np.expm1(out, out=out)
    d *= g
    d *= -5.0
    return [d]


def tanhshrink(xs, g):
    """x - tanh x: d = tanh^2 x."""
    (x,) = xs
    t = np.tanh(x)
    x - t
    t *= t
    return [t.__imul__(g)]


def softmin(xs, g):
    """softmax(-x, 0): the softmax backward, negated."""
    (gx,) = lim.softmax(0)([np.negative(xs[0])], g)
    return [np.negative(gx, out=gx)]


def glu(xs, g):
    """a sigmoid(b), (a, b) the halves of x along dim 0: da = g s, db = g a s (1 - s)."""
    (x,) = xs
    half = x.shape[0] // 2
    a, b = x[:half], x[half:]
    s = _sigmoid(b)
    a * s
    ga = g * s
    gb = np.subtract(1.0, s)
    gb *= ga
    gb *= a
    return [np.concatenate([ga, gb], 0)]


def prelu(xs, g):
    """x if x > 0 else w x (w per channel, dim 1): dx = g or w g, dw = sum of g x below 0."""
    x, w = xs
    slope = w.reshape((-1,) + (1,) * (x.ndim - 2))
    positive = x > 0
    np.where(positive, x, x * slope)
    low = np.where(positive, 0.0, g)
    gx = np.where(positive, g, low * slope)
    low *= x
    axes = (0,) + tuple(range(2, x.ndim))
    return [gx, low.sum(axis=axes)]


LIMITS = {
    "F_leaky_relu": leaky_relu,
    "F_elu": _elu(1.5, 1.0),
    "F_selu": _elu(SELU_ALPHA, SELU_SCALE),
    "F_celu": _elu(0.5, 1.0, inner=0.5),
    "F_mish": mish,
    "F_softplus": _softplus(1.0, 20.0, scale=10.0),
    "F_softplus_beta_threshold": _softplus(2.0, 1.5),
    "F_softsign": softsign,
    "F_hardtanh": _window(-0.5, 0.8),
    "F_relu6": _window(0.0, 6.0, scale=4.0, shift=3.0),
    "F_hardsigmoid": hardsigmoid,
    "F_hardswish": hardswish,
    "F_logsigmoid": logsigmoid,
    "F_tanhshrink": tanhshrink,
    "F_softmin": softmin,
    "F_glu": glu,
    "F_prelu_channels": prelu,
}
