"""The standard math ops against PyTorch: values and gradients, with broadcasting,
negative dims, 0-d and empty inputs and non-default arguments. The op-table cases
(`testing/op_cases_math.py`) run through tests/oracle/test_oracle_ops.py as well."""

import numpy as np
import pytest

import tinygrad_norm as tg

torch = pytest.importorskip("torch")
pytestmark = [
    pytest.mark.oracle,
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),  # inf and NaN inputs, on purpose
]


def run(lib, fn, arrays, grad=True):
    """fn's outputs and the gradients of a fixed weighted sum of them, as NumPy arrays."""
    xs = [
        lib.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in map(np.asarray, arrays)
    ]
    out = fn(lib, *xs)
    outs = list(out) if isinstance(out, tuple) else [out]
    rng = np.random.default_rng(1)
    differentiable = [o for o in outs if o.requires_grad]
    if differentiable:
        total = sum(
            (o * lib.tensor(rng.standard_normal(tuple(o.shape)))).sum() for o in differentiable
        )
        total.backward()
    grads = [None if x.grad is None else np.asarray(x.grad.detach()) for x in xs]
    return [np.asarray(o.detach()) for o in outs], grads


def assert_same(fn, *arrays, grad=True, rtol=1e-10, atol=1e-12):
    ours_out, ours_grad = run(tg, fn, arrays, grad)
    their_out, their_grad = run(torch, fn, arrays, grad)
    assert len(ours_out) == len(their_out)
    for o, t in zip(ours_out, their_out):
        assert o.shape == t.shape and o.dtype == t.dtype, (o.shape, t.shape, o.dtype, t.dtype)
        # float32 results (of integer inputs): NumPy's and PyTorch's kernels differ in the last bit
        tol = (rtol, atol) if o.dtype != np.float32 else (1e-6, 1e-7)
        np.testing.assert_allclose(o, t, rtol=tol[0], atol=tol[1], equal_nan=True)
    for o, t in zip(ours_grad, their_grad):
        assert (o is None) == (t is None)
        if o is not None:
            np.testing.assert_allclose(o, t, rtol=rtol, atol=atol, equal_nan=True)


# --- min and max: ties, NaN, integers and bools ---------------------------------------------------
@pytest.mark.parametrize(
    "a, b",
    [
        ([1.0, 2.0, 3.0, np.nan, 1.0], [1.0, 1.0, 4.0, 0.0, np.nan]),
        ([[1.0], [2.0]], [2.0, 1.0, 0.5]),  # broadcasting, with ties
        (2.0, [2.0, 3.0]),
    ],
)
@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_maximum_minimum_ties_and_nan(op, a, b):
    assert_same(lambda lib, x, y: getattr(lib, op)(x, y), np.array(a), np.array(b))


@pytest.mark.parametrize(
    "values",
    [np.array([-(2**63), 5, 0]), np.array([True, False]), np.array([3, 0, 7], dtype=np.uint8)],
)
def test_min_of_integers_and_bools(values):
    assert_same(lambda lib, x: (x.min(), x.amin(), x.max(), x.amax()), values)
    assert_same(lambda lib, x: tuple(x.min(dim=0)), values)


# --- elementwise ----------------------------------------------------------------------------------
RNG = np.random.default_rng(0)
UNIT = RNG.uniform(-0.95, 0.95, (2, 3))

UNARY_ODD_DOMAINS = {
    "asin": UNIT,
    "acos": UNIT,
    "atanh": UNIT,
    "erfinv": np.concatenate([UNIT.ravel(), [0.0, 0.999999, -0.9999999999]]),
    "acosh": 1 + RNG.uniform(0.1, 3, (3,)),
    "log1p": RNG.uniform(-0.9, 3, (2, 2)),
    "erfc": np.array([-3.0, -0.5, 0.0, 0.7, 2.5, 6.0, 12.0]),
}


@pytest.mark.parametrize("name", sorted(UNARY_ODD_DOMAINS))
def test_unary_on_its_domain(name):
    assert_same(lambda lib, x: getattr(lib, name)(x), UNARY_ODD_DOMAINS[name], rtol=1e-13)


