"""Module hooks (forward, forward pre, full backward, full backward pre) and their handles, each
checked against what it must do and, where PyTorch is installed, against PyTorch."""

import numpy as np
import pytest
from helpers import randn

import tinygrad_norm as tg
from tinygrad_norm import nn


def _torch():
    return pytest.importorskip("torch")


# --- forward hooks ------------------------------------------------------------------------------
def test_forward_pre_hook_and_forward_hook_replace_args_and_output():
    layer = nn.Identity()
    calls = []
    layer.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
    layer.register_forward_pre_hook(lambda m, args: calls.append("first"), prepend=True)
    handle = layer.register_forward_hook(lambda m, args, out: out + 1)
    assert layer(tg.tensor([1.0])).tolist() == [3.0]
    handle.remove()
    assert layer(tg.tensor([1.0])).tolist() == [2.0]
    assert calls == ["first", "first"]


def test_hooks_with_kwargs_and_always_call():
    class Scale(nn.Module):
        def forward(self, x, factor=1.0):
            if factor < 0:
                raise ValueError("negative")
            return x * factor

    module, seen = Scale(), []
    module.register_forward_pre_hook(
        lambda m, args, kwargs: (args, {**kwargs, "factor": kwargs["factor"] * 10}),
        with_kwargs=True,
    )
    module.register_forward_hook(
        lambda m, args, kwargs, out: seen.append(kwargs["factor"]), with_kwargs=True
    )
    module.register_forward_hook(lambda m, a, out: seen.append("always"), always_call=True)
    assert module(tg.tensor([1.0]), factor=2.0).tolist() == [20.0]
    with pytest.raises(ValueError):
        module(tg.tensor([1.0]), factor=-1.0)
    assert seen == [20.0, "always", "always"]
    bad = nn.Identity()
    bad.register_forward_pre_hook(lambda m, a, k: a, with_kwargs=True)
    with pytest.raises(RuntimeError, match="new_args, new_kwargs"):
        bad(tg.tensor([1.0]))


def test_handle_is_a_context_manager():
    layer = nn.Identity()
    with layer.register_forward_hook(lambda m, a, out: out * 0):
        assert layer(tg.tensor([5.0])).tolist() == [0.0]
    assert layer(tg.tensor([5.0])).tolist() == [5.0]


# --- full backward hooks ------------------------------------------------------------------------
class Mix(nn.Module):
    """y = w * a + b**2: two inputs, to see both of grad_input at once."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(tg.tensor([2.0, 3.0]))

    def forward(self, a, b):
        return self.w * a + b * b


def test_full_backward_hook_sees_every_input_gradient_and_can_replace_them():
    mix = Mix()
    seen = []

    def hook(module, grad_input, grad_output):
        seen.append([g.tolist() for g in grad_input] + [grad_output[0].tolist()])
        return (grad_input[0] * 10, grad_input[1])

    mix.register_full_backward_hook(hook)
    a = tg.tensor([1.0, 1.0], requires_grad=True)
    b = tg.tensor([1.0, 2.0], requires_grad=True)
    (mix(a, b) * tg.tensor([1.0, -1.0])).sum().backward()
    # dy/da = w, dy/db = 2b, times the upstream gradient (1, -1)
    assert seen == [[[2.0, -3.0], [2.0, -4.0], [1.0, -1.0]]]
    assert a.grad.tolist() == [20.0, -30.0] and b.grad.tolist() == [2.0, -4.0]
    assert mix.w.grad.tolist() == [1.0, -1.0]  # the parameter's gradient is not touched


def test_full_backward_hook_when_no_input_requires_grad_and_none_for_unused():
    layer = nn.Linear(2, 1)
    seen = []
    layer.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go[0].shape)))
    layer(tg.ones(3, 2)).sum().backward()
    assert seen == [((None,), (3, 1))]

    class FirstOnly(nn.Module):
        def forward(self, a, b):
            return a * 2

    first = FirstOnly()
    first.register_full_backward_hook(lambda m, gi, go: seen.append(gi))
    a, b = tg.ones(2, requires_grad=True), tg.ones(2, requires_grad=True)
    first(a, b).sum().backward()
    assert seen[-1][0].tolist() == [2.0, 2.0] and seen[-1][1] is None


def test_backward_pre_hook_replaces_grad_output():
    layer = nn.Identity()
    layer.register_full_backward_pre_hook(lambda m, go: (go[0] * 3,))
    x = tg.ones(2, requires_grad=True)
    layer(x).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


@pytest.mark.oracle
def test_backward_hooks_match_pytorch():
    torch = _torch()

    def run(lib, mod):
        log = []
        model = mod.Sequential(mod.Linear(3, 4), mod.Tanh(), mod.Linear(4, 2)).double()
        state = {k: randn(*v.shape, seed=i) for i, (k, v) in enumerate(model.state_dict().items())}
        model.load_state_dict({k: lib.tensor(v) for k, v in state.items()})

        def record(m, grad_input, grad_output):
            log.append(
                [None if g is None else g.detach().numpy().copy() for g in grad_input + grad_output]
            )

        for m in model:
            m.register_full_backward_hook(record)
        model[1].register_full_backward_hook(lambda m, gi, go: (gi[0] * 0.5,))
        model.register_full_backward_pre_hook(
            lambda m, go: log.append([go[0].detach().numpy().copy()])
        )
        x = lib.tensor(randn(5, 3, seed=9), requires_grad=True)
        (model(x) ** 2).sum().backward()
        log.append([x.grad.numpy().copy()])
        return log

    ours, theirs = run(tg, nn), run(torch, torch.nn)
    assert [len(entry) for entry in ours] == [len(entry) for entry in theirs]
    for a_entry, b_entry in zip(ours, theirs):
        for a, b in zip(a_entry, b_entry):
            np.testing.assert_allclose(a, b, rtol=1e-12)
