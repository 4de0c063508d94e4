"""The standard math ops (elementwise, activations, reductions, scans, sorting, min/max): focused
tests of values, dtypes, shapes and gradients against plain NumPy. The op table
(`testing/op_cases_math.py`) adds gradcheck, gradgradcheck and NumPy-formula checks of every op."""

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm import nn


# --- min and max: the most negative integer, unsigned, bool, ties and NaN -------------------------
def test_min_and_amin_of_the_most_negative_integer():
    """-x overflows for -2**63 (it is its own negative), so min must not negate."""
    x = tg.tensor([-(2**63), 5, 0])
    assert int(x.min()) == -(2**63) and int(x.amin()) == -(2**63)
    assert tg.amin(x, dim=0).tolist() == -(2**63)
    assert x.reshape(1, 3).amin(dim=1, keepdim=True).tolist() == [[-(2**63)]]
    assert x.min(dim=0).values.tolist() == -(2**63)


def test_min_of_unsigned_integers_does_not_wrap_around():
    x = tg.tensor(np.array([3, 0, 7], dtype=np.uint8))
    assert int(x.min()) == 0 and x.min().dtype == np.uint8


def test_min_of_a_bool_tensor():
    x = tg.tensor([True, False, True])
    assert x.min().tolist() is False and x.min().dtype == np.bool_
    assert tg.tensor([True, True]).amin().tolist() is True
    assert x.max().tolist() is True


def test_maximum_and_minimum_split_the_gradient_at_ties():
    a = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = tg.tensor([1.0, 1.0, 4.0], requires_grad=True)
    (tg.maximum(a, b).sum() + 10 * tg.minimum(a, b).sum()).backward()
    # tie: 0.5 + 10 * 0.5 each; a > b: a takes max, b takes min; a < b: the other way round
    assert a.grad.tolist() == [5.5, 1.0, 10.0]
    assert b.grad.tolist() == [5.5, 10.0, 1.0]


def test_maximum_and_minimum_propagate_nan_from_either_side():
    a = tg.tensor([np.nan, 1.0, 2.0], requires_grad=True)
    b = tg.tensor([0.0, np.nan, 1.0], requires_grad=True)
    for op in (tg.maximum, tg.minimum):
        out = op(a, b)
        assert np.isnan(out.data[:2]).all() and not np.isnan(out.data[2])
    tg.maximum(a, b).sum().backward()
    # where a NaN makes the pair unordered, both sides get the whole gradient (PyTorch)
    assert a.grad.tolist() == [1.0, 1.0, 1.0] and b.grad.tolist() == [1.0, 1.0, 0.0]


def test_maximum_promotes_as_pytorch():
    assert tg.maximum(tg.tensor([1, 5]), tg.tensor([2.5, 0.5])).dtype == np.float32
    with pytest.raises(TypeError, match="maximum: argument 'other' must be a Tensor"):
        tg.maximum(tg.tensor([1, 5]), 3)  # as PyTorch: a number is no Tensor
    assert tg.maximum(tg.ones(2), tg.tensor(3.0, dtype=tg.float64)).dtype == np.float32


# --- elementwise ----------------------------------------------------------------------------------
def test_float_functions_of_integers_give_the_default_float_dtype():
    ints = tg.tensor([1, 2])
    for out in (ints.sin(), ints.atan(), ints.expm1(), ints.log2(),
                ints.erfinv(), ints.reciprocal(), ints.exp2(), tg.atan2(ints, ints)):  # fmt: skip
        assert out.dtype == np.float32
    assert tg.tensor([True]).cos().dtype == np.float32


def test_rounding_keeps_integers_and_rounds_halves_to_even():
    ints = tg.tensor([-3, 4])
    for out in (ints.floor(), ints.ceil(), ints.trunc(), ints.round(), ints.sign()):
        assert out.dtype == np.int64 and out.tolist() in ([-3, 4], [-1, 1])
    assert tg.tensor([0.5, 1.5, 2.5, -0.5]).round().tolist() == [0.0, 2.0, 2.0, -0.0]
    assert tg.tensor([1.25, 1.35]).round(decimals=1).tolist() == pytest.approx([1.2, 1.4])
    assert tg.tensor([np.nan, -2.0]).sign().tolist() == [0.0, -1.0]  # NaN has sign 0 (PyTorch)


