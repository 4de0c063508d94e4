"""The error function erf(x) and its complement erfc(x) = 1 - erf(x) on NumPy arrays (no SciPy).

    erf(x) = 2/sqrt(pi) * integral from 0 to x of exp(-t^2) dt,   erfc(x) = 1 - erf(x)

Source: W. J. Cody, "Rational Chebyshev approximations for the error function", Mathematics of
Computation 23 (1969) 631-637, as implemented in Cody's public-domain Fortran routine CALERF
(Netlib SPECFUN, https://www.netlib.org/specfun/erf). The coefficients below are CALERF's, to
the 18 digits printed there. Cody chose each rational function P/Q to minimise the largest
relative error on its range (a Remez fit); the fits are more accurate than double precision,
so rounding, not the fit, decides the accuracy here.

erf is odd (substitute t -> -t). Range 1's formula below is odd itself and runs on x; ranges 2
and 3 run on a = |x| and copy the sign back with `np.copysign`. So erf(-x) == -erf(x) exactly
and erf(-0.0) == -0.0. Three ranges of a = |x|:

1. a <= 0.46875 (Cody's threshold, where erf(a) ~ 0.49): erf(a) = a * A(a^2) / B(a^2),
   A and B of degree 4. (The Taylor series of erf has only odd powers, so erf(a)/a is a
   function of z = a^2, smooth near 0.) Tiny and subnormal a give 2/sqrt(pi) * a.

2. 0.46875 < a <= 4: erfc(a) = exp(-a^2) * C(a) / D(a), C and D of degree 8. exp(a^2) erfc(a)
   (the scaled complement, erfcx) falls slowly like 1/(a sqrt(pi)); taking the Gaussian factor
   out leaves a gentle function a rational fit matches with few terms.

3. a > 4: the asymptotic expansion exp(a^2) erfc(a) ~ (1/sqrt(pi)) / a * (1 - 1/(2a^2) + ...)
   suggests a rational function of w = 1/a^2:
       erfc(a) = exp(-a^2) / a * (1/sqrt(pi) - w * P(w) / Q(w)),   P, Q of degree 4.
   At a = inf, w = 0 and erfc = 0.

erf(a) = 1 - erfc(a) in ranges 2 and 3; above a ~ 6 that is exactly 1 in double precision.

Computing exp(-a^2). The product a*a is rounded (relative error up to 2^-53), and exp turns an
absolute error in its argument into the same relative error: a^2 * 2^-53, 700 times the
rounding unit at a = 26.5, where erfc is still a normal number. erf does not care (the error
is relative to erfc, which is tiny where a is large), but `erfc` does, so it follows Cody and
splits a = s + d with s = trunc(16 a) / 16 (a few bits, so s*s is exact) and
a^2 = s^2 + (a - s)(a + s), whose second part is small: exp(-a^2) = exp(-s^2) * exp(-(a-s)(a+s)).

Evaluation. The elements of each range are gathered (`np.flatnonzero`, then indexing) and
only that range's formula runs on them; Horner's rule evaluates numerator and denominator
together as the two rows of one array, so a rational function of degree m costs 2m + 2 NumPy
passes. erf works through the array in blocks of BLOCK elements, so the temporaries stay in
the processor's cache and below malloc's threshold for fresh pages.

Speed. The cost is the number of passes over the array (about 30 here), not the arithmetic:
range 1 runs on the signed x (its formula is odd), so only ranges 2 and 3 copy the sign back.

float32 inputs take a faster road (`_erf_float32`): float32 arithmetic, which NumPy runs
about twice as fast as float64, and no gathers for most values (an `np.take` of 393 216
values costs as much as ten float32 passes). Where |x| < 1,

    erf(x) = x + x Q(z),   z = x^2,   Q(z) = erf(x)/x - 1,

Q falling from 2/sqrt(pi) - 1 = 0.128 at z = 0 to erf(1) - 1 = -0.157 at z = 1 (erf(x)/x is a
power series in z, as the Taylor series of erf has odd powers only). Q is a polynomial of
degree 6 with float32 coefficients (`FLOAT32_Q`), a weighted minimax fit (made by
`fit_float32_polynomial` in tests/test_erf.py) whose own error moves y by at most 1.4e-9
relative. The cost is 15 NumPy passes over each block of FLOAT32_BLOCK values: z, six
multiply-add steps of Horner's rule, x * Q, x + x Q (and one comparison, |x| >= 1).

Why x + x Q and not x * (1 + Q): x is exact, and the correction x Q is small (at most 0.19
of |y|), so the roundings made while computing it are small against y's last place (ulp).
Rounding 1 + Q to float32 would cost up to a whole ulp of y by itself. The error budget, in
ulps of y, where it is largest (x near 1): the fit 0.02; rounding z = x*x moves Q by up to
0.1; Horner's rule rounds numbers up to 0.38 in size, up to 0.7 together, because its last
step cancels there (0.128 + z S(z) with z S(z) = -0.283 gives Q = -0.155); x * Q 0.06; the
final addition 0.5. So y is within about 1.3 ulp of erf(x) (measured: 1.31, at x = 0.994);
for |x| < 0.5 below one ulp (0.97 where y crosses a power of 2). Checked on all 2^32
float32 values: every result is the float64 erf rounded to float32 or one of its two
neighbours (one float32 step away); see "Accuracy" below for how many. For tiny and
subnormal x, z is 0 and y = x + x Q(0): the one rounding that counts is that of x Q(0) (6% of
the tiny normal x and 0.4% of the subnormals are one step off).

Where |x| >= 1 (1.6% of a GPT's GELU inputs) and at +-inf, the values are gathered and take
the float64 ranges 2 and 3 (`_erf_large`), rounded once to float32. NaN stays NaN (z is NaN
and fails the |x| >= 1 test), erf(-0.0) = -0.0 (x + x Q = -0.0 + -0.0), erf(-x) = -erf(x).

Speed: on a GPT's exact GELU input the float32 polynomial is several times faster than the
float64 rational functions above, than a table of 65536 Taylor cubics indexed by the top 16
bits (this module's float32 road before: four gathers) and than the series-and-continued-
fraction erf this module first had; its 15 passes run at the speed of the processor's
caches, not of arithmetic, and finding and redoing the values with |x| >= 1 is the rest. The
figures are in docs/speed.md.

Accuracy, measured against `math.erf` / `math.erfc` on 10^6 points (normal, uniform on
[-30, 30], log-spaced tails down to subnormals, both signs): largest relative error of erf
6.4e-16, of erfc 1.03e-15 where erfc is a normal number (math.erfc itself is off by up to
3e-16 there; subnormal results are within one subnormal step, as `math.erf`'s own).
float32, checked on all 2^32 float32 values against the float64 erf rounded to float32:
125 467 622 of them (2.9% of the non-NaN values; 5.9% of those with |x| < 1, none with
|x| >= 1) are one step away, none further; every NaN gives NaN, every sign is kept. (The
table of cubics was one step away for 1922 values, but took 2.5 times as long.)
Work is done in float64 but for float32; floating inputs (float16, float32, float64) keep
their dtype, other real inputs (bool, int) give float64. Shapes are kept, including 0-d and
empty arrays.

>>> import numpy as np
>>> erf(np.array([0.0, 0.5, -1.0, np.inf]))
array([ 0.        ,  0.52049988, -0.84270079,  1.        ])
>>> print(f"{float(erfc(np.array(10.0))):.10e}")  # 1 - erf(10) would round to 0
2.0884875838e-45
"""

