"""Optimizers against plain-NumPy reference trajectories, and their bookkeeping: parameter
groups, skipped parameters, zero_grad, state_dict round trips, and the errors for bad params."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm import nn

STEPS = 20


def data(seed=0):
    rng = np.random.default_rng(seed)
    return {
        "W": rng.standard_normal((3, 4)),
        "b": rng.standard_normal(3),
        "X": rng.standard_normal((4, 5)),
        "Y": rng.standard_normal((3, 5)),
    }


def numpy_grads(W, b, X, Y):
    """Gradients of L = sum((W @ X + b[:, None] - Y)²), by hand."""
    r = W @ X + b[:, None] - Y
    return [2 * r @ X.T, 2 * r.sum(axis=1)]


def tg_loss(W, b, X, Y):
    return ((W @ X + b.reshape(3, 1) - Y) ** 2).sum()


def run_tg(make_opt, d, steps=STEPS, dtype=tg.float64):
    W = tg.tensor(d["W"], dtype=dtype, requires_grad=True)
    b = tg.tensor(d["b"], dtype=dtype, requires_grad=True)
    X, Y = tg.tensor(d["X"], dtype=dtype), tg.tensor(d["Y"], dtype=dtype)
    opt = make_opt(W, b)
    trajectory = []
    for _ in range(steps):
        opt.zero_grad()
        tg_loss(W, b, X, Y).backward()
        opt.step()
        trajectory.append((W.numpy().copy(), b.numpy().copy()))
    return trajectory


def reference_sgd(
    d,
    lrs,
    momentum=0.0,
    dampening=0.0,
    weight_decay=0.0,
    nesterov=False,
    maximize=False,
    steps=STEPS,
):
    """SGD as PyTorch defines it: the buffer starts as the first gradient (no dampening)."""
    params, bufs, trajectory = [d["W"].copy(), d["b"].copy()], [None, None], []
    for _ in range(steps):
        grads = numpy_grads(*params, d["X"], d["Y"])
        for i, lr in enumerate(lrs):
            g = -grads[i] if maximize else grads[i]
            g = g + weight_decay * params[i]
            if momentum:
                bufs[i] = g if bufs[i] is None else momentum * bufs[i] + (1 - dampening) * g
                g = g + momentum * bufs[i] if nesterov else bufs[i]
            params[i] = params[i] - lr * g
        trajectory.append(tuple(p.copy() for p in params))
    return trajectory


def reference_adam(
    d,
    lrs,
    betas=(0.9, 0.999),
    eps=1e-8,
    weight_decay=0.0,
    amsgrad=False,
    decoupled=False,
    steps=STEPS,
):
    """Adam in the paper's form, with bias-corrected moments m̂ and v̂."""
    beta1, beta2 = betas
    params = [d["W"].copy(), d["b"].copy()]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    v_max = [np.zeros_like(p) for p in params]
    trajectory = []
    for t in range(1, steps + 1):
        grads = numpy_grads(*params, d["X"], d["Y"])
        for i, lr in enumerate(lrs):
            g = grads[i]
            if decoupled:
                params[i] = params[i] * (1 - lr * weight_decay)
            else:
                g = g + weight_decay * params[i]
            m[i] = beta1 * m[i] + (1 - beta1) * g
            v[i] = beta2 * v[i] + (1 - beta2) * g**2
            v_max[i] = np.maximum(v_max[i], v[i])
            m_hat = m[i] / (1 - beta1**t)
            v_hat = (v_max[i] if amsgrad else v[i]) / (1 - beta2**t)
            params[i] = params[i] - lr * m_hat / (np.sqrt(v_hat) + eps)
        trajectory.append(tuple(p.copy() for p in params))
    return trajectory


def assert_same_trajectory(ours, reference, rtol=1e-10):
    assert len(ours) == len(reference)
    for step, (a, b) in enumerate(zip(ours, reference)):
        for name, x, y in zip("Wb", a, b):
            np.testing.assert_allclose(x, y, rtol=rtol, atol=1e-12, err_msg=f"{name} step {step}")


def two_groups(cls, lrs, **options):
    return lambda W, b: cls(
        [{"params": [W], "lr": lrs[0]}, {"params": [b], "lr": lrs[1]}], **options
    )


