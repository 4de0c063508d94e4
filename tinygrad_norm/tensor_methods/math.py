"""`MathMethods`: the standard elementwise math, reductions, scans and sorting as Tensor methods.

Each method is a one-line call into the ops: a primitive's `apply` (ops/trig.py,
ops/elementwise_more.py, ops/rounding.py) or a composed function (ops/math_composite.py,
ops/reduce_more.py, ops/scan.py, ops/sort.py). A method that only passes its arguments on is the
function itself: `isnan = M.isnan` makes `x.isnan()` the call `M.isnan(x)`. Names, arguments and
defaults are PyTorch's.
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

    exp2 = M.exp2

    def erfc(self):
        return Erfc.apply(self)

    def erfinv(self):
        return Erfinv.apply(self)

    logaddexp = M.logaddexp

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

    frac = M.frac

    def sign(self):
        return Sign.apply(self)

    sgn = sign
    copysign = M.copysign

    # --- arithmetic ----------------------------------------------------------------------------
    add, sub, div = M.add, M.sub, M.div
    subtract, divide = sub, div

    def mul(self, other):
        return self * other

    multiply = mul

    def true_divide(self, other):
        return self / other

    def neg(self):
        return -self

    negative = neg
    reciprocal, square, hypot, lerp = M.reciprocal, M.square, M.hypot, M.lerp
    fmod, remainder, floor_divide = M.fmod, M.remainder, M.floor_divide
    __mod__, __floordiv__ = M.remainder, M.floor_divide

    def __rmod__(self, other):
        return M.remainder(other, self)

    def __rfloordiv__(self, other):
        return M.floor_divide(other, self)

    # --- tests, logical and bitwise (bool / integer results, never differentiable) -------------
    isnan, isinf, isfinite, nan_to_num = M.isnan, M.isinf, M.isfinite, M.nan_to_num
    logical_and, logical_or, logical_xor = M.logical_and, M.logical_or, M.logical_xor
    bitwise_and, bitwise_or, bitwise_xor = M.bitwise_and, M.bitwise_or, M.bitwise_xor
    logical_not, bitwise_not = M.logical_not, M.bitwise_not
    __xor__ = M.bitwise_xor

    def __rxor__(self, other):
        return M.bitwise_xor(other, self)

    def __rand__(self, other):
        return M.bitwise_and(other, self)

    def __ror__(self, other):
        return M.bitwise_or(other, self)

    # --- reductions (dim: an int, or for all/any/count_nonzero/logsumexp a tuple) ---------------
    prod, logsumexp, all, any = R.prod, R.logsumexp, R.all, R.any
    count_nonzero, aminmax = R.count_nonzero, R.aminmax
    median, mode, kthvalue = R.median, R.mode, R.kthvalue

    # --- scans along one dim -------------------------------------------------------------------
    cumsum, cumprod, logcumsumexp = S.cumsum, S.cumprod, S.logcumsumexp
    cummax, cummin = S.cummax, S.cummin

    # --- sorting -------------------------------------------------------------------------------
    sort, argsort, msort = O.sort, O.argsort, O.msort
    topk, unique = O.topk, O.unique
