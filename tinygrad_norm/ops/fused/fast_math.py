"""log1p and expm1 of float32 arrays from NumPy's vectorized exp and log.

NumPy's float32 `np.log1p` and `np.expm1` call the C library once per element, while its
float32 `np.log` and `np.exp` are vectorized (SIMD): several times faster. The classic
corrections keep the digits that log(1 + x) and exp(x) - 1 would lose:

    log1p(x) = log(u) * x / (u - 1),   u = fl(1 + x)        (Goldberg; = x where u == 1)
    expm1(x) = (u - 1) * x / log(u),   u = fl(exp(x))       (Kahan; = x where u == 1)

In the first, u - 1 is exact (Sterbenz), and log(u) / (u - 1) is the slope of log between 1
and u, which changes little between u and 1 + x: its rounding of x cancels. The second is the
same argument for exp. Both are within a few float32 ulps (the tests check a million points;
NumPy's own functions are within one); NumPy's `np.log1p` / `np.expm1` (`*_reference`) stay for
every other dtype. The special values are PyTorch's: log1p(-1) = -inf, log1p(inf) = inf,
expm1(inf) = inf, expm1(-inf) = -1, NaN stays NaN; where exp(x) < 2^-25 expm1(x) rounds to -1.
"""

import numpy as np

__all__ = ["expm1", "expm1_reference", "log1p", "log1p_reference"]

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
    np.copyto(out, x, where=exact)
    return out


def expm1(x: np.ndarray) -> np.ndarray:
    """exp(x) - 1, a new array: Kahan's correction for float32 (see the module), else
    NumPy's."""
    if x.dtype != np.float32 or x.ndim == 0:
        return np.expm1(x)
    with np.errstate(over="ignore"):
        u = np.exp(x)  # (...) fl(exp(x))
    out = np.subtract(u, 1, out=np.empty_like(u))  # u - 1, exact where it matters
    exact = u == 1  # expm1(x) = x to float32 precision
    overflow = u == np.inf
    minus_one = out == -1  # exp(x) below half a float32 ulp of 1
    with np.errstate(divide="ignore", invalid="ignore"):
        log_u = np.log(u, out=u)
        out *= np.divide(x, log_u, out=log_u)
    np.copyto(out, x, where=exact)
    np.copyto(out, np.inf, where=overflow)
    np.copyto(out, -1, where=minus_one)
    return out
