"""LBFGS against PyTorch's: the same trajectory (every parameter after every step, and the
losses), with a fixed step and with the strong Wolfe line search; frozen parameters accepted
by every optimizer, as PyTorch."""

import numpy as np
import pytest

import tinygrad_norm as tg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def _rosenbrock_run(lib, line_search, history_size=100, steps=6):
    w = lib.tensor([-1.5, 2.0, 0.5], dtype=lib.float64, requires_grad=True)
    opt = lib.optim.LBFGS(
        [w], lr=1, max_iter=7, history_size=history_size, line_search_fn=line_search
    )

    def closure():
        opt.zero_grad()
        loss = (100 * (w[1:] - w[:-1] ** 2) ** 2 + (1 - w[:-1]) ** 2).sum()
        loss.backward()
        return loss

    trajectory = []
    for _ in range(steps):
        loss = opt.step(closure)
        trajectory.append([float(loss), *w.detach().numpy().tolist()])
    return np.array(trajectory)


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
@pytest.mark.parametrize("history_size", [100, 2])
def test_lbfgs_follows_pytorchs_trajectory(line_search, history_size):
    ours = _rosenbrock_run(tg, line_search, history_size)
    theirs = _rosenbrock_run(torch, line_search, history_size)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-9)  # rounding grows on Rosenbrock


def test_lbfgs_fits_a_small_regression_as_pytorch():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(20, 3)), rng.normal(size=(20, 1))
    w0 = rng.normal(size=(1, 3))
    results = []
    for lib in (tg, torch):
        model = lib.nn.Linear(3, 1).double()
        with lib.no_grad():
            model.weight.copy_(lib.tensor(w0))
            model.bias.zero_()
        opt = lib.optim.LBFGS(model.parameters(), line_search_fn="strong_wolfe")
        xs, ys = lib.tensor(x), lib.tensor(y)

        def closure(model=model, opt=opt, xs=xs, ys=ys, lib=lib):
            opt.zero_grad()
            loss = lib.nn.functional.mse_loss(model(xs), ys)
            loss.backward()
            return loss

        for _ in range(3):
            opt.step(closure)
        results.append(model.weight.detach().numpy().copy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-8)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "LBFGS"])
def test_frozen_parameters_are_accepted_and_left_alone(name):
    finals = []
    for lib in (tg, torch):
        frozen = lib.tensor([1.0, 2.0], dtype=lib.float64)
        live = lib.tensor([0.5, -0.5], dtype=lib.float64, requires_grad=True)
        opt = getattr(lib.optim, name)([frozen, live], lr=0.1)

        def closure(opt=opt, live=live, frozen=frozen):
            opt.zero_grad()
            loss = ((live - 1) ** 2 * frozen).sum()
            loss.backward()
            return loss

        for _ in range(3):
            opt.step(closure)
        finals.append((frozen.numpy().copy(), live.detach().numpy().copy()))
    np.testing.assert_array_equal(finals[0][0], [1.0, 2.0])
    np.testing.assert_allclose(finals[0][1], finals[1][1], rtol=1e-10)
