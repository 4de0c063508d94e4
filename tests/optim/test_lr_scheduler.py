"""Learning-rate schedules: the closed forms they promise, their state_dict round trips, their
errors, and (oracle) every learning rate of 60 steps equal to PyTorch's at rtol 1e-12."""

import math
import warnings

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.optim import lr_scheduler as sched_tg

STEPS, RTOL = 60, 1e-12
LRS = (0.1, 0.03)


def make_optimizer(lib, name="SGD", **options):
    """An optimizer with two parameter groups of different learning rates."""
    a, b = (lib.zeros(2, requires_grad=True) for _ in range(2))
    groups = [{"params": [a], "lr": LRS[0]}, {"params": [b], "lr": LRS[1]}]
    return getattr(lib.optim, name)(groups, **options)


def sequential(S, opt):
    warmup = S.LinearLR(opt, start_factor=0.1, total_iters=8)
    cosine = S.CosineAnnealingLR(opt, T_max=30, eta_min=1e-4)
    return S.SequentialLR(opt, [warmup, cosine], milestones=[8])


def sequential_three(S, opt):
    parts = [S.ExponentialLR(opt, 0.9), S.StepLR(opt, 5, 0.5), S.MultiStepLR(opt, [3, 9], 0.2)]
    return S.SequentialLR(opt, parts, milestones=[10, 25])


def chained(S, opt):
    parts = [S.ExponentialLR(opt, 0.95), S.MultiStepLR(opt, [10, 20], 0.5), S.ConstantLR(opt)]
    return S.ChainedScheduler(parts)


# name -> (optimizer, its options, the schedule built from a scheduler module S)
CASES = {
    "step": ("SGD", {}, lambda S, o: S.StepLR(o, step_size=7, gamma=0.3)),
    "multistep": ("SGD", {}, lambda S, o: S.MultiStepLR(o, [5, 12, 12, 40], gamma=0.5)),
    "exponential": ("SGD", {}, lambda S, o: S.ExponentialLR(o, gamma=0.93)),
    "lambda": ("SGD", {}, lambda S, o: S.LambdaLR(o, lambda t: 1 / (1 + 0.1 * t) ** 0.5)),
    "lambda_per_group": (
        "SGD",
        {},
        lambda S, o: S.LambdaLR(o, [lambda t: 0.95**t, lambda t: min(1.0, (t + 1) / 10)]),
    ),
    "linear": ("SGD", {}, lambda S, o: S.LinearLR(o, start_factor=0.25, total_iters=20)),
    "linear_down": ("SGD", {}, lambda S, o: S.LinearLR(o, 1.0, 0.1, total_iters=33)),
    "cosine": ("SGD", {}, lambda S, o: S.CosineAnnealingLR(o, T_max=25)),
    "cosine_eta_min": ("SGD", {}, lambda S, o: S.CosineAnnealingLR(o, T_max=40, eta_min=0.01)),
    "warm_restarts": ("SGD", {}, lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=10)),
    "warm_restarts_mult": (
        "SGD",
        {},
        lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2, eta_min=0.001),
    ),
    "one_cycle": ("SGD", dict(momentum=0.9), lambda S, o: S.OneCycleLR(o, 0.5, total_steps=60)),
    "one_cycle_linear_three_phase": (
        "SGD",
        dict(momentum=0.9),
        lambda S, o: S.OneCycleLR(
            o, [0.4, 0.2], epochs=6, steps_per_epoch=10, anneal_strategy="linear", three_phase=True
        ),
    ),
    "one_cycle_adam": (
        "Adam",
        {},
        lambda S, o: S.OneCycleLR(o, 0.01, total_steps=70, pct_start=0.25, div_factor=10.0),
    ),
    "multiplicative": ("SGD", {}, lambda S, o: S.MultiplicativeLR(o, lambda t: 0.9 + 0.001 * t)),
    "constant": ("SGD", {}, lambda S, o: S.ConstantLR(o, factor=0.4, total_iters=6)),
    "polynomial": ("SGD", {}, lambda S, o: S.PolynomialLR(o, total_iters=45, power=2.0)),
    "chained": ("SGD", {}, chained),
    "sequential": ("SGD", {}, sequential),
    "sequential_three": ("SGD", {}, sequential_three),
}