def test_step_functions_send_zero_gradients_and_frac_sends_one():
    x = tg.tensor([0.3, -1.7, 2.5], requires_grad=True)
    (x.floor() + x.ceil() + x.round() + x.trunc() + x.sign()).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    x.grad = None
    x.frac().sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]
    assert x.floor().grad_fn.name == "FloorBackward"


def test_integer_division_and_remainders_follow_python_and_c():
    a, b = tg.tensor([7, -7, 7, -7]), tg.tensor([2, 2, -2, -2])
    assert (a // b).tolist() == [3, -4, -4, 3]  # floor, as Python
    assert a.div(b, rounding_mode="trunc").tolist() == [3, -3, -3, 3]
    assert (a % b).tolist() == [1, 1, -1, -1]  # the sign of the divisor, as Python
    assert tg.fmod(a, b).tolist() == [1, -1, 1, -1]  # the sign of the dividend, as C
    assert (a / b).dtype == np.float32 and (a // b).dtype == np.int64
    assert (7 % tg.tensor([4.0])).tolist() == [3.0] and (7 // tg.tensor([2])).tolist() == [3]
    with pytest.raises(RuntimeError, match="rounding_mode"):
        a.div(b, rounding_mode="round")


def test_fmod_and_remainder_gradients_count_the_divisions():
    a = tg.tensor([5.5, -5.5], requires_grad=True, dtype=tg.float64)
    b = tg.tensor([2.0, 2.0], requires_grad=True, dtype=tg.float64)
    tg.remainder(a, b).sum().backward()
    assert a.grad.tolist() == [1.0, 1.0] and b.grad.tolist() == [-2.0, 3.0]  # -floor(a / b)
    a.grad = b.grad = None
    tg.fmod(a, b).sum().backward()
    assert b.grad.tolist() == [-2.0, 2.0]  # -trunc(a / b)


def test_erfinv_inverts_erf_and_erfc_keeps_its_digits():
    y = np.concatenate([np.linspace(-0.999999, 0.999999, 101), [1 - 2**-52, -(1 - 2**-52)]])
    x = tg.tensor(y).erfinv().data
    np.testing.assert_allclose(np.vectorize(math.erf)(x), y, rtol=0, atol=3e-16)
    assert tg.tensor([1.0, -1.0, 1.5]).erfinv().tolist()[:2] == [math.inf, -math.inf]
    assert math.isnan(tg.tensor(1.5).erfinv().item())
    for v in (0.5, 3.0, 10.0, 26.0, -4.0):
        assert tg.tensor(v, dtype=tg.float64).erfc().item() == pytest.approx(
            math.erfc(v), rel=1e-14
        )


def test_logaddexp_is_stable_and_exact_at_infinities():
    a = tg.tensor([1000.0, -1000.0, np.inf, -np.inf, 0.0], dtype=tg.float64)
    b = tg.tensor([1000.0, -1001.0, np.inf, -np.inf, -40.0], dtype=tg.float64)
    np.testing.assert_allclose(tg.logaddexp(a, b).data, np.logaddexp(a.data, b.data), rtol=1e-15)


def test_copysign_uses_the_sign_bit_and_its_gradient():
    a = tg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    b = tg.tensor([-0.0, 1.0, -1.0], requires_grad=True)
    out = tg.copysign(a, b)
    assert out.tolist() == [-1.0, 2.0, -3.0]
    out.sum().backward()
    assert a.grad.tolist() == [-1.0, -1.0, -1.0] and b.grad.tolist() == [0.0, 0.0, 0.0]


def test_tests_logical_and_bitwise_ops_give_bool_or_integer_tensors():
    x = tg.tensor([1.0, np.nan, np.inf, -np.inf])
    assert x.isnan().tolist() == [False, True, False, False]
    assert x.isinf().tolist() == [False, False, True, True]
    assert tg.isfinite(x).tolist() == [True, False, False, False]
    big = np.finfo(np.float32).max
    assert x.nan_to_num().tolist() == [1.0, 0.0, float(big), -float(big)]
    p, q = tg.tensor([True, False, True]), tg.tensor([1.0, 0.0, 0.0])
    assert tg.logical_and(p, q).tolist() == [True, False, False]
    assert tg.logical_xor(p, q).tolist() == [False, False, True]
    assert p.logical_not().tolist() == [False, True, False]
    m, n = tg.tensor([12, 10]), tg.tensor([10, 6])
    assert (m ^ n).tolist() == [6, 12] and tg.bitwise_and(m, n).tolist() == [8, 2]
    assert (m | n).tolist() == [14, 14] and tg.bitwise_not(m).tolist() == [-13, -11]
    assert (5 & m).tolist() == [4, 0]
    with pytest.raises(NotImplementedError, match="integer and bool"):
        tg.bitwise_and(q, q)


def test_arithmetic_methods_take_alpha_and_accept_numpy_arrays():
    x = tg.tensor([1.0, 2.0])
    assert x.add(3, alpha=2).tolist() == [7.0, 8.0] and x.sub(x, alpha=0.5).tolist() == [0.5, 1.0]
    assert tg.add(np.array([1.0]), 1.0).tolist() == [2.0] and tg.neg(x).tolist() == [-1.0, -2.0]
    assert tg.pow(2, tg.tensor([3.0])).tolist() == [8.0] and tg.sin(np.zeros(2)).tolist() == [0, 0]
    assert tg.lerp(x, tg.tensor([3.0, 4.0]), 1.0).tolist() == [3.0, 4.0]  # exactly end at 1


# --- activations ----------------------------------------------------------------------------------
F = tg.nn.functional


def test_activations_do_not_overflow_into_nan_gradients():
    x = tg.tensor([-1000.0, 1000.0], requires_grad=True)
    for fn in (F.elu, F.selu, F.celu, F.softplus, F.mish, F.logsigmoid, F.silu):
        x.grad = None
        y = fn(x)
        y.sum().backward()
        assert np.isfinite(y.data).all() and np.isfinite(x.grad.data).all(), fn.__name__
    np.testing.assert_allclose(F.logsigmoid(x).data, [-1000.0, 0.0])


def test_piecewise_activations_take_pytorchs_slopes_at_their_kinks():
    x = tg.tensor([-3.0, -1.0, 0.0, 1.0, 3.0, 6.0], requires_grad=True)
    F.hardtanh(x).sum().backward()
    assert x.grad.tolist() == [0, 0, 1, 0, 0, 0]  # strictly inside only
    x.grad = None
    F.hardswish(x).sum().backward()
    assert x.grad.tolist() == pytest.approx([0, 1 / 6, 0.5, 5 / 6, 1, 1])
    x.grad = None
    F.elu(x, alpha=2.0).sum().backward()
    assert x.grad.tolist()[2] == 2.0  # alpha at 0


def test_glu_and_prelu_check_their_shapes():
    with pytest.raises(RuntimeError, match="must be even"):
        F.glu(tg.ones(2, 3))
    with pytest.raises(RuntimeError, match="channels"):
        F.prelu(tg.ones(2, 3), tg.ones(2))
    assert F.glu(tg.ones(4, 2), dim=0).shape == (2, 2)


def test_activation_modules_keep_pytorchs_attributes():
    assert tg.nn.LeakyReLU(0.3).negative_slope == 0.3 and tg.nn.ELU(alpha=2).alpha == 2
    assert tg.nn.Hardtanh(-2, 2).max_val == 2 and tg.nn.Softmin(dim=1).dim == 1
    prelu = tg.nn.PReLU(4, init=0.1)
    assert [name for name, _ in prelu.named_parameters()] == ["weight"]
    assert prelu.weight.shape == (4,) and prelu.weight.tolist() == pytest.approx([0.1] * 4)


# --- reductions, scans, sorting -------------------------------------------------------------------
def test_prod_gradient_is_the_product_of_the_others_also_at_zeros():
    x = tg.tensor([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0], [1.0, 2.0, 4.0]], requires_grad=True)
    x.prod(1).sum().backward()
    expected = [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0], [8.0, 4.0, 2.0]]
    assert x.grad.tolist() == expected
    x.grad = None
    x.cumprod(1).sum().backward()  # d/dx_j of sum_i prod_{k<=i} x_k
    np.testing.assert_allclose(x.grad.data[0], [1 + 0 + 0, 2 + 2 * 3, 0])


def test_cumsum_backward_is_a_reversed_cumsum():
    x = tg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    x.cumsum(0).backward(tg.tensor([1.0, 10.0, 100.0, 1000.0]))
    assert x.grad.tolist() == [1111.0, 1110.0, 1100.0, 1000.0]
    assert tg.tensor([True, True]).cumsum(0).dtype == np.int64
    assert tg.tensor([1, 2], dtype=tg.int32).cumsum(0, dtype=tg.float64).dtype == np.float64


FLOAT_VALUED = {  # op: its formula in float64
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "rsqrt": lambda v: 1 / np.sqrt(v),
    "tanh": np.tanh,
    "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
    "erf": np.vectorize(math.erf),
}


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("name", sorted(FLOAT_VALUED))
def test_float_valued_ops_of_integers_and_bools_give_the_default_float(name, dtype):
    # (sigmoid of ints gave zeros in the int dtype; NumPy's float16 for uint8 and bool lost digits)
    values = np.array([0, 1, 2, 3]).astype(dtype)
    with np.errstate(divide="ignore"):  # log(0) and 1 / sqrt(0)
        out = getattr(tg.tensor(values), name)()
        expected = FLOAT_VALUED[name](values.astype(np.float64))
    assert out.dtype == tg.float32
    np.testing.assert_allclose(out.data, expected, rtol=1e-6)


def test_logsumexp_over_no_listed_dims_is_over_every_dim_as_sum():
    x = tg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    every = np.log(np.exp(x.data).sum())
    assert x.logsumexp(()).shape == () and x.sum(()).shape == ()
    np.testing.assert_allclose(x.logsumexp(()).data, every, rtol=1e-6)
    np.testing.assert_allclose(x.logsumexp([], keepdim=True).data, [[every]], rtol=1e-6)


def test_logcumsumexp_matches_numpy_and_does_not_overflow():
    x = tg.tensor([1000.0, 1000.0, -5.0, 1001.0])
    np.testing.assert_allclose(x.logcumsumexp(0).data, np.logaddexp.accumulate(x.data))


def test_cummax_values_indices_and_the_gradient_goes_to_the_winner():
    x = tg.tensor([1.0, 3.0, 3.0, 2.0, 3.0], requires_grad=True)
    values, indices = x.cummax(0)
    assert values.tolist() == [1.0, 3.0, 3.0, 3.0, 3.0] and indices.tolist() == [0, 1, 2, 2, 4]
    values.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 2.0, 0.0, 1.0]


