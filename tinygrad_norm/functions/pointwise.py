"""Module-level elementwise functions, PyTorch style: `tg.exp(x)`, `tg.clamp(x, 0, 1)`,
`tg.atan2(y, x)`, `tg.where(c, a, b)`.

Each accepts a Tensor or a NumPy array (which becomes a constant Tensor) and calls the Tensor
method of the same name (tensor_methods/math.py), so both spellings run the same code.
"""

import numpy as np

from ..ops import composite as C
from ..ops import fused
from ..ops import indexing as I
from ..ops import numeric_composed as NC
from ..ops import pointwise_composed as M
from ..tensor import Tensor
from .arguments import _like, _t, _t2, _tensor_argument

# --- elementwise, one input -----------------------------------------------------------------------


def abs(x):  # noqa: A001 - PyTorch's names shadow Python's builtins, on purpose
    return _t(x).abs()


def exp(x):
    return _t(x).exp()


def log(x):
    return _t(x).log()


def sqrt(x):
    return _t(x).sqrt()


def tanh(x):
    return _t(x).tanh()


def sigmoid(x):
    return _t(x).sigmoid()


def relu(x):
    return _t(x).relu()


def erf(x):
    return _t(x).erf()


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


# --- elementwise, two inputs and more -------------------------------------------------------------


def maximum(a, b):
    return C.maximum(_tensor_argument("maximum", a), _tensor_argument("maximum", b, "other"))


def minimum(a, b):
    return C.minimum(_tensor_argument("minimum", a), _tensor_argument("minimum", b, "other"))


def clamp(x, min=None, max=None):  # noqa: A002
    return fused.clamp(_tensor_argument("clamp", x), min, max)


clip = clamp


def clamp_min(input, min):  # noqa: A002 - PyTorch's names
    return _t(input).clamp(min=min)


def clamp_max(input, max):  # noqa: A002 - PyTorch's names
    return _t(input).clamp(max=max)


def addcmul(input, tensor1, tensor2, *, value=1):  # noqa: A002
    """input + value * tensor1 * tensor2."""
    return _t(input).addcmul(tensor1, tensor2, value=value)


def addcdiv(input, tensor1, tensor2, *, value=1):  # noqa: A002
    """input + value * tensor1 / tensor2."""
    return _t(input).addcdiv(tensor1, tensor2, value=value)


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


def fmod(input, other):  # noqa: A002 - a number input: PyTorch's TypeError (remainder takes one)
    return _tensor_argument("fmod", input).fmod(other)


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
    return _tensor_argument("lerp", input).lerp(_tensor_argument("lerp", end, "end"), weight)


def softmax(x, dim, dtype=None):
    return _t(x).softmax(dim, dtype)


def log_softmax(x, dim, dtype=None):
    return _t(x).log_softmax(dim, dtype)


def masked_fill(x, mask, value):
    return _t(x).masked_fill(mask, value)


def _select(condition, input, other):  # noqa: A002
    like = _like(input, other)
    return C.where(condition, C.as_tensor(input, like), C.as_tensor(other, like))


def where(condition, input=None, other=None):  # noqa: A002 - PyTorch's names
    """`where(cond, input, other)` picks elementwise; `where(cond)` alone is
    `nonzero(cond, as_tuple=True)`, as in PyTorch."""
    if input is None and other is None:
        return I.nonzero(_t(condition), as_tuple=True)
    if input is None or other is None:
        raise TypeError("where: give both input and other, or neither (for the indices)")
    return _select(condition, input, other)


def isclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=False) -> Tensor:
    """Elementwise |a - b| <= atol + rtol * |b|, as a bool tensor (never differentiable)."""
    return Tensor._make(np.isclose(np.asarray(a), np.asarray(b), rtol, atol, equal_nan))


def allclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=False) -> bool:
    """True when every element of `a` is close to `b` (see `isclose`)."""
    return bool(np.allclose(np.asarray(a), np.asarray(b), rtol, atol, equal_nan))


def fmax(input, other):  # noqa: A002 - PyTorch's names
    return NC.fmax(_tensor_argument("fmax", input), _tensor_argument("fmax", other, "other"))


def fmin(input, other):  # noqa: A002
    return NC.fmin(_tensor_argument("fmin", input), _tensor_argument("fmin", other, "other"))


def diff(input, n=1, dim=-1, prepend=None, append=None):  # noqa: A002
    return NC.diff(_t(input), n, dim, prepend, append)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):  # noqa: A002
    return NC.quantile(_t(input), q, dim, keepdim, interpolation=interpolation)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    return NC.unique_consecutive(_t(input), return_inverse, return_counts, dim)
