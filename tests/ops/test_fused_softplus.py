"""The one-node softplus and logsigmoid of ops/fused/softplus.py and fast_math.select against
their references: values and gradients (plain backward on arrays), second derivatives
(create_graph), float32 and float64, edge values, and PyTorch."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.gradcheck import gradcheck, gradgradcheck
from tinygrad_norm.ops.fused import fast_math
from tinygrad_norm.ops.fused import softplus as A

EDGES = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 1e-30, 30.0, -30.0, 100.0, -100.0, 0.75])
EDGES = np.concatenate([EDGES, [1e4, -1e4, np.inf, -np.inf, np.nan]])

# (name, fused, reference, smooth): the functions of one tensor
CASES = [
    ("softplus", lambda x: A.Softplus.apply(x, 1.0, 20.0), A.softplus_reference, True),
    (
        "softplus_beta",
        lambda x: A.Softplus.apply(x, 2.0, 1.5),
        lambda x: A.softplus_reference(x, 2.0, 1.5),
        True,
    ),
    ("logsigmoid", A.LogSigmoid.apply, A.logsigmoid_reference, True),
]
IDS = [c[0] for c in CASES]


def _inputs(shape, dtype, seed=0):
    return (np.random.default_rng(seed).standard_normal(shape) * 3).astype(dtype)


def _value_and_grad(fn, array, g):
    x = tg.tensor(array, requires_grad=True)
    out = fn(x)
    out.backward(tg.tensor(g))
    return out.detach().numpy(), x.grad.numpy()


def _close(a, b, rtol, atol=1e-30):
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    finite = np.isfinite(b)
    np.testing.assert_array_equal(a[~finite], b[~finite])
    np.testing.assert_allclose(a[finite], b[finite], rtol=rtol, atol=atol)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4), ()])
@pytest.mark.parametrize(("name", "fused", "reference", "smooth"), CASES, ids=IDS)
def test_equals_reference(name, fused, reference, smooth, shape, dtype):
    rtol = 1e-13 if dtype == np.float64 else 1e-6  # float32: the fast log1p / expm1
    atol = 1e-15 if dtype == np.float64 else 1e-7
    for array in (_inputs(shape, dtype), EDGES.astype(dtype)):
        g = _inputs(array.shape, dtype, 1)
        fast, ref = _value_and_grad(fused, array, g), _value_and_grad(reference, array, g)
        assert fast[0].dtype == fast[1].dtype == dtype
        _close(fast[0], ref[0], rtol)
        _close(fast[1], ref[1], rtol, atol)


@pytest.mark.parametrize(("name", "fused", "reference", "smooth"), CASES, ids=IDS)
def test_gradcheck_and_gradgradcheck(name, fused, reference, smooth):
    x = tg.tensor(_inputs((2, 3), np.float64) + 0.01, requires_grad=True)
    assert gradcheck(fused, (x,))
    if smooth:
        assert gradgradcheck(fused, (x,))


@pytest.mark.parametrize(("name", "fused", "reference", "smooth"), CASES, ids=IDS)
def test_second_derivative_equals_reference(name, fused, reference, smooth):
    array = _inputs((4, 3), np.float64)

    def second(fn):
        x = tg.tensor(array, requires_grad=True)
        (g,) = tg.autograd.grad(fn(x).pow(2).sum(), x, create_graph=True)
        g.sum().backward()
        return g.detach().numpy(), x.grad.numpy()

    for a, b in zip(second(fused), second(reference)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_select_equals_np_where(dtype):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 100)).astype(dtype)
    a[:3], b[3:6] = [np.inf, -np.inf, np.nan], [np.nan, -0.0, np.inf]
    mask = rng.random(100) < 0.5
    got = fast_math.select(mask, a, b)
    want = fast_math.select_reference(mask, a, b)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got.view(f"i{got.itemsize}"), want.view(f"i{want.itemsize}"))


@pytest.mark.oracle
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("softplus", {}),
        ("softplus", {"beta": 2.0, "threshold": 1.5}),
        ("logsigmoid", {}),
    ],
)
def test_against_pytorch(name, kwargs, dtype):
    torch = pytest.importorskip("torch")
    edges = EDGES
    array = np.concatenate([_inputs((500,), dtype), edges.astype(dtype)])
    g = np.linspace(-1.0, 1.0, array.size).astype(dtype)
    out, grad = _value_and_grad(lambda x: getattr(tg.nn.functional, name)(x, **kwargs), array, g)
    tx = torch.tensor(array, requires_grad=True)
    tout = getattr(torch.nn.functional, name)(tx, **kwargs)
    tout.backward(torch.tensor(g))
    rtol = 2e-6 if dtype == np.float32 else 1e-13
    _close(out, tout.detach().numpy(), rtol)
    _close(grad, tx.grad.numpy(), rtol)