def test_order_statistics_against_numpy():
    x = np.random.default_rng(7).standard_normal((4, 7))
    t = tg.tensor(x)
    assert t.median().item() == np.sort(x.ravel())[(x.size - 1) // 2]  # the lower median
    np.testing.assert_array_equal(t.median(1).values.data, np.sort(x, 1)[:, 3])
    np.testing.assert_array_equal(t.kthvalue(2, 0).values.data, np.sort(x, 0)[1])
    v, i = t.median(dim=1, keepdim=True)
    assert v.shape == (4, 1) and np.array_equal(np.take_along_axis(x, i.data, 1), v.data)
    with pytest.raises(RuntimeError, match="out of range"):
        t.kthvalue(8, 1)


def test_reduction_dtypes_and_shapes():
    x = tg.tensor([[0, 2, 0], [1, 1, 0]])
    assert x.prod(1).dtype == np.int64 and x.count_nonzero(0).tolist() == [1, 2, 0]
    assert x.all(1, keepdim=True).shape == (2, 1) and tg.any(x, (0, 1)).item() is True
    low, high = tg.aminmax(x)
    assert (low.item(), high.item()) == (0, 2)
    assert tg.tensor([]).prod().item() == 1.0 and math.isnan(tg.tensor([]).median().item())
    std, mean = tg.std_mean(tg.tensor([1.0, 2.0, 3.0]))
    assert (std.item(), mean.item()) == (1.0, 2.0)


def test_sort_is_stable_and_puts_nan_last():
    x = tg.tensor([2.0, np.nan, 1.0, 2.0, 1.0])
    assert x.sort().indices.tolist() == [2, 4, 0, 3, 1]
    assert x.sort(descending=True).indices.tolist() == [1, 0, 3, 2, 4]
    assert x.argsort().tolist() == [2, 4, 0, 3, 1]


def test_sort_and_topk_gradients_flow_to_where_the_values_came_from():
    x = tg.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
    values, indices = x.topk(2)
    assert values.tolist() == [[2.0, 0.5]] and indices.tolist() == [[2, 0]]
    (values * tg.tensor([[10.0, 1.0]])).sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0, 10.0]]