@pytest.mark.parametrize(
    "name", ["sin", "cos", "tan", "sinh", "cosh", "asinh", "expm1", "exp2", "erfc", "square"]
)
@pytest.mark.parametrize("values", [np.array(0.7), np.zeros((0, 2)), np.array([1, -2, 3])])
def test_unary_of_0d_empty_and_integer_tensors(name, values):
    assert_same(lambda lib, x: getattr(lib, name)(x), values)


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, a, b: lib.atan2(a, b),
        lambda lib, a, b: lib.hypot(a, b),
        lambda lib, a, b: lib.logaddexp(a, b),
        lambda lib, a, b: lib.copysign(a, b),
        lambda lib, a, b: lib.fmod(a * 5, b),
        lambda lib, a, b: lib.remainder(a * 5, b),
        lambda lib, a, b: a.lerp(b, 0.3),
        lambda lib, a, b: lib.lerp(a, b, b),
        lambda lib, a, b: lib.div(a * 5, b, rounding_mode="trunc"),
        lambda lib, a, b: lib.div(a * 5, b, rounding_mode="floor"),
        lambda lib, a, b: lib.sub(a, b, alpha=0.5),
        lambda lib, a, b: a.add(b, alpha=2),
    ],
)
@pytest.mark.parametrize("shapes", [((2, 3), (3,)), ((), (2,)), ((0, 3), (3,))], ids=str)
def test_binary_with_broadcasting_0d_and_empty(fn, shapes):
    a, b = (RNG.standard_normal(s) for s in shapes)
    assert_same(fn, a, b)


REVERSED = [7, 6, 5, 4, 3, 2, 1, 0]


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, x: (x.floor(), x.ceil(), x.trunc(), x.round(), x.sign(), x.frac()),
        lambda lib, x: lib.round(x * 10, decimals=-1),
        lambda lib, x: (x.isnan(), x.isinf(), x.isfinite()),
        lambda lib, x: (x.nan_to_num(), lib.nan_to_num(x, nan=2.0, posinf=9.0, neginf=-9.0)),
        lambda lib, x: (x % 1.5, x.div(0.7, rounding_mode="floor"), x.fmod(-0.6)),
        lambda lib, x: (lib.maximum(x, x[REVERSED]), lib.logaddexp(x, x[REVERSED]), x.reciprocal()),
    ],
)
def test_specials_with_nan_and_infinities(fn):
    x = np.array([1.5, -2.5, 0.5, np.nan, np.inf, -np.inf, 0.0, -0.7])
    assert_same(fn, x)


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, a, b: (a // b, a % b, lib.fmod(a, b), a.div(b, rounding_mode="trunc"), a / b),
        lambda lib, a, b: (a & b, a | b, a ^ b, ~a, lib.bitwise_not(b)),
        lambda lib, a, b: (lib.logical_and(a, b), lib.logical_or(a, b), lib.logical_xor(a, b)),
        lambda lib, a, b: (a.sign(), a.floor(), a.round(), a.square(), a.nan_to_num()),
    ],
)
def test_integer_arithmetic_and_bitwise(fn):
    assert_same(fn, np.array([7, -7, 7, -7, 0]), np.array([2, 2, -2, -3, 5]))


# --- activations ----------------------------------------------------------------------------------
ACTIVATIONS = [
    ("leaky_relu", {}),
    ("leaky_relu", {"negative_slope": -0.3}),
    ("elu", {}),
    ("selu", {}),
    ("celu", {"alpha": 0.5}),
    ("silu", {}),
    ("mish", {}),
    ("softplus", {}),
    ("softplus", {"beta": 0.5, "threshold": 2.0}),
    ("softsign", {}),
    ("hardtanh", {}),
    ("hardtanh", {"min_val": -2.0, "max_val": 0.5}),
    ("relu6", {}),
    ("hardswish", {}),
    ("logsigmoid", {}),
    ("tanhshrink", {}),
    ("softmin", {"dim": -1}),
    ("glu", {}),
    ("glu", {"dim": 0}),
]
EDGES = np.array([[-50.0, -3.0, -1.0, 0.0], [0.5, 1.0, 3.0, 6.0], [7.0, 30.0, 700.0, -700.0]])


