"""Op-table cases for the elementwise math and activations, in the
`OpCase` format of `op_cases.py`, which appends these to its `CASES`; the reductions, scans and
sorting (items 3 and 5) come from `op_cases_reduce.py`, appended here.

Domains: inputs are standard normal (REAL) or uniform on [0.5, 2) (POSITIVE); ops with a
narrower domain map them there inside `fn` and `ref` alike (asin of x - 1.25, acosh of x + 1).
Piecewise-constant ops (floor, sign, ...) have gradient 0 and declare `second_order=False`, as
do the piecewise-linear ones; random inputs keep every kink and jump far from the
finite-difference stencil.
"""

from __future__ import annotations

import math

import numpy as np

from . import op_cases_reduce
from .op_case import POSITIVE, OpCase


def _vectorize(f):
    return lambda x: np.vectorize(f, otypes=[np.float64])(x)


def _erfinv_by_bisection(y: float) -> float:
    """The x with math.erf(x) = y, by 200 halvings of [-6, 6]: slow, simple, independent."""
    low, high = -6.0, 6.0
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if math.erf(middle) < y else (low, middle)
    return (low + high) / 2


def _lerp(a, b, w):
    return np.where(np.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w))


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)


def _elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(x))


def _F(lib):
    """nn.functional of tinygrad_norm or of PyTorch."""
    return lib.nn.functional


_ZERO_GRAD = dict(second_order=False)
_LINEAR = dict(second_order=False)  # piecewise linear: no second derivative to check
_SELU = (1.6732632423543772848170429916717, 1.0507009873554804934193349852946)