def test_searching_and_unique():
    edges = tg.tensor([1.0, 3.0, 5.0])
    assert tg.bucketize(tg.tensor([0.0, 1.0, 4.0, 9.0]), edges).tolist() == [0, 0, 2, 3]
    assert tg.bucketize(tg.tensor([1.0]), edges, right=True).tolist() == [1]
    assert tg.searchsorted(edges, tg.tensor([3.0]), side="right").tolist() == [2]
    values, inverse, counts = tg.unique(
        tg.tensor([3, 1, 3]), return_inverse=True, return_counts=True
    )
    assert values.tolist() == [1, 3] and inverse.tolist() == [1, 0, 1] and counts.tolist() == [1, 2]


# --- coverage: every math name a course uses exists -----------------------------------------------
ELEMENTWISE = """sin cos tan asin acos atan atan2 sinh cosh asinh acosh atanh expm1 log1p log2 log10
exp2 floor ceil round trunc frac sign abs reciprocal square rsqrt erf erfc erfinv lerp hypot
logaddexp fmod remainder floor_divide div copysign isnan isinf isfinite nan_to_num logical_and
logical_or logical_not logical_xor bitwise_and bitwise_or bitwise_xor bitwise_not add sub mul neg
pow""".split()
REDUCTIONS = """prod logsumexp cumsum cumprod cummax cummin logcumsumexp std_mean var_mean all any
count_nonzero median mode kthvalue norm aminmax""".split()
SORTING = "sort argsort topk msort searchsorted bucketize unique".split()
NOT_TENSOR_METHODS = {"std_mean", "var_mean", "searchsorted", "bucketize"}  # as in PyTorch
ACTIVATIONS = """leaky_relu elu selu celu gelu silu mish softplus softsign hardtanh relu6
hardsigmoid hardswish logsigmoid tanhshrink softmin glu prelu""".split()
ACTIVATION_MODULES = """LeakyReLU ELU SELU CELU GELU SiLU Mish Softplus Softsign Hardtanh ReLU6
Hardsigmoid Hardswish LogSigmoid Tanhshrink Softmin GLU PReLU""".split()
OPERATORS = "__mod__ __rmod__ __floordiv__ __rfloordiv__ __and__ __or__ __xor__ __invert__".split()


