"""RMSprop, Adagrad, Adadelta, Adamax, NAdam and RAdam against their papers' formulas written
plainly in NumPy (a new array per line, where the optimizers update in place), plus dtype,
maximize, state_dict and option errors. The PyTorch comparison is in test_oracle_optim.py."""

import math

import numpy as np
import pytest
from test_optim import STEPS, assert_same_trajectory, data, numpy_grads, run_tg, two_groups

import tinygrad_norm as tg
from tinygrad_norm.optim.optimizer import param_array

LRS = (0.02, 0.05)


def reference(d, lrs, update, steps=STEPS, maximize=False, weight_decay=0.0):
    """Run `update(p, g, state, t, lr) -> new p` on W and b; g already has maximize and L2."""
    params, states, trajectory = [d["W"].copy(), d["b"].copy()], [{}, {}], []
    for t in range(1, steps + 1):
        grads = numpy_grads(*params, d["X"], d["Y"])
        for i, lr in enumerate(lrs):
            g = (-grads[i] if maximize else grads[i]) + weight_decay * params[i]
            params[i] = update(params[i], g, states[i], t, lr)
        trajectory.append(tuple(p.copy() for p in params))
    return trajectory


def rmsprop(alpha=0.99, eps=1e-8, momentum=0.0, centered=False):
    def update(p, g, s, t, lr):
        s["sq"] = alpha * s.get("sq", 0) + (1 - alpha) * g**2
        s["avg"] = alpha * s.get("avg", 0) + (1 - alpha) * g
        denom = np.sqrt(s["sq"] - s["avg"] ** 2 if centered else s["sq"]) + eps
        if momentum:
            s["buf"] = momentum * s.get("buf", 0) + g / denom
            return p - lr * s["buf"]
        return p - lr * g / denom

    return update


def adagrad(lr_decay=0.0, initial_accumulator_value=0.0, eps=1e-10):
    def update(p, g, s, t, lr):
        s["sum"] = s.get("sum", initial_accumulator_value) + g**2
        return p - lr / (1 + (t - 1) * lr_decay) * g / (np.sqrt(s["sum"]) + eps)

    return update


def adadelta(rho=0.9, eps=1e-6):
    def update(p, g, s, t, lr):
        s["sq"] = rho * s.get("sq", 0) + (1 - rho) * g**2
        delta = np.sqrt(s.get("acc", 0) + eps) / np.sqrt(s["sq"] + eps) * g
        s["acc"] = rho * s.get("acc", 0) + (1 - rho) * delta**2
        return p - lr * delta

    return update


def adamax(betas=(0.9, 0.999), eps=1e-8):
    b1, b2 = betas

    def update(p, g, s, t, lr):
        s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
        s["u"] = np.maximum(b2 * s.get("u", 0), np.abs(g) + eps)
        return p - lr / (1 - b1**t) * s["m"] / s["u"]

    return update


def nadam(betas=(0.9, 0.999), eps=1e-8, momentum_decay=4e-3):
    b1, b2 = betas
    mu = lambda t: b1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))

    def update(p, g, s, t, lr):
        s["prod"] = s.get("prod", 1.0) * mu(t)
        s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0) + (1 - b2) * g**2
        v_hat = s["v"] / (1 - b2**t)
        m_bar = mu(t + 1) * s["m"] / (1 - s["prod"] * mu(t + 1)) + (1 - mu(t)) * g / (1 - s["prod"])
        return p - lr * m_bar / (np.sqrt(v_hat) + eps)

    return update


def radam(betas=(0.9, 0.999), eps=1e-8):
    b1, b2 = betas
    rho_inf = 2 / (1 - b2) - 1

    def update(p, g, s, t, lr):
        s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0) + (1 - b2) * g**2
        m_hat = s["m"] / (1 - b1**t)
        rho = rho_inf - 2 * t * b2**t / (1 - b2**t)
        if rho <= 5:
            return p - lr * m_hat
        r = math.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
        # NOTE: PyTorch adds eps to sqrt(v) before the bias correction (the paper: after it).
        return p - lr * m_hat * r * math.sqrt(1 - b2**t) / (np.sqrt(s["v"]) + eps)

    return update


