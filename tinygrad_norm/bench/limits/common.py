"""What every limit file shares: `sum_to` (broadcasting's backward), `unary` (a limit from an
elementwise forward and its derivative), and the scatter of a gradient to chosen places.

A limit is `fn(xs, g) -> [gradient of each input]`: `xs` the op's input arrays, `g` the
gradient of its output (a list of them when the op has several outputs). It does what a
hand-written NumPy program must do at least: the forward, then each input's gradient by its
formula, with the fewest passes (in-place updates, no temporaries the maths does not need).
"""

from __future__ import annotations

import numpy as np

from ..ops_limits import sum_to


def unary(forward, derivative):
    """The limit of y = f(x): `forward(x) -> y`, then dx = g f'(x) from `derivative(x, y, g)`."""

    def limit(xs, g):
        (x,) = xs
        out = forward(x)
        return [derivative(x, out, g)]

    return limit


def sign(x):
    """np.sign(x) (0 at 0) as (x > 0) - (x < 0): two comparisons beat np.sign's float path."""
    out = (x > 0).astype(x.dtype)
    out -= x < 0
    return out


def zero_grad(forward):
    """The limit of a piecewise-constant op (floor, sign, ...): its forward, zero gradients."""

    def limit(xs, g):
        forward(*xs)
        return [np.zeros_like(x) for x in xs]

    return limit


def scatter_along(shape, dtype, index, g, axis):
    """Zeros of `shape` with `g` added at `index` along `axis` (take_along_axis's backward)."""
    out = np.zeros(shape, dtype)
    np.put_along_axis(out, index, g, axis)
    return out


def expand_back(g, shape, axis, keepdims):
    """`g` of a reduction over `axis` as an array of the input's `shape` (a broadcast view)."""
    if not keepdims and axis is not None:
        g = np.expand_dims(g, axis)
    elif axis is None:
        g = np.reshape(g, (1,) * len(shape))
    return np.broadcast_to(g, shape)


__all__ = ["expand_back", "scatter_along", "sign", "sum_to", "unary", "zero_grad"]
