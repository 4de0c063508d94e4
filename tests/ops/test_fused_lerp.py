"""The one-node lerp with a tensor weight (ops/fused/lerp.py) against its composed reference
(pointwise_composed.lerp_reference) and PyTorch: values (exactly end at weight 1), gradients
(broadcast inputs), second derivatives, float32 and float64."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.gradcheck import gradcheck, gradgradcheck
from tinygrad_norm.ops.fused.lerp import Lerp
from tinygrad_norm.ops.pointwise_composed import lerp_reference

SHAPES = [((4, 5), (5,), (4, 5)), ((3, 1), (1, 4), (4,)), ((6,), (6,), (6,)), ((), (), ())]


def _run(fn, arrays, g):
    leaves = [tg.tensor(v, requires_grad=True) for v in arrays]
    out = fn(*leaves)
    out.backward(tg.tensor(g))
    return [out.detach().numpy()] + [leaf.grad.numpy() for leaf in leaves]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shapes", SHAPES)
def test_equals_reference(shapes, dtype):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    arrays[2] = (arrays[2] * 0.8 + 0.5).astype(dtype)  # weights on both sides of 1/2
    g = rng.standard_normal(np.broadcast_shapes(*shapes)).astype(dtype)
    rtol = 1e-13 if dtype == np.float64 else 2e-6
    for x, y in zip(_run(Lerp.apply, arrays, g), _run(lerp_reference, arrays, g)):
        assert x.dtype == dtype
        scale = np.abs(y).max(initial=0.0)  # (a broadcast input's gradient is a sum)
        np.testing.assert_allclose(x, y, rtol=rtol, atol=4 * rtol * scale)


def test_weight_one_gives_end_exactly_and_nan_stays():
    start = tg.tensor([0.1, 3.0, np.nan])
    end = tg.tensor([0.7, -2.0, 1.0])
    out = Lerp.apply(start, end, tg.tensor([1.0, 1.0, 0.25]))
    assert out.tolist()[:2] == end.tolist()[:2] and np.isnan(out.tolist()[2])


def test_gradcheck_and_gradgradcheck():
    rng = np.random.default_rng(1)
    leaves = [tg.tensor(rng.standard_normal(s), requires_grad=True) for s in ((3, 4), (4,), (3, 4))]
    assert gradcheck(Lerp.apply, leaves)
    assert gradgradcheck(Lerp.apply, leaves)


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_against_pytorch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal(s).astype(dtype) for s in ((40, 30), (30,), (40, 30))]
    arrays[2] = (arrays[2] + 0.5).astype(dtype)
    g = rng.standard_normal((40, 30)).astype(dtype)
    mine = _run(lambda a, b, w: tg.lerp(a, b, w), arrays, g)
    leaves = [torch.tensor(v, requires_grad=True) for v in arrays]
    out = torch.lerp(*leaves)
    out.backward(torch.tensor(g))
    theirs = [out.detach().numpy()] + [leaf.grad.numpy() for leaf in leaves]
    rtol = 1e-13 if dtype == np.float64 else 2e-6
    for x, y in zip(mine, theirs):
        np.testing.assert_allclose(x, y, rtol=rtol, atol=4 * rtol * np.abs(y).max())