@pytest.mark.parametrize("name, kwargs", ACTIVATIONS, ids=lambda v: str(v))
@pytest.mark.parametrize(
    "values", [EDGES, np.array(0.3), np.zeros((0, 4))], ids=["edges", "0d", "empty"]
)
def test_activation_values_and_gradients(name, kwargs, values):
    """At and around the boundaries (0, +-3, 6), far out (+-700: overflow) and 0-d/empty."""
    if name == "glu" and values.ndim == 0:
        with pytest.raises(RuntimeError):
            tg.nn.functional.glu(tg.tensor(values))
        return
    if name == "glu" and kwargs.get("dim") == 0 and values.shape[0] % 2:
        values = values[:2]
    assert_same(lambda lib, x: getattr(lib.nn.functional, name)(x, **kwargs), values)


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, x: lib.nn.functional.hardsigmoid(x),
        lambda lib, x: lib.nn.functional.celu(x, 0.7),
    ],
)
def test_pytorch_rounds_some_constants_to_float32(fn):
    """PyTorch's hardsigmoid multiplies by 1/6 rounded to float32 and celu divides by alpha
    through such a rounded 1/alpha: in float64 its results are 3e-8 off the exact ones."""
    assert_same(fn, EDGES, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize(
    "shape, weight", [((2, 3, 4), (3,)), ((2, 3), (1,)), ((5,), (1,)), ((), (1,))]
)
def test_prelu_weights_per_channel(shape, weight):
    rng = np.random.default_rng(2)
    assert_same(
        lambda lib, x, w: lib.nn.functional.prelu(x, w),
        rng.standard_normal(shape),
        rng.uniform(0.1, 0.5, weight),
    )


@pytest.mark.parametrize(
    "name, args",
    [
        ("LeakyReLU", (0.1,)),
        ("ELU", (0.5,)),
        ("SELU", ()),
        ("CELU", (2.0,)),
        ("SiLU", ()),
        ("Mish", ()),
        ("Softplus", (2.0, 5.0)),
        ("Softsign", ()),
        ("Hardtanh", (-0.5, 0.5)),
        ("ReLU6", ()),
        ("Hardswish", ()),
        ("LogSigmoid", ()),
        ("Tanhshrink", ()),
        ("Softmin", (1,)),
        ("GLU", (-1,)),
    ],
)
def test_activation_modules(name, args):
    ours, theirs = getattr(tg.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    assert_same(lambda lib, x: (ours if lib is tg else theirs)(x), EDGES)


def test_prelu_module_learns_its_slopes_like_pytorch():
    ours, theirs = tg.nn.PReLU(3, init=0.1), torch.nn.PReLU(3, init=0.1)
    assert repr(ours) == repr(theirs)
    x = np.random.default_rng(3).standard_normal((2, 3, 2))
    ours(tg.tensor(x)).sum().backward()
    theirs(torch.tensor(x, dtype=torch.float32)).sum().backward()
    np.testing.assert_allclose(ours.weight.grad.data, theirs.weight.grad.numpy(), rtol=1e-6)


# --- reductions and scans -------------------------------------------------------------------------
WITH_ZEROS = np.array([[2.0, 0.0, -1.5, 3.0], [0.0, 0.0, 2.0, -1.0], [1.5, -0.5, 2.0, 4.0]])
TIES = np.array([[1.0, 3.0, 3.0, 2.0, 3.0], [np.nan, 1.0, -2.0, -2.0, 5.0]])


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, x: (x.prod(), lib.prod(x, 1), x.prod(dim=0, keepdim=True), x.prod(-1)),
        lambda lib, x: (x.cumprod(1), lib.cumprod(x, dim=0), x.cumsum(-1), lib.cumsum(x, 0)),
        lambda lib, x: (x.logcumsumexp(1), lib.logsumexp(x, dim=(0, 1)), x.logsumexp(-1, True)),
    ],
)
def test_products_and_scans_with_zeros(fn):
    """prod's and cumprod's gradients where one or two factors are 0 (no division by x)."""
    assert_same(fn, WITH_ZEROS)


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, x: tuple(x.cummax(1)) + tuple(lib.cummin(x, dim=-1)),
        lambda lib, x: tuple(x.cummax(0)) + tuple(x.cummin(0)),
        lambda lib, x: tuple(x.aminmax()) + tuple(lib.aminmax(x[:, 1:], dim=1, keepdim=True)),
    ],
)
def test_running_and_overall_extremes_with_ties_and_nan(fn):
    assert_same(fn, TIES)