SGD_CASES = {
    "plain": {},
    "momentum": dict(momentum=0.9),
    "dampening": dict(momentum=0.9, dampening=0.3),
    "nesterov": dict(momentum=0.8, nesterov=True),
    "weight_decay": dict(momentum=0.5, weight_decay=0.1),
    "maximize": dict(maximize=True),
}


@pytest.mark.parametrize("case", SGD_CASES)
def test_sgd_follows_the_numpy_reference(case):
    d, lrs = data(), (0.01, 0.03)
    ours = run_tg(two_groups(tg.optim.SGD, lrs, **SGD_CASES[case]), d)
    assert_same_trajectory(ours, reference_sgd(d, lrs, **SGD_CASES[case]))


def test_sgd_momentum_by_hand():
    # loss = w², grad = 2w. Step 1: buf = g = 2 (no dampening at the first step), w = 0.8.
    # Step 2: g = 1.6, buf = 0.9 * 2 + (1 - 0.5) * 1.6 = 2.6, w = 0.8 - 0.1 * 2.6 = 0.54.
    w = tg.tensor([1.0], dtype=tg.float64, requires_grad=True)
    opt = tg.optim.SGD([w], lr=0.1, momentum=0.9, dampening=0.5)
    for expected in (0.8, 0.54):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
        assert w.item() == pytest.approx(expected, rel=1e-14)
    np.testing.assert_allclose(opt.state[w]["momentum_buffer"], [2.6], rtol=1e-14)


ADAM_CASES = {
    "plain": {},
    "weight_decay": dict(weight_decay=0.1),
    "amsgrad": dict(amsgrad=True, betas=(0.8, 0.9)),
}


@pytest.mark.parametrize("case", ADAM_CASES)
def test_adam_follows_the_numpy_reference(case):
    d, lrs = data(1), (0.05, 0.02)
    ours = run_tg(two_groups(tg.optim.Adam, lrs, **ADAM_CASES[case]), d)
    assert_same_trajectory(ours, reference_adam(d, lrs, **ADAM_CASES[case]))


def test_adamw_decays_the_weights_before_the_adam_step():
    d, lrs = data(2), (0.05, 0.02)
    ours = run_tg(two_groups(tg.optim.AdamW, lrs, weight_decay=0.3), d)
    assert_same_trajectory(ours, reference_adam(d, lrs, weight_decay=0.3, decoupled=True))
    coupled = reference_adam(d, lrs, weight_decay=0.3)
    assert not np.allclose(ours[-1][0], coupled[-1][0], rtol=1e-6)  # the two really differ
    assert tg.optim.AdamW([tg.ones(1, requires_grad=True)]).defaults["weight_decay"] == 1e-2


def test_adam_first_step_moves_each_coordinate_by_lr():
    # After one step m̂ = g and v̂ = g², so each coordinate moves by lr * g / (|g| + eps).
    w = tg.tensor([3.0, -0.5], dtype=tg.float64, requires_grad=True)
    opt = tg.optim.Adam([w], lr=0.1, eps=0.0)
    (w * w).sum().backward()
    opt.step()
    np.testing.assert_allclose(w.numpy(), [2.9, -0.4], rtol=1e-14)


def test_float32_parameters_stay_float32():
    for make in (
        lambda W, b: tg.optim.SGD([W, b], lr=0.01, momentum=0.9),
        lambda W, b: tg.optim.Adam([W, b], lr=0.01, amsgrad=True),
    ):
        W, _ = run_tg(make, data(), steps=3, dtype=tg.float32)[-1]
        assert W.dtype == np.float32


# --- groups, skipping, zero_grad -----------------------------------------------------------------
def test_param_groups_take_missing_options_from_defaults():
    a, b = tg.ones(2, requires_grad=True), tg.ones(3, requires_grad=True)
    opt = tg.optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5, "momentum": 0.9}], lr=0.1)
    assert opt.defaults["lr"] == 0.1
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert [g["momentum"] for g in opt.param_groups] == [0, 0.9]
    assert opt.param_groups[1]["params"] == [b]
    c = tg.ones(1, requires_grad=True)
    opt.add_param_group({"params": [c], "weight_decay": 0.01})
    assert opt.param_groups[2]["lr"] == 0.1 and opt.param_groups[2]["weight_decay"] == 0.01
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})


