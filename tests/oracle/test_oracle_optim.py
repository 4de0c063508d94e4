"""Every optimizer against PyTorch: the same 20-step trajectories in float64, with two
parameter groups of different learning rates, and the same optimizer state.

Skipped when PyTorch is not installed; `make test-oracle` installs it.
"""

import numpy as np
import pytest

import tinygrad_norm as tg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

STEPS, RTOL = 20, 1e-10
LRS = (0.03, 0.01)

CASES = {
    "sgd": ("SGD", {}),
    "sgd_momentum": ("SGD", dict(momentum=0.9)),
    "sgd_dampening": ("SGD", dict(momentum=0.9, dampening=0.4)),
    "sgd_nesterov": ("SGD", dict(momentum=0.85, nesterov=True)),
    "sgd_weight_decay": ("SGD", dict(momentum=0.5, weight_decay=0.05)),
    "sgd_maximize": ("SGD", dict(momentum=0.5, maximize=True)),
    "adam": ("Adam", {}),
    "adam_weight_decay": ("Adam", dict(weight_decay=0.1, betas=(0.8, 0.99))),
    "adam_amsgrad": ("Adam", dict(amsgrad=True, eps=1e-6)),
    "adam_amsgrad_weight_decay": ("Adam", dict(amsgrad=True, weight_decay=0.05)),
    "adamw": ("AdamW", {}),
    "adamw_strong_decay": ("AdamW", dict(weight_decay=0.5, amsgrad=True)),
    "adamw_maximize": ("AdamW", dict(maximize=True)),
    "adam_maximize_amsgrad": ("Adam", dict(maximize=True, amsgrad=True)),
    "rmsprop": ("RMSprop", {}),
    "rmsprop_momentum_centered": ("RMSprop", dict(momentum=0.8, centered=True, alpha=0.9)),
    "rmsprop_weight_decay_maximize": ("RMSprop", dict(weight_decay=0.1, maximize=True)),
    "adagrad": ("Adagrad", {}),
    "adagrad_decay_initial": ("Adagrad", dict(lr_decay=0.05, initial_accumulator_value=0.3)),
    "adagrad_weight_decay_maximize": ("Adagrad", dict(weight_decay=0.1, maximize=True)),
    "adadelta": ("Adadelta", dict(lr=5.0)),
    "adadelta_rho_weight_decay": ("Adadelta", dict(rho=0.7, weight_decay=0.1, eps=1e-4)),
    "adadelta_maximize": ("Adadelta", dict(maximize=True)),
    "adamax": ("Adamax", {}),
    "adamax_weight_decay_maximize": ("Adamax", dict(weight_decay=0.1, maximize=True)),
    "nadam": ("NAdam", {}),
    "nadam_weight_decay": ("NAdam", dict(weight_decay=0.1, momentum_decay=0.01)),
    "nadam_decoupled": ("NAdam", dict(weight_decay=0.1, decoupled_weight_decay=True)),
    "radam": ("RAdam", {}),
    "radam_short_memory": ("RAdam", dict(betas=(0.9, 0.8), weight_decay=0.1)),
    "radam_decoupled_maximize": (
        "RAdam",
        dict(decoupled_weight_decay=True, weight_decay=0.2, maximize=True),
    ),
}
WITH_BETAS = {"Adam", "AdamW", "Adamax", "NAdam", "RAdam"}


def data(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in ((3, 4), (3,), (4, 5), (3, 5))]


def loss(lib, W, b, X, Y):
    """A smooth non-quadratic loss, written the same way in both frameworks."""
    return ((lib.tanh(W @ X) + b.reshape(3, 1) - Y) ** 2).sum()


def make_groups(W, b, case):
    """Two groups with different learning rates; the second also has its own momentum/betas."""
    name, options = CASES[case]
    second = {"params": [b], "lr": LRS[1]}
    if "momentum" in options:
        second["momentum"] = 0.6
    if name in WITH_BETAS:
        second["betas"] = (0.7, 0.95)
    return name, [{"params": [W], "lr": LRS[0]}, second], options


@pytest.fixture(autouse=True)
def torch_float64_scalars():
    """PyTorch keeps scalar optimizer state (NAdam's mu_product) in the default dtype: float64
    here, as ours, so that the trajectories compare at float64 precision."""
    saved = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(saved)