def test_logsumexp_and_logcumsumexp_at_extremes():
    far = np.array([[-1000.0, 0.0, 1000.0], [np.inf, 1.0, 2.0], [-700.0, 700.0, 710.0]])
    assert_same(lambda lib, x: (x.logsumexp(1), x.logcumsumexp(1), x.logcumsumexp(0)), far)
    minus_inf = np.array([[-np.inf, -np.inf, 1.0], [-np.inf, 700.0, 710.0]])
    assert_same(lambda lib, x: (x.logsumexp(1), x.logcumsumexp(1), x.logcumsumexp(0)), minus_inf,
                grad=False)  # fmt: skip
    # NOTE: a deliberate difference: PyTorch's logcumsumexp sends NaN to inputs that are -inf;
    # ours sends each running sum's gradient to the elements that make it up (0 to -inf ones
    # beside a finite one), as logsumexp does in both.
    x = tg.tensor(minus_inf, requires_grad=True)
    x.logcumsumexp(1).sum().backward()
    assert np.isfinite(x.grad.data).all()


@pytest.mark.parametrize("values", [np.array(1.5), np.zeros((0, 3)), np.zeros((3, 0))], ids=str)
def test_reductions_and_scans_of_0d_and_empty(values):
    assert_same(lambda lib, x: (x.prod(), x.cumsum(-1), x.cumprod(0), x.logsumexp(-1)), values)
    assert_same(lambda lib, x: (x.logcumsumexp(-1), x.all(), x.any(-1), x.count_nonzero()), values)


def test_order_statistics_values_indices_and_gradients():
    x = np.random.default_rng(4).standard_normal((3, 6))
    assert_same(lambda lib, x: (x.median(), *x.median(1), *lib.median(x, 0, keepdim=True)), x)
    assert_same(lambda lib, x: (*x.kthvalue(2), *lib.kthvalue(x, 3, dim=0, keepdim=True)), x)
    assert_same(lambda lib, x: (*x.mode(), *lib.mode(x, dim=0, keepdim=True)), x)


def test_mode_takes_the_smallest_most_frequent_value_and_its_last_index():
    x = np.array([[1.0, 2.0, 2.0, 1.0, 3.0], [3.0, 3.0, 1.0, 1.0, 0.0], [4.0, 4.0, 4.0, 0.0, 0.0]])
    assert_same(lambda lib, x: tuple(x.mode(1)), x)


def test_median_with_nan_and_integer_median():
    assert_same(lambda lib, x: (x.median(), *x.median(0)), np.array([3.0, np.nan, 1.0]))
    assert_same(lambda lib, x: (x.median(), *x.median(0)), np.array([5, 1, 4, 2]))


def test_statistics_with_means():
    x = np.random.default_rng(5).standard_normal((3, 4))
    assert_same(lambda lib, x: (*lib.std_mean(x), *lib.var_mean(x, 1, keepdim=True)), x)
    assert_same(lambda lib, x: (*lib.std_mean(x, (0, 1), correction=0),), x)


@pytest.mark.parametrize(
    "values",
    [np.array([[0, 2, 0], [1, 1, 0]]), np.array([[0.0, 2.5, np.nan]]), np.array([1, 0], np.uint8)],
)
def test_all_any_count_nonzero(values):
    def fn(lib, x):
        return (x.all(), x.any(), lib.all(x, -1), x.any(0, keepdim=True), x.count_nonzero(-1))

    assert_same(fn, values)
    if values.ndim == 2:
        assert_same(lambda lib, x: (lib.all(x, (0, 1)), lib.count_nonzero(x, (0, 1))), values)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.bool_])
def test_integer_products_and_sums_are_int64(dtype):
    x = np.array([[1, 0, 1], [1, 1, 1]]).astype(dtype)
    assert_same(lambda lib, x: (x.prod(), x.prod(1), x.cumsum(0), x.cumprod(1)), x)


