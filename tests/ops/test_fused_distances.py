"""Euclidean cdist by the matrix product (ops/fused/cdist.py) against its composed reference:
values, gradients (plain backward on arrays), first and second derivatives on the recorded
path (gradcheck, gradgradcheck in float64), zero distances, PyTorch's compute_mode rule,
and against torch.cdist."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.ops.fused import Cdist, cdist_mm, cdist_reference

SHAPES = [((5, 3), (4, 3)), ((2, 30, 6), (2, 7, 6)), ((1, 2, 3, 4), (1, 2, 5, 4))]


def _pair(shapes, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def _value_and_grads(fn, arrays, g):
    leaves = [tg.tensor(a, requires_grad=True) for a in arrays]
    out = fn(*leaves)
    out.backward(tg.tensor(g))
    return [out.detach().numpy()] + [leaf.grad.numpy() for leaf in leaves]


@pytest.mark.parametrize("shapes", SHAPES)
def test_cdist_mm_equals_the_composed_reference(shapes):
    arrays = _pair(shapes)
    g = np.random.default_rng(1).standard_normal(shapes[0][:-1] + shapes[1][-2:-1])
    fast = _value_and_grads(cdist_mm, arrays, g)
    ref = _value_and_grads(cdist_reference, arrays, g)
    for a, b in zip(fast, ref):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shapes", SHAPES[:2])
def test_cdist_mm_first_and_second_derivatives(shapes):
    leaves = [tg.tensor(a, requires_grad=True) for a in _pair(shapes, 2)]
    assert tg.autograd.gradcheck(cdist_mm, leaves)
    assert tg.autograd.gradgradcheck(cdist_mm, leaves)


def test_zero_distance_has_zero_gradient_and_float32_is_kept():
    x = tg.tensor([[1.0, 2.0], [0.0, 0.0]], dtype=tg.float32, requires_grad=True)
    y = tg.tensor([[1.0, 2.0]], dtype=tg.float32, requires_grad=True)
    out = cdist_mm(x, y)
    out.sum().backward()
    assert out.dtype == tg.float32 and out.tolist()[0] == [0.0]
    assert x.grad.tolist()[0] == [0.0, 0.0] and np.isfinite(y.grad.numpy()).all()


def test_the_compute_mode_rule_picks_the_matrix_product():
    def node(shapes, **kw):
        a, b = (tg.tensor(v, requires_grad=True) for v in _pair(shapes))
        return tg.cdist(a, b, **kw).grad_fn.fn is Cdist

    assert node(((26, 3), (4, 3))) and node(((4, 3), (26, 3)))
    assert not node(((25, 3), (25, 3)))
    assert node(((5, 3), (4, 3)), compute_mode="use_mm_for_euclid_dist")
    assert not node(((30, 3), (30, 3)), compute_mode="donot_use_mm_for_euclid_dist")
    a, b = (tg.tensor(v, requires_grad=True) for v in _pair(((30, 3), (30, 3))))
    assert tg.cdist(a, b, p=1.0).grad_fn.fn is not Cdist


@pytest.mark.oracle
@pytest.mark.parametrize("mode", [None, "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"])
@pytest.mark.parametrize("shapes", [((3, 40, 7), (3, 30, 7)), ((6, 4), (5, 4))])
def test_cdist_matches_torch(shapes, mode):
    torch = pytest.importorskip("torch")
    arrays = _pair(shapes, 3)
    g = np.random.default_rng(4).standard_normal(shapes[0][:-1] + shapes[1][-2:-1])
    kw = {} if mode is None else {"compute_mode": mode}
    mine = _value_and_grads(lambda a, b: tg.cdist(a, b, **kw), arrays, g)
    leaves = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = torch.cdist(*leaves, **kw)
    out.backward(torch.tensor(g))
    theirs = [out.detach().numpy()] + [leaf.grad.numpy() for leaf in leaves]
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)
