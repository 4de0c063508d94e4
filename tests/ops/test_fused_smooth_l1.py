"""smooth_l1_loss and huber_loss as one elementwise node (ops/fused/smooth_l1.py) against the
composed reference and PyTorch: values and gradients (the same numbers), first and second
derivatives, edge values (|d| = beta, inf, NaN), float32 kept."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.ops.fused import SmoothL1, smooth_l1_reference

EDGES = [0.7, -0.7, 0.5, -0.5, 1.0, 0.0, 1e-300, np.inf, -np.inf, np.nan]
SETTINGS = [(0.5, 1.0), (1.0, 1.0), (0.7, 0.7), (2.0, 2.0)]  # (beta, c): smooth_l1, huber


def _values(seed=0):
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.standard_normal(60) * 2, EDGES]), rng.standard_normal(70) * 0.1


def _value_and_grads(fn, x, t, g):
    leaves = [tg.tensor(x, requires_grad=True), tg.tensor(t, requires_grad=True)]
    out = fn(*leaves)
    out.backward(tg.tensor(g))
    return [out.detach().numpy()] + [leaf.grad.numpy() for leaf in leaves]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("beta, c", SETTINGS)
def test_equals_the_composed_reference(beta, c):
    x, t = _values()
    g = np.random.default_rng(1).standard_normal(x.size)
    fast = _value_and_grads(lambda a, b: SmoothL1.apply(a, b, beta=beta, c=c), x, t, g)
    ref = _value_and_grads(lambda a, b: smooth_l1_reference(a, b, beta, c), x, t, g)
    for mine, want in zip(fast, ref):
        finite = np.isfinite(want)  # (the reference's 0 * inf pieces give NaN at +-inf)
        np.testing.assert_array_equal(mine[finite], want[finite])


@pytest.mark.parametrize("beta, c", SETTINGS)
def test_first_and_second_derivatives(beta, c):
    rng = np.random.default_rng(2)
    leaves = [tg.tensor(rng.standard_normal((3, 4)) * 2, requires_grad=True) for _ in range(2)]
    fn = lambda a, b: SmoothL1.apply(a, b, beta=beta, c=c)  # noqa: E731
    assert tg.autograd.gradcheck(fn, leaves)
    assert tg.autograd.gradgradcheck(fn, leaves)


def test_float32_and_one_node():
    x = tg.tensor([0.1, 3.0], dtype=tg.float32, requires_grad=True)
    loss = tg.nn.functional.huber_loss(x, tg.zeros(2), reduction="none", delta=0.5)
    assert loss.dtype == tg.float32 and loss.grad_fn.fn is SmoothL1


@pytest.mark.oracle
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(
    "name, options",
    [("smooth_l1_loss", {"beta": 0.5}), ("huber_loss", {"delta": 0.7}), ("huber_loss", {})],
)
def test_same_numbers_as_torch(name, options):
    torch = pytest.importorskip("torch")
    x, t = _values(3)
    g = np.random.default_rng(4).standard_normal(x.size)
    mine = _value_and_grads(
        lambda a, b: getattr(tg.nn.functional, name)(a, b, reduction="none", **options), x, t, g
    )
    leaves = [torch.tensor(x, requires_grad=True), torch.tensor(t, requires_grad=True)]
    out = getattr(torch.nn.functional, name)(*leaves, reduction="none", **options)
    out.backward(torch.tensor(g))
    theirs = [out.detach().numpy()] + [leaf.grad.numpy() for leaf in leaves]
    for a, b in zip(mine, theirs):
        np.testing.assert_array_equal(a, b)