CASES = {
    "rmsprop": ("RMSprop", {}, rmsprop()),
    "rmsprop_centered_momentum": (
        "RMSprop",
        dict(alpha=0.9, momentum=0.7, centered=True),
        rmsprop(alpha=0.9, momentum=0.7, centered=True),
    ),
    "adagrad": ("Adagrad", {}, adagrad()),
    "adagrad_decay": (
        "Adagrad",
        dict(lr_decay=0.1, initial_accumulator_value=0.5),
        adagrad(0.1, 0.5),
    ),
    "adadelta": ("Adadelta", dict(rho=0.8), adadelta(rho=0.8)),
    "adamax": ("Adamax", dict(betas=(0.8, 0.99)), adamax((0.8, 0.99))),
    "nadam": ("NAdam", dict(momentum_decay=0.01), nadam(momentum_decay=0.01)),
    "radam": ("RAdam", {}, radam()),
    "radam_rectified_early": ("RAdam", dict(betas=(0.9, 0.8)), radam((0.9, 0.8))),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("extra", [{}, dict(maximize=True, weight_decay=0.1)])
def test_follows_the_numpy_reference(case, extra):
    name, options, update = CASES[case]
    d = data()
    ours = run_tg(two_groups(getattr(tg.optim, name), LRS, **options, **extra), d)
    assert_same_trajectory(ours, reference(d, LRS, update, **extra))


@pytest.mark.parametrize("name", ["NAdam", "RAdam"])
def test_decoupled_weight_decay_shrinks_the_parameter_first(name):
    """With a zero gradient only the decay acts: p <- p (1 - lr wd) each step."""
    w = tg.tensor([2.0, -4.0], dtype=tg.float64, requires_grad=True)
    opt = getattr(tg.optim, name)([w], lr=0.1, weight_decay=0.5, decoupled_weight_decay=True)
    for _ in range(3):
        w.grad = tg.zeros(2, dtype=tg.float64)
        opt.step()
    np.testing.assert_allclose(w.numpy(), np.array([2.0, -4.0]) * 0.95**3, rtol=1e-12)


@pytest.mark.parametrize("name", ["RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"])
def test_float32_parameters_stay_float32_in_place(name):
    w = tg.randn(3, 2, requires_grad=True)
    array = param_array(w)
    opt = getattr(tg.optim, name)([w])
    for _ in range(3):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    assert w.dtype == np.float32 and param_array(w) is array  # updated in place, not replaced
    assert all(v.dtype == np.float32 for v in opt.state[w].values() if hasattr(v, "dtype"))


@pytest.mark.parametrize("name", ["RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"])
def test_state_dict_round_trip_continues_the_trajectory(name):
    d = data(1)
    make = two_groups(getattr(tg.optim, name), LRS)
    whole = run_tg(make, d, steps=10)
    W = tg.tensor(d["W"], dtype=tg.float64, requires_grad=True)
    b = tg.tensor(d["b"], dtype=tg.float64, requires_grad=True)
    X, Y = tg.tensor(d["X"], dtype=tg.float64), tg.tensor(d["Y"], dtype=tg.float64)
    opt = make(W, b)
    for step in range(10):
        if step == 4:  # a fresh optimizer from the saved state
            saved = opt.state_dict()
            opt = make(W, b)
            opt.load_state_dict(saved)
        opt.zero_grad()
        ((W @ X + b.reshape(3, 1) - Y) ** 2).sum().backward()
        opt.step()
    np.testing.assert_allclose(W.numpy(), whole[-1][0], rtol=1e-13)


@pytest.mark.parametrize(
    "name, options, message",
    [
        ("RMSprop", dict(lr=-1.0), "learning rate"),
        ("RMSprop", dict(alpha=-0.1), "alpha"),
        ("Adagrad", dict(lr_decay=-1.0), "lr_decay"),
        ("Adagrad", dict(initial_accumulator_value=-1.0), "initial_accumulator_value"),
        ("Adadelta", dict(rho=1.5), "rho"),
        ("Adamax", dict(betas=(0.9, 1.0)), "beta"),
        ("NAdam", dict(momentum_decay=-1.0), "momentum_decay"),
        ("RAdam", dict(eps=-1.0), "epsilon"),
    ],
)
def test_bad_options_raise_value_errors(name, options, message):
    with pytest.raises(ValueError, match=message):
        getattr(tg.optim, name)([tg.zeros(1, requires_grad=True)], **options)
