"""erfinv(y) on NumPy arrays, from the project's own erf and erfc (`erf_numpy`, no SciPy).

erfinv(y), the inverse of erf on (-1, 1)
-----------------------------------------
1. A first guess x0 from Giles' polynomial approximation (M. Giles, "Approximating the erfinv
   function", GPU Computing Gems, 2011): with w = -log((1 - y)(1 + y)), a polynomial in
   w - 2.5 (w < 5) or in sqrt(w) - 3 (the tails), times y. Its relative error is about 1e-7.
2. Newton steps on f(x) = erf(x) - y, f'(x) = 2/sqrt(pi) * exp(-x^2):
       x <- x - (erf(x) - y) / (2/sqrt(pi) * exp(-x^2)).
   Each step squares the relative error: 1e-7 -> 1e-14 -> below double precision. So float64
   takes two steps; float32 (and float16) one: 1e-14 is far below float32's spacing, the
   result rounds as the float64 erfinv does (checked: every float32 in [0.5, 1] and 10^6
   random ones below).
3. For |y| > 0.5 the step is Newton on log(erfc(x)) - log(1 - |y|), nearly linear in x in the
   tail (so it converges from the guess's worse error there, up to 0.1 relative for
   1 - |y| < 1e-8): 1 - |y| is exact (Sterbenz), while erf(x) - y would cancel to a few digits
   near |y| = 1. Four steps in float64; one in float32, whose inputs stay above 1 - 6e-8,
   where the guess is within 1e-5.
4. exp(-x^2) in that step is the plain exp: the rounding of x*x (relative 1e-16, so an error
   of x^2 1e-16 in log(erfc)) moves x by about x 1e-16 / 2, since d log(erfc(x))/dx ~ -2x.
erfinv is odd, so we work with |y| and copy the sign back; in blocks of `erf_numpy.BLOCK`
values, so the temporaries stay in the cache.
erfinv(+-1) = +-inf; |y| > 1 and NaN give NaN.

Accuracy, measured against `torch.erfinv` on 2 * 10^5 random points (in (-1, 1), near +-1
down to 1 - 1e-16 and near 0): largest relative error 5e-16 in float64; in float32 every
value equal to the float64 erfinv rounded to float32. See the tests.
"""

import math

import numpy as np

from .erf_numpy import BLOCK, SMALL, _erf_small, _erfcx, erf

SQRT_PI_OVER_2 = math.sqrt(math.pi) / 2

# Giles (2011), single-precision erfinv: central branch (w < 5) and tail branch.
CENTRAL = [2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
           -0.00125372503, -0.00417768164, 0.246640727, 1.50140941]  # fmt: skip
TAIL = [-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
        -0.0076224613, 0.00943887047, 1.00167406, 2.83297682]  # fmt: skip


def _horner(coefficients, w):
    """The polynomial with `coefficients` (highest power first) at w, in place on one array."""
    p = w * coefficients[0]
    for c in coefficients[1:-1]:
        p += c
        p *= w
    p += coefficients[-1]
    return p


def erfinv(y: np.ndarray) -> np.ndarray:
    """The inverse error function: erf(erfinv(y)) = y for y in [-1, 1] (see the docstring)."""
    y = np.asarray(y)
    out_dtype = y.dtype if y.dtype.kind == "f" else np.dtype(np.float64)
    steps = (1, 1) if out_dtype.itemsize <= 4 else (2, 4)  # Newton steps: module docstring
    flat = y.reshape(-1)
    x = np.empty(flat.shape, out_dtype)
    for start in range(0, flat.size, BLOCK):  # small blocks: temporaries stay in the cache
        piece = flat[start : start + BLOCK].astype(np.float64)
        x[start : start + BLOCK] = _erfinv_flat(piece, steps)
    return x.reshape(y.shape)


def _erfinv_flat(y, steps):
    """erfinv of a 1-d float64 array."""
    a = np.abs(y)
    inside = np.flatnonzero(a < 1)  # not NaN, not |y| >= 1
    if inside.size == a.size:
        x = _erfinv_inside(a, steps)
    else:
        x = np.where(a == 1, np.inf, np.nan)
        x[inside] = _erfinv_inside(a[inside], steps)
    return np.copysign(x, y, out=x)


def _erfinv_inside(a, steps):
    """erfinv(a) for 0 <= a < 1 (a 1-d float64 array): Giles' guess, then Newton, `steps` =
    (steps where a <= 1/2, steps above)."""
    q = 1.0 - a  # exact for a >= 0.5
    w = q * (1.0 + a)
    np.log(w, out=w)
    np.negative(w, out=w)
    z = np.empty_like(a)
    is_central = w < 5
    central, tail = np.flatnonzero(is_central), np.flatnonzero(~is_central)
    if central.size:
        z[central] = _horner(CENTRAL, w[central] - 2.5)
    if tail.size:
        z[tail] = _horner(TAIL, np.sqrt(w[tail]) - 3.0)
    z *= a
    is_near = a <= 0.5
    near, far = np.flatnonzero(is_near), np.flatnonzero(~is_near)
    if near.size:
        z[near] = _newton_near(z[near], a[near], steps[0])
    if far.size:
        z[far] = _newton_far(z[far], q[far], steps[1])
    return z


def _newton_near(z, a, steps):
    """Newton on erf(z) - a, for a <= 1/2 (so z <= erfinv(1/2) = 0.477 plus the guess's
    error: nearly all in Cody's first range, `erf_small`, without gathers)."""
    for _ in range(steps):
        value = _erf_small(z) if z.max() <= SMALL else erf(z)
        step = np.subtract(value, a, out=value)
        step *= np.exp(z * z)
        step *= SQRT_PI_OVER_2
        z = z - step
    return z


def _newton_far(z, q, steps):
    """Newton on log(erfc(z)) - log(q), for q = 1 - a < 1/2 (z > 0.47, Cody's ranges 2 and 3):
    z <- z + log(erfc(z) / q) * erfcx(z) * sqrt(pi)/2, with erfc = exp(-z^2) erfcx(z)."""
    for _ in range(steps):
        scaled = _erfcx(z.copy())  # exp(z^2) erfc(z); the copy is used up
        step = np.multiply(z, z)
        np.negative(step, out=step)
        np.exp(step, out=step)  # its rounding moves z by a relative 1e-16 only (docstring)
        step *= scaled
        step /= q
        np.log(step, out=step)
        step *= scaled
        step *= SQRT_PI_OVER_2
        z = z + step
    return z
