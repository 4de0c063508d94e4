"""Module-level math functions, PyTorch style: `tg.sin(x)`, `tg.atan2(y, x)`, `tg.cumsum(x, 0)`.

Each accepts a Tensor or a NumPy array (which becomes a constant Tensor) and calls the Tensor
method of the same name (tensor_methods/math.py), so both spellings run the same code.
"""

from ..ops import composite as C
from ..ops import pointwise_composed as M
from ..ops import reduce_composed as R
from ..ops import sort as O
from ..tensor import Tensor
from .creation import as_tensor


def _t(x) -> Tensor:
    return as_tensor(x)


def _t2(a, b) -> Tensor:
    """The first operand as a Tensor; a number first takes the second's dtype (torch.add(1, x))."""
    if isinstance(b, Tensor) and isinstance(a, (bool, int, float)):
        return C.as_tensor(a, b)
    return _t(a)


# --- elementwise, one input --------------------------------------------------------------------


def sin(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).sin()


def cos(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).cos()


def tan(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).tan()


def asin(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).asin()


def acos(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).acos()


def atan(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).atan()


def sinh(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).sinh()


def cosh(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).cosh()


def asinh(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).asinh()


def acosh(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).acosh()


def atanh(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).atanh()


def arcsin(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).arcsin()


def arccos(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).arccos()


def arctan(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).arctan()


def arcsinh(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).arcsinh()


def arccosh(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).arccosh()


def arctanh(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).arctanh()


def expm1(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).expm1()


def log1p(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).log1p()


def log2(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).log2()


def log10(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).log10()


def exp2(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).exp2()


def erfc(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).erfc()


def erfinv(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).erfinv()


def floor(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).floor()


def ceil(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).ceil()


def trunc(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).trunc()


def fix(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).fix()


def frac(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).frac()


def sign(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).sign()


def sgn(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).sgn()


def reciprocal(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).reciprocal()


def square(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).square()


def rsqrt(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).rsqrt()


def neg(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).neg()


def negative(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).negative()


def isnan(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).isnan()


def isinf(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).isinf()


def isfinite(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).isfinite()


def logical_not(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).logical_not()


def bitwise_not(input):  # noqa: A002 - PyTorch's argument name
    return _t(input).bitwise_not()


def round(input, *, decimals=0):  # noqa: A001, A002 - PyTorch's names
    return _t(input).round(decimals=decimals)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):  # noqa: A002
    return _t(input).nan_to_num(nan, posinf, neginf)


# --- elementwise, two inputs ----------------------------------------------------------------


def atan2(input, other):  # noqa: A002
    return _t2(input, other).atan2(other)


def arctan2(input, other):  # noqa: A002
    return _t2(input, other).arctan2(other)


def logaddexp(input, other):  # noqa: A002
    return _t2(input, other).logaddexp(other)


def hypot(input, other):  # noqa: A002
    return _t2(input, other).hypot(other)


def copysign(input, other):  # noqa: A002
    return _t2(input, other).copysign(other)


def fmod(input, other):  # noqa: A002
    return _t2(input, other).fmod(other)


def remainder(input, other):  # noqa: A002
    return _t2(input, other).remainder(other)


def floor_divide(input, other):  # noqa: A002
    return _t2(input, other).floor_divide(other)


def mul(input, other):  # noqa: A002
    return _t2(input, other).mul(other)


def multiply(input, other):  # noqa: A002
    return _t2(input, other).multiply(other)


def true_divide(input, other):  # noqa: A002
    return _t2(input, other).true_divide(other)


def logical_and(input, other):  # noqa: A002
    return _t2(input, other).logical_and(other)


def logical_or(input, other):  # noqa: A002
    return _t2(input, other).logical_or(other)


def logical_xor(input, other):  # noqa: A002
    return _t2(input, other).logical_xor(other)


def bitwise_and(input, other):  # noqa: A002
    return _t2(input, other).bitwise_and(other)


