"""A training checkpoint {model, optimizer, scheduler, step} saved here continues in real
torch.optim with the steps tinygrad_norm would take, and one PyTorch saved continues here.

The plain tests check the optimizer state's PyTorch layout (Tensors, a 0-d float32 `step`,
PyTorch's param_groups keys) and that a .pt checkpoint resumes here exactly.
"""

import numpy as np
import pytest

import tinygrad_norm as tg

ADAMW_KEYS = [  # torch.optim.AdamW(...).state_dict()["param_groups"][0] in torch 2.13
    "lr", "betas", "eps", "weight_decay", "amsgrad", "maximize", "foreach", "capturable",
    "differentiable", "fused", "decoupled_weight_decay", "params",
]  # fmt: skip
SGD_KEYS = [
    "lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize", "foreach",
    "differentiable", "fused", "params",
]  # fmt: skip

OPTIMIZERS = {  # name -> (options, the same for both libraries)
    "AdamW": dict(lr=0.05, weight_decay=0.1),
    "Adam": dict(lr=0.02, betas=(0.8, 0.95), amsgrad=True),
    "SGD": dict(lr=0.1, momentum=0.9, nesterov=True),
}


def batches(count: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return [
        (
            rng.standard_normal((6, 4)).astype(np.float32),
            rng.standard_normal((6, 3)).astype(np.float32),
        )
        for _ in range(count)
    ]


def tg_setup(name):
    tg.manual_seed(0)
    model = tg.nn.Sequential(tg.nn.Linear(4, 8), tg.nn.Tanh(), tg.nn.Linear(8, 3))
    optimizer = getattr(tg.optim, name)(model.parameters(), **OPTIMIZERS[name])
    scheduler = tg.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    return model, optimizer, scheduler


def tg_steps(model, optimizer, scheduler, data):
    for x, y in data:
        optimizer.zero_grad()
        ((model(tg.tensor(x)) - tg.tensor(y)) ** 2).mean().backward()
        optimizer.step()
        scheduler.step()


def test_optimizer_state_has_pytorchs_layout_and_types():
    model, optimizer, _ = tg_setup("AdamW")
    tg_steps(model, optimizer, tg.optim.lr_scheduler.StepLR(optimizer, 5), batches(3))
    saved = optimizer.state_dict()
    assert list(saved["param_groups"][0]) == ADAMW_KEYS[:-1] + ["initial_lr", "params"]
    group = saved["param_groups"][0]
    assert group["foreach"] is None and group["fused"] is None and group["capturable"] is False
    state = saved["state"][0]
    assert list(state) == ["step", "exp_avg", "exp_avg_sq"]
    assert isinstance(state["step"], tg.Tensor) and state["step"].shape == ()
    assert state["step"].dtype == tg.float32 and state["step"].item() == 3
    assert isinstance(state["exp_avg"], tg.Tensor) and state["exp_avg"].shape == (8, 4)
    sgd = tg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(tg.ones(1, 4)).sum().backward()
    sgd.step()
    assert list(sgd.state_dict()["param_groups"][0]) == SGD_KEYS
    assert list(sgd.state_dict()["state"][0]) == ["momentum_buffer"]  # no step, as PyTorch


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_a_pt_checkpoint_resumes_here_exactly(tmp_path, name):
    data = batches(5)
    straight = tg_setup(name)
    tg_steps(*straight, data)
    model, optimizer, scheduler = tg_setup(name)
    tg_steps(model, optimizer, scheduler, data[:3])
    checkpoint = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "step": 3,
    }
    tg.save(checkpoint, tmp_path / "ckpt.pt")
    loaded = tg.load(tmp_path / "ckpt.pt")
    resumed = tg_setup(name)
    resumed[0].load_state_dict(loaded["model"])
    resumed[1].load_state_dict(loaded["optimizer"])
    resumed[2].load_state_dict(loaded["scheduler"])
    assert loaded["step"] == 3
    tg_steps(*resumed, data[3:])
    for a, b in zip(straight[0].parameters(), resumed[0].parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


# --- with real PyTorch ----------------------------------------------------------------------------
def torch_setup(torch, name, model_state=None):
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    if model_state is not None:
        model.load_state_dict(model_state)
    optimizer = getattr(torch.optim, name)(model.parameters(), **OPTIMIZERS[name])
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    return model, optimizer, scheduler


def torch_steps(torch, model, optimizer, scheduler, data):
    for x, y in data:
        optimizer.zero_grad()
        ((model(torch.from_numpy(x)) - torch.from_numpy(y)) ** 2).mean().backward()
        optimizer.step()
        scheduler.step()


def assert_same_parameters(ours, theirs):
    pairs = list(zip(ours.parameters(), theirs.parameters()))
    assert len(pairs) == 4
    for a, b in pairs:
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=2e-5, atol=2e-6)