def run(lib, case, steps=STEPS, state=None):
    """The lr (and momentum / beta1) of every group after each step."""
    name, options, build = CASES[case]
    opt = make_optimizer(lib, name, **options)
    scheduler = build(lib.optim.lr_scheduler, opt)
    if state is not None:  # resuming: the optimizer's state_dict would restore its lrs
        scheduler.load_state_dict(state)
        for group, lr in zip(opt.param_groups, state["_last_lr"]):
            group["lr"] = lr
    history = [list(scheduler.get_last_lr())]
    for _ in range(steps):
        opt.step()
        scheduler.step()
        momenta = [g["betas"][0] if "betas" in g else g.get("momentum") for g in opt.param_groups]
        history.append(list(scheduler.get_last_lr()) + momenta)
        assert [g["lr"] for g in opt.param_groups] == scheduler.get_last_lr()
    return np.array(history[1:], dtype=float), history[0], scheduler


def test_step_lr_closed_form():
    rates, first, _ = run(tg, "step", steps=30)
    t = np.arange(1, 31)
    np.testing.assert_allclose(rates[:, 0], LRS[0] * 0.3 ** (t // 7), rtol=RTOL)
    assert first == list(LRS)


def test_multistep_lr_counts_a_repeated_milestone_twice():
    rates, _, _ = run(tg, "multistep", steps=45)
    t = np.arange(1, 46)
    passed = (t >= 5).astype(int) + 2 * (t >= 12) + (t >= 40)
    np.testing.assert_allclose(rates[:, 1], LRS[1] * 0.5**passed, rtol=RTOL)


@pytest.mark.parametrize("case", ["cosine", "cosine_eta_min"])
def test_cosine_recursive_form_equals_the_closed_form(case):
    rates, _, scheduler = run(tg, case)
    t = np.arange(1, STEPS + 1)
    T, eta_min = scheduler.T_max, scheduler.eta_min
    expected = eta_min + (LRS[0] - eta_min) * (1 + np.cos(np.pi * t / T)) / 2
    np.testing.assert_allclose(rates[:, 0], expected, rtol=1e-9, atol=1e-15)


def test_linear_lr_reaches_its_end_factor_and_stays():
    rates, first, _ = run(tg, "linear", steps=30)
    t = np.minimum(np.arange(1, 31), 20)
    np.testing.assert_allclose(rates[:, 0], LRS[0] * (0.25 + 0.75 * t / 20), rtol=1e-12)
    assert first[0] == pytest.approx(LRS[0] * 0.25)


def test_warm_restarts_restart_at_the_top_with_growing_periods():
    rates, _, _ = run(tg, "warm_restarts_mult", steps=30)
    restarts = [t for t in range(1, 31) if rates[t - 1, 0] == LRS[0]]
    assert restarts == [4, 12, 28]  # periods 4, 8, 16


def test_one_cycle_peaks_at_max_lr_and_ends_at_its_minimum():
    rates, first, _ = run(tg, "one_cycle", steps=59)
    assert first[0] == pytest.approx(0.5 / 25)
    assert rates[:, 0].max() == pytest.approx(0.5)
    assert rates[-1, 0] == pytest.approx(0.5 / 25 / 1e4)
    top = rates[:, 0].argmax()
    assert rates[top, 2] == pytest.approx(0.85)  # momentum is lowest where lr is highest


def test_one_cycle_refuses_to_step_past_total_steps():
    opt = make_optimizer(tg, momentum=0.9)
    scheduler = sched_tg.OneCycleLR(opt, 0.1, total_steps=3)
    for _ in range(3):
        opt.step()
        scheduler.step()
    with pytest.raises(ValueError, match="total_steps"):
        scheduler.step()


def test_reduce_on_plateau_waits_patience_then_cools_down():
    opt = make_optimizer(tg)
    scheduler = sched_tg.ReduceLROnPlateau(opt, patience=2, factor=0.5, cooldown=1, min_lr=0.02)
    lrs = []
    for loss in [5, 4, 4, 4, 4, 4, 4, 4, 4, 3]:
        scheduler.step(tg.tensor(float(loss)))
        lrs.append(scheduler.get_last_lr()[0])
    assert lrs[:4] == [0.1] * 4  # bad epochs 1 and 2 are within patience
    assert lrs[4] == 0.05  # the third bad epoch
    assert lrs[5:8] == [0.05, 0.05, 0.05]  # one epoch of cooldown, then patience again
    assert lrs[8:] == [0.025, 0.025]  # the third bad epoch after the cooldown; 3 improves
    assert scheduler.get_last_lr()[1] == 0.02  # never below min_lr


@pytest.mark.parametrize(
    "case", ["step", "cosine", "one_cycle", "sequential", "warm_restarts", "chained", "polynomial"]
)
def test_state_dict_round_trip_continues_the_schedule(case):
    whole, _, _ = run(tg, case, steps=40)
    _, _, first = run(tg, case, steps=15)
    resumed, _, _ = run(tg, case, steps=25, state=first.state_dict())
    np.testing.assert_allclose(resumed, whole[15:], rtol=1e-15)


def test_lambda_lr_state_dict_keeps_a_callable_objects_attributes():
    class Decay:
        def __init__(self, rate):
            self.rate = rate

        def __call__(self, t):
            return self.rate**t

    opt = make_optimizer(tg)
    scheduler = sched_tg.LambdaLR(opt, Decay(0.5))
    saved = scheduler.state_dict()
    assert saved["lr_lambdas"] == [{"rate": 0.5}, {"rate": 0.5}]
    fresh = sched_tg.LambdaLR(make_optimizer(tg), Decay(0.9))
    fresh.load_state_dict(saved)
    assert fresh.lr_lambdas[0].rate == 0.5


def test_stepping_the_scheduler_before_the_optimizer_warns():
    opt = make_optimizer(tg)
    scheduler = sched_tg.StepLR(opt, 2)
    with pytest.warns(UserWarning, match="before optimizer.step"):
        scheduler.step()
    opt, scheduler = make_optimizer(tg), None
    scheduler = sched_tg.StepLR(opt, 2)
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scheduler.step()


def test_errors_name_the_mistake():
    opt = make_optimizer(tg)
    with pytest.raises(TypeError, match="optimizer"):
        sched_tg.StepLR([1, 2], 3)
    with pytest.raises(ValueError, match="one milestone fewer"):
        sched_tg.SequentialLR(opt, [sched_tg.StepLR(opt, 2)], milestones=[3])
    with pytest.raises(ValueError, match="one value per parameter group"):
        sched_tg.OneCycleLR(opt, [0.1, 0.2, 0.3], total_steps=10)
    with pytest.raises(ValueError, match="cycle_momentum"):
        sched_tg.OneCycleLR(tg.optim.Adagrad(opt.param_groups[0]["params"]), 0.1, total_steps=9)
    with pytest.raises(KeyError, match="initial_lr"):
        sched_tg.StepLR(make_optimizer(tg), 2, last_epoch=4)
    with pytest.raises(ValueError, match="factor"):
        sched_tg.ReduceLROnPlateau(opt, factor=1.5)
    assert math.isinf(sched_tg.ReduceLROnPlateau(opt).best)


# --- PyTorch oracle ------------------------------------------------------------------------------


@pytest.mark.oracle
@pytest.mark.parametrize("case", CASES)
def test_learning_rates_equal_pytorch(case):
    torch = pytest.importorskip("torch")
    ours, our_first, _ = run(tg, case)
    theirs, their_first, _ = run(torch, case)
    np.testing.assert_allclose(our_first, their_first, rtol=RTOL)
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=1e-300)


@pytest.mark.oracle
@pytest.mark.parametrize("mode", ["min", "max"])
@pytest.mark.parametrize("threshold_mode", ["rel", "abs"])
def test_reduce_on_plateau_equals_pytorch(mode, threshold_mode):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    metrics = np.repeat(rng.standard_normal(20), 4) + 1e-3 * rng.standard_normal(80)
    results = []
    for lib in (tg, torch):
        opt = make_optimizer(lib)
        scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(
            opt, mode, factor=0.7, patience=3, threshold=0.01, threshold_mode=threshold_mode,
            cooldown=2, min_lr=[0.01, 0.001],
        )  # fmt: skip
        lrs = []
        for value in metrics:
            scheduler.step(float(value))
            lrs.append(scheduler.get_last_lr())
        results.append(np.array(lrs))
    np.testing.assert_allclose(results[0], results[1], rtol=RTOL)
    assert len(np.unique(results[0][:, 0])) > 2  # the schedule did reduce, several times


@pytest.mark.oracle
def test_warm_restarts_with_fractional_epochs_equal_pytorch():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (tg, torch):
        opt = make_optimizer(lib)
        scheduler = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)
        lrs = []
        for epoch in range(12):
            for i in range(4):
                opt.step()
                scheduler.step(epoch + i / 4)
                lrs.append(scheduler.get_last_lr())
        results.append(np.array(lrs))
    np.testing.assert_allclose(results[0], results[1], rtol=RTOL)


@pytest.mark.oracle
@pytest.mark.parametrize("case", ["cosine", "one_cycle", "sequential", "multistep"])
def test_pytorch_scheduler_state_loads_and_continues(case):
    torch = pytest.importorskip("torch")
    whole, _, _ = run(torch, case, steps=40)
    _, _, first = run(torch, case, steps=15)
    state = first.state_dict()
    resumed, _, _ = run(tg, case, steps=25, state=state)
    np.testing.assert_allclose(resumed, whole[15:], rtol=RTOL)