import math

import numpy as np

ONE_OVER_SQRT_PI = 1.0 / math.sqrt(math.pi)
SMALL = 0.46875  # range 1 is a <= SMALL
LARGE = 4.0  # range 2 is SMALL < a <= LARGE, range 3 a > LARGE
BLOCK = 32768  # erf works on blocks of this many elements (256 KiB in float64)
ERFC_IS_ZERO = 28.0  # erfc(28) < 2^-1075: rounds to 0; clipping here keeps exp finite
TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
FLOAT32_BLOCK = 65536  # the float32 path works on blocks of this many elements (256 KiB)
ONE32 = np.float32(1.0)  # the float32 polynomial covers |x| < 1
# Q(z) ~ erf(x)/x - 1, z = x^2, on [0, 1]: the float32 polynomial of the module docstring,
# highest power first (fitted by `fit_float32_polynomial` in tests/test_erf.py).
FLOAT32_Q = np.array([7.806903158780187e-05, -0.0007997853099368513, 0.005187162198126316,
                      -0.026853347197175026, 0.11283578723669052, -0.3761262595653534,
                      0.12837916612625122], dtype=np.float32)  # fmt: skip

# Cody's CALERF coefficients, constant term last for the numerators (A, C, P); the
# denominators (B, D, Q) have leading coefficient 1 and list the rest, highest power first.
A = (1.85777706184603153e-1, 3.16112374387056560e0, 1.13864154151050156e2,
     3.77485237685302021e2, 3.20937758913846947e3)  # fmt: skip