@pytest.mark.oracle
@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_a_checkpoint_saved_here_continues_in_torch(tmp_path, name):
    torch = pytest.importorskip("torch")
    data = batches(5)
    model, optimizer, scheduler = tg_setup(name)
    tg_steps(model, optimizer, scheduler, data[:3])
    checkpoint = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "step": 3,
    }
    tg.save(checkpoint, tmp_path / "ckpt.pt")
    loaded = torch.load(tmp_path / "ckpt.pt", weights_only=True)
    theirs = torch_setup(torch, name, loaded["model"])
    theirs[1].load_state_dict(loaded["optimizer"])
    theirs[2].load_state_dict(loaded["scheduler"])
    assert loaded["step"] == 3
    ours_sd, theirs_sd = optimizer.state_dict(), theirs[1].state_dict()
    assert list(ours_sd["param_groups"][0]) == list(theirs_sd["param_groups"][0])
    for key, value in theirs_sd["state"][0].items():  # the same types, as PyTorch keeps them
        assert isinstance(value, torch.Tensor) and str(value.dtype) == str(
            ours_sd["state"][0][key].dtype
        )
    tg_steps(model, optimizer, scheduler, data[3:])
    torch_steps(torch, *theirs, data[3:])
    assert_same_parameters(model, theirs[0])
    assert scheduler.get_last_lr() == theirs[2].get_last_lr()


@pytest.mark.oracle
@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_a_checkpoint_torch_saved_continues_here(tmp_path, name):
    torch = pytest.importorskip("torch")
    data = batches(5)
    ours = tg_setup(name)
    theirs = torch_setup(
        torch, name, {k: torch.from_numpy(v.numpy()) for k, v in ours[0].state_dict().items()}
    )
    torch_steps(torch, *theirs, data[:3])
    torch.save(
        {
            "model": theirs[0].state_dict(),
            "optimizer": theirs[1].state_dict(),
            "scheduler": theirs[2].state_dict(),
            "step": 3,
        },
        tmp_path / "ckpt.pt",
    )
    loaded = tg.load(tmp_path / "ckpt.pt")
    ours[0].load_state_dict(loaded["model"])
    ours[1].load_state_dict(loaded["optimizer"])
    ours[2].load_state_dict(loaded["scheduler"])
    assert "foreach" not in ours[1].param_groups[0]  # PyTorch's switches are dropped
    torch_steps(torch, *theirs, data[3:])
    tg_steps(*ours, data[3:])
    assert_same_parameters(ours[0], theirs[0])
    assert ours[2].get_last_lr() == theirs[2].get_last_lr()


@pytest.mark.oracle
def test_every_optimizers_state_dict_matches_pytorchs_layout():
    torch = pytest.importorskip("torch")
    options = {"RMSprop": dict(momentum=0.5, centered=True), "Adam": dict(amsgrad=True)}
    names = ["Adam", "AdamW", "SGD", "Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad", "Adadelta"]
    for name in names:
        kwargs = options.get(name, {"momentum": 0.9} if name == "SGD" else {})
        kwargs.setdefault("lr", 0.01)
        ours_p, theirs_p = tg.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
        ours, theirs = (
            getattr(tg.optim, name)([ours_p], **kwargs),
            getattr(torch.optim, name)([theirs_p], **kwargs),
        )
        for p in (ours_p, theirs_p):
            (p * p).sum().backward()
        ours.step(), theirs.step()
        a, b = ours.state_dict(), theirs.state_dict()
        assert list(a["param_groups"][0].items()) == list(b["param_groups"][0].items()), name
        assert set(a["state"][0]) == set(b["state"][0]), name
        for key, value in b["state"][0].items():
            assert isinstance(a["state"][0][key], tg.Tensor), (name, key)
            assert a["state"][0][key].shape == tuple(value.shape), (name, key)
            np.testing.assert_allclose(
                a["state"][0][key].numpy(), value.numpy(), rtol=1e-6, err_msg=name
            )
