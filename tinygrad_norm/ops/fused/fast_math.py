"""log1p and expm1 of float32 arrays from NumPy's vectorized exp and log.

NumPy's float32 `np.log1p` and `np.expm1` call the C library once per element, while its
float32 `np.log`, `np.exp` and `np.tanh` are vectorized (SIMD): several times faster. Forms
that keep the digits log(1 + x) and exp(x) - 1 would lose:

    log1p(x) = log(u) * x / (u - 1),   u = fl(1 + x)        (Goldberg; = x where u == 1)
    expm1(x) = 2 t / (1 - t),          t = tanh(x / 2)      (x <= 1; exp(x) - 1 above)

In the first, u - 1 is exact (Sterbenz), and log(u) / (u - 1) is the slope of log between 1
and u, which changes little between u and 1 + x: its rounding of x cancels. The second is
exact algebra (e^x - 1 = 2 tanh(x/2) / (1 - tanh(x/2))) whose tanh keeps its relative precision
near 0 and whose 1 - t, above 1/2 for x <= 1, cancels nothing; above 1, exp(x) >= e and
exp(x) - 1 loses under a bit. Both are within a few float32 ulps (the tests check a million points;
NumPy's own functions are within one); NumPy's `np.log1p` / `np.expm1` (`*_reference`) stay for
every other dtype. The special values are PyTorch's: log1p(-1) = -inf, log1p(inf) = inf,
expm1(inf) = inf, expm1(-inf) = -1, NaN stays NaN.

`select(mask, a, b)` is np.where by the bits, for masks with no pattern (where np.where is slow);
`fmod(a, b)` is C's fmod of float32 arrays in float64 arithmetic, exact (its docstring).
"""

import numpy as np

__all__ = [
    "expm1",
    "expm1_reference",
    "fmod",
    "fmod_reference",
    "log1p",
    "log1p_reference",
    "select",
    "select_reference",
]

log1p_reference = np.log1p
expm1_reference = np.expm1


def log1p(x: np.ndarray) -> np.ndarray:
    """log(1 + x), a new array: Goldberg's correction for float32 (see the module), else
    NumPy's."""
    if x.dtype != np.float32 or x.ndim == 0:
        return np.log1p(x)
    u = np.add(x, 1, dtype=x.dtype)  # (...) fl(1 + x)
    d = np.subtract(u, 1, out=np.empty_like(u))  # u - 1, exact
    exact = d == 0  # u == 1: log1p(x) = x to float32 precision
    exact |= x == np.inf  # inf / inf below
    out = np.log(u, out=u)
    with np.errstate(divide="ignore", invalid="ignore"):
        out *= np.divide(x, d, out=d)
    return select(exact, x, out)  # (np.copyto with where= is slow on a dense mask)


def expm1(x: np.ndarray) -> np.ndarray:
    """exp(x) - 1, a new array: for float32 2 tanh(x/2) / (1 - tanh(x/2)) where x <= 1 and
    exp(x) - 1 above (see the module), else NumPy's."""
    if x.dtype != np.float32 or x.ndim == 0:
        return np.expm1(x)
    t = np.multiply(x, 0.5, dtype=x.dtype)  # (...)
    np.tanh(t, out=t)
    d = np.subtract(1, t, dtype=x.dtype)  # above 1/2 where x <= 1: no cancellation
    t *= 2
    with np.errstate(divide="ignore"):
        out = np.divide(t, d, out=t)
    above = x > 1
    if above.any():  # (an elu's input, min(x, 0), has none)
        with np.errstate(over="ignore"):
            e = np.exp(x)
        e -= 1
        out = select(above, e, out)
    return out


def select(mask: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a where `mask` else b (`select_reference`: np.where), a new array; a and b float arrays
    of one dtype and mask's shape. By the bits: (a & m) | (b & ~m) with m all ones where mask,
    six integer passes; np.where branches per element, slow on a mask that follows no pattern
    (an activation's sign)."""
    same = a.dtype == b.dtype and a.shape == b.shape == mask.shape
    if not same or a.ndim == 0 or a.dtype.itemsize not in (4, 8):
        return select_reference(mask, a, b)
    ints = np.dtype(f"int{8 * a.dtype.itemsize}")
    m = mask.astype(ints)
    np.negative(m, out=m)  # 0 -> 0, 1 -> all bits set
    out = np.bitwise_and(a.view(ints), m)
    np.invert(m, out=m)
    m &= b.view(ints)
    out |= m
    return out.view(a.dtype)


def select_reference(mask, a, b):
    """np.where(mask, a, b): the reference of `select`."""
    return np.where(mask, a, b)


def fmod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a - b trunc(a / b) with the sign of a (C's fmod), a new array: for float32 a and b in
    float64 arithmetic, else NumPy's np.fmod (`fmod_reference`: the C library per element).

    Exact: in float64 the product b q of a float32 b and a whole q below 2^29 is exact, and so
    is a - b q (a multiple of the smaller ulp, below 2|b|). Only q can be off by one, where
    a / b rounds up to a whole number; then the remainder has the wrong sign and b is added
    back. A quotient of 2^29 or more and an infinite b take NumPy's fmod (few elements);
    b = 0 and infinite a give NaN, as fmod does. The sign of a zero is a's (fmod(-4, 2) = -0).
    """
    if a.dtype != np.float32 or b.dtype != np.float32 or a.ndim == 0 or b.ndim == 0:
        return np.fmod(a, b)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.divide(a64, b64)  # (...) broadcast
        np.trunc(q, out=q)
        rare = np.abs(q) >= 2.0**29  # b q may be inexact (and NaN: not rare, it stays NaN)
        rare |= np.isinf(b64)
        r = np.multiply(b64, q, out=q)
        np.subtract(a64, r, out=r)
    wrong = (r != 0) & (np.signbit(r) != np.signbit(a64))  # (NaN: r != 0, signbit of NaN's bit)
    wrong &= ~np.isnan(r)
    if wrong.any():  # q one too far: back by one b
        r[wrong] += np.broadcast_to(np.copysign(b64, a64), r.shape)[wrong]
    np.copysign(r, a64, out=r)
    out = r.astype(np.float32)
    if rare.any():
        out[rare] = np.fmod(
            np.broadcast_to(a, out.shape)[rare], np.broadcast_to(b, out.shape)[rare]
        )
    return out


fmod_reference = np.fmod
