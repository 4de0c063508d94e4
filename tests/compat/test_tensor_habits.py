"""The PyTorch habits course code has on tensors, with no other home: t()/mT, dtype shorthands,
one-bound clamps, stride(), unbind, hstack/vstack, in-place unary ops and the in-place updates
of hand-written optimizers (addcmul_, addcdiv_, lerp_), copy_ and new_*, is_tensor / numel /
all / any / as_tensor, histogram / histc / bincount, F.tanh / F.sigmoid and
torch.testing.assert_close. Each against its formula in NumPy and, where PyTorch is installed,
against PyTorch (values and gradients)."""

import numpy as np
import pytest
from helpers import randn

import tinygrad_norm as tg
from tinygrad_norm import nn
from tinygrad_norm.nn import functional as F


# --- shape and dtype habits -----------------------------------------------------------------------
def test_t_and_mT_transpose_as_pytorch():
    w = tg.tensor(randn(2, 3))
    np.testing.assert_array_equal(w.t().numpy(), w.numpy().T)
    assert tg.ones(3).t().shape == (3,) and tg.tensor(2.0).t().shape == ()
    with pytest.raises(RuntimeError, match=r"t\(\) expects a tensor with <= 2 dimensions"):
        tg.ones(2, 3, 4).t()
    np.testing.assert_array_equal(tg.ones(2, 3, 4).mT.numpy(), np.ones((2, 4, 3)))
    with pytest.raises(RuntimeError, match="mT"):
        _ = tg.ones(3).mT
    x = tg.tensor(randn(2, 3), requires_grad=True)
    (x.t() * tg.tensor(randn(3, 2, seed=1))).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), randn(3, 2, seed=1).T)


def test_dtype_shorthands_clamps_stride_and_unbind():
    x = tg.tensor([1.7, -2.5, 300.0], dtype=tg.float64)
    assert x.int().dtype == tg.int32 and x.int().tolist() == [1, -2, 300]
    assert x.half().dtype == tg.float16 and x.short().dtype == tg.int16
    assert x.byte().dtype == tg.uint8 and x.char().dtype == tg.int8
    assert x.clamp_min(0).tolist() == [1.7, 0.0, 300.0] == tg.clamp_min(x, 0).tolist()
    assert x.clamp_max(0).tolist() == [0.0, -2.5, 0.0] == tg.clamp_max(x, 0).tolist()
    m = tg.ones(2, 3, 4)
    assert (
        m.stride() == (12, 4, 1) and m.stride(1) == 4 and m.transpose(0, 2).stride() == (1, 4, 12)
    )
    a = tg.arange(6).view(2, 3)
    assert [t.tolist() for t in tg.unbind(a, dim=1)] == [[0, 3], [1, 4], [2, 5]]
    assert [t.tolist() for t in a.unbind(-2)] == [[0, 1, 2], [3, 4, 5]]


def test_hstack_vstack_follow_numpy():
    a, b = randn(2, 3), randn(2, 1, seed=1)
    np.testing.assert_array_equal(
        tg.hstack([tg.tensor(a), tg.tensor(b)]).numpy(), np.hstack([a, b])
    )
    np.testing.assert_array_equal(
        tg.hstack([tg.ones(2), tg.zeros(3)]).numpy(), np.hstack([np.ones(2), np.zeros(3)])
    )
    np.testing.assert_array_equal(
        tg.vstack([tg.ones(3), tg.zeros(3)]).numpy(), np.vstack([np.ones(3), np.zeros(3)])
    )
    np.testing.assert_array_equal(
        tg.row_stack([tg.tensor(a), tg.ones(3)]).numpy(), np.vstack([a, np.ones(3)])
    )


