"""`.grad` accumulates in place, as PyTorch's AccumulateGrad: references stay live, no two
leaves share an array, create_graph replaces it with a differentiable Tensor, and assigning
`.grad` checks the type, shape and dtype."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm import nn


def test_a_second_backward_adds_into_the_same_tensor():
    w = tg.tensor([1.0, 2.0], requires_grad=True)
    (w * 5).sum().backward()
    g = w.grad
    (w * 3).sum().backward()
    assert w.grad is g
    np.testing.assert_array_equal(g.numpy(), [8.0, 8.0])


def test_zeroing_a_held_reference_reaches_the_parameter():
    w = tg.tensor([1.0, 2.0], requires_grad=True)
    (w * 5).sum().backward()
    g = w.grad
    g.zero_()
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0])
    (w * 2).sum().backward()
    assert w.grad is g and g.tolist() == [2.0, 2.0]


def test_two_leaves_never_share_one_array():
    a = tg.ones(3, requires_grad=True)
    b = tg.ones(3, requires_grad=True)
    (a + b).sum().backward()
    assert not np.shares_memory(a.grad.numpy(), b.grad.numpy())
    a.grad.add_(1)
    assert b.grad.tolist() == [1.0, 1.0, 1.0]


def test_two_leaves_never_share_one_array_under_create_graph():
    a = tg.ones(3, requires_grad=True)
    b = tg.ones(3, requires_grad=True)
    (a + b).sum().backward(create_graph=True)
    assert not np.shares_memory(a.grad.numpy(), b.grad.numpy())


def test_create_graph_replaces_grad_with_a_differentiable_tensor():
    w = tg.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward(create_graph=True)
    first = w.grad
    assert first.requires_grad
    (w * w * w).sum().backward(create_graph=True)
    assert w.grad is not first and w.grad.requires_grad
    np.testing.assert_allclose(w.grad.numpy(), 2 * np.array([1.0, 2.0]) + 3 * np.array([1.0, 4.0]))


def test_optimizer_zero_grad_without_none_keeps_the_tensor():
    w = nn.Parameter(tg.tensor([1.0, 2.0]))
    opt = tg.optim.SGD([w], lr=0.1)
    (w * 3).sum().backward()
    g = w.grad
    opt.zero_grad(set_to_none=False)
    assert w.grad is g and g.tolist() == [0.0, 0.0]


def test_module_zero_grad_without_none_keeps_the_tensor():
    layer = nn.Linear(2, 1)
    layer(tg.ones(1, 2)).sum().backward()
    g = layer.weight.grad
    layer.zero_grad(set_to_none=False)
    assert layer.weight.grad is g and g.tolist() == [[0.0, 0.0]]


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (tg.zeros(3), RuntimeError),
        (tg.zeros(2, dtype=tg.float64), RuntimeError),
        (tg.zeros(2, dtype=tg.int64), RuntimeError),
        ([1.0, 2.0], TypeError),
        (np.zeros(2, dtype=np.float32), TypeError),
    ],
)
def test_assigning_a_wrong_grad_is_refused(value, error):
    w = tg.zeros(2, requires_grad=True)
    with pytest.raises(error, match="grad"):
        w.grad = value
    assert w.grad is None


def test_assigning_a_right_grad_or_none_works():
    w = tg.zeros(2, requires_grad=True)
    g = tg.ones(2)
    w.grad = g
    assert w.grad is g
    (w * 2).sum().backward()
    assert w.grad is g and g.tolist() == [3.0, 3.0]
    w.grad = None
    assert w.grad is None


@pytest.mark.oracle
def test_grad_identity_matches_pytorch():
    torch = pytest.importorskip("torch")
    for lib in (tg, torch):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        (w * 5).sum().backward()
        g = w.grad
        (w * 3).sum().backward()
        assert g.tolist() == [8.0, 8.0] and w.grad is g
        with pytest.raises(RuntimeError):
            w.grad = lib.zeros(3)
        with pytest.raises(RuntimeError):
            w.grad = lib.zeros(2, dtype=lib.float64)
        with pytest.raises(TypeError):
            w.grad = [1.0, 2.0]


# --- a leaf's first gradient is taken without a copy only when nothing else can reach it ----------


def _separate(a, b) -> bool:
    return not np.shares_memory(np.asarray(a.numpy()), np.asarray(b.numpy()))


def test_the_gradient_passed_to_backward_is_copied_not_taken():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    g = tg.tensor([3.0, 4.0])
    x.backward(g)
    assert _separate(x.grad, g)
    for out in (x + 0, x * 1.0, x.clone(), x.reshape(2, 1).reshape(2)):
        x.grad = None
        out.backward(g)
        assert _separate(x.grad, g)
    x.grad.zero_()
    assert g.tolist() == [3.0, 4.0]


def test_a_gradient_a_hook_saw_or_a_node_keeps_is_copied():
    seen = []
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda grad: seen.append(grad))
    (x * 2).sum().backward()
    assert _separate(x.grad, seen[0])
    kept = []
    y = tg.tensor([1.0, 2.0], requires_grad=True)
    out = y * 3
    out.grad_fn.register_hook(lambda grad_inputs, grad_outputs: kept.append(grad_inputs[0]))
    out.sum().backward()
    assert _separate(y.grad, kept[0])

    constant = np.full(2, 5.0)

    class Keep(tg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1.0

        @staticmethod
        def backward(ctx, grad_output):
            return constant  # an array someone else holds

    z = tg.tensor([1.0, 2.0], requires_grad=True)
    Keep.apply(z).sum().backward()
    assert not np.shares_memory(z.grad.numpy(), constant)


class _NoGradient(tg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    def backward(ctx, g):
        return None


@pytest.mark.parametrize("path", ["clone", "times one", "plus zero", "reshape"])
def test_a_gradient_a_hook_kept_is_not_the_leaf_grad_when_another_edge_sends_none(path):
    """The last edge into x carries None (a custom backward's), so x's gradient is delivered
    from another place in the loop: `.grad` is still a copy, not the array the hook kept."""
    make = {
        "clone": lambda x: x.clone(),
        "times one": lambda x: x * 1,
        "plus zero": lambda x: x + 0,
        "reshape": lambda x: x.reshape(3, 1).reshape(3),
    }[path]
    kept = []
    x = tg.zeros(3, requires_grad=True)
    y = make(x)
    y.register_hook(kept.append)
    (_NoGradient.apply(x).sum() + (y * tg.tensor([1.0, 2.0, 3.0])).sum()).backward()
    kept[0].mul_(100)
    assert x.grad.tolist() == [1.0, 2.0, 3.0]  # PyTorch's
