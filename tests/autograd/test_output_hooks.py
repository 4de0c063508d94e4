"""Tensor hooks and `retain_grad()` on a node's outputs, PyTorch's order: the output's own
hooks (called with None for an output of several that received no gradient), then
retain_grad / autograd.grad's capture, then the node's pre-hooks. Also on one output of a
Function with several outputs, and on the outputs of sort / topk / unbind / split / chunk.
The same script runs on tinygrad_norm and, in the oracle leg, on PyTorch."""

import numpy as np
import pytest

import tinygrad_norm as tg


def scenarios(torch) -> list:
    """Every observed value, in order (None where there is no gradient)."""

    class SinCos(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx, grad_sin, grad_cos):
            (x,) = ctx.saved_tensors
            return grad_sin * x.cos() - grad_cos * x.sin()

    seen = []

    def show(t):
        seen.append(None if t is None else t.detach().numpy().round(12).tolist())

    def leaf():
        return torch.tensor([0.5, -1.25], dtype=torch.float64, requires_grad=True)

    # a hook on each output, one output used: the other's hook sees None
    x = leaf()
    s, c = SinCos.apply(x)
    s.register_hook(lambda g: (show(g), g * 10)[1])
    c.register_hook(lambda g: show(g))
    s.retain_grad()
    c.retain_grad()
    s.grad_fn.register_prehook(lambda grads: [show(g) for g in grads] and None)
    s.sum().backward()
    for t in (x.grad, s.grad, c.grad):
        show(t)

    # retain_grad keeps the hooked gradient whichever was registered first
    for retain_first in (True, False):
        x = leaf()
        s, c = SinCos.apply(x)
        if retain_first:
            c.retain_grad()
        handle = c.register_hook(lambda g: g * 3)
        c.register_hook(lambda g: g + 1)
        if not retain_first:
            c.retain_grad()
        (s * 2 + c * 5).sum().backward(retain_graph=True)
        show(c.grad), show(x.grad)
        handle.remove()
        (s * 2 + c * 5).sum().backward()
        show(c.grad), show(x.grad)

    # a node pre-hook runs after retain_grad (one output and several)
    x = leaf()
    y = x * 2
    y.retain_grad()
    y.grad_fn.register_prehook(lambda grads: (grads[0] * 10,))
    y.sum().backward()
    show(y.grad), show(x.grad)
    s, c = SinCos.apply(x)
    s.retain_grad()
    s.grad_fn.register_prehook(lambda grads: (grads[0] * 10, grads[1]))
    (s + c).sum().backward()
    show(s.grad), show(x.grad)

    # autograd.grad of an output: its hooks apply, the node's pre-hooks do not
    x = leaf()
    s, c = SinCos.apply(x)
    c.register_hook(lambda g: g * 7)
    c.grad_fn.register_prehook(lambda grads: (grads[0] * 100, grads[1] * 100))
    loss = (s * 3 + c * 4).sum()
    for t in torch.autograd.grad(loss, c, retain_graph=True):
        show(t)
    for t in torch.autograd.grad(loss, x):
        show(t)

    # an output changed in place after retain_grad(): .grad is the new value's gradient
    x = leaf()
    s, c = SinCos.apply(x)
    s.retain_grad()
    s.mul_(3)
    (s + c).sum().backward()
    show(s.grad), show(x.grad)

    # create_graph: the kept gradient of one output is itself differentiable
    x = leaf()
    s, c = SinCos.apply(x)
    c.retain_grad()
    (s * c).sum().backward(create_graph=True)
    show(c.grad)
    c.grad.sum().backward()
    show(x.grad)

    # autograd.grad runs only the nodes that lead to the inputs it asked for: no other hook
    x, w = leaf(), leaf()
    a, b = x * 2, w * 3
    b.register_hook(lambda g: show(g))  # never called
    for t in torch.autograd.grad((a + b).sum(), x):
        show(t)
    show(w.grad)

    # a custom Function that no gradient reached still runs its backward (on zeros), as PyTorch
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            show(grad)
            return grad * 3 * x**2

    class SendsNothing(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            return None

    x = leaf()
    a, b = SendsNothing.apply(Cube.apply(x))
    (a + b).sum().backward()
    show(x.grad)  # zeros, not None

    # built-in ops with several results
    x = torch.tensor([[3.0, -1.0, 2.0], [0.5, 4.0, -2.0]], dtype=torch.float64, requires_grad=True)
    weights = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.float64)
    values, _ = x.sort(dim=1)
    top, _ = x.topk(2, dim=1)
    first, second = x.unbind(0)
    left, right = x.split([1, 2], dim=1)
    a, b = x.chunk(2, dim=0)
    outputs = (values, top, first, second, left, right, a, b)
    for k, t in enumerate(outputs):
        t.retain_grad()
        t.register_hook(lambda g, k=k: g * (k + 2))
    loss = sum((t * weights[..., : t.shape[-1]]).sum() for t in outputs)
    loss.backward()
    for t in (*outputs, x.grad):
        show(t.grad if t is not x.grad else t)
    return seen


def test_hooks_and_retain_grad_on_outputs():
    seen = scenarios(tg)
    # one output used: the other output's hook saw None, the node's pre-hook (None, ...)
    assert seen[0] == [1.0, 1.0] and seen[1] is None
    assert seen[2] == [10.0, 10.0] and seen[3] is None
    np.testing.assert_allclose(seen[4], 10 * np.cos([0.5, -1.25]))
    assert seen[5] == [10.0, 10.0] and seen[6] is None
    assert seen[7] == [16.0, 16.0]  # (5 * 3) + 1
    np.testing.assert_allclose(seen[8], 2 * np.cos([0.5, -1.25]) - 16 * np.sin([0.5, -1.25]))


@pytest.mark.oracle
@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph")
def test_hooks_and_retain_grad_on_outputs_as_pytorch():
    torch = pytest.importorskip("torch")
    ours, theirs = scenarios(tg), scenarios(torch)
    assert len(ours) == len(theirs)
    for k, (a, b) in enumerate(zip(ours, theirs)):
        assert (a is None) == (b is None), (k, a, b)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-10, err_msg=f"value {k}")


@pytest.mark.parametrize("wrt", ["x", "y"])
def test_retain_grad_is_kept_under_autograd_grad_too(wrt):
    """PyTorch stores a retained gradient also when autograd.grad runs the graph."""
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    tg.autograd.grad((y * y).sum(), [x if wrt == "x" else y])
    assert y.grad.tolist() == [4.0, 8.0]  # torch 2.13's
    assert x.grad is None
