"""Finite differences: the derivative estimates gradcheck trusts, and how far to trust them.

Why central differences. Taylor's theorem around x, for a step h:

    f(x + h) = f(x) + h f'(x) + h²/2 f''(x) + h³/6 f'''(x) + ...
    f(x - h) = f(x) - h f'(x) + h²/2 f''(x) - h³/6 f'''(x) + ...

Subtracting, the even terms cancel:

    (f(x + h) - f(x - h)) / 2h = f'(x) + h²/6 f'''(x) + ...      truncation error O(h²)

while a one-sided difference (f(x + h) - f(x)) / h = f'(x) + h/2 f''(x) + ... is only O(h).

Why not a tiny h. Every computed f carries a rounding error of about machine_eps * |f|, and the
difference is divided by 2h, so rounding adds an error of about machine_eps * |f| / h. The total,
h² |f'''| / 6 + machine_eps |f| / h, is smallest near h = machine_eps^(1/3).

Why float64. With machine_eps = 2.2e-16 and h = eps = 1e-6 the two errors are about 1e-13 and
2e-10: far below the tolerances (atol 1e-5, rtol 1e-3). In float32 machine_eps is 1.2e-7, so
the rounding error is 1.2e-7 / 1e-6 = 0.12 relative: almost no correct digit is left.

Kinks. At a point where f is not differentiable (ReLU at 0, |x| at 0, a max with ties) the two
one-sided slopes differ and the central difference is their average, which no backward returns.
The second difference |f(x + h) + f(x - h) - 2 f(x)| / h (= |right slope - left slope|) tells a
kink from mere curvature: for a smooth f it is about h |f''| and grows tenfold when h does; at a
kink it is the jump between the slopes, whatever h.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

# The second, wider step that tells a kink (jump independent of the step) from curvature.
KINK_STEP = 10.0

PRECISION_HELP = (
    "finite differences need float64. gradcheck estimates each derivative as "
    "(f(x + eps) - f(x - eps)) / (2 * eps) with eps = {eps:g}; every value of f carries a "
    "rounding error of about machine epsilon times its size, and dividing by eps magnifies it. "
    "In float32 machine epsilon is about 1.2e-7, so the estimate is off by about 1.2e-7 / {eps:g} "
    "= {float32_error:.2g} relative: almost all digits are lost. In float64 (machine epsilon "
    "2.2e-16) the error is about {float64_error:.1g}, far below the tolerances. Convert with "
    "x.double() (e.g. x = x.detach().double().requires_grad_()), or create the tensor with "
    "dtype=tg.float64."
)


def precision_help(eps: float) -> str:
    """Why float64, with the numbers for this `eps`."""
    return PRECISION_HELP.format(eps=eps, float32_error=1.2e-7 / eps, float64_error=2.2e-16 / eps)


Evaluate = Callable[[], np.ndarray]  # reads the perturbed array, returns all outputs flat, float64


class FiniteDifferences(NamedTuple):
    """Derivative estimates, one matrix entry per (output element, input element): column j
    is how every output element changes when input element j moves by ±eps."""

    value: np.ndarray  # f(x), flat
    central: np.ndarray  # (f(x + eps) - f(x - eps)) / 2 eps
    left: np.ndarray  # (f(x) - f(x - eps)) / eps
    right: np.ndarray  # (f(x + eps) - f(x)) / eps


def evaluate_moved(f: Evaluate, x: np.ndarray, j: int, step: float) -> np.ndarray:
    """f() with element j of `x` moved by `step`; `x` is changed in place and then put back."""
    original = x.flat[j]
    x.flat[j] = original + step
    try:
        return f()
    finally:
        x.flat[j] = original


def finite_differences(f: Evaluate, x: np.ndarray, eps: float) -> FiniteDifferences:
    """Central and one-sided differences of f with respect to every element of `x`.

    `f()` takes no arguments: it computes from `x` (which this perturbs in place, one element
    at a time) and returns all its outputs as one flat float64 array. Costs 1 + 2 * x.size calls.
    """
    value = f()
    central, left, right = (np.empty((value.size, x.size)) for _ in range(3))
    for j in range(x.size):
        plus = evaluate_moved(f, x, j, eps)
        minus = evaluate_moved(f, x, j, -eps)
        central[:, j] = (plus - minus) / (2 * eps)
        left[:, j] = (value - minus) / eps
        right[:, j] = (plus - value) / eps
    return FiniteDifferences(value, central, left, right)


def directional_difference(f: Evaluate, x: np.ndarray, u: np.ndarray, eps: float) -> np.ndarray:
    """(f(x + eps u) - f(x - eps u)) / 2 eps ≈ J u: the whole Jacobian times one direction u,
    from two calls of f (what fast mode uses instead of 2 * x.size calls)."""
    original = x.copy()
    try:
        x[...] = original + eps * u
        plus = f()
        x[...] = original - eps * u
        minus = f()
    finally:
        x[...] = original
    return (plus - minus) / (2 * eps)


def kinks(f: Evaluate, x: np.ndarray, fd: FiniteDifferences, eps: float, atol, rtol) -> np.ndarray:
    """Mask of the (output, input) entries where f has a kink at x.

    A kink: the one-sided slopes differ by more than the tolerance, and the jump between them
    does not grow when the step grows tenfold (curvature would make it grow tenfold). Only the
    columns with a candidate cost two more calls of f, at ±KINK_STEP * eps.
    """
    jump = np.abs(fd.right - fd.left)
    candidate = jump > atol + rtol * np.maximum(np.abs(fd.left), np.abs(fd.right))
    mask = np.zeros_like(candidate)
    wide = KINK_STEP * eps
    for j in np.flatnonzero(candidate.any(axis=0)):
        plus = evaluate_moved(f, x, j, wide)
        minus = evaluate_moved(f, x, j, -wide)
        wide_jump = np.abs(plus + minus - 2 * fd.value) / wide
        mask[:, j] = candidate[:, j] & (wide_jump < 3 * jump[:, j])
    return mask


def within_slopes(analytic: np.ndarray, fd: FiniteDifferences, atol, rtol) -> np.ndarray:
    """Is the analytic derivative one of the one-sided slopes, or between them (a subgradient)?

    At a kink that is all a backward can do: ReLU's backward gives 0 at 0, the left slope.
    """
    low, high = np.minimum(fd.left, fd.right), np.maximum(fd.left, fd.right)
    tol = atol + rtol * np.maximum(np.abs(low), np.abs(high))
    return (analytic >= low - tol) & (analytic <= high + tol)


class Comparison(NamedTuple):
    abs_err: np.ndarray  # |analytic - numerical|
    rel_err: np.ndarray  # |analytic - numerical| / |numerical| (0 where both agree exactly)
    failing: np.ndarray  # abs_err > atol + rtol * |numerical|, or NaN
    badness: np.ndarray  # abs_err / (atol + rtol * |numerical|): > 1 fails; picks the worst


def compare(numerical: np.ndarray, analytic: np.ndarray, atol: float, rtol: float) -> Comparison:
    """Elementwise test |analytic - numerical| <= atol + rtol * |numerical| (as np.allclose)."""
    abs_err = np.abs(analytic - numerical)
    allowed = atol + rtol * np.abs(numerical)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel_err = np.where(abs_err == 0, 0.0, abs_err / np.abs(numerical))
        badness = np.nan_to_num(abs_err / allowed, nan=np.inf)
    failing = ~(abs_err <= allowed)  # NaN compares False, so it fails
    return Comparison(abs_err, rel_err, failing, badness)
