"""The fast elementwise kernels (ops/fused/power.py, ...) against their composed references:
values and gradients on the fast path (a plain backward on arrays), first and second
derivatives on the recorded path (create_graph), float64, several shapes, edge values (0, -0,
+-inf, nan, negative numbers under a square root): the same numbers, NaNs where the reference
has NaNs."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.ops import fused
from tinygrad_norm.ops.fused.power import FAST_EXPONENTS, PowScalar, pow_scalar_reference

EDGES = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -3.0, 1e-300, 1e10, np.inf, -np.inf, np.nan])
SHAPES = [(7,), (3, 5), (2, 3, 4)]


def _inputs(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape) * 2


def _value_and_grad(fn, array, g):
    x = tg.tensor(array, requires_grad=True)
    out = fn(x)
    out.backward(tg.tensor(g))
    return out.detach().numpy(), x.grad.numpy()


def _same(a, b, rtol=1e-12, atol=1e-300):
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's warnings of sqrt(-1), 1/0
@pytest.mark.parametrize("p", sorted(FAST_EXPONENTS | {2.5, 1, 0}))
@pytest.mark.parametrize("shape", SHAPES)
def test_pow_scalar_equals_general_pow(p, shape):
    for array in (_inputs(shape, 0), np.abs(_inputs(shape, 1))):
        g = _inputs(shape, 2)
        fast = _value_and_grad(lambda x: x**p, array, g)
        ref = _value_and_grad(lambda x: pow_scalar_reference(x, p), array, g)
        for a, b in zip(fast, ref):
            _same(a, b)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("p", sorted(FAST_EXPONENTS))
def test_pow_scalar_edge_values(p):
    # NOTE -0 and -inf under a square root: IEEE's pow and PyTorch's sqrt differ (next test)
    edges = EDGES[2:] if p in (0.5, -0.5) else EDGES
    edges = edges[edges != -np.inf] if p in (0.5, -0.5) else edges
    g = np.linspace(-1.5, 2.0, edges.size)
    fast = _value_and_grad(lambda x: PowScalar.apply(x, p), edges, g)
    ref = _value_and_grad(lambda x: pow_scalar_reference(x, p), edges, g)
    for a, b in zip(fast, ref):
        _same(a, b)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_half_powers_of_minus_zero_and_minus_inf_are_pytorchs():
    """PyTorch computes x ** 0.5 as sqrt(x) and x ** -0.5 as 1 / sqrt(x) (IEEE's pow gives
    +0, +inf for -0 ** 0.5, -inf ** 0.5); values printed by PyTorch 2.13."""
    x = tg.tensor([-0.0, -np.inf])
    half, minus_half = (x**0.5).numpy(), (x**-0.5).numpy()
    assert half[0] == 0 and np.signbit(half[0]) and np.isnan(half[1])
    assert minus_half[0] == -np.inf and np.isnan(minus_half[1])


@pytest.mark.parametrize("p", sorted(FAST_EXPONENTS | {2.5}))
def test_pow_scalar_second_derivative_equals_general_pow(p):
    array = np.abs(_inputs((3, 4), 3)) + 0.1
    w = tg.tensor(_inputs((3, 4), 4))
    results = []
    for fn in (lambda x: x**p, lambda x: pow_scalar_reference(x, p)):
        x = tg.tensor(array, requires_grad=True)
        (grad,) = tg.autograd.grad((fn(x) * w).sum(), [x], create_graph=True)
        (second,) = tg.autograd.grad((grad * w).sum(), [x])
        results.append((grad.detach().numpy(), second.numpy()))
    for a, b in zip(*results):
        _same(a, b, rtol=1e-11)


def test_pow_scalar_is_one_node_and_keeps_float32():
    x = tg.tensor(np.ones((2, 3), np.float32), requires_grad=True)
    out = tg.pow(x, 3.0)
    assert repr(out.grad_fn) == "<PowScalarBackward>"
    assert out.dtype == tg.float32
    out.sum().backward()
    assert x.grad.dtype == tg.float32
    assert np.array_equal(x.grad.numpy(), np.full((2, 3), 3.0, np.float32))


def test_integer_tensors_and_other_exponents_keep_the_general_pow():
    assert repr((tg.tensor([1.0, 2.0], requires_grad=True) ** 2.5).grad_fn) == ("<PowBackward>")
    assert (tg.tensor([2, 3]) ** 2).tolist() == [4, 9]


def _sigmoid_composed(x):
    return 1 / (1 + (-x).exp())


def _check_against(fast, reference, arrays, rtol=1e-12, second_order=True):
    """Values and gradients on the fast path, first and second derivatives recorded (to 1e-15
    absolute: s (1 - s) near s = 1 cancels, as in PyTorch's sigmoid backward)."""
    for array in arrays:
        g = np.random.default_rng(5).standard_normal(array.shape)
        for a, b in zip(_value_and_grad(fast, array, g), _value_and_grad(reference, array, g)):
            _same(a, b, rtol, 1e-15)
        finite = np.nan_to_num(array, posinf=3.0, neginf=-3.0)
        w = tg.tensor(g)
        results = []
        for fn in (fast, reference):
            x = tg.tensor(finite, requires_grad=True)
            (grad,) = tg.autograd.grad((fn(x) * w).sum(), [x], create_graph=True)
            if not second_order:  # piecewise linear: the second derivative is 0
                results.append((grad.detach().numpy(),))
                continue
            (second,) = tg.autograd.grad((grad * w).sum(), [x])
            results.append((grad.detach().numpy(), second.numpy()))
        for a, b in zip(*results):
            _same(a, b, 1e-10, 1e-15)


MODERATE = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -3.0, 30.0, -30.0, np.nan])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # exp overflow of the composed form
@pytest.mark.parametrize("shape", SHAPES)
def test_sigmoid_equals_its_composed_formula(shape):
    _check_against(lambda x: x.sigmoid(), _sigmoid_composed, [_inputs(shape, 0) * 4, MODERATE])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sigmoid_of_huge_numbers_is_exact_and_silent(dtype):
    """No overflow warning (NumPy warns of overflow, not of underflow, by default)."""
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        out = tg.tensor(np.array([-1e4, -1e3, 1e3, 1e4, -np.inf, np.inf], dtype)).sigmoid()
    assert out.numpy().dtype == dtype
    assert out.tolist() == [0.0, 0.0, 1.0, 1.0, 0.0, 1.0]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("shape", SHAPES)
