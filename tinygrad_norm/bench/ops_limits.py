"""The limit of `bench --suite ops`: the best plain-NumPy forward + backward of each op's maths.

Each function takes the op's float32 input arrays and the gradient of its output `g` and does
what a hand-written NumPy program must do at least: the forward, then every input's gradient,
written with the fewest passes we know (in-place updates, no temporaries the maths does not
need). It returns the input gradients (so a test can check them against finite differences).
The other ops' limits are in `limits/` (by concept), whose `__init__` is the registry the
suite reads; `generic` (the op table's NumPy formula for the forward plus one pass per input
gradient, a lower bound rather than a real backward) remains for a case with none (the
suite's output says which rows use it).
"""

from __future__ import annotations

import math

import numpy as np

from ..ops.erf_numpy import erf

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def sum_to(grad: np.ndarray, shape: tuple) -> np.ndarray:
    """`grad` summed over the axes broadcasting added or stretched, back to `shape`."""
    if grad.shape == tuple(shape):
        return grad
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, n in enumerate(shape) if n == 1 and grad.shape[i + lead] != 1
    )
    return grad.sum(axis=axes, keepdims=True).reshape(shape)


def generic(case, xs, g):
    """The table's NumPy forward, then one pass per input gradient (a lower bound)."""
    case.ref(*xs)
    return [np.copy(x) for x in xs]


def add(xs, g):
    x, y = xs
    x + y
    return [sum_to(g, x.shape).copy(), sum_to(g, y.shape).copy()]


def mul(xs, g):
    x, y = xs
    x * y
    return [sum_to(g * y, x.shape), sum_to(g * x, y.shape)]


def div(xs, g):
    x, y = xs
    out = x / y
    gx = g / y
    return [sum_to(gx, x.shape), sum_to(-(gx * out), y.shape)]


def pow3(xs, g):
    (x,) = xs
    square = x * x
    square * x
    return [np.multiply(square, 3.0, out=square).__imul__(g)]


def pow_half(xs, g):
    (x,) = xs
    root = np.sqrt(x)
    # NOTE d sqrt(x) = g / (2 sqrt(x)): one division, the factor folded into g
    return [np.divide(g * 0.5, root)]


def pow_general(exponent):
    def limit(xs, g):
        (x,) = xs
        out = np.power(x, exponent)
        gx = np.divide(out, x)
        gx *= g
        gx *= exponent
        return [gx]

    return limit


def exp(xs, g):
    out = np.exp(xs[0])
    return [out.__imul__(g)]


def log(xs, g):
    np.log(xs[0])
    return [g / xs[0]]


def sqrt(xs, g):
    return pow_half(xs, g)


def tanh(xs, g):
    out = np.tanh(xs[0])
    gx = np.multiply(out, out)
    np.subtract(1.0, gx, out=gx)
    return [gx.__imul__(g)]


def sigmoid(xs, g):
    out = np.negative(xs[0])
    np.exp(out, out=out)
    out += 1.0
    np.reciprocal(out, out=out)
    gx = np.subtract(1.0, out)
    gx *= out
    return [gx.__imul__(g)]


def silu(xs, g):
    (x,) = xs
    s = np.negative(x)
    np.exp(s, out=s)
    s += 1.0
    np.reciprocal(s, out=s)
    x * s
    # NOTE d/dx x s(x) = s (1 + x (1 - s))
    gx = np.subtract(1.0, s)
    gx *= x
    gx += 1.0
    gx *= s
    return [gx.__imul__(g)]


def relu(xs, g):
    (x,) = xs
    np.maximum(x, 0.0)
    return [np.multiply(g, x > 0)]


def abs_(xs, g):
    np.abs(xs[0])
    return [np.multiply(g, np.sign(xs[0]))]


def clamp(low, high):
    def limit(xs, g):
        (x,) = xs
        np.clip(x, low, high)
        inside = (x >= low) if low is not None else np.ones(x.shape, bool)
        if high is not None:
            inside &= x <= high
        return [np.multiply(g, inside)]

    return limit


def softmax(axis):
    def limit(xs, g):
        (x,) = xs
        out = np.subtract(x, x.max(axis=axis, keepdims=True))
        np.exp(out, out=out)
        out /= out.sum(axis=axis, keepdims=True)
        gx = g * out
        gx -= out * gx.sum(axis=axis, keepdims=True)
        return [gx]

    return limit


def log_softmax(axis):
    def limit(xs, g):
        (x,) = xs
        out = np.subtract(x, x.max(axis=axis, keepdims=True))
        e = np.exp(out)
        total = e.sum(axis=axis, keepdims=True)
        out -= np.log(total)
        e /= total
        e *= g.sum(axis=axis, keepdims=True)
        return [np.subtract(g, e)]

    return limit


