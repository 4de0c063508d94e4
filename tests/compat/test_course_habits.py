"""The PyTorch habits the course programs (tests/programs/) need: t()/mT, dtype shorthands,
one-bound clamps, stride(), in-place unary ops and the in-place updates of hand-written
optimizers (addcmul_, addcdiv_, lerp_), finfo/iinfo, hstack/vstack/unbind,
torch.testing.assert_close, Dropout1d/2d and AlphaDropout modules. Each against its formula in
NumPy and, where PyTorch is installed, against PyTorch (values and gradients)."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm import nn


def randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


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


def test_finfo_and_iinfo():
    for dtype, np_dtype in (
        (tg.float32, np.float32),
        (tg.float64, np.float64),
        (tg.float16, np.float16),
    ):
        info = tg.finfo(dtype)
        assert (info.eps, info.max, info.min, info.tiny, info.bits) == (
            np.finfo(np_dtype).eps, np.finfo(np_dtype).max, np.finfo(np_dtype).min,
            np.finfo(np_dtype).smallest_normal, np.finfo(np_dtype).bits,
        )  # fmt: skip
    assert tg.finfo().eps == np.finfo(np.float32).eps
    assert (tg.iinfo(tg.int64).max, tg.iinfo(tg.uint8).min, tg.iinfo(tg.int32).bits) == (
        2**63 - 1,
        0,
        32,
    )
    with pytest.raises(TypeError, match="floating point"):
        tg.finfo(tg.int64)
    with pytest.raises(TypeError, match="integer"):
        tg.iinfo(tg.float32)


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


def test_channel_dropout_modules():
    tg.manual_seed(0)
    out = nn.Dropout2d(p=0.5)(tg.ones(4, 8, 3, 3)).numpy()
    assert set(np.unique(out)) <= {0.0, 2.0}
    assert (out.min(axis=(2, 3)) == out.max(axis=(2, 3))).all()  # whole channels
    assert nn.Dropout1d(0.5).eval()(tg.ones(2, 3, 4)).tolist() == tg.ones(2, 3, 4).tolist()
    assert repr(nn.AlphaDropout(0.2)) == "AlphaDropout(p=0.2, inplace=False)"
    x = tg.tensor(randn(1000))
    assert nn.AlphaDropout(0.2).eval()(x) is x


@pytest.mark.oracle
def test_against_pytorch():
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


def test_trunc_normal_stays_in_bounds_with_the_truncated_variance():
    """N(0, 1) truncated to [-2, 2] has variance 1 - 2 * 2 phi(2) / (Phi(2) - Phi(-2))."""
    w = nn.init.trunc_normal_(
        tg.empty(40000, dtype=tg.float64), generator=tg.Generator().manual_seed(0)
    )
    values = w.numpy()
    assert values.min() >= -2 and values.max() <= 2
    phi2 = np.exp(-2.0) / np.sqrt(2 * np.pi)
    z = 0.9544997361036416  # Phi(2) - Phi(-2)
    assert abs(values.var() - (1 - 4 * phi2 / z)) < 0.02
    small = nn.init.trunc_normal_(tg.empty(1000), mean=1.0, std=0.02, a=0.98, b=1.01).numpy()
    assert small.min() >= 0.98 and small.max() <= 1.01


def test_orthogonal_gives_orthonormal_rows_or_columns_times_gain():
    wide = nn.init.orthogonal_(tg.empty(3, 5, dtype=tg.float64)).numpy()
    np.testing.assert_allclose(wide @ wide.T, np.eye(3), atol=1e-12)
    tall = nn.init.orthogonal_(tg.empty(6, 2, 2, dtype=tg.float64), gain=2.0).numpy().reshape(6, 4)
    np.testing.assert_allclose(tall.T @ tall, 4 * np.eye(4), atol=1e-12)
    with pytest.raises(ValueError, match="2 or more dimensions"):
        nn.init.orthogonal_(tg.empty(3))
    g1, g2 = tg.Generator().manual_seed(3), tg.Generator().manual_seed(3)
    a = nn.init.orthogonal_(tg.empty(4, 4), generator=g1).numpy()
    assert (a == nn.init.orthogonal_(tg.empty(4, 4), generator=g2).numpy()).all()
