"""Array kernels for the fused pointwise ops, each beside its reference:

`select(mask, a, b)` is np.where by the bits, for masks with no pattern (where np.where is slow);
`fmod(a, b)` is C's fmod of float32 arrays in float64 arithmetic, exact (its docstring).

(Float32 log1p and expm1 stay NumPy's: forms built from its vectorized log, exp and tanh were
within 4 float32 ulps, not within one, and measured no faster on this project's machine.)
"""

import numpy as np

__all__ = [
    "fmod",
    "fmod_reference",
    "select",
    "select_reference",
]


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