def reduce_sum(axis):
    def limit(xs, g):
        (x,) = xs
        x.sum(axis=axis)
        kept = np.expand_dims(g, axis) if axis is not None else np.reshape(g, (1,) * x.ndim)
        return [np.broadcast_to(kept, x.shape).copy()]

    return limit


def var(axis, ddof):
    def limit(xs, g):
        (x,) = xs
        centred = x - x.mean(axis=axis, keepdims=True)
        n = x.shape[axis] - ddof
        (centred * centred).sum(axis=axis) / n
        centred *= np.expand_dims(g, axis) * (2.0 / n)
        return [centred]

    return limit


def matmul(xs, g):
    a, b = xs
    a @ b
    return [g @ b.T, a.T @ g]


def cumsum(axis):
    def limit(xs, g):
        (x,) = xs
        np.cumsum(x, axis=axis)
        flipped = np.flip(g, axis)
        return [np.flip(np.cumsum(flipped, axis=axis), axis)]

    return limit


def stack(axis):
    def limit(xs, g):
        np.stack(xs, axis)
        return [np.take(g, i, axis=axis).copy() for i in range(len(xs))]

    return limit


def gelu(xs, g):
    (x,) = xs
    cdf = x * (1 / math.sqrt(2))
    cdf = erf(cdf)
    cdf += 1.0
    cdf *= 0.5
    x * cdf
    pdf = np.multiply(x, x)
    pdf *= -0.5
    np.exp(pdf, out=pdf)
    pdf *= x
    pdf *= 1 / math.sqrt(2 * math.pi)
    pdf += cdf
    return [pdf.__imul__(g)]


def gelu_tanh_formula(xs, g):
    """0.5 x (1 + tanh(c (x + 0.044715 x^3))), as minGPT and GPT-2 write it."""
    (x,) = xs
    square = x * x
    inner = np.multiply(square, 0.044715)
    inner += 1.0
    inner *= x
    inner *= SQRT_2_OVER_PI
    t = np.tanh(inner, out=inner)
    half = x * 0.5
    out = t + 1.0
    out * half
    # NOTE d/dx = 0.5 (1 + t) + 0.5 x (1 - t^2) c (1 + 3 0.044715 x^2)
    square *= 3 * 0.044715
    square += 1.0
    square *= SQRT_2_OVER_PI
    t *= t
    np.subtract(1.0, t, out=t)
    t *= square
    t *= half
    out *= 0.5
    out += t
    return [out.__imul__(g)]


def layer_norm(xs, g):
    x, weight, bias = xs
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = np.einsum("...i,...i->...", centred, centred)[..., None] / x.shape[-1]
    rstd = 1.0 / np.sqrt(variance + 1e-5)
    xhat = centred.__imul__(rstd)
    xhat * weight + bias
    rows = g.reshape(-1, g.shape[-1])
    gbias = rows.sum(axis=0)
    gweight = np.einsum("ij,ij->j", rows, xhat.reshape(rows.shape))
    gxhat = g * weight
    gx = gxhat - gxhat.mean(axis=-1, keepdims=True)
    gx -= xhat * (np.einsum("...i,...i->...", gxhat, xhat)[..., None] / x.shape[-1])
    gx *= rstd
    return [gx, gweight, gbias]


def embedding(indices):
    def limit(xs, g):
        (weight,) = xs
        weight[indices]
        flat = indices.reshape(-1)
        order = np.argsort(flat, kind="stable")
        ids, starts = np.unique(flat[order], return_index=True)
        rows = g.reshape(-1, weight.shape[1])[order]
        gweight = np.zeros_like(weight)
        gweight[ids] = np.add.reduceat(rows, starts, axis=0)
        return [gweight]

    return limit


def cross_entropy(targets):
    def limit(xs, g):
        (logits,) = xs
        n = logits.shape[0]
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        total = e.sum(axis=1, keepdims=True)
        rows = np.arange(n)
        (np.log(total[:, 0]) - shifted[rows, targets]).mean()
        e /= total
        e[rows, targets] -= 1.0
        e *= g / n
        return [e]

    return limit


def mse_loss(xs, g):
    x, y = xs
    d = x - y
    np.vdot(d, d) / d.size
    d *= 2.0 * g / d.size
    return [d, np.negative(d)]


def linear(xs, g):
    x, weight, bias = xs
    rows = x.reshape(-1, x.shape[-1])
    out = rows @ weight.T
    out += bias
    grows = g.reshape(-1, weight.shape[0])
    return [(grows @ weight).reshape(x.shape), grows.T @ rows, grows.sum(axis=0)]


def masked_fill(mask, value):
    def limit(xs, g):
        np.where(mask, value, xs[0])
        return [np.where(mask, 0.0, g).astype(g.dtype)]

    return limit


def masked_softmax(mask):
    def limit(xs, g):
        (x,) = xs
        filled = np.where(mask, -np.inf, x).astype(x.dtype)
        (gx,) = softmax(-1)([filled], g)
        return [gx]

    return limit