def test_every_elementwise_reduction_sorting_and_activation_name_exists():
    names = ELEMENTWISE + REDUCTIONS + SORTING
    missing = [f"tg.{n}" for n in names if not callable(getattr(tg, n, None))]
    missing += [f"Tensor.{n}" for n in names + OPERATORS if n not in NOT_TENSOR_METHODS
                and not callable(getattr(tg.Tensor, n, None))]  # fmt: skip
    missing += [f"F.{n}" for n in ACTIVATIONS if not callable(getattr(F, n, None))]
    missing += [f"nn.{n}" for n in ACTIVATION_MODULES if not isinstance(getattr(nn, n, None), type)]
    assert not missing, f"missing: {missing}"
    assert set(ACTIVATIONS) <= set(F.__all__)


@pytest.mark.parametrize(
    "op",
    [tg.atan2, tg.hypot, tg.logaddexp, tg.copysign, tg.fmod, tg.remainder, tg.maximum, tg.minimum],
)
def test_binary_ops_name_shapes_that_do_not_broadcast(op):
    with pytest.raises(tg.ShapeError, match=f"{op.__name__}: shapes \\(2, 3\\) and \\(2,\\)"):
        op(tg.ones(2, 3), tg.ones(2))
    with pytest.raises(RuntimeError, match="lerp"):
        tg.lerp(tg.ones(2, 3), tg.ones(3), tg.ones(2))


def test_atan2_sends_0_at_the_origin_where_the_angle_is_undefined():
    y = tg.tensor([0.0, 1.0], requires_grad=True)
    x = tg.tensor([0.0, 1.0], requires_grad=True)
    tg.atan2(y, x).sum().backward()
    assert y.grad.tolist() == [0.0, 0.5] and x.grad.tolist() == [0.0, -0.5]


