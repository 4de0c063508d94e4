"""`MathMethods`: the standard elementwise math, reductions, scans and sorting as Tensor methods.

Each method is one line on the ops: a primitive applied (`sin = method_of(Sin)`: `x.sin()` is
`Sin.apply(x)`; ops/trig.py, ops/elementwise_more.py, ops/rounding.py) or a composed function
(ops/math_composite.py, ops/reduce_more.py, ops/scan.py, ops/sort.py). A method that only passes
its arguments on is that function itself: `isnan = M.isnan` makes `x.isnan()` the call
`M.isnan(x)`. Names, arguments and defaults are PyTorch's.
"""

from __future__ import annotations

from ..ops import pointwise_composed as M
from ..ops import reduce_composed as R
from ..ops import scan as S
from ..ops import sort as O
from ..ops.rounding import Ceil, Floor, Round, Sign, Trunc
from ..ops.special import Erfc, Erfinv, Expm1, Log1p, Log2, Log10
from ..ops.trig import Acos, Acosh, Asin, Asinh, Atan, Atan2, Atanh, Cos, Cosh, Sin, Sinh, Tan
from .pointwise import method_of


class MathMethods:
    """Tensor methods for issue 12's op set: `x.sin()`, `x.cumsum(0)`, `x.sort(descending=True)`.

    >>> import tinygrad_norm as tg
    >>> tg.tensor([0.0, 1.0]).exp2()
    tensor([1., 2.])
    """

    __slots__ = ()

    # --- trigonometric and hyperbolic ----------------------------------------------------------
    sin, cos, tan = method_of(Sin), method_of(Cos), method_of(Tan)
    asin, acos, atan = method_of(Asin), method_of(Acos), method_of(Atan)
    sinh, cosh = method_of(Sinh), method_of(Cosh)
    asinh, acosh, atanh = method_of(Asinh), method_of(Acosh), method_of(Atanh)

    def atan2(self, other):
        return Atan2.apply(*M.pair("atan2", self, other))

    arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2  # NumPy's names, PyTorch's aliases
    arcsinh, arccosh, arctanh = asinh, acosh, atanh

    # --- exponentials and logarithms -----------------------------------------------------------
    expm1, log1p = method_of(Expm1), method_of(Log1p)
    log2, log10 = method_of(Log2), method_of(Log10)
    exp2 = M.exp2
    erfc, erfinv = method_of(Erfc), method_of(Erfinv)
    logaddexp = M.logaddexp

    # --- rounding and sign ---------------------------------------------------------------------
    floor, ceil = method_of(Floor), method_of(Ceil)
    trunc = fix = method_of(Trunc)

    def round(self, *, decimals=0):
        return Round.apply(self, decimals=decimals)

    frac = M.frac
    sign = sgn = method_of(Sign)
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
