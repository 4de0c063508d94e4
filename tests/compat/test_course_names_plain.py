"""The names added for course code, checked without PyTorch: NumPy/Python formulas, float64
gradient checks, and the behaviour of the PyTorch-only modules on one CPU process."""

import math

import numpy as np
import pytest

import tinygrad_norm as tg

RNG = np.random.default_rng(3)


def test_lgamma_is_pythons_and_digamma_its_derivative():
    x = np.array([0.3, 1.0, 2.5, 9.0, 31.0, -0.5, -4.2])
    np.testing.assert_allclose(tg.lgamma(tg.tensor(x)).numpy(), [math.lgamma(v) for v in x])
    h = 1e-6
    slope = [(math.lgamma(v + h) - math.lgamma(v - h)) / (2 * h) for v in x]
    np.testing.assert_allclose(tg.digamma(tg.tensor(x)).numpy(), slope, rtol=1e-6)
    assert tg.digamma(tg.tensor([1.0], dtype=tg.float64)).item() == pytest.approx(
        -0.5772156649015329, rel=1e-14
    )
    assert tg.polygamma(1, tg.tensor([1.0], dtype=tg.float64)).item() == pytest.approx(
        math.pi**2 / 6, rel=1e-14
    )


def test_gamma_family_and_det_gradchecks():
    x = tg.tensor(RNG.uniform(0.5, 4.0, size=4), requires_grad=True)
    assert tg.gradcheck(lambda t: tg.polygamma(1, t), (x,))
    a = tg.tensor(RNG.normal(size=(2, 3, 3)), requires_grad=True)
    assert tg.gradcheck(tg.det, (a,))
    np.testing.assert_allclose(tg.det(a).detach().numpy(), np.linalg.det(a.detach().numpy()))


def test_grid_sample_formulas_and_gradcheck():
    x = tg.tensor(RNG.normal(size=(1, 2, 4, 5)), requires_grad=True)
    identity = tg.nn.functional.affine_grid(tg.tensor([[[1.0, 0, 0], [0, 1.0, 0]]]).double(),
                                            (1, 2, 4, 5), align_corners=True)  # fmt: skip
    out = tg.nn.functional.grid_sample(x, identity, align_corners=True)
    np.testing.assert_allclose(out.detach().numpy(), x.detach().numpy(), atol=1e-12)
    grid = tg.tensor(RNG.uniform(-0.9, 0.9, size=(1, 3, 2, 2)), requires_grad=True)
    assert tg.gradcheck(
        lambda t, g: tg.nn.functional.grid_sample(t, g, padding_mode="border"), (x, grid)
    )


def test_max_unpool_writes_each_maximum_back():
    x = tg.tensor(RNG.normal(size=(1, 1, 4, 4)), requires_grad=True)
    values, indices = tg.nn.functional.max_pool2d(x, 2, return_indices=True)
    back = tg.nn.functional.max_unpool2d(values, indices, 2).detach().numpy()
    plane = x.detach().numpy()[0, 0]
    for block in range(4):
        i, j = divmod(block, 2)
        window = plane[2 * i : 2 * i + 2, 2 * j : 2 * j + 2]
        kept = back[0, 0, 2 * i : 2 * i + 2, 2 * j : 2 * j + 2]
        assert kept.max() == window.max() and np.count_nonzero(kept) == 1
    assert tg.gradcheck(
        lambda t: tg.nn.functional.max_unpool2d(t, indices, 2), (values.detach().requires_grad_(),)
    )


def test_lbfgs_minimises_a_quadratic_in_a_few_steps():
    target = np.array([1.0, -2.0, 3.0])
    w = tg.zeros(3, dtype=tg.float64, requires_grad=True)
    opt = tg.optim.LBFGS([w], line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = ((w - tg.tensor(target)) ** 2 * tg.tensor([1.0, 10.0, 100.0])).sum()
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(w.detach().numpy(), target, atol=1e-6)
    with pytest.raises(RuntimeError, match="closure"):
        opt.step(None)


def test_frozen_parameters_stay_as_they_are():
    model = tg.nn.Sequential(tg.nn.Linear(3, 3), tg.nn.Linear(3, 1))
    model[0].weight.requires_grad_(False)
    frozen = model[0].weight.detach().numpy().copy()
    opt = tg.optim.AdamW(model.parameters(), lr=0.1)
    model(tg.ones(2, 3)).sum().backward()
    opt.step()
    np.testing.assert_array_equal(model[0].weight.detach().numpy(), frozen)


def test_pytorch_only_modules_on_one_cpu_process():
    assert tg.jit.script(len) is len and tg.jit.trace(len, ()) is len
    with pytest.raises(NotImplementedError, match="ONNX"):
        tg.onnx.export(None, (), "m.onnx")
    assert tg.version.cuda is None and tg.accelerator.is_available() is False
    with pytest.raises(RuntimeError, match="Cannot access accelerator"):
        tg.accelerator.synchronize()
    from tinygrad_norm.utils.data.distributed import DistributedSampler

    assert sorted(DistributedSampler(range(7))) == list(range(7))


def test_legacy_types_and_memory_formats():
    t = tg.LongTensor([1, 2])
    assert (
        t.dtype == tg.int64 and isinstance(t, tg.LongTensor) and not isinstance(t, tg.FloatTensor)
    )
    assert (
        tg.FloatTensor(2, 3).shape == (2, 3) and repr(tg.preserve_format) == "torch.preserve_format"
    )
    assert tg.inf == math.inf and tg.pi == math.pi