# --- sorting --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "values",
    [
        np.array([[1.0, 3.0, 3.0, 2.0, 3.0], [np.nan, 1.0, -2.0, -2.0, np.inf]]),
        np.array([[3, 1, 3, 1], [2, 2, 2, 2]]),
        np.array([True, False, True]),
        np.array(2.5),
    ],
)
def test_sort_is_stable_with_nan_last_ascending_and_first_descending(values):
    def fn(lib, x):
        return (*x.sort(), *lib.sort(x, descending=True), x.argsort(dim=0, descending=True))

    assert_same(fn, values)
    if values.ndim == 2:
        assert_same(lambda lib, x: (*x.sort(dim=0, stable=True), lib.msort(x)), values)


def test_topk_values_indices_and_gradients():
    x = np.random.default_rng(6).standard_normal((3, 5))
    assert_same(lambda lib, x: (*x.topk(3), *lib.topk(x, 2, dim=0, largest=False)), x)
    assert_same(lambda lib, x: tuple(x.topk(0)) + tuple(x.topk(5, sorted=True)), x)


def test_searchsorted_and_bucketize():
    seq, rows = np.array([1.0, 3.0, 3.0, 5.0]), np.array([[1, 3, 5], [2, 4, 6]])
    values = np.array([[0.0, 3.0, 6.0], [3.0, 5.0, 1.0]])
    assert_same(
        lambda lib, s, v: (lib.searchsorted(s, v), lib.searchsorted(s, v, right=True)), seq, values
    )
    assert_same(lambda lib, s, v: lib.searchsorted(s, v, side="right", out_int32=True), seq, values)
    assert_same(lambda lib, s, v: lib.searchsorted(s, v), rows, np.array([[3, 0], [4, 7]]))
    assert_same(
        lambda lib, s, v: lib.searchsorted(s, v, sorter=lib.tensor([2, 0, 1])),
        np.array([5, 1, 3]),
        np.array([2, 4]),
    )
    assert_same(
        lambda lib, v, b: (lib.bucketize(v, b), lib.bucketize(v, b, right=True)), values, seq
    )
    assert_same(lambda lib, v, b: lib.bucketize(v, b), np.array(3.0), seq)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"return_inverse": True},
        {"return_counts": True},
        {"return_inverse": True, "return_counts": True, "dim": 0},
    ],
)
def test_unique(kwargs):
    x = np.array([[3, 1, 3], [1, 1, 2], [3, 1, 3]])
    assert_same(lambda lib, x: lib.unique(x, **kwargs), x)
    assert_same(lambda lib, x: x.float().unique(**kwargs), x)


SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 3.0, -3.0, 6.0])


@pytest.mark.parametrize("name, kwargs", [a for a in ACTIVATIONS if a[0] != "glu"], ids=str)
def test_activations_at_nan_and_infinities(name, kwargs):
    if name == "hardswish":  # see test_hardswish_of_minus_infinity_is_0
        values = SPECIALS[[1, 3, 4, 5, 6, 7]]
    else:
        values = SPECIALS
    assert_same(lambda lib, x: getattr(lib.nn.functional, name)(x, **kwargs), values)


def test_hardswish_of_minus_infinity_is_0():
    """A deliberate difference: PyTorch computes x * relu6(x + 3) / 6 = -inf * 0 = NaN there."""
    assert tg.nn.functional.hardswish(tg.tensor([-np.inf])).tolist() == [0.0]


@pytest.mark.parametrize("dtype", ["uint8", "int64", "bool"])
@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, a, b: lib.lerp(a, a, 0.5),
        lambda lib, a, b: lib.lerp(b, a, 0.5),
        lambda lib, a, b: lib.lerp(a, b, 0.5),
        lambda lib, a, b: lib.addcdiv(a, a, a),
        lambda lib, a, b: lib.addcdiv(b, a, a),
        lambda lib, a, b: a.addcdiv(a, a),
    ],
)
def test_integer_lerp_and_addcdiv_raise_pytorchs_error_class(fn, dtype):
    """Ours is PyTorch's class or a subclass of it (NotImplementedError is a RuntimeError)."""
    ints, floats = np.array([3, 0]).astype(dtype), np.array([1.0, 2.0], np.float32)
    with pytest.raises(Exception) as theirs:
        fn(torch, torch.tensor(ints), torch.tensor(floats))
    with pytest.raises(theirs.type):
        fn(tg, tg.tensor(ints), tg.tensor(floats))