# --- in place and new_* ---------------------------------------------------------------------------
def test_in_place_unary_ops_change_the_tensor_and_are_recorded():
    values = np.array([0.5, 1.5, 2.0])
    for name, formula in (
        ("exp_", np.exp), ("log_", np.log), ("sqrt_", np.sqrt), ("abs_", np.abs),
        ("neg_", np.negative), ("sigmoid_", lambda v: 1 / (1 + np.exp(-v))), ("tanh_", np.tanh),
        ("relu_", lambda v: np.maximum(v, 0)), ("clamp_min_", lambda v: np.maximum(v, 1.0)),
        ("clamp_max_", lambda v: np.minimum(v, 1.0)),
    ):  # fmt: skip
        x = tg.tensor(values.copy())
        args = (1.0,) if name.startswith("clamp") else ()
        assert getattr(x, name)(*args) is x
        np.testing.assert_allclose(x.numpy(), formula(values), rtol=1e-15, err_msg=name)
    w = tg.tensor(values, requires_grad=True)
    y = w * 2
    y.exp_()  # recorded: d/dw exp(2w) = 2 exp(2w)
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * np.exp(2 * values), rtol=1e-15)
    with pytest.raises(RuntimeError, match="leaf"):
        w.sigmoid_()


def test_hand_written_adam_with_addcmul_addcdiv_lerp_is_adam():
    """Adam (Kingma & Ba, 2015) written the way optimizer tutorials write it, in place, equals
    tg.optim.Adam's update."""
    p0, grads = randn(4), [randn(4, seed=s) for s in (1, 2, 3)]
    lr, (b1, b2), eps = 0.1, (0.9, 0.999), 1e-8
    p, m, v = tg.tensor(p0.copy()), tg.zeros(4, dtype=tg.float64), tg.zeros(4, dtype=tg.float64)
    for step, g in enumerate(grads, start=1):
        g = tg.tensor(g)
        m.lerp_(g, 1 - b1)  # m = b1 m + (1 - b1) g
        v.mul_(b2).addcmul_(g, g, value=1 - b2)  # v = b2 v + (1 - b2) g²
        denom = (v / (1 - b2**step)).sqrt().add_(eps)
        p.addcdiv_(m, denom, value=-lr / (1 - b1**step))
    q = nn.Parameter(tg.tensor(p0.copy()))
    adam = tg.optim.Adam([q], lr=lr, betas=(b1, b2), eps=eps)
    for g in grads:
        q.grad = tg.tensor(g)
        adam.step()
    np.testing.assert_allclose(p.numpy(), q.detach().numpy(), rtol=1e-13)
    np.testing.assert_allclose(
        tg.addcmul(tg.ones(2), tg.tensor([2.0, 3.0]), tg.tensor([4.0, 5.0]), value=0.5).numpy(),
        [5.0, 8.5],
    )
    np.testing.assert_allclose(
        tg.addcdiv(tg.ones(2), tg.tensor([2.0, 3.0]), tg.tensor([4.0, 6.0]), value=2).numpy(),
        [2.0, 2.0],
    )


def test_copy_and_new_tensors():
    x = tg.zeros(2, 3)
    assert x.copy_(tg.tensor([1.0, 2.0, 3.0])) is x
    np.testing.assert_array_equal(x.numpy(), [[1, 2, 3], [1, 2, 3]])
    w = tg.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="in-place"):
        w.copy_(tg.ones(2))
    with tg.no_grad():
        w.copy_(tg.ones(2))
    assert w.tolist() == [1.0, 1.0]
    d = tg.ones(1, dtype=tg.float64)
    assert d.new_zeros(2, 3).shape == (2, 3) and d.new_zeros((2,)).dtype == tg.float64
    assert d.new_ones(2).tolist() == [1.0, 1.0] and d.new_full((2,), 7).tolist() == [7.0, 7.0]
    assert d.new_tensor([1, 2]).dtype == tg.float64 and d.new_empty(3).shape == (3,)
    assert tg.zeros(4).random_(0, 3, generator=tg.Generator().manual_seed(0)).numpy().max() < 3
    assert tg.zeros(1000).exponential_(2.0).numpy().mean() == pytest.approx(0.5, abs=0.1)


