"""The one-node float functions of ops/fused/unary.py (expm1, log1p, log10, exp2, atan, atanh,
sinh, cosh) against their references: values
and gradients (plain backward on arrays), first and second derivatives (create_graph), float32
and float64, edge values (0, -0, +-1, +-inf, nan, overflow), and PyTorch's values."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.gradcheck import gradcheck, gradgradcheck
from tinygrad_norm.ops.fused import unary as U

# the domain of each op, for random inputs
DOMAINS = {
    U.Log1p: (-0.99, 5.0),
    U.Log10: (0.01, 5.0),
    U.Atanh: (-0.999, 0.999),
}
EDGES = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 1e-30, -1e-30, 50.0, -50.0, 89.0, -89.0])
EDGES = np.concatenate([EDGES, [100.0, -100.0, 1e4, np.inf, -np.inf, np.nan]])
FLOAT32_ULPS = 6  # the fast float32 kernels: within a few ulps (module docstring of fast_math)
NUMPY = {
    U.Expm1: np.expm1,
    U.Log1p: np.log1p,
    U.Log10: np.log10,
    U.Exp2: np.exp2,
    U.Atan: np.arctan,
    U.Atanh: np.arctanh,
    U.Sinh: np.sinh,
    U.Cosh: np.cosh,
}
OPS = list(U.REFERENCES)
IDS = [op.__name__ for op in OPS]


def _inputs(op, shape, dtype, seed=0):
    low, high = DOMAINS.get(op, (-6.0, 6.0))
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)


def _value_and_grad(fn, array, g):
    x = tg.tensor(array, requires_grad=True)
    out = fn(x)
    out.backward(tg.tensor(g))
    return out.detach().numpy(), x.grad.numpy()


def _ulps(got, want64):
    """|got - want| in float32 ulps of want (want in float64)."""
    ulp = np.spacing(np.abs(want64).astype(np.float32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - want64) / ulp


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("op", OPS, ids=IDS)
@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4), ()])
def test_float64_equals_reference(op, shape):
    array, g = _inputs(op, shape, np.float64), _inputs(None, shape, np.float64, 1)
    fast = _value_and_grad(op.apply, array, g)
    ref = _value_and_grad(U.REFERENCES[op], array, g)
    for a, b in zip(fast, ref):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=0)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("op", OPS, ids=IDS)
def test_float32_values_within_a_few_ulps_and_gradients_match(op):
    array = _inputs(op, (3000,), np.float32)
    array = np.concatenate([array, array * 1e-3, array * 1e-6]).astype(np.float32)
    g = _inputs(None, array.shape, np.float32, 1)
    (out, grad), (ref_out, ref_grad) = (
        _value_and_grad(fn, array, g) for fn in (op.apply, U.REFERENCES[op])
    )
    assert out.dtype == grad.dtype == np.float32
    assert _ulps(out, NUMPY[op](array.astype(np.float64))).max() <= FLOAT32_ULPS
    # the gradient formulas are the reference's, in the (few ulps) output for expm1 and exp2
    np.testing.assert_allclose(grad, ref_grad, rtol=3e-6 if op is not U.Expm1 else 1e-3, atol=0)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", OPS, ids=IDS)
def test_edge_values_as_the_reference(op, dtype):
    array = EDGES.astype(dtype)
    g = np.linspace(-1.5, 2.0, array.size).astype(dtype)
    fast = _value_and_grad(op.apply, array, g)
    ref = _value_and_grad(U.REFERENCES[op], array, g)
    for a, b in zip(fast, ref):
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        np.testing.assert_array_equal(np.isinf(a) * np.sign(a), np.isinf(b) * np.sign(b))
        finite = np.isfinite(b)
        np.testing.assert_allclose(a[finite], b[finite], rtol=2e-6, atol=1e-37)


@pytest.mark.parametrize("op", OPS, ids=IDS)
def test_gradcheck_and_gradgradcheck(op):
    x = tg.tensor(_inputs(op, (2, 3), np.float64), requires_grad=True)
    assert gradcheck(op.apply, (x,))
    assert gradgradcheck(op.apply, (x,))


@pytest.mark.parametrize("op", OPS, ids=IDS)
def test_second_derivative_equals_reference(op):
    array = _inputs(op, (4, 3), np.float64)

    def second(fn):
        x = tg.tensor(array, requires_grad=True)
        (g,) = tg.autograd.grad(fn(x).sum(), x, create_graph=True)
        g.sum().backward()
        return g.detach().numpy(), x.grad.numpy()

    for a, b in zip(second(op.apply), second(U.REFERENCES[op])):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_integer_input_gives_the_default_float():
    assert tg.tensor([1, 2]).expm1().dtype == tg.float32
    assert tg.tensor([1, 2]).exp2().tolist() == [2.0, 4.0]


@pytest.mark.oracle
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "name", ["expm1", "log1p", "log10", "exp2", "atan", "atanh", "sinh", "cosh"]
)
def test_against_pytorch(name, dtype):
    torch = pytest.importorskip("torch")
    op = getattr(U, {"log10": "Log10", "exp2": "Exp2"}.get(name, name.capitalize()))
    # NOTE PyTorch's float32 sinh and cosh overflow to inf at |x| = 89 (NumPy's, and ours,
    # give 2.2e38, the float32 value); those two points are left out
    edges = EDGES[np.abs(EDGES) != 89]
    array = np.concatenate([_inputs(op, (500,), dtype), edges.astype(dtype)])
    g = np.linspace(-1.0, 1.0, array.size).astype(dtype)
    out, grad = _value_and_grad(lambda x: getattr(x, name)(), array, g)
    tx = torch.tensor(array, requires_grad=True)
    tout = getattr(tx, name)()
    tout.backward(torch.tensor(g))
    rtol = 2e-6 if dtype == np.float32 else 1e-13
    # NOTE expm1's gradient is g (out + 1), as PyTorch's: near out = -1 the few ulps in which
    # float32 outputs differ become a relative difference; compared to an absolute error there
    atol = 1e-6 if name == "expm1" and dtype == np.float32 else 1e-37
    for a, b, tol in ((out, tout.detach().numpy(), 1e-37), (grad, tx.grad.numpy(), atol)):
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        finite = np.isfinite(b)
        np.testing.assert_array_equal(a[~finite], b[~finite])
        np.testing.assert_allclose(a[finite], b[finite], rtol=rtol, atol=tol)