def test_addcdiv_with_one_float_operand_matches_pytorch():
    ints, floats = np.array([3, 1]), np.array([2.0, 4.0], np.float32)
    assert_same(lambda lib, a, b: lib.addcdiv(a, b, a, value=2), ints, floats, grad=False)
    assert_same(lambda lib, a, b: lib.addcdiv(a, a, b), ints, floats, grad=False)


# --- integer and bool inputs: the result dtype is PyTorch's --------------------------------------
def assert_same_error(fn, *arrays):
    """Both libraries refuse `fn` with the same exception class."""
    caught = []
    for lib in (tg, torch):
        with pytest.raises(Exception) as info:
            run(lib, fn, arrays, grad=False)
        caught.append(type(info.value))
    assert caught[0] is caught[1], caught


def _mask(lib, x):
    return lib.tensor(np.arange(x.numel()).reshape(tuple(x.shape)) % 2 == 0)


@pytest.mark.parametrize(
    "values, value",
    [
        (np.array([True, False, True]), 2),  # stays bool: True, as PyTorch's bool(2)
        (np.array([True, False, True]), 0),
        (np.array([True, False, True]), 2.5),
        (np.array([1, 2, 3]), 2.7),  # int64: the value is truncated to 2
        (np.array([1, 2, 3]), -2.7),
        (np.array([1, 2, 3], np.uint8), -1),  # wraps to 255, as PyTorch
        (np.array([1.0, 2.0, 3.0]), -np.inf),
    ],
    ids=str,
)
def test_masked_fill_keeps_the_tensors_dtype(values, value):
    def fn(lib, x):
        return x.masked_fill(_mask(lib, x), value), x.clone().masked_fill_(_mask(lib, x), value)

    assert_same(fn, values, grad=False)


def test_masked_fill_casts_a_0d_value_tensor_and_refuses_overflow():
    def fn(lib, x):
        return x.masked_fill(_mask(lib, x), lib.tensor(2.7)), x.masked_fill(_mask(lib, x), True)

    assert_same(fn, np.array([1, 2, 3]), grad=False)
    assert_same(lambda lib, x: x.masked_fill(_mask(lib, x), lib.tensor(3.0, dtype=lib.float64)),
                np.array([1.0, 2.0], np.float32))  # fmt: skip
    assert_same_error(lambda lib, x: x.masked_fill(_mask(lib, x), 300), np.array([1], np.uint8))
    assert_same_error(lambda lib, x: x.masked_fill(_mask(lib, x), np.inf), np.array([1, 2]))
    assert_same_error(lambda lib, x: x.masked_fill(_mask(lib, x), lib.tensor([3, 4])), np.ones(2))


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
def test_clamping_activations_keep_integer_dtypes(dtype):
    def fn(lib, x):
        return lib.nn.functional.relu6(x), lib.nn.functional.hardtanh(x, 0.5, 2.5)

    assert_same(fn, np.array([0, 1, 7, 3], dtype))
    if dtype != np.uint8:
        assert_same(lambda lib, x: lib.nn.functional.hardtanh(x, -1.5), np.array([-2, 1, 7], dtype))
    else:  # PyTorch refuses negative limits for an unsigned tensor
        assert_same_error(lambda lib, x: lib.nn.functional.hardtanh(x), np.array([1], dtype))
    assert_same_error(lambda lib, x: lib.nn.functional.relu6(x), np.array([True]))


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32, np.int64, np.bool_])
def test_sums_and_traces_of_integers_and_bools_are_int64(dtype):
    x = np.array([[200, 100, 1], [0, 120, 1], [1, 1, 100]]).astype(dtype)
    assert_same(lambda lib, x: (x.sum(), x.sum(0), lib.sum(x, 1, keepdim=True)), x)
    if dtype == np.bool_:
        assert_same_error(lambda lib, x: x.trace(), x)
    else:
        assert_same(lambda lib, x: (x.trace(), lib.trace(x)), x)