# --- small functions ------------------------------------------------------------------------------
def test_is_tensor_numel_all_any_as_tensor():
    assert tg.is_tensor(tg.ones(1)) and not tg.is_tensor(np.ones(1))
    assert tg.numel(tg.ones(2, 3)) == 6 and tg.is_floating_point(tg.ones(1))
    assert tg.all(tg.tensor([1, 1])).item() is True and tg.all(tg.tensor([1, 0])).item() is False
    np.testing.assert_array_equal(tg.all(tg.tensor([[1, 1], [0, 1]]), dim=1).numpy(), [True, False])
    np.testing.assert_array_equal(
        tg.any(tg.tensor([[0, 0], [0, 1]]), 1, keepdim=True).numpy(), [[False], [True]]
    )
    a = np.ones(3, dtype=np.float32)
    shared = tg.as_tensor(a)
    a[0] = 5
    assert shared[0].item() == 5  # shares memory, as torch.as_tensor
    t = tg.ones(2)
    assert tg.as_tensor(t) is t and tg.as_tensor([1, 2]).dtype == tg.int64


@pytest.mark.oracle
def test_histogram_histc_bincount_match_pytorch():
    torch = pytest.importorskip("torch")
    x = np.array([1.0, 2.0, 1.0, 4.0, 2.5, -1.0], dtype=np.float32)
    for kwargs in ({"bins": 4}, {"bins": 3, "range": (0.0, 3.0)}, {"bins": 4, "density": True}):
        ours, theirs = (
            tg.histogram(tg.tensor(x), **kwargs),
            torch.histogram(torch.tensor(x), **kwargs),
        )
        np.testing.assert_allclose(ours.hist.numpy(), theirs.hist.numpy(), rtol=1e-6)
        np.testing.assert_allclose(ours.bin_edges.numpy(), theirs.bin_edges.numpy(), rtol=1e-6)
    edges = np.array([0.0, 2.0, 5.0], dtype=np.float32)
    ours = tg.histogram(tg.tensor(x), tg.tensor(edges), weight=tg.tensor(x * 0 + 2))
    theirs = torch.histogram(torch.tensor(x), torch.tensor(edges), weight=torch.tensor(x * 0 + 2))
    np.testing.assert_allclose(ours.hist.numpy(), theirs.hist.numpy())
    for kwargs in ({"bins": 4}, {"bins": 4, "min": 0, "max": 3}, {"bins": 5, "min": -2, "max": 2}):
        np.testing.assert_allclose(
            tg.histc(tg.tensor(x), **kwargs).numpy(), torch.histc(torch.tensor(x), **kwargs).numpy()
        )
    np.testing.assert_array_equal(
        tg.histc(tg.full((3,), 2.0), 4).numpy(), torch.histc(torch.full((3,), 2.0), 4).numpy()
    )
    i = np.array([0, 1, 1, 3])
    assert tg.bincount(tg.tensor(i)).tolist() == torch.bincount(torch.tensor(i)).tolist()
    assert (
        tg.bincount(tg.tensor(i), minlength=6).tolist()
        == torch.bincount(torch.tensor(i), minlength=6).tolist()
    )
    w = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
    ours, theirs = (
        tg.bincount(tg.tensor(i), tg.tensor(w)),
        torch.bincount(torch.tensor(i), torch.tensor(w)),
    )
    assert ours.tolist() == theirs.tolist() and str(ours.dtype) == str(theirs.dtype)
    for bad in (np.array([-1]), np.array([[1]]), np.array([1.0])):
        with pytest.raises(RuntimeError):
            torch.bincount(torch.tensor(bad))
        with pytest.raises(RuntimeError, match="bincount"):
            tg.bincount(tg.tensor(bad))