def run(lib, case, arrays, steps=STEPS, opt_state=None):
    if lib is torch:
        W, b = (torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays[:2])
        X, Y = (torch.tensor(a, dtype=torch.float64) for a in arrays[2:])
    else:
        W, b = (tg.tensor(a, dtype=tg.float64, requires_grad=True) for a in arrays[:2])
        X, Y = (tg.tensor(a, dtype=tg.float64) for a in arrays[2:])
    name, groups, options = make_groups(W, b, case)
    opt = getattr(lib.optim, name)(groups, **options)
    if opt_state is not None:
        opt.load_state_dict(opt_state)
    trajectory = []
    for _ in range(steps):
        opt.zero_grad()
        loss(lib, W, b, X, Y).backward()
        opt.step()
        trajectory.append([np.array(W.detach().numpy()), np.array(b.detach().numpy())])
    return trajectory, opt


def numpy_state(opt):
    """A torch optimizer's state_dict with NumPy arrays and an int step."""
    saved = opt.state_dict()
    state = {
        i: {k: int(v.item()) if k == "step" else v.numpy().copy() for k, v in s.items()}
        for i, s in saved["state"].items()
    }
    return {"state": state, "param_groups": saved["param_groups"]}


@pytest.mark.parametrize("case", CASES)
def test_trajectory_equals_pytorch(case):
    arrays = data()
    ours, opt = run(tg, case, arrays)
    theirs, torch_opt = run(torch, case, arrays)
    for step, (a, b) in enumerate(zip(ours, theirs)):
        for name, x, y in zip(("W", "b"), a, b):
            np.testing.assert_allclose(x, y, rtol=RTOL, atol=1e-13, err_msg=f"{name} step {step}")
    # The optimizer state agrees too, under PyTorch's names and indices.
    expected = numpy_state(torch_opt)["state"]
    got = opt.state_dict()["state"]
    assert got.keys() == expected.keys()
    for i in expected:
        assert got[i].keys() == expected[i].keys(), i
        for key, value in expected[i].items():
            np.testing.assert_allclose(got[i][key], value, rtol=RTOL, atol=1e-15, err_msg=key)
    ours_groups = opt.state_dict()["param_groups"]
    torch_groups = torch_opt.state_dict()["param_groups"]
    for g, t in zip(ours_groups, torch_groups):
        assert {k: v for k, v in t.items() if k in g} == g


@pytest.mark.parametrize(
    "case", ["sgd_nesterov", "adam_amsgrad", "adamw", "rmsprop_momentum_centered", "nadam"]
)
def test_loading_pytorch_optimizer_state_continues_its_trajectory(case):
    arrays = data(1)
    theirs, _ = run(torch, case, arrays, steps=STEPS)
    first, torch_opt = run(torch, case, arrays, steps=10)
    W, b = first[-1]
    resumed, _ = run(tg, case, [W, b, *arrays[2:]], steps=10, opt_state=numpy_state(torch_opt))
    for x, y in zip(resumed[-1], theirs[-1]):
        np.testing.assert_allclose(x, y, rtol=RTOL, atol=1e-13)


@pytest.mark.parametrize("case", ["sgd_momentum", "adam_amsgrad", "rmsprop", "nadam", "radam"])
def test_add_param_group_mid_training_equals_pytorch(case):
    """The bias joins after 5 steps, in a group of its own with its own lr."""
    name, options = CASES[case]
    arrays, trajectories = data(2), []
    for lib in (tg, torch):
        W, b = (lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays[:2])
        X, Y = (lib.tensor(a, dtype=lib.float64) for a in arrays[2:])
        opt = getattr(lib.optim, name)([W], lr=LRS[0], **options)
        trajectory = []
        for step in range(12):
            if step == 5:
                opt.add_param_group({"params": [b], "lr": LRS[1]})
            opt.zero_grad()
            loss(lib, W, b, X, Y).backward()
            opt.step()
            trajectory.append(np.concatenate([W.detach().numpy().ravel(), b.detach().numpy()]))
        assert len(opt.param_groups) == 2 and opt.param_groups[1]["lr"] == LRS[1]
        trajectories.append(np.array(trajectory))
    ours, theirs = trajectories
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=1e-13)
    assert (ours[:5, -3:] == arrays[1]).all()  # b did not move before it joined