def test_silu_equals_its_composed_form(shape):
    F = tg.nn.functional
    assert repr(F.silu(tg.tensor([1.0], requires_grad=True)).grad_fn) == "<SiluBackward>"
    _check_against(F.silu, fused.silu_reference, [_inputs(shape, 1) * 4, MODERATE])


@pytest.mark.parametrize(
    "low, high", [(-0.5, 0.5), (0.1, None), (None, 0.2), (1, 1), (2.0, -2.0), (-1, 3)]
)
@pytest.mark.parametrize("shape", SHAPES)
def test_clamp_equals_its_composed_form(low, high, shape):
    x = tg.tensor([1.0], requires_grad=True)
    assert repr(x.clamp(low, high).grad_fn) == "<ClampBackward>"
    edges = np.array([-0.5, 0.5, 0.1, 0.2, 1.0, 2.0, -2.0, np.inf, -np.inf, np.nan])
    arrays = [_inputs(shape, 2), edges]
    _check_against(
        lambda t: t.clamp(low, high),
        lambda t: fused.clamp_reference(t, low, high),
        arrays,
        second_order=False,
    )


def test_clamp_keeps_float32_and_tensor_bounds_stay_composed():
    x = tg.tensor(np.linspace(-2, 2, 5, dtype=np.float32), requires_grad=True)
    out = tg.clamp(x, -1, 1)
    assert out.dtype == tg.float32 and out.tolist() == [-1.0, -1.0, 0.0, 1.0, 1.0]
    assert repr(x.clamp(tg.tensor(-1.0), None).grad_fn) != "<ClampBackward>"


@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("shape", [(), *SHAPES])
def test_mse_loss_equals_its_composed_form(reduction, shape):
    F = tg.nn.functional
    arrays = [_inputs(shape, 6), _inputs(shape, 7)]
    results = []
    for fn in (F.mse_loss, fused.mse_loss_reference):
        x, y = (tg.tensor(a, requires_grad=True) for a in arrays)
        out = fn(x, y, reduction)
        out.backward(tg.tensor(1.7))  # the fast path, on arrays
        values = [out.detach().numpy(), x.grad.numpy(), y.grad.numpy()]
        gx, gy = tg.autograd.grad(fn(x, y, reduction) * 1.7, [x, y], create_graph=True)
        (second,) = tg.autograd.grad((gx * gx).sum() + gy.sum(), [x])
        results.append([*values, gx.detach().numpy(), second.numpy()])
        if fn is F.mse_loss:
            assert repr(out.grad_fn) == "<MSELossBackward>"
    for a, b in zip(*results):
        _same(a, b, 1e-12, 1e-15)


