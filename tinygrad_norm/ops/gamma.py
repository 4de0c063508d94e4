"""The gamma family: lgamma, digamma and polygamma, primitives on floats (no SciPy).

    lgamma(x)       = log |Γ(x)|                      d/dx = digamma(x)
    digamma(x)      = ψ(x) = Γ'(x) / Γ(x)             d/dx = polygamma(1, x)
    polygamma(n, x) = ψ⁽ⁿ⁾(x), the n-th derivative of ψ   d/dx = polygamma(n + 1, x)

lgamma is Python's `math.lgamma` element by element (poles 0, -1, -2, ... give +inf, as in
PyTorch). ψ⁽ⁿ⁾ is computed by climbing the recurrence until x ≥ 10,

    ψ⁽ⁿ⁾(x) = ψ⁽ⁿ⁾(x + 1) - (-1)ⁿ n! / x^(n+1)       (ψ(x) = ψ(x + 1) - 1/x for n = 0),

then summing the asymptotic series (Abramowitz and Stegun 6.3.18 and 6.4.11) with Bernoulli
numbers B₂ₖ, good to double precision for x ≥ 10. Negative x far from 0 first reflects:
ψ(x) = ψ(1 - x) - π / tan(πx) and ψ⁽¹⁾(x) = π² / sin²(πx) - ψ⁽¹⁾(1 - x).
"""

import math

import numpy as np

from ..autograd.function import Function
from .elementwise import float_array

BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)
LARGE = 10.0  # where the asymptotic series starts


def _lgamma_scalar(x: float) -> float:
    try:
        return math.lgamma(x)
    except ValueError:  # a pole: 0, -1, -2, ...
        return math.inf


def lgamma_array(x: np.ndarray) -> np.ndarray:
    x = float_array(x)
    out = np.vectorize(_lgamma_scalar, otypes=[np.float64])(x.astype(np.float64))
    return out.astype(x.dtype)


def _asymptotic(n: int, x: np.ndarray) -> np.ndarray:
    """ψ⁽ⁿ⁾(x) for large x from its asymptotic series."""
    if n == 0:
        total = np.log(x) - 0.5 / x
        for k, b in enumerate(BERNOULLI, start=1):
            total = total - b / (2 * k * x ** (2 * k))
        return total
    sign = (-1) ** (n + 1)
    total = math.factorial(n - 1) / x**n + math.factorial(n) / (2 * x ** (n + 1))
    for k, b in enumerate(BERNOULLI, start=1):
        weight = math.factorial(2 * k + n - 1) / math.factorial(2 * k)
        total = total + b * weight / x ** (2 * k + n)
    return sign * total


def _climbed(n: int, x: np.ndarray) -> np.ndarray:
    """ψ⁽ⁿ⁾(x) by the recurrence up to x ≥ LARGE, then the series (x not a pole)."""
    x = x.copy()
    shift = np.zeros_like(x)
    below = x < LARGE
    while below.any():
        shift[below] -= (-1) ** n * math.factorial(n) / x[below] ** (n + 1)
        x[below] += 1.0
        below = x < LARGE
    return _asymptotic(n, x) + shift


def polygamma_array(n: int, a: np.ndarray) -> np.ndarray:
    """ψ⁽ⁿ⁾(a) elementwise; at the poles as PyTorch: ψ(0) = -inf, ψ(-k) = nan, ψ⁽ⁿ⁾(0) = ±inf."""
    a = float_array(a)
    x = a.astype(np.float64)
    out = np.empty_like(x)
    pole = (x <= 0) & (x == np.floor(x))
    far = (x < -LARGE) & ~pole & (n <= 1)
    ok = ~pole & ~far & np.isfinite(x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out[ok] = _climbed(n, x[ok])
        if far.any():
            xf = x[far]
            if n == 0:
                out[far] = _climbed(0, 1 - xf) - math.pi / np.tan(math.pi * xf)
            else:
                out[far] = (math.pi / np.sin(math.pi * xf)) ** 2 - _climbed(1, 1 - xf)
    out[pole] = -np.inf if n == 0 else (-1) ** (n + 1) * np.inf
    if n == 0:
        out[pole & (x < 0)] = np.nan
    out[np.isnan(x)] = np.nan
    out[np.isposinf(x)] = np.inf if n == 0 else 0.0
    out[np.isneginf(x)] = np.nan
    return out.astype(a.dtype)


class Lgamma(Function):
    """out = log |Γ(a)|;  grad_a = grad_out · ψ(a)."""

    formula = "grad_a = grad_out * digamma(a)"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return lgamma_array(a)

    @staticmethod
    def backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        return grad_output * Polygamma.apply(a, n=0)


class Polygamma(Function):
    """out = ψ⁽ⁿ⁾(a) (n = 0: digamma);  grad_a = grad_out · ψ⁽ⁿ⁺¹⁾(a)."""

    formula = "grad_a = grad_out * polygamma(n + 1, a)"

    @staticmethod
    def forward(ctx, a, n: int = 0):
        ctx.save_for_backward(a)
        return polygamma_array(n, a)

    @staticmethod
    def backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        return grad_output * Polygamma.apply(a, n=ctx.n + 1)