B = (2.36012909523441209e1, 2.44024637934444173e2, 1.28261652607737228e3,
     2.84423683343917062e3)  # fmt: skip
C = (2.15311535474403846e-8, 5.64188496988670089e-1, 8.88314979438837594e0,
     6.61191906371416295e1, 2.98635138197400131e2, 8.81952221241769090e2,
     1.71204761263407058e3, 2.05107837782607147e3, 1.23033935479799725e3)  # fmt: skip
D = (1.57449261107098347e1, 1.17693950891312499e2, 5.37181101862009858e2,
     1.62138957456669019e3, 3.29079923573345963e3, 4.36261909014324716e3,
     3.43936767414372164e3, 1.23033935480374942e3)  # fmt: skip
P = (1.63153871373020978e-2, 3.05326634961232344e-1, 3.60344899949804439e-1,
     1.25781726111229246e-1, 1.60837851487422766e-2, 6.58749161529837803e-4)  # fmt: skip
Q = (2.56852019228982242e0, 1.87295284992346047e0, 5.27905102951428412e-1,
     6.05183413124413191e-2, 2.33520497626869185e-3)  # fmt: skip
RANGE_1 = np.array([A, (1.0, *B)])  # numerator and denominator as rows, for `_ratio`
RANGE_2 = np.array([C, (1.0, *D)])
RANGE_3 = np.array([P, (1.0, *Q)])


def _ratio(t, coefficients):
    """N(t) / M(t) for the (2, m+1) `coefficients`: N's in row 0, M's in row 1, highest power
    first. Horner's rule runs on both rows at once (one NumPy pass per power for both)."""
    rows = coefficients[:, :1] * t
    for c in coefficients.T[1:-1]:
        rows += c[:, None]
        rows *= t
    rows += coefficients[:, -1:]
    return np.divide(rows[0], rows[1], out=rows[0])


def _erf_small(a):
    """erf(a) for 0 <= a <= SMALL (range 1): a * A(a^2) / B(a^2)."""
    y = _ratio(a * a, RANGE_1)
    y *= a
    return y


def _erfcx(a):
    """exp(a^2) * erfc(a) for a > SMALL (ranges 2 and 3), as a new array; `a` is used up."""
    large = np.flatnonzero(a > LARGE)
    tail = None
    if large.size:
        b = a[large]
        w = np.reciprocal(b)
        w *= w  # 1/a^2, without overflowing a*a
        tail = _ratio(w, RANGE_3)
        tail *= w
        np.subtract(ONE_OVER_SQRT_PI, tail, out=tail)
        tail /= b  # at a = inf: 0
    y = _ratio(np.minimum(a, LARGE, out=a), RANGE_2)
    if tail is not None:
        y[large] = tail
    return y


def _exp_minus_square(a):
    """exp(-a^2) to full relative accuracy, by Cody's split a = s + (a - s), s = trunc(16a)/16:
    s*s is exact, and exp(-a^2) = exp(-s^2) * exp(-(a - s)(a + s))."""
    a = np.minimum(a, ERFC_IS_ZERO)
    s = np.trunc(a * 16.0)
    s /= 16.0
    rest = (a - s) * (a + s)
    s *= s
    np.negative(s, out=s)
    np.exp(s, out=s)
    np.negative(rest, out=rest)
    np.exp(rest, out=rest)
    return np.multiply(s, rest, out=s)


def _ranges(x):
    """The positions of the elements of x (1-d) in range 1 (|x| <= SMALL) and in ranges 2 and 3
    (the rest, NaN included)."""
    small = np.abs(x) <= SMALL
    return np.flatnonzero(small), np.flatnonzero(~small)


