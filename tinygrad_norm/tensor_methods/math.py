"""`MathMethods`: the standard elementwise math, reductions, scans and sorting as Tensor methods.

Each method is a one-line call into the ops: a primitive's `apply` (ops/trig.py,
ops/elementwise_more.py, ops/rounding.py) or a composed function (ops/math_composite.py,
ops/reduce_more.py, ops/scan.py, ops/sort.py). Names, arguments and defaults are PyTorch's.
"""

from __future__ import annotations

from ..ops import math_composite as M
from ..ops import reduce_more as R
from ..ops import scan as S
from ..ops import sort as O
from ..ops.elementwise_more import Erfc, Erfinv, Expm1, Log1p, Log2, Log10
from ..ops.rounding import Ceil, Floor, Round, Sign, Trunc
from ..ops.trig import Acos, Acosh, Asin, Asinh, Atan, Atan2, Atanh, Cos, Cosh, Sin, Sinh, Tan


class MathMethods:
    """Tensor methods for issue 12's op set: `x.sin()`, `x.cumsum(0)`, `x.sort(descending=True)`.

    >>> import tinygrad_norm as tg
    >>> tg.tensor([0.0, 1.0]).exp2()
    tensor([1., 2.])
    """

    __slots__ = ()

    # --- trigonometric and hyperbolic ----------------------------------------------------------
    def sin(self):
        return Sin.apply(self)

    def cos(self):
        return Cos.apply(self)

    def tan(self):
        return Tan.apply(self)

    def asin(self):
        return Asin.apply(self)

    def acos(self):
        return Acos.apply(self)

    def atan(self):
        return Atan.apply(self)

    def atan2(self, other):
        return Atan2.apply(*M.pair("atan2", self, other))

    def sinh(self):
        return Sinh.apply(self)

    def cosh(self):
        return Cosh.apply(self)

    def asinh(self):
        return Asinh.apply(self)

    def acosh(self):
        return Acosh.apply(self)

    def atanh(self):
        return Atanh.apply(self)

    arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2  # NumPy's names, PyTorch's aliases
    arcsinh, arccosh, arctanh = asinh, acosh, atanh

    # --- exponentials and logarithms -----------------------------------------------------------
    def expm1(self):
        return Expm1.apply(self)

    def log1p(self):
        return Log1p.apply(self)

    def log2(self):
        return Log2.apply(self)

    def log10(self):
        return Log10.apply(self)

    def exp2(self):
        return M.exp2(self)

    def erfc(self):
        return Erfc.apply(self)

    def erfinv(self):
        return Erfinv.apply(self)

    def logaddexp(self, other):
        return M.logaddexp(self, other)

    # --- rounding and sign ---------------------------------------------------------------------
    def floor(self):
        return Floor.apply(self)

    def ceil(self):
        return Ceil.apply(self)

    def trunc(self):
        return Trunc.apply(self)

    fix = trunc

    def round(self, *, decimals=0):
        return Round.apply(self, decimals=decimals)

    def frac(self):
        return M.frac(self)

    def sign(self):
        return Sign.apply(self)

    sgn = sign

    def copysign(self, other):
        return M.copysign(self, other)

    # --- arithmetic ----------------------------------------------------------------------------
    def add(self, other, *, alpha=1):
        return M.add(self, other, alpha=alpha)

    def sub(self, other, *, alpha=1):
        return M.sub(self, other, alpha=alpha)

    subtract = sub

    def mul(self, other):
        return self * other

    multiply = mul

    def div(self, other, *, rounding_mode=None):
        return M.div(self, other, rounding_mode=rounding_mode)

    divide = div

    def true_divide(self, other):
        return self / other

    def neg(self):
        return -self

    negative = neg

    def reciprocal(self):
        return M.reciprocal(self)

    def square(self):
        return M.square(self)

    def hypot(self, other):
        return M.hypot(self, other)

    def lerp(self, end, weight):
        return M.lerp(self, end, weight)

    def fmod(self, other):
        return M.fmod(self, other)

    def remainder(self, other):
        return M.remainder(self, other)

    def floor_divide(self, other):
        return M.floor_divide(self, other)

    def __mod__(self, other):
        return M.remainder(self, other)

    def __rmod__(self, other):
        return M.remainder(other, self)

    def __floordiv__(self, other):
        return M.floor_divide(self, other)

    def __rfloordiv__(self, other):
        return M.floor_divide(other, self)

    # --- tests, logical and bitwise (bool / integer results, never differentiable) -------------
    def isnan(self):
        return M.isnan(self)

    def isinf(self):
        return M.isinf(self)

    def isfinite(self):
        return M.isfinite(self)

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        return M.nan_to_num(self, nan, posinf, neginf)

    def logical_and(self, other):
        return M.logical_and(self, other)

    def logical_or(self, other):
        return M.logical_or(self, other)

    def logical_xor(self, other):
        return M.logical_xor(self, other)

    def logical_not(self):
        return M.logical_not(self)

    def bitwise_and(self, other):
        return M.bitwise_and(self, other)

    def bitwise_or(self, other):
        return M.bitwise_or(self, other)

    def bitwise_xor(self, other):
        return M.bitwise_xor(self, other)

    def bitwise_not(self):
        return M.bitwise_not(self)

    def __xor__(self, other):
        return M.bitwise_xor(self, other)

    def __rxor__(self, other):
        return M.bitwise_xor(other, self)

    def __rand__(self, other):
        return M.bitwise_and(other, self)

    def __ror__(self, other):
        return M.bitwise_or(other, self)

    # --- reductions (dim: an int, or for all/any/count_nonzero/logsumexp a tuple) ---------------
    def prod(self, dim=None, keepdim=False, *, dtype=None):
        return R.prod(self, dim, keepdim, dtype=dtype)

    def logsumexp(self, dim, keepdim=False):
        return R.logsumexp(self, dim, keepdim)

    def all(self, dim=None, keepdim=False):
        return R.all(self, dim, keepdim)

    def any(self, dim=None, keepdim=False):
        return R.any(self, dim, keepdim)

    def count_nonzero(self, dim=None):
        return R.count_nonzero(self, dim)

    def aminmax(self, *, dim=None, keepdim=False):
        return R.aminmax(self, dim=dim, keepdim=keepdim)

    def median(self, dim=None, keepdim=False):
        return R.median(self, dim, keepdim)

    def mode(self, dim=-1, keepdim=False):
        return R.mode(self, dim, keepdim)

    def kthvalue(self, k, dim=-1, keepdim=False):
        return R.kthvalue(self, k, dim, keepdim)

    # --- scans along one dim -------------------------------------------------------------------
    def cumsum(self, dim, *, dtype=None):
        return S.cumsum(self, dim, dtype=dtype)

    def cumprod(self, dim, *, dtype=None):
        return S.cumprod(self, dim, dtype=dtype)

    def logcumsumexp(self, dim):
        return S.logcumsumexp(self, dim)

    def cummax(self, dim):
        return S.cummax(self, dim)

    def cummin(self, dim):
        return S.cummin(self, dim)

    # --- sorting -------------------------------------------------------------------------------
    def sort(self, dim=-1, descending=False, stable=False):
        return O.sort(self, dim, descending, stable)

    def argsort(self, dim=-1, descending=False, stable=False):
        return O.argsort(self, dim, descending, stable)

    def msort(self):
        return O.msort(self)

    def topk(self, k, dim=-1, largest=True, sorted=True):  # noqa: A002 - PyTorch's name
        return O.topk(self, k, dim, largest, sorted)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
        return O.unique(self, sorted, return_inverse, return_counts, dim)