def test_median_of_all_shares_the_gradient_among_ties_as_pytorch():
    x = tg.tensor([[1.0, 2.0, 2.0], [0.0, 2.0, 5.0]], requires_grad=True)
    m = x.median()  # sorted: 0 1 2 2 2 5, lower median 2, held by three elements
    m.backward()
    assert m.item() == 2.0
    np.testing.assert_allclose(x.grad.data, [[0, 1 / 3, 1 / 3], [0, 1 / 3, 0]], rtol=1e-6)


# --- integer inputs PyTorch refuses (never a wrapped-around number) -----------------------------
@pytest.mark.parametrize("dtype", [tg.uint8, tg.int64, tg.bool], ids=str)
def test_lerp_refuses_integer_and_bool_ends_naming_them(dtype):
    """uint8 lerp(3, 1, 0.5) was -126 (the difference 1 - 3 wrapped to 254); PyTorch raises."""
    ints, floats = tg.tensor([3, 1]).to(dtype), tg.tensor([3.0, 1.0])
    for start, end, name in [(ints, ints, "input"), (floats, ints, "end"), (ints, floats, "input")]:
        with pytest.raises(NotImplementedError, match=f"lerp: .*the {name} is {str(dtype)[6:]}"):
            tg.lerp(start, end, 0.5)
    with pytest.raises(NotImplementedError, match="lerp: .*float"):
        ints.lerp(ints, tg.tensor([0.5, 0.5]))
    assert floats.lerp(tg.tensor(1.0), 0.5).tolist() == [2.0, 1.0]  # a 0-d end broadcasts


@pytest.mark.parametrize("dtype", [tg.uint8, tg.int64, tg.bool], ids=str)
def test_addcdiv_refuses_two_integer_tensors_as_pytorch(dtype):
    """PyTorch refuses addcdiv of integer tensor1 and tensor2 (it once floor-divided); ours
    returned input + tensor1 / tensor2 with an inf for a zero divisor."""
    ints = tg.tensor([1, 0]).to(dtype)
    for call in (
        lambda: tg.addcdiv(ints, ints, ints),
        lambda: tg.addcdiv(tg.ones(2), ints, ints),
        lambda: tg.ones(2).addcdiv(ints, ints, value=2),
        lambda: tg.ones(2).addcdiv_(ints, ints),
    ):
        with pytest.raises(RuntimeError, match=f"addcdiv_?: tensor1 \\({str(dtype)[6:]}\\)"):
            call()
    # one float operand is a true division, as in PyTorch
    assert tg.addcdiv(tg.tensor([1, 1]), tg.tensor([1.0, 3.0]), tg.tensor([2, 4])).tolist() == [
        1.5,
        1.75,
    ]


# --- integer and bool inputs: PyTorch's result dtypes, checked against plain Python ---------------
def test_masked_fill_keeps_the_dtype_and_converts_the_value():
    mask = tg.tensor([True, False, True])
    flags = tg.tensor([True, False, False])
    assert flags.masked_fill(mask, 2).dtype == tg.bool  # bool(2) is True
    assert flags.masked_fill(mask, 2).tolist() == [True, False, True]
    assert tg.tensor([1, 2, 3]).masked_fill(mask, -2.7).tolist() == [-2, 2, -2]  # trunc(-2.7)
    small = tg.tensor([1, 2, 3], dtype=tg.uint8).masked_fill(mask, -1)
    assert small.dtype == tg.uint8 and small.tolist() == [255, 2, 255]  # -1 mod 256
    assert flags.clone().masked_fill_(mask, 0).tolist() == [False, False, False]
    x = tg.zeros(3)
    value = tg.tensor(2.0, dtype=tg.float64, requires_grad=True)
    out = x.masked_fill(mask, value)  # float32, and the gradient reaches the value tensor
    assert out.dtype == tg.float32 and out.tolist() == [2.0, 0.0, 2.0]
    out.sum().backward()
    assert value.grad.item() == 2.0 and value.grad.dtype == tg.float64


def test_hardtanh_and_relu6_of_integers_stay_integer():
    x = tg.tensor([-2, 1, 7], dtype=tg.int32)
    assert tg.nn.functional.relu6(x).dtype == tg.int32
    assert tg.nn.functional.relu6(x).tolist() == [0, 1, 6]
    assert tg.nn.functional.hardtanh(x, -0.5, 2.5).tolist() == [0, 1, 2]  # limits 0 and 2
    assert nn.ReLU6()(tg.tensor([9], dtype=tg.uint8)).tolist() == [6]


