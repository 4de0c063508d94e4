"""`MathMethods`: the standard elementwise math, reductions, scans and sorting as Tensor methods.

Each method is one line on the ops: a primitive applied (`sin = method_of(Sin)`: `x.sin()` is
`Sin.apply(x)`; ops/trig.py, ops/special.py, ops/rounding.py) or a composed function
(ops/pointwise_composed.py, ops/reduce_composed.py, ops/scan.py, ops/sort.py). A method that
only passes its arguments on is that function itself: `isnan = M.isnan` makes `x.isnan()` the call
`M.isnan(x)`. Names, arguments and defaults are PyTorch's.
"""

from __future__ import annotations

import numpy as np

from ..ops import composite as C
from ..ops import fused
from ..ops import numeric_composed as NC
from ..ops import pointwise_composed as M
from ..ops import reduce_composed as R
from ..ops import scan as SCAN
from ..ops import sort as O
from ..ops.elementwise import Abs, Erf, Exp, Log, Relu, Sigmoid, Sqrt, Tanh
from ..ops.fused import unary as U
from ..ops.gamma import Lgamma, Polygamma
from ..ops.linalg import Det
from ..ops.rounding import Ceil, Floor, Round, Sign, Trunc
from ..ops.special import Erfc, Erfinv, Log2
from ..ops.trig import Acos, Acosh, Asin, Asinh, Atan2, Cos, Sin, Tan


def method_of(fn):
    """The Tensor method that applies the one-input primitive `fn`: with `exp = method_of(Exp)`,
    `x.exp()` is `Exp.apply(x)`. The method takes fn's name (lower case) and docstring."""

    def method(self):
        return fn.apply(self)

    method.__name__ = fn.__name__.lower()
    method.__qualname__, method.__doc__ = f"Tensor.{method.__name__}", fn.__doc__
    return method


def _refuse_integer_division(op: str, tensor1, tensor2) -> None:
    """PyTorch's RuntimeError for an addcdiv of two integer (or bool) tensors: it used to
    divide them rounding toward zero, and now refuses rather than silently change the result."""
    dtype1, dtype2 = (
        np.asarray(t.array if hasattr(t, "array") else t).dtype for t in (tensor1, tensor2)
    )
    if dtype1.kind in "biu" and dtype2.kind in "biu":
        raise RuntimeError(
            f"{op}: tensor1 ({dtype1}) and tensor2 ({dtype2}) are both integers (or bools), and "
            "addcdiv of integers is not supported (as in PyTorch); convert one to float "
            f"first, e.g. x.{op}(tensor1.float(), tensor2)"
        )


class MathMethods:
    """Tensor methods for maths: `x.exp()`, `x.sin()`, `x.cumsum(0)`, `x.sort(descending=True)`.

    >>> import tinygrad_norm as tg
    >>> tg.tensor([0.0, 1.0]).exp2()
    tensor([1., 2.])
    """

    __slots__ = ()

    # --- trigonometric and hyperbolic ----------------------------------------------------------
    sin, cos, tan = method_of(Sin), method_of(Cos), method_of(Tan)
    asin, acos, atan = method_of(Asin), method_of(Acos), method_of(U.Atan)
    sinh, cosh = method_of(U.Sinh), method_of(U.Cosh)  # (fused/unary.py: backward on arrays)
    asinh, acosh, atanh = method_of(Asinh), method_of(Acosh), method_of(U.Atanh)

    def atan2(self, other):
        return Atan2.apply(*M.pair("atan2", self, other))

    arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2  # NumPy's names, PyTorch's aliases
    arcsinh, arccosh, arctanh = asinh, acosh, atanh

    # --- exponentials and logarithms -----------------------------------------------------------
    expm1, log1p = method_of(U.Expm1), method_of(U.Log1p)
    log2, log10 = method_of(Log2), method_of(U.Log10)
    exp2 = method_of(U.Exp2)
    erfc, erfinv = method_of(Erfc), method_of(Erfinv)
    logaddexp = M.logaddexp
    lgamma, det = method_of(Lgamma), method_of(Det)

    def digamma(self):
        return Polygamma.apply(self, n=0)

    def polygamma(self, n: int):
        return Polygamma.apply(self, n=int(n))

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
    cumsum, cumprod, logcumsumexp = SCAN.cumsum, SCAN.cumprod, SCAN.logcumsumexp
    cummax, cummin = SCAN.cummax, SCAN.cummin

    # --- sorting -------------------------------------------------------------------------------
    sort, argsort, msort = O.sort, O.argsort, O.msort
    topk, unique = O.topk, O.unique
    fmax, fmin, diff = NC.fmax, NC.fmin, NC.diff
    quantile, unique_consecutive = NC.quantile, NC.unique_consecutive

    # --- elementwise: exp, log, clamp, pow, matmul, ... ----------------------------------------
    exp, log, sqrt = method_of(Exp), method_of(Log), method_of(Sqrt)

    def rsqrt(self):
        return 1 / Sqrt.apply(self)

    def pow(self, exponent):
        return self**exponent  # Tensor.__pow__ (which refuses int ** negative int)

    tanh, sigmoid, relu = method_of(Tanh), method_of(Sigmoid), method_of(Relu)
    erf, abs = method_of(Erf), method_of(Abs)
    clamp = clip = fused.clamp  # number bounds: one node (ops/fused/clamp.py)

    def maximum(self, other):
        return C.maximum(self, other)

    def minimum(self, other):
        return C.minimum(self, other)

    masked_fill, tril, triu = C.masked_fill, C.tril, C.triu

    def matmul(self, other):
        return C.matmul(self, other)

    # --- clamps with one bound ------------------------------------------------------------------
    def clamp_min(self, min):  # noqa: A002 - PyTorch's name
        return self.clamp(min=min)

    def clamp_max(self, max):  # noqa: A002 - PyTorch's name
        return self.clamp(max=max)

    def addcmul(self, tensor1, tensor2, *, value=1):
        return self + value * (tensor1 * tensor2)

    def addcdiv(self, tensor1, tensor2, *, value=1):
        _refuse_integer_division("addcdiv", tensor1, tensor2)
        return self + value * (tensor1 / tensor2)