def test_f_tanh_and_sigmoid():
    x = tg.tensor([-1.0, 0.0, 2.0], dtype=tg.float64, requires_grad=True)
    np.testing.assert_allclose(F.tanh(x).detach().numpy(), np.tanh(x.detach().numpy()))
    np.testing.assert_allclose(F.sigmoid(x).detach().numpy(), 1 / (1 + np.exp(-x.detach().numpy())))
    assert tg.gradcheck(F.tanh, (x,)) and tg.gradcheck(F.sigmoid, (x,))


def test_assert_close_uses_pytorchs_default_tolerances():
    tg.testing.assert_close(tg.tensor([1.0, 2.0]), tg.tensor([1.0, 2.0 + 2e-6]))  # float32
    with pytest.raises(AssertionError, match=r"Mismatched elements: 1 / 2 \(50.0%\)"):
        tg.testing.assert_close(
            tg.tensor([1.0, 2.0], dtype=tg.float64), tg.tensor([1.0, 2.0 + 2e-6], dtype=tg.float64)
        )
    with pytest.raises(AssertionError, match="dtype"):
        tg.testing.assert_close(tg.ones(2), tg.ones(2, dtype=tg.float64))
    with pytest.raises(AssertionError, match="shape"):
        tg.testing.assert_close(tg.ones(2), tg.ones(3))
    tg.testing.assert_close({"a": [tg.ones(2)]}, {"a": [tg.ones(2)]})
    tg.testing.assert_close(tg.tensor([1.0]), tg.tensor([1.5]), rtol=0.5, atol=0.0)


# --- against PyTorch ------------------------------------------------------------------------------
@pytest.mark.oracle
def test_transposes_in_place_updates_info_and_stacking_match_pytorch():
    torch = pytest.importorskip("torch")
    a = randn(3, 4)
    ta, xa = torch.tensor(a), tg.tensor(a)
    np.testing.assert_array_equal(xa.t().numpy(), ta.t().numpy())
    assert xa.int().tolist() == ta.int().tolist() and xa.byte().tolist() != []
    assert xa.transpose(0, 1).stride() == ta.transpose(0, 1).stride()
    for name in ("exp_", "sigmoid_", "tanh_", "relu_", "abs_", "neg_"):
        w, tw = tg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        y, ty = getattr(w * 1.5, name)(), getattr(tw * 1.5, name)()
        (y * y).sum().backward()
        (ty * ty).sum().backward()
        np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-14, err_msg=name)
    b, c = randn(3, 4, seed=1), np.abs(randn(3, 4, seed=2)) + 0.5
    for name in ("addcmul_", "addcdiv_"):
        ours = getattr(tg.tensor(a), name)(tg.tensor(b), tg.tensor(c), value=0.3)
        theirs = getattr(torch.tensor(a), name)(torch.tensor(b), torch.tensor(c), value=0.3)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-15)
    np.testing.assert_allclose(
        tg.tensor(a).lerp_(tg.tensor(b), 0.3).numpy(),
        torch.tensor(a).lerp_(torch.tensor(b), 0.3).numpy(),
        rtol=1e-15,
    )
    for dtype in ("float16", "float32", "float64"):
        ours, theirs = tg.finfo(getattr(tg, dtype)), torch.finfo(getattr(torch, dtype))
        for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
            assert getattr(ours, attr) == getattr(theirs, attr), (dtype, attr)
    for dtype in ("uint8", "int8", "int16", "int32", "int64"):
        ours, theirs = tg.iinfo(getattr(tg, dtype)), torch.iinfo(getattr(torch, dtype))
        assert (ours.bits, ours.min, ours.max) == (theirs.bits, theirs.min, theirs.max)
    parts = [randn(2, 3), randn(2, 1, seed=1)]
    np.testing.assert_array_equal(
        tg.hstack([tg.tensor(p) for p in parts]).numpy(),
        torch.hstack([torch.tensor(p) for p in parts]).numpy(),
    )
    assert [t.tolist() for t in tg.unbind(tg.tensor(a), 1)] == [
        t.tolist() for t in torch.unbind(ta, 1)
    ]
