"""The one-node logaddexp (ops/fused/logaddexp.py) against its composed reference
(pointwise_composed.logaddexp_reference) and PyTorch: values, gradients (broadcast inputs),
second derivatives, float32 and float64, infinities and NaN."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.gradcheck import gradcheck, gradgradcheck
from tinygrad_norm.ops.fused.logaddexp import LogAddExp
from tinygrad_norm.ops.pointwise_composed import logaddexp_reference

EDGES = np.array([0.0, -0.0, 1.0, -1.0, 30.0, -30.0, 100.0, -100.0, np.inf, -np.inf, np.nan])


def _run(fn, a0, b0, g):
    a, b = (tg.tensor(v, requires_grad=True) for v in (a0, b0))
    out = fn(a, b)
    out.backward(tg.tensor(g))
    return out.detach().numpy(), a.grad.numpy(), b.grad.numpy()


def _close(x, y, rtol):
    np.testing.assert_array_equal(np.isnan(x), np.isnan(y))
    finite = np.isfinite(y)
    np.testing.assert_array_equal(x[~finite], y[~finite])
    scale = np.abs(y[finite]).max(initial=0.0)  # (a broadcast input's gradient is a sum)
    np.testing.assert_allclose(x[finite], y[finite], rtol=rtol, atol=4 * rtol * scale)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shapes", [((4, 5), (5,)), ((3, 1), (1, 4)), ((6,), (6,)), ((), ())])
def test_equals_reference(shapes, dtype):
    rng = np.random.default_rng(0)
    a0, b0 = (rng.standard_normal(s).astype(dtype) * 3 for s in shapes)
    g = rng.standard_normal(np.broadcast_shapes(*shapes)).astype(dtype)
    rtol = 1e-13 if dtype == np.float64 else 2e-6
    for x, y in zip(_run(LogAddExp.apply, a0, b0, g), _run(logaddexp_reference, a0, b0, g)):
        assert x.dtype == dtype
        _close(x, y, rtol)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_edge_values_as_the_reference(dtype):
    a0, b0 = (v.ravel().astype(dtype) for v in np.meshgrid(EDGES, EDGES))
    g = np.linspace(-1.0, 2.0, a0.size).astype(dtype)
    rtol = 1e-13 if dtype == np.float64 else 2e-6
    for x, y in zip(_run(LogAddExp.apply, a0, b0, g), _run(logaddexp_reference, a0, b0, g)):
        _close(x, y, rtol)


def test_gradcheck_and_gradgradcheck():
    rng = np.random.default_rng(1)
    a = tg.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    b = tg.tensor(rng.standard_normal((4,)), requires_grad=True)
    assert gradcheck(LogAddExp.apply, (a, b))
    assert gradgradcheck(LogAddExp.apply, (a, b))


def test_logaddexp_is_the_node_for_floats_and_composed_for_mixed_dtypes():
    a, b = tg.tensor([1.0, 2.0]), tg.tensor([0.5, 0.0])
    assert "LogAddExp" in repr(tg.logaddexp(a.requires_grad_(), b).grad_fn)
    mixed = tg.logaddexp(tg.tensor([1.0], dtype=tg.float64), tg.tensor([2.0]))
    np.testing.assert_allclose(mixed.numpy(), np.logaddexp(1.0, 2.0))


@pytest.mark.oracle
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_against_pytorch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    a0 = np.concatenate([rng.standard_normal(400) * 5, EDGES[EDGES == EDGES]]).astype(dtype)
    b0 = np.concatenate([rng.standard_normal(400) * 5, -EDGES[EDGES == EDGES]]).astype(dtype)
    g = np.linspace(-1.0, 1.0, a0.size).astype(dtype)
    out, ga, gb = _run(lambda a, b: tg.logaddexp(a, b), a0, b0, g)
    ta, tb = (torch.tensor(v, requires_grad=True) for v in (a0, b0))
    tout = torch.logaddexp(ta, tb)
    tout.backward(torch.tensor(g))
    rtol = 1e-13 if dtype == np.float64 else 2e-6
    for x, y in ((out, tout.detach()), (ga, ta.grad), (gb, tb.grad)):
        _close(x, y.numpy(), rtol)