def bitwise_or(input, other):  # noqa: A002
    return _t2(input, other).bitwise_or(other)


def bitwise_xor(input, other):  # noqa: A002
    return _t2(input, other).bitwise_xor(other)


def add(input, other, *, alpha=1):  # noqa: A002
    return _t2(input, other).add(other, alpha=alpha)


def sub(input, other, *, alpha=1):  # noqa: A002
    return _t2(input, other).sub(other, alpha=alpha)


subtract = sub


def div(input, other, *, rounding_mode=None):  # noqa: A002
    return _t2(input, other).div(other, rounding_mode=rounding_mode)


divide = div


def pow(input, exponent):  # noqa: A001, A002 - PyTorch's names
    return M.pow(input if isinstance(input, (int, float)) else _t(input), exponent)


def lerp(input, end, weight):  # noqa: A002
    return _t2(input, end).lerp(end, weight)


# --- reductions and scans ------------------------------------------------------------------------
def prod(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    return _t(input).prod(dim, keepdim, dtype=dtype)


def logsumexp(input, dim, keepdim=False):  # noqa: A002
    return _t(input).logsumexp(dim, keepdim)


def all(input, dim=None, keepdim=False):  # noqa: A001, A002
    return _t(input).all(dim, keepdim)


def any(input, dim=None, keepdim=False):  # noqa: A001, A002
    return _t(input).any(dim, keepdim)


def count_nonzero(input, dim=None):  # noqa: A002
    return _t(input).count_nonzero(dim)


def aminmax(input, *, dim=None, keepdim=False):  # noqa: A002
    return _t(input).aminmax(dim=dim, keepdim=keepdim)


def median(input, dim=None, keepdim=False):  # noqa: A002
    return _t(input).median(dim, keepdim)


def mode(input, dim=-1, keepdim=False):  # noqa: A002
    return _t(input).mode(dim, keepdim)


def kthvalue(input, k, dim=-1, keepdim=False):  # noqa: A002
    return _t(input).kthvalue(k, dim, keepdim)


def var_mean(input, dim=None, unbiased=True, keepdim=False, *, correction=None):  # noqa: A002
    return R.var_mean(_t(input), dim, unbiased, keepdim, correction=correction)


def std_mean(input, dim=None, unbiased=True, keepdim=False, *, correction=None):  # noqa: A002
    return R.std_mean(_t(input), dim, unbiased, keepdim, correction=correction)


def cumsum(input, dim, *, dtype=None):  # noqa: A002
    return _t(input).cumsum(dim, dtype=dtype)


def cumprod(input, dim, *, dtype=None):  # noqa: A002
    return _t(input).cumprod(dim, dtype=dtype)


def logcumsumexp(input, dim):  # noqa: A002
    return _t(input).logcumsumexp(dim)


def cummax(input, dim):  # noqa: A002
    return _t(input).cummax(dim)


def cummin(input, dim):  # noqa: A002
    return _t(input).cummin(dim)


# --- sorting and searching -----------------------------------------------------------------------
def sort(input, dim=-1, descending=False, stable=False):  # noqa: A002
    return _t(input).sort(dim, descending, stable)


def argsort(input, dim=-1, descending=False, stable=False):  # noqa: A002
    return _t(input).argsort(dim, descending, stable)


def msort(input):  # noqa: A002
    return _t(input).msort()


def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    return _t(input).topk(k, dim, largest, sorted)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    return _t(input).unique(sorted, return_inverse, return_counts, dim)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):  # noqa: A002
    return O.searchsorted(
        _t(sorted_sequence), _t(input), out_int32=out_int32, right=right, side=side, sorter=sorter
    )


def bucketize(input, boundaries, *, out_int32=False, right=False):  # noqa: A002
    return O.bucketize(_t(input), _t(boundaries), out_int32=out_int32, right=right)