@pytest.mark.parametrize("dtype", [tg.uint8, tg.int8, tg.int16, tg.int32, tg.bool])
def test_sum_of_integers_is_exact_int64(dtype):
    values = [[100, 27, 1], [0, 120, 1]] if dtype != tg.bool else [[1, 0, 1], [1, 1, 0]]
    x = tg.tensor(values, dtype=dtype)
    assert x.sum().dtype == tg.int64 and x.sum().item() == sum(map(sum, values))
    assert x.sum(0).tolist() == [a + b for a, b in zip(*values)]
    if dtype != tg.bool:  # PyTorch's trace refuses bool
        assert x[:, :2].trace().dtype == tg.int64


def test_uint8_sum_does_not_wrap_and_is_not_uint64():
    x = tg.tensor([200, 100], dtype=tg.uint8)
    assert x.sum().item() == 300 and x.sum().dtype == tg.int64


def test_square_of_bool_counts_as_an_integer():
    y = tg.square(tg.tensor([True, False]))
    assert y.dtype == tg.int64 and y.tolist() == [1, 0]


def test_full_like_wraps_negative_values_into_unsigned_dtypes():
    like = tg.tensor([1, 2], dtype=tg.uint8)
    assert tg.full_like(like, -1).tolist() == [255, 255]
    assert tg.full_like(like, -255).tolist() == [1, 1]
    assert tg.full((2,), -1, dtype=tg.uint8).tolist() == [255, 255]
    assert tg.full_like(like, 2.7).tolist() == [2, 2]
    assert like.clone().fill_(-2).tolist() == [254, 254]
    with pytest.raises(RuntimeError, match="full_like"):
        tg.full_like(like, -256)  # beyond one wrap: PyTorch refuses too


def test_integer_power_truncates_the_exact_rational_toward_zero():
    """a ** b for b < 0 is the fraction 1 / a^|b|; PyTorch truncates it toward zero (and gives 0
    for 0 ** negative), never NumPy's "Integers to negative integer powers" error."""
    bases = [-3, -2, -1, 0, 1, 2, 5]
    exponents = [-3, -2, -1, 0, 1, 2]
    a = tg.tensor([[p for _ in exponents] for p in bases])
    b = tg.tensor([exponents for _ in bases])
    expected = [
        [0 if p == 0 and e < 0 else math.trunc(Fraction(p) ** e) for e in exponents] for p in bases
    ]
    assert (a**b).tolist() == expected and (a**b).dtype == tg.int64
    assert tg.pow(2, tg.tensor([-1, 3])).tolist() == [0, 8]


def test_arithmetic_with_a_small_negative_number_wraps_unsigned_tensors_modulo_256():
    u = tg.tensor([1, 2, 200], dtype=tg.uint8)
    assert (u - 3).tolist() == [(v - 3) % 256 for v in [1, 2, 200]]
    assert (u + (-1)).dtype == tg.uint8
    with pytest.raises(RuntimeError, match=r"300 cannot be converted to uint8.*\[0, 255\]"):
        u + 300  # noqa: B018 - the error is the point


def test_number_conversions_after_review():
    # a float16 tensor takes any float in x[i] = v, as PyTorch: -1e9 is -inf (fp16 masking)
    x = tg.zeros(3, dtype=tg.float16)
    with np.errstate(over="ignore"):
        x[0] = -1e9
    assert x.data[0] == -np.inf
    # a NumPy float narrower than the tensor's dtype goes in without an overflow warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tg.full((2,), np.float32(2.5), dtype=tg.float64).data.tolist() == [2.5, 2.5]
    # hardtanh's limits are truncated toward zero first: -0.5 is 0 for a uint8 tensor
    clipped = F.hardtanh(tg.tensor(np.array([0, 1, 7], np.uint8)), -0.5, 2.5)
    assert clipped.dtype == tg.uint8 and clipped.data.tolist() == [0, 1, 2]
    # a NumPy integer exponent is refused like a Python one
    with pytest.raises(RuntimeError, match="negative integer powers"):
        tg.tensor([1, 2]) ** np.int64(-1)
    # None is not a fill value (np.asarray(None, float32) would be NaN)
    with pytest.raises(TypeError, match="masked_fill: the value must be a number"):
        tg.zeros(2).masked_fill(tg.tensor([True, False]), None)