def test_parameters_without_grad_are_skipped():
    a, b = tg.ones(2, requires_grad=True), tg.ones(2, requires_grad=True)
    opt = tg.optim.Adam([a, b], lr=0.1)
    (a * 2).sum().backward()
    opt.step()
    assert a.numpy()[0] != 1.0 and (b.numpy() == 1.0).all()
    assert b not in opt.state and opt.state[a]["step"] == 1


def test_plain_sgd_keeps_no_state():
    a = tg.ones(2, requires_grad=True)
    opt = tg.optim.SGD([a], lr=0.1)
    a.sum().backward()
    opt.step()
    assert opt.state == {} and opt.state_dict()["state"] == {}


def test_zero_grad():
    net = nn.Parameter(tg.ones(3))
    opt = tg.optim.SGD([net], lr=0.1)
    (net * 3).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert net.grad is not None and (net.grad.numpy() == 0).all()
    (net * 3).sum().backward()
    np.testing.assert_array_equal(net.grad.numpy(), [3.0, 3.0, 3.0])
    opt.zero_grad()
    assert net.grad is None


def test_step_with_closure_returns_the_loss():
    w = tg.tensor([2.0], requires_grad=True)
    opt = tg.optim.SGD([w], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with tg.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 4.0 and w.item() == 1.0


def test_repr_lists_the_groups():
    opt = tg.optim.SGD([tg.ones(1, requires_grad=True)], lr=0.1, momentum=0.9)
    text = repr(opt)
    assert text.startswith("SGD (\nParameter Group 0\n") and "    lr: 0.1\n" in text
    assert "momentum: 0.9" in text and text.endswith(")")


# --- state_dict ----------------------------------------------------------------------------------
def adam_two_groups(W, b):
    return tg.optim.Adam(
        [{"params": [W], "lr": 0.05}, {"params": [b], "lr": 0.02, "amsgrad": True}],
        betas=(0.8, 0.95),
    )


def test_state_dict_layout_as_pytorch_and_copied():
    W, b = tg.ones(2, 2, requires_grad=True), tg.ones(3, requires_grad=True)
    opt = adam_two_groups(W, b)
    for _ in range(3):
        opt.zero_grad()
        ((W * W).sum() + (b * b * b).sum()).backward()
        opt.step()
    saved = opt.state_dict()
    assert list(saved) == ["state", "param_groups"]
    assert list(saved["state"]) == [0, 1]
    assert set(saved["state"][0]) == {"step", "exp_avg", "exp_avg_sq"}
    assert set(saved["state"][1]) == {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}
    assert saved["state"][0]["step"] == 3 and saved["state"][0]["exp_avg"].shape == (2, 2)
    assert [g["params"] for g in saved["param_groups"]] == [[0], [1]]
    assert [g["lr"] for g in saved["param_groups"]] == [0.05, 0.02]
    assert saved["param_groups"][0]["betas"] == (0.8, 0.95)
    kept = saved["state"][0]["exp_avg"].numpy().copy()
    opt.step()  # later steps must not change what was saved
    np.testing.assert_array_equal(saved["state"][0]["exp_avg"], kept)
    assert saved["state"][0]["step"] == 3
    assert opt.state[W]["exp_avg"] is not saved["state"][0]["exp_avg"]


@pytest.mark.parametrize(
    "make",
    [
        adam_two_groups,
        lambda W, b: tg.optim.SGD([W, b], lr=0.01, momentum=0.9, nesterov=True),
        lambda W, b: tg.optim.AdamW([W, b], lr=0.03),
    ],
    ids=["adam", "sgd", "adamw"],
)
def test_state_dict_round_trip_continues_the_same_trajectory(make):
    d = data(3)
    straight = run_tg(make, d)

    # Ten steps, save, then a fresh optimizer (other options) on fresh tensors loads the state.
    W = tg.tensor(d["W"], requires_grad=True, dtype=tg.float64)
    b = tg.tensor(d["b"], requires_grad=True, dtype=tg.float64)
    X, Y = tg.tensor(d["X"]).double(), tg.tensor(d["Y"]).double()
    opt = make(W, b)
    for _ in range(10):
        opt.zero_grad()
        tg_loss(W, b, X, Y).backward()
        opt.step()
    saved = opt.state_dict()
    W2, b2 = tg.tensor(W.numpy(), requires_grad=True), tg.tensor(b.numpy(), requires_grad=True)
    opt2 = make(W2, b2)
    for group in opt2.param_groups:
        group["lr"] = 123.0  # restored by load_state_dict
    opt2.load_state_dict(saved)
    assert [g["lr"] for g in opt2.param_groups] == [g["lr"] for g in opt.param_groups]
    kept = {i: {k: np.array(v, copy=True) for k, v in s.items()} for i, s in saved["state"].items()}
    for _ in range(10, STEPS):
        opt2.zero_grad()
        tg_loss(W2, b2, X, Y).backward()
        opt2.step()
    for i, state in kept.items():  # the loaded arrays were copies: the saved dict did not move
        for key, value in state.items():
            np.testing.assert_array_equal(saved["state"][i][key], value)
    np.testing.assert_array_equal(W2.numpy(), straight[-1][0])
    np.testing.assert_array_equal(b2.numpy(), straight[-1][1])


def test_load_state_dict_casts_state_to_the_parameter_dtype():
    w64 = tg.ones(2, dtype=tg.float64, requires_grad=True)
    opt = tg.optim.Adam([w64])
    (w64 * w64).sum().backward()
    opt.step()
    w32 = tg.ones(2, requires_grad=True)
    opt32 = tg.optim.Adam([w32])
    opt32.load_state_dict(opt.state_dict())
    assert opt32.state[w32]["exp_avg"].dtype == np.float32
    assert opt32.state[w32]["step"] == 1


def test_load_state_dict_mismatches_are_errors():
    a, b = tg.ones(2, requires_grad=True), tg.ones(3, requires_grad=True)
    saved = tg.optim.SGD([a, b], lr=0.1).state_dict()
    with pytest.raises(ValueError, match="parameter groups"):
        tg.optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1).load_state_dict(saved)
    with pytest.raises(ValueError, match="has 2 parameters"):
        tg.optim.SGD([a], lr=0.1).load_state_dict(saved)
    opt = tg.optim.Adam([a])
    a.sum().backward()
    opt.step()
    with pytest.raises(ValueError, match="shape"):
        tg.optim.Adam([b]).load_state_dict(opt.state_dict())


