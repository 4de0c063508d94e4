"""fmod, remainder and floor division of float32 tensors on `fast_math.fmod` (exact, in float64
arithmetic) instead of NumPy's np.fmod / np.remainder / np.floor_divide, which call the C
library per element. The references are the primitives `elementwise.Fmod`,
`elementwise.Remainder` and `rounding.RoundedDiv`; the backwards are theirs (unchanged).

    fmod(a, b)       = r = a - b trunc(a / b), the sign of a             (fast_math.fmod)
    remainder(a, b)  = r + b where r != 0 and sign(r) != sign(b), else r  (the sign of b)
    floor(a / b)     = d = (a - r) / b, minus 1 where r was moved as above; then
                       floor(d), plus 1 where d - floor(d) > 1/2; copysign(0, a / b) at d = 0;
                       a / b where b = 0

The last two are PyTorch's formulas (and NumPy's npy_divmod's), op for op in float32, so the
values are theirs bit for bit; a remainder of zero keeps the sign of fmod's zero, as PyTorch's
(NumPy's np.remainder gives it b's sign). Other dtypes take the references' NumPy functions.
"""

import numpy as np

from ..elementwise import Fmod as FmodReference
from ..elementwise import Remainder as RemainderReference
from ..rounding import RoundedDiv as RoundedDivReference
from . import fast_math

__all__ = ["Fmod", "Remainder", "RoundedDiv", "floor_divide", "remainder"]


def _floats(a, b) -> bool:
    return a.dtype == b.dtype == np.float32 and a.ndim > 0 and b.ndim > 0


def _moved(r: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Where remainder moves fmod's r by one b: r != 0 and its sign differs from b's."""
    moved = np.less(r, 0)
    moved ^= np.less(b, 0)
    moved &= r != 0
    return moved


def remainder(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a - b floor(a / b), the sign of b (PyTorch's formula on fmod, see the module)."""
    if not _floats(a, b):
        return np.remainder(a, b)
    r = fast_math.fmod(a, b)
    moved = _moved(r, b)
    return fast_math.select(moved, np.add(r, b), r)  # (b may be inf: no b * mask)


def floor_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """floor(a / b) as PyTorch and NumPy compute it (see the module), float32."""
    if not _floats(a, b):
        return np.floor_divide(a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = fast_math.fmod(a, b)
        d = np.subtract(a, r)
        np.divide(d, b, out=d)
        d -= _moved(r, b)
        out = np.floor(d)
        d -= out
        out += d > 0.5
        quotient = np.divide(a, b)
    np.copysign(out, quotient, out=out)  # the sign of a / b (of a zero at d = 0 too)
    zero = np.broadcast_to(b == 0, out.shape)
    if zero.any():
        out[zero] = quotient[zero]
    return out


class Fmod(FmodReference):
    """out = a - b trunc(a / b) (see `elementwise.Fmod`); the forward is `fast_math.fmod`."""

    numpy_fn = staticmethod(fast_math.fmod)


class Remainder(RemainderReference):
    """out = a - b floor(a / b) (see `elementwise.Remainder`); the forward is PyTorch's fmod
    formula (`remainder`)."""

    numpy_fn = staticmethod(remainder)


class RoundedDiv(RoundedDivReference):
    """a / b rounded (see `rounding.RoundedDiv`); mode "floor" of float32 is `floor_divide`."""

    @staticmethod
    def forward(ctx, a, b, mode):
        if mode == "floor" and _floats(a, b):
            return floor_divide(a, b)
        return RoundedDivReference.forward(ctx, a, b, mode)