def test_square_of_bool_is_int64():
    assert_same(lambda lib, x: (lib.square(x), x.square(), x**2), np.array([True, False]))


def test_full_and_full_like_convert_the_value_as_pytorch():
    def fn(lib, x):
        return (
            lib.full_like(x, -1),  # 255
            lib.full_like(x, 2.7),
            lib.full((2,), -255, dtype=lib.uint8),
            lib.full_like(x, -1, dtype=lib.int8),
            x.clone().fill_(-3),
        )

    assert_same(fn, np.array([1, 2], np.uint8))
    assert_same_error(lambda lib, x: lib.full_like(x, 256), np.array([1], np.uint8))
    assert_same_error(lambda lib, x: lib.full_like(x, 200), np.array([1], np.int8))
    assert_same_error(lambda lib, x: lib.full((1,), 2**40, dtype=lib.int32), np.array([1]))


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_integer_powers_with_negative_integer_exponents(dtype):
    a = np.array([2, 1, -1, -1, 0, 3], dtype)
    b = np.array([-1, -2, -3, -2, -1, 2], dtype)
    assert_same(lambda lib, a, b: (lib.pow(a, b), a**b, a.pow(b), 2**b), a, b)
    assert_same(lambda lib, a, b: a**b, np.array([2, 1], np.uint8), np.array([-1, 2]))
    assert_same_error(lambda lib, a: a**-1, a)  # a negative number exponent: refused
    assert_same_error(lambda lib, a: a.pow(-2), a)


def test_abs_of_bool_is_not_implemented():
    assert_same_error(lambda lib, x: x.abs(), np.array([True]))
    assert_same_error(lambda lib, x: lib.abs(x), np.array([True]))


@pytest.mark.parametrize(
    "name",
    ["leaky_relu", "elu", "selu", "celu", "silu", "softplus", "mish", "hardsigmoid", "hardswish",
     "logsigmoid", "glu"],
)  # fmt: skip
@pytest.mark.parametrize("values", [np.array([-2, 1]), np.array([True, False])], ids=str)
def test_float_only_activations_refuse_integers_and_bools(name, values):
    """PyTorch has no integer kernel for these: NotImplementedError (they returned float32)."""
    assert_same_error(lambda lib, x: getattr(lib.nn.functional, name)(x), values)
    with pytest.raises(NotImplementedError, match=f"{name}: .*x.float()"):
        getattr(tg.nn.functional, name)(tg.tensor(values))


def test_sum_and_prod_take_a_dtype_and_keep_it():
    """dtype= converts first and the result stays in it (int32 is not widened to int64)."""

    def fn(lib, x):
        return (
            x.sum(dtype=lib.int32),
            lib.sum(x, 0, dtype=lib.float64),
            x.prod(dtype=lib.int32),
            lib.prod(x, 1, keepdim=True, dtype=lib.int32),
            (x > 1).sum(dtype=lib.float16),
        )

    assert_same(fn, np.array([[1, 2], [3, 4]]))
    assert_same(lambda lib, x: x.sum(dtype=lib.float64), np.array([1.5, 2.5], np.float32))


def test_small_negative_numbers_wrap_into_unsigned_tensors():
    """u - 3 and u + (-1) on uint8 wrap modulo 256 (NumPy raised OverflowError for -1); a
    number beyond one wrap is refused (PyTorch's result for u + 300 is not even consistent:
    u + 300 and torch.add(u, 300) differ)."""

    def fn(lib, u):
        v = u.clone()
        v[0] = -1  # 255
        w = u.clone()
        w[1] = 2.7  # 2
        mask = lib.tensor([True, False])
        return u + (-1), u - 3, u.add(-1, alpha=2), lib.where(mask, u, -1), v, w

    assert_same(fn, np.array([1, 2], np.uint8))
    assert_same_error(lambda lib, u: lib.where(lib.tensor([True, False]), u, 300),
                      np.array([1, 2], np.uint8))  # fmt: skip

    def put_300(lib, u):
        u[0] = 300

    assert_same_error(put_300, np.array([1, 2], np.uint8))