CASES = [
    # --- item 1: trigonometric and hyperbolic ---------------------------------------------------
    OpCase("sin", lambda lib, x: x.sin(), np.sin, ((2, 3),)),
    OpCase("cos", lambda lib, x: lib.cos(x), np.cos, ((2, 3),)),
    OpCase("tan", lambda lib, x: (x * 0.3).tan(), lambda x: np.tan(x * 0.3), ((2, 3),)),
    OpCase(
        "asin", lambda lib, x: (x - 1.25).asin(), lambda x: np.arcsin(x - 1.25), ((6,),), POSITIVE
    ),
    OpCase(
        "acos",
        lambda lib, x: lib.acos(x - 1.25),
        lambda x: np.arccos(x - 1.25),
        ((6,),),
        POSITIVE,
    ),
    OpCase("atan", lambda lib, x: x.atan(), np.arctan, ((2, 3),)),
    OpCase("atan2_broadcast", lambda lib, y, x: lib.atan2(y, x), np.arctan2, ((2, 3), (3,))),
    OpCase("sinh", lambda lib, x: x.sinh(), np.sinh, ((2, 3),)),
    OpCase("cosh", lambda lib, x: x.cosh(), np.cosh, ((2, 3),)),
    OpCase("asinh", lambda lib, x: x.asinh(), np.arcsinh, ((2, 3),)),
    OpCase("acosh", lambda lib, x: (x + 1).acosh(), lambda x: np.arccosh(x + 1), ((6,),), POSITIVE),
    OpCase(
        "atanh",
        lambda lib, x: (x - 1.25).atanh(),
        lambda x: np.arctanh(x - 1.25),
        ((6,),),
        POSITIVE,
    ),
    # --- item 1: exponentials, logarithms, error functions --------------------------------------
    OpCase("expm1", lambda lib, x: x.expm1(), np.expm1, ((2, 3),)),
    OpCase(
        "log1p", lambda lib, x: (x - 0.4).log1p(), lambda x: np.log1p(x - 0.4), ((6,),), POSITIVE
    ),
    OpCase("log2", lambda lib, x: x.log2(), np.log2, ((2, 3),), POSITIVE),
    OpCase("log10", lambda lib, x: lib.log10(x), np.log10, ((2, 3),), POSITIVE),
    OpCase("exp2", lambda lib, x: x.exp2(), np.exp2, ((2, 3),)),
    OpCase("erfc", lambda lib, x: x.erfc(), _vectorize(math.erfc), ((2, 3),)),
    OpCase(
        "erfinv",
        lambda lib, x: (x - 1.25).erfinv(),
        lambda x: _vectorize(_erfinv_by_bisection)(x - 1.25),
        ((6,),),
        POSITIVE,
    ),
    OpCase(
        "logaddexp_broadcast",
        lambda lib, a, b: lib.logaddexp(a, b),
        np.logaddexp,
        ((2, 3), (3,)),
    ),
    # --- item 1: rounding and sign (gradient 0) -------------------------------------------------
    OpCase(
        "floor", lambda lib, x: (x * 3).floor(), lambda x: np.floor(x * 3), ((2, 3),), **_ZERO_GRAD
    ),
    OpCase(
        "ceil", lambda lib, x: lib.ceil(x * 3), lambda x: np.ceil(x * 3), ((2, 3),), **_ZERO_GRAD
    ),
    OpCase(
        "trunc", lambda lib, x: (x * 3).trunc(), lambda x: np.trunc(x * 3), ((2, 3),), **_ZERO_GRAD
    ),
    OpCase(
        "round_decimals",
        lambda lib, x: lib.round(x, decimals=1),
        lambda x: np.round(x, 1),
        ((2, 3),),
        **_ZERO_GRAD,
    ),
    OpCase("sign", lambda lib, x: x.sign(), np.sign, ((2, 3),), **_ZERO_GRAD),
    OpCase("frac", lambda lib, x: (x * 3).frac(), lambda x: x * 3 - np.trunc(x * 3), ((2, 3),)),
    OpCase(
        "div_trunc",
        lambda lib, a, b: a.div(b, rounding_mode="trunc"),
        lambda a, b: np.trunc(a / b),
        ((2, 3), (3,)),
        **_ZERO_GRAD,
    ),
    OpCase(
        "div_floor",
        lambda lib, a, b: lib.div(a * 2, b, rounding_mode="floor"),
        lambda a, b: np.floor_divide(a * 2, b),
        ((2, 3), (2, 3)),
        **_ZERO_GRAD,
    ),
    OpCase(
        "floor_divide_operator",
        lambda lib, a, b: (a * 4) // b,
        lambda a, b: np.floor_divide(a * 4, b),
        ((2, 3), (3,)),
        torch=False,  # PyTorch's floor_divide has no backward at all; ours sends 0
        **_ZERO_GRAD,
    ),
    OpCase(
        "copysign",
        lambda lib, a, b: lib.copysign(a, b),
        np.copysign,
        ((2, 3), (2, 3)),
    ),
    # --- item 1: arithmetic ---------------------------------------------------------------------
    OpCase("reciprocal", lambda lib, x: x.reciprocal(), lambda x: 1 / x, ((2, 3),), POSITIVE),
    OpCase("square", lambda lib, x: lib.square(x), np.square, ((2, 3),)),
    OpCase(
        "add_alpha",
        lambda lib, a, b: lib.add(a, b, alpha=-2.5),
        lambda a, b: a - 2.5 * b,
        ((2, 3), (3,)),
    ),
    OpCase(
        "sub_alpha_method",
        lambda lib, a, b: a.sub(b, alpha=3),
        lambda a, b: a - 3 * b,
        ((2, 3), (2, 1)),
    ),
    OpCase("method_mul", lambda lib, a, b: a.mul(b), np.multiply, ((2, 3), (3,))),
    OpCase("div_method", lambda lib, a, b: lib.div(a, b), np.divide, ((2, 3), (3,)), POSITIVE),
    OpCase("neg_method", lambda lib, x: lib.neg(x), np.negative, ((2, 3),)),
    OpCase(
        "pow_method_tensor",
        lambda lib, a, b: lib.pow(a, b),
        np.power,
        ((2, 3), (3,)),
        POSITIVE,
    ),
    OpCase("rpow_function", lambda lib, x: lib.pow(3.0, x), lambda x: 3.0**x, ((2, 3),)),
    OpCase(
        "lerp_tensor_weight",
        lambda lib, a, b, w: lib.lerp(a, b, w),
        _lerp,
        ((2, 3), (3,), (2, 3)),
    ),
    OpCase(
        "lerp_scalar_weight",
        lambda lib, a, b: a.lerp(b, 0.75),
        lambda a, b: _lerp(a, b, 0.75),
        ((2, 3), (2, 3)),
    ),
    OpCase("hypot", lambda lib, a, b: lib.hypot(a, b), np.hypot, ((2, 3), (3,))),
    OpCase(
        "fmod",
        lambda lib, a, b: lib.fmod((a - 1.25) * 5, b),
        lambda a, b: np.fmod((a - 1.25) * 5, b),
        ((2, 3), (3,)),
        POSITIVE,
        second_order=False,
    ),
    OpCase(
        "remainder_operator",
        lambda lib, a, b: ((a - 1.25) * 5) % b,
        lambda a, b: np.remainder((a - 1.25) * 5, b),
        ((2, 3), (2, 3)),
        POSITIVE,
        second_order=False,
    ),
    OpCase(
        "nan_to_num",
        lambda lib, x: lib.nan_to_num(x, nan=1.0),
        lambda x: x,
        ((2, 3),),
    ),
    # --- item 2: activations (F) ---------------------------------------------------------------
    OpCase(
        "F_leaky_relu",
        lambda lib, x: _F(lib).leaky_relu(x, negative_slope=0.2),
        lambda x: np.where(x > 0, x, 0.2 * x),
        ((2, 3),),
        **_LINEAR,
    ),
    OpCase("F_elu", lambda lib, x: _F(lib).elu(x, alpha=1.5), lambda x: _elu(x, 1.5), ((2, 3),)),
    OpCase(
        "F_selu",
        lambda lib, x: _F(lib).selu(x),
        lambda x: _SELU[1] * _elu(x, _SELU[0]),
        ((2, 3),),
    ),
    OpCase(
        "F_celu",
        lambda lib, x: _F(lib).celu(x, alpha=0.5),  # see the note on hardsigmoid
        lambda x: np.where(x > 0, x, 0.5 * np.expm1(x / 0.5)),
        ((2, 3),),
    ),
    OpCase("F_silu", lambda lib, x: _F(lib).silu(x), lambda x: x * _sigmoid(x), ((2, 3),)),
    OpCase(
        "F_mish", lambda lib, x: _F(lib).mish(x), lambda x: x * np.tanh(_softplus(x)), ((2, 3),)
    ),
    OpCase(
        "F_softplus",
        lambda lib, x: _F(lib).softplus(x * 10),
        lambda x: _softplus(x * 10),
        ((2, 3),),
    ),
    OpCase(
        "F_softplus_beta_threshold",
        lambda lib, x: _F(lib).softplus(x, beta=2.0, threshold=1.5),
        lambda x: _softplus(x, 2.0, 1.5),
        ((2, 3),),
    ),
    OpCase(
        "F_softsign", lambda lib, x: _F(lib).softsign(x), lambda x: x / (1 + np.abs(x)), ((2, 3),)
    ),
    OpCase(
        "F_hardtanh",
        lambda lib, x: _F(lib).hardtanh(x, min_val=-0.5, max_val=0.8),
        lambda x: np.clip(x, -0.5, 0.8),
        ((2, 3),),
        **_LINEAR,
    ),
    OpCase(
        "F_relu6",
        lambda lib, x: _F(lib).relu6(x * 4 + 3),
        lambda x: np.clip(x * 4 + 3, 0, 6),
        ((2, 3),),
        **_LINEAR,
    ),
    OpCase(
        "F_hardsigmoid",
        lambda lib, x: _F(lib).hardsigmoid(x * 3),
        lambda x: np.clip(x * 3 / 6 + 0.5, 0, 1),
        ((2, 3),),
        # NOTE: PyTorch multiplies by 1/6 rounded to float32 (and celu by 1/alpha so rounded),
        # 3e-8 off in float64; tests/test_oracle_ops_math.py compares at float32 precision.
        torch=False,
        **_LINEAR,
    ),
    OpCase(
        "F_hardswish",
        lambda lib, x: _F(lib).hardswish(x * 3),
        lambda x: x * 3 * np.clip(x * 3 / 6 + 0.5, 0, 1),
        ((2, 3),),
    ),
    OpCase(
        "F_logsigmoid",
        lambda lib, x: _F(lib).logsigmoid(x * 5),
        lambda x: -np.logaddexp(0, -x * 5),
        ((2, 3),),
    ),
    OpCase(
        "F_tanhshrink", lambda lib, x: _F(lib).tanhshrink(x), lambda x: x - np.tanh(x), ((2, 3),)
    ),
    OpCase(
        "F_softmin",
        lambda lib, x: _F(lib).softmin(x, dim=0),
        lambda x: np.exp(-x) / np.exp(-x).sum(0),
        ((3, 2),),
    ),
    OpCase(
        "F_glu",
        lambda lib, x: _F(lib).glu(x, dim=0),
        lambda x: x[:2] * _sigmoid(x[2:]),
        ((4, 3),),
    ),
    OpCase(
        "F_prelu_channels",
        lambda lib, x, w: _F(lib).prelu(x, w),
        lambda x, w: np.where(x > 0, x, w[:, None] * x),
        ((2, 3, 4), (3,)),
        **_LINEAR,
    ),
]

CASES += op_cases_reduce.CASES  # items 3 and 5
