"""The array path of backward (`ops/xp.py`): without create_graph the primitives' backward
formulas run on the bare arrays. They must apply no Function, keep float32 float32, sum a
reused value's gradients without keeping them all, and accept NumPy scalars (what arithmetic
on 0-d arrays gives)."""

import tracemalloc

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.autograd import engine, function
from tinygrad_norm.ops import xp

PRIMITIVE_CHAINS = {  # forward from (a, b), two (3, 4) tensors; all of these are xp backwards
    "mul div sub neg": lambda a, b: -(a * b / (b + 3.0) - a),
    "exp log sqrt tanh sigmoid relu abs erf": lambda a, b: (
        a.exp().log().relu().abs().sqrt().tanh().sigmoid().erf()
    ),
    "matmul": lambda a, b: a @ b.transpose(0, 1),
    "sum max reshape permute getitem cat": lambda a, b: tg.cat(
        [a.sum(0, keepdim=True), b.amax(1).reshape(1, 3)[:, :2].permute(1, 0).reshape(1, 2)], 1
    ),
}


@pytest.mark.parametrize("name", list(PRIMITIVE_CHAINS))
def test_no_function_is_applied_in_a_plain_backward(name, monkeypatch):
    rng = np.random.default_rng(0)
    a, b = (tg.tensor(rng.uniform(0.5, 1.5, (3, 4)), requires_grad=True) for _ in range(2))
    out = PRIMITIVE_CHAINS[name](a, b).sum()
    applied = []
    original = function.Function.apply.__func__
    monkeypatch.setattr(
        function.Function,
        "apply",
        classmethod(lambda cls, *x, **k: applied.append(cls.__name__) or original(cls, *x, **k)),
    )
    out.backward()
    assert applied == []  # no Tensor op ran: every formula ran on arrays
    assert a.grad is not None


@pytest.mark.parametrize("name", list(PRIMITIVE_CHAINS))
def test_float32_stays_float32_and_nothing_is_fixed(name):
    rng = np.random.default_rng(1)
    a, b = (
        tg.tensor(rng.uniform(0.5, 1.5, (3, 4)).astype(np.float32), requires_grad=True)
        for _ in range(2)
    )
    out = PRIMITIVE_CHAINS[name](a, b).sum()
    nodes = engine.topological_sort([out.grad_fn])
    out.backward(retain_graph=True)
    assert all(t.grad is None or t.grad.dtype == np.float32 for t in (a, b))
    assert all(not node.fixes for node in nodes)  # no gradient needed a cast or a reshape


def test_a_weight_used_at_every_step_keeps_one_gradient_sum():
    # 100 uses of W: the gradients are added into one sum as they arrive, not kept until the
    # end (that held 100 MiB here).
    rng = np.random.default_rng(2)
    w = tg.tensor(rng.standard_normal((512, 512)).astype(np.float32) * 0.01, requires_grad=True)
    h = tg.ones(1, 512)
    for _ in range(100):
        h = (h @ w).tanh()
    loss = h.sum()
    tracemalloc.start()
    try:
        loss.backward()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 * 2**20  # a gradient of w is 1 MiB


def test_the_sum_of_many_uses_is_right():
    w = tg.tensor([1.0, 2.0], requires_grad=True)
    total = w * 0.0
    for k in range(1, 6):
        total = total + w * float(k)
    total.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [15.0, 15.0])  # 1 + 2 + 3 + 4 + 5


def test_xp_helpers_take_numpy_scalars():
    half = np.array(0.5) * np.array(1.0)  # 0-d arithmetic gives a NumPy scalar, not an array
    assert not isinstance(half, np.ndarray)
    assert xp.exp_(half) == pytest.approx(np.exp(0.5))
    assert xp.tanh_(half) == pytest.approx(np.tanh(0.5))
    assert xp.masked_fill_(half, np.array(True), -1.0) == -1.0
    assert xp.exp(half) == pytest.approx(np.exp(0.5))


def test_matmul_primitive_names_its_2d_rule():
    with pytest.raises(ValueError, match="MatMul: both inputs need at least 2 dimensions"):
        function.Function.apply.__func__(
            tg.ops.linalg.MatMul, tg.ones(3, requires_grad=True), tg.ones(3, 2)
        )
