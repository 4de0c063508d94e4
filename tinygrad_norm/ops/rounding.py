"""Piecewise-constant primitives: floor, ceil, trunc, round, sign, the sign factor of copysign,
and division with a rounding mode.

Each is flat between its jumps, so its derivative is 0 almost everywhere (and undefined at the
jumps). As PyTorch, the output of such an op still belongs to the graph (`grad_fn`
`FloorBackward`, ...) and sends exact zeros back: `x.floor().sum().backward()` gives
`x.grad == 0`, and `x - x.trunc()` (frac) has the gradient 1 of `x`.
"""

import numpy as np

from ..autograd.function import Function
from ..dtypes import refuse_bool


class PiecewiseConstant(Function):
    """The common backward: zeros for every input (the slope of a step function)."""

    formula = "grad_a = 0     (flat between jumps)"

    @staticmethod
    def backward(ctx, grad_output):
        return tuple(
            grad_output._make(np.zeros(shape, dtype)) if needs else None
            for needs, shape, dtype in zip(ctx.needs_input_grad, ctx.input_shapes, ctx.input_dtypes)
        )


def _keep_integers(array: np.ndarray, rounded) -> np.ndarray:
    """Rounding an integer (or bool) does nothing, and keeps its dtype (np.floor would not)."""
    return array.copy() if array.dtype.kind in "biu" else rounded(array)


class _RoundToInteger(PiecewiseConstant):
    """The common forward of floor, ceil and trunc: `numpy_fn(a)`, integers kept as they are."""

    numpy_fn = None  # np.floor, np.ceil or np.trunc

    @classmethod
    def forward(cls, ctx, a):
        refuse_bool(cls.__name__.lower(), a)
        return _keep_integers(a, cls.numpy_fn)


class Floor(_RoundToInteger):
    """out = the largest integer <= a."""

    numpy_fn = np.floor


class Ceil(_RoundToInteger):
    """out = the smallest integer >= a."""

    numpy_fn = np.ceil


class Trunc(_RoundToInteger):
    """out = a with its fractional part dropped (towards 0)."""

    numpy_fn = np.trunc


class Round(PiecewiseConstant):
    """out = a rounded to `decimals` places, halves to even (0.5 -> 0, 1.5 -> 2), as PyTorch."""

    @staticmethod
    def forward(ctx, a, decimals=0):
        refuse_bool("round", a)
        return _keep_integers(a, lambda x: np.round(x, decimals))


class Sign(PiecewiseConstant):
    """out = -1, 0 or 1 by the sign of a (bool stays bool; NaN gives 0, as PyTorch)."""

    @staticmethod
    def forward(ctx, a):
        if a.dtype == np.bool_:
            return a.copy()
        return np.nan_to_num(np.sign(a), nan=0.0)


class SignOf(PiecewiseConstant):
    """out = -1 where a's sign bit is set (also -0.0 and -nan), else 1, in `dtype`: the factor
    copysign(x, a) = |x| * SignOf(a) applies."""

    @staticmethod
    def forward(ctx, a, dtype):
        return np.where(np.signbit(a), -1, 1).astype(dtype)


class RoundedDiv(PiecewiseConstant):
    """out = a / b rounded towards 0 (`mode="trunc"`) or down (`mode="floor"`, Python's //)."""

    @staticmethod
    def forward(ctx, a, b, mode):
        if mode == "floor":
            return np.floor_divide(a, b)
        if a.dtype.kind in "biu" and b.dtype.kind in "biu":
            return (np.abs(a) // np.abs(b)) * (np.sign(a) * np.sign(b))
        return np.trunc(a / b)