def _check(x, name):
    """x as an array, and the dtype of the result: floating dtypes are kept, others give
    float64."""
    x = np.asarray(x)
    if x.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected a real array, got dtype {x.dtype}")
    return x, (x.dtype if x.dtype.kind == "f" else np.dtype(np.float64))


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, elementwise, to within 1e-15 relative of `math.erf` (see the module
    docstring); float32 within one step of the float64 erf rounded to float32, by a float32
    polynomial. Floating dtypes are kept; bool and integer inputs give float64."""
    x, out_dtype = _check(x, "erf")
    if x.dtype == np.float32:
        return _erf_float32(x)
    flat = x.reshape(-1)
    y = np.empty(flat.shape, out_dtype)
    for start in range(0, flat.size, BLOCK):  # small blocks: temporaries stay in the cache
        piece = flat[start : start + BLOCK]
        y[start : start + BLOCK] = _erf_flat(piece.astype(np.float64, copy=False))  # cast first:
        # a ufunc on mixed dtypes (float32 in, float64 out) is slower than a cast and the ufunc
    return y.reshape(x.shape)


def _erf_flat(x):
    """erf of a 1-d float64 array."""
    y = np.empty_like(x)
    near, far = _ranges(x)
    if near.size:
        y[near] = _erf_small(np.take(x, near))  # x * A(x^2) / B(x^2) is odd: signed x is fine
    if far.size:
        y[far] = _erf_large(np.take(x, far))
    return y


def _erf_large(x):
    """erf of a 1-d float64 array of values with |x| > SMALL (ranges 2 and 3) or NaN:
    sign(x) (1 - exp(-a^2) erfcx(a)), a = |x|."""
    a = np.abs(x)
    gauss = np.minimum(a, ERFC_IS_ZERO)  # keeps a*a finite
    gauss *= gauss
    np.negative(gauss, out=gauss)
    np.exp(gauss, out=gauss)  # exp(-a^2): its rounding error is negligible here
    erf_far = _erfcx(a)
    erf_far *= gauss
    np.subtract(1.0, erf_far, out=erf_far)
    return np.copysign(erf_far, x, out=erf_far)


def _erf_float32(x):
    """erf of a float32 array: the float32 polynomial of `FLOAT32_Q` where |x| < 1, the
    float64 ranges 2 and 3 (`_erf_large`) on the few other values. See the module docstring
    ("float32") for the derivation and the error bound."""
    flat = x.reshape(-1)
    y = np.empty(flat.shape, np.float32)
    large = np.empty(flat.shape, np.bool_)
    z_buffer = np.empty(min(flat.size, FLOAT32_BLOCK), np.float32)  # reused by every block
    q_buffer = np.empty_like(z_buffer)
    # z = x*x overflows for huge |x| (redone below) and underflows to 0 for tiny |x| (then
    # y = x + x Q(0), within one step)
    with np.errstate(all="ignore"):
        for start in range(0, flat.size, FLOAT32_BLOCK):
            piece = flat[start : start + FLOAT32_BLOCK]
            z, q = z_buffer[: piece.size], q_buffer[: piece.size]
            np.multiply(piece, piece, out=z)
            np.greater_equal(z, ONE32, out=large[start : start + FLOAT32_BLOCK])  # |x| >= 1
            np.multiply(z, FLOAT32_Q[0], out=q)
            for c in FLOAT32_Q[1:-1]:  # Horner's rule: Q(z)
                q += c
                q *= z
            q += FLOAT32_Q[-1]
            q *= piece
            np.add(piece, q, out=y[start : start + FLOAT32_BLOCK])  # x + x Q(x^2)
    far = np.flatnonzero(large)  # |x| >= 1 and +-inf; NaN is not (x + x Q(NaN) is NaN)
    if far.size:
        y[far] = _erf_large(flat[far].astype(np.float64))
    return y.reshape(x.shape)


def erfc(x: np.ndarray) -> np.ndarray:
    """The complementary error function 1 - erf(x), elementwise, accurate also where it is tiny
    (x large), where 1 - erf(x) would round to 0. erfc(-x) = 2 - erfc(x)."""
    x, out_dtype = _check(x, "erfc")
    flat = x.reshape(-1)
    y = np.empty(flat.shape, out_dtype)
    for start in range(0, flat.size, BLOCK):  # small blocks, as in `erf`
        piece = flat[start : start + BLOCK].astype(np.float64, copy=False)
        y[start : start + BLOCK] = _erfc_flat(piece)
    return y.reshape(x.shape)


def _erfc_flat(flat):
    """erfc of a 1-d float64 array."""
    y = np.empty_like(flat)
    near, far = _ranges(flat)
    if near.size:
        y[near] = 1.0 - _erf_small(np.take(flat, near))
    if far.size:
        a = np.abs(np.take(flat, far))
        gauss = _exp_minus_square(a)
        erfc_b = _erfcx(a)
        erfc_b *= gauss
        negative = np.flatnonzero(np.signbit(flat[far]))
        erfc_b[negative] = 2.0 - erfc_b[negative]  # erfc(-a) = 1 + erf(a) = 2 - erfc(a)
        y[far] = erfc_b
    return y