def test_mse_loss_keeps_float32_and_broadcast_targets_stay_composed():
    F = tg.nn.functional
    x = tg.tensor(np.ones((2, 3), np.float32), requires_grad=True)
    out = F.mse_loss(x, tg.tensor(np.zeros((2, 3), np.float32)))
    assert out.dtype == tg.float32 and out.item() == 1.0
    out.backward()
    assert x.grad.dtype == tg.float32
    assert repr(F.mse_loss(x, 0.5).grad_fn) != "<MSELossBackward>"


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # inf * 0, in both forms
@pytest.mark.parametrize("slope", [0.01, 0.2, -0.3, 0.0, 1.5, 1.0])
@pytest.mark.parametrize("shape", [(), *SHAPES])
def test_leaky_relu_equals_its_composed_form(slope, shape):
    F = tg.nn.functional
    x = tg.tensor([1.0], requires_grad=True)
    assert repr(F.leaky_relu(x, slope).grad_fn) == "<LeakyReluBackward>"
    arrays = [_inputs(shape, 3), EDGES] if shape else [_inputs(shape, 3)]
    _check_against(
        lambda t: F.leaky_relu(t, slope),
        lambda t: fused.leaky_relu_reference(t, slope),
        arrays,
        rtol=0,
        second_order=False,
    )


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # 1e10 and inf in float16
@pytest.mark.parametrize("slope", [0.01, -0.3, 0.2])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_leaky_relu_keeps_the_dtype_and_is_exact(slope, dtype):
    F = tg.nn.functional
    array = np.concatenate([_inputs((50,), 4), EDGES]).astype(dtype)
    fast = _value_and_grad(lambda t: F.leaky_relu(t, slope), array, np.ones(array.shape, dtype))
    ref = _value_and_grad(
        lambda t: fused.leaky_relu_reference(t, slope), array, np.ones(array.shape, dtype)
    )
    assert fast[0].dtype == dtype and fast[1].dtype == dtype
    for a, b in zip(fast, ref):
        np.testing.assert_array_equal(a, b)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("value", [-np.inf, 0.0, 2.5, np.nan])
@pytest.mark.parametrize(
    "shape, mask_shape", [((7,), (7,)), ((3, 5), (5,)), ((2, 3, 4), (3, 4)), ((2, 3, 4), (2, 1, 4))]
)
def test_masked_fill_equals_its_where_reference(value, shape, mask_shape):
    from tinygrad_norm.ops.elementwise import Where

    mask = np.random.default_rng(8).random(mask_shape) > 0.5
    x = tg.tensor([1.0], requires_grad=True)
    assert repr(x.masked_fill(np.array([True]), value).grad_fn) == "<MaskedFillBackward>"

    def reference(t):
        return Where.apply(mask, t._make(np.array(value, t.array.dtype)), t)

    _check_against(
        lambda t: t.masked_fill(mask, value),
        reference,
        [
            _inputs(shape, 9),
            np.where(np.arange(np.prod(shape)) % 3 == 0, np.inf, 1.0).reshape(shape),
        ],
        rtol=0,
        second_order=False,
    )


def test_masked_fill_keeps_float32_and_a_broadcasting_mask_stays_where():
    x = tg.tensor(np.ones((2, 3), np.float32), requires_grad=True)
    out = x.masked_fill(np.array([True, False, True]), -1.0)
    assert out.dtype == tg.float32 and out.tolist() == [[-1.0, 1.0, -1.0]] * 2
    out.backward(tg.ones(2, 3))
    assert x.grad.tolist() == [[0.0, 1.0, 0.0]] * 2
    wider = x.masked_fill(np.ones((4, 2, 3), bool), 0.0)  # the mask makes the result larger
    assert wider.shape == (4, 2, 3) and repr(wider.grad_fn) == "<WhereBackward>"