# --- errors for bad params -----------------------------------------------------------------------
class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(tg.ones(2))


@pytest.mark.parametrize("cls", [tg.optim.SGD, tg.optim.Adam, tg.optim.AdamW])
def test_bad_params_are_clear_errors(cls):
    with pytest.raises(TypeError, match=r"Module \(Tiny\).*model.parameters\(\)"):
        cls(Tiny())
    with pytest.raises(TypeError, match=r"params is a Module \(Tiny\).*model.parameters\(\)"):
        cls([Tiny()])
    with pytest.raises(TypeError, match=r"one of the params is float.*model.parameters\(\)"):
        cls([1.0, 2.0])
    with pytest.raises(TypeError, match=r"single Tensor.*\[t\]"):
        cls(tg.ones(2, requires_grad=True))
    cls([tg.ones(2)])  # a frozen parameter is accepted (and skipped while its .grad is None)
    with pytest.raises(ValueError, match="non-leaf"):
        cls([tg.ones(2, requires_grad=True) * 2])
    with pytest.raises(ValueError, match="empty parameter list"):
        cls([])
    with pytest.raises(TypeError, match="ordered"):
        cls({tg.ones(2, requires_grad=True)})
    p = tg.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="appears twice"):
        cls([p, p])
    with pytest.raises(ValueError, match="more than one parameter group"):
        cls([{"params": [p]}, {"params": [p]}])


def test_a_generator_can_be_passed_once():
    model = Tiny()
    params = model.parameters()
    tg.optim.SGD(params, lr=0.1)
    with pytest.raises(ValueError, match="used up"):
        tg.optim.SGD(params, lr=0.1)


def test_bad_options_are_errors():
    p = [tg.ones(1, requires_grad=True)]
    with pytest.raises(ValueError, match="learning rate"):
        tg.optim.SGD(p, lr=-0.1)
    with pytest.raises(ValueError, match="momentum"):
        tg.optim.SGD(p, lr=0.1, momentum=-1)
    with pytest.raises(ValueError, match="nesterov"):
        tg.optim.SGD(p, lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="nesterov"):
        tg.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)
    with pytest.raises(ValueError, match="beta parameter at index 1"):
        tg.optim.Adam(p, betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="epsilon"):
        tg.optim.Adam(p, eps=-1e-8)
    with pytest.raises(ValueError, match="weight_decay"):
        tg.optim.AdamW(p, weight_decay=-0.1)
