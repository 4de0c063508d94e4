"""Normalization modules and weight_norm against torch.nn in float64: with the same weights and
inputs, the same outputs, the same gradients for the input and every parameter (rtol 1e-10),
in training and evaluation, and the same running statistics."""

import re
import warnings

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm import nn

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

RTOL, ATOL = 1e-10, 1e-12

# name: (tinygrad_norm module, torch module, input shape); the constructors are the same calls.
CASES = {
    "LayerNorm(5)": (lambda lib: lib.nn.LayerNorm(5), (4, 3, 5)),
    "LayerNorm((3, 5), eps=1e-3)": (lambda lib: lib.nn.LayerNorm((3, 5), eps=1e-3), (4, 3, 5)),
    "LayerNorm(5, bias=False)": (lambda lib: lib.nn.LayerNorm(5, bias=False), (4, 5)),
    "LayerNorm(5, affine=False)": (
        lambda lib: lib.nn.LayerNorm(5, elementwise_affine=False),
        (4, 3, 5),
    ),
    "BatchNorm1d (N, C)": (lambda lib: lib.nn.BatchNorm1d(3), (6, 3)),
    "BatchNorm1d (N, C, L)": (lambda lib: lib.nn.BatchNorm1d(3, momentum=0.2), (4, 3, 5)),
    "BatchNorm1d untracked": (
        lambda lib: lib.nn.BatchNorm1d(3, affine=False, track_running_stats=False),
        (4, 3, 5),
    ),
    "BatchNorm2d": (lambda lib: lib.nn.BatchNorm2d(3), (2, 3, 4, 5)),
    "BatchNorm2d momentum=None": (lambda lib: lib.nn.BatchNorm2d(3, momentum=None), (2, 3, 4, 5)),
    "InstanceNorm1d": (lambda lib: lib.nn.InstanceNorm1d(3), (4, 3, 5)),
    "InstanceNorm1d (C, L)": (lambda lib: lib.nn.InstanceNorm1d(3, affine=True), (3, 5)),
    "InstanceNorm1d affine tracked": (
        lambda lib: lib.nn.InstanceNorm1d(3, affine=True, track_running_stats=True),
        (4, 3, 5),
    ),
    "InstanceNorm2d affine": (lambda lib: lib.nn.InstanceNorm2d(3, affine=True), (2, 3, 4, 5)),
    "InstanceNorm2d tracked": (
        lambda lib: lib.nn.InstanceNorm2d(3, momentum=0.3, track_running_stats=True),
        (2, 3, 4, 5),
    ),
    "GroupNorm(2, 4)": (lambda lib: lib.nn.GroupNorm(2, 4), (3, 4, 5)),
    "GroupNorm(3, 6) 4D": (lambda lib: lib.nn.GroupNorm(3, 6, eps=1e-3), (2, 6, 2, 3)),
    "GroupNorm(1, 4) no affine": (lambda lib: lib.nn.GroupNorm(1, 4, affine=False), (3, 4, 5)),
    "RMSNorm(5)": (lambda lib: lib.nn.RMSNorm(5), (4, 3, 5)),
    "RMSNorm((3, 5), eps=1e-3)": (lambda lib: lib.nn.RMSNorm((3, 5), eps=1e-3), (4, 3, 5)),
    "RMSNorm(5, affine=False)": (lambda lib: lib.nn.RMSNorm(5, elementwise_affine=False), (2, 5)),
}


def pair(case, seed=0):
    """The tinygrad_norm and torch modules of `case` in float64, with the same random weights
    and running statistics (copied through the state_dict: the keys must be PyTorch's)."""
    factory, shape = CASES[case]
    ours, theirs = factory(tg).double(), factory(torch).double()
    rng = np.random.default_rng(seed)
    for p in ours.parameters():
        p.data[...] = 1.0 + 0.5 * rng.standard_normal(p.shape)
    if getattr(ours, "running_mean", None) is not None:
        ours.running_mean.data[...] = rng.standard_normal(ours.running_mean.shape)
        ours.running_var.data[...] = rng.uniform(0.5, 2.0, ours.running_var.shape)
    state = {k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()}
    theirs.load_state_dict(state, strict=True)
    assert list(state) == list(theirs.state_dict())
    return ours, theirs, shape


def run(module, lib, x, grad_output):
    """Output and the gradients of sum(output * grad_output) for the input and parameters."""
    xt = lib.tensor(x, requires_grad=True)
    y = module(xt)
    (y * lib.tensor(grad_output)).sum().backward()
    grads = [xt.grad.numpy()] + [p.grad.numpy() for _, p in module.named_parameters()]
    return y.detach().numpy(), grads


@pytest.mark.parametrize("mode", ["train", "eval"])
@pytest.mark.parametrize("case", CASES)
def test_forward_and_gradients_equal_torch(case, mode):
    ours, theirs, shape = pair(case)
    ours.train(mode == "train")
    theirs.train(mode == "train")
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape) * 2 + 0.5
    grad_output = rng.standard_normal(shape)

    y, grads = run(ours, tg, x, grad_output)
    y_torch, grads_torch = run(theirs, torch, x, grad_output)

    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    np.testing.assert_allclose(y, y_torch, rtol=RTOL, atol=ATOL)
    assert len(grads) == len(grads_torch)
    for name, g, g_torch in zip(["input"] + [n for n, _ in ours.named_parameters()], grads,
                                grads_torch):  # fmt: skip
        np.testing.assert_allclose(g, g_torch, rtol=RTOL, atol=ATOL, err_msg=name)
    # torch 2.13 also prints a `bias=` that older versions (and ours) do not
    assert repr(ours) == re.sub(r", bias=(True|False)", "", repr(theirs))


RUNNING = [c for c in CASES if "BatchNorm" in c or "tracked" in c]


@pytest.mark.parametrize("case", RUNNING)
def test_running_statistics_after_5_steps_equal_torch(case):
    ours, theirs, shape = pair(case)
    rng = np.random.default_rng(2)
    for step in range(5):
        x = rng.standard_normal(shape) * (step + 1) + step
        ours(tg.tensor(x))
        theirs(torch.tensor(x))
    for name, buffer in theirs.named_buffers():  # PyTorch's InstanceNorm counts no batches
        np.testing.assert_allclose(
            getattr(ours, name).numpy(), buffer.numpy(), rtol=RTOL, atol=ATOL, err_msg=name
        )
    if ours.track_running_stats:
        assert ours.num_batches_tracked.item() == (0 if "InstanceNorm" in case else 5)
    ours.eval()
    theirs.eval()
    x = rng.standard_normal(shape)
    np.testing.assert_allclose(
        ours(tg.tensor(x)).detach().numpy(), theirs(torch.tensor(x)).detach().numpy(), rtol=RTOL
    )


def test_instance_norm_momentum_none_leaves_the_statistics_as_torch():
    """PyTorch's InstanceNorm turns momentum=None into 0.0: the running statistics never move,
    and num_batches_tracked stays 0; so do ours."""
    ours = nn.InstanceNorm1d(3, momentum=None, track_running_stats=True).double()
    theirs = torch.nn.InstanceNorm1d(3, momentum=None, track_running_stats=True).double()
    rng = np.random.default_rng(3)
    for k in range(1, 5):
        x = rng.standard_normal((4, 3, 5)) + k
        ours(tg.tensor(x))
        theirs(torch.tensor(x))
    for name, buffer in theirs.named_buffers():
        np.testing.assert_allclose(getattr(ours, name).numpy(), buffer.numpy(), rtol=RTOL)


def test_rms_norm_default_eps_equals_torch_on_tiny_inputs():
    """eps=None is the dtype's machine epsilon; on inputs with mean(x^2) ~ eps it matters."""
    x = np.full((2, 3), 1e-8) * np.arange(1, 7).reshape(2, 3)
    ours = nn.RMSNorm(3).double()(tg.tensor(x)).numpy()
    theirs = torch.nn.RMSNorm(3).double()(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(ours, theirs, rtol=RTOL)
    assert not np.allclose(ours, x / np.sqrt((x * x).mean(axis=1, keepdims=True)), rtol=1e-3)


# --- weight_norm --------------------------------------------------------------------------------
def torch_weight_norm(module, dim):
    """torch's weight_norm, the classic form if this torch still has it (it warns that it is
    deprecated), and its (g, v) parameters."""
    if hasattr(torch.nn.utils, "weight_norm"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            torch.nn.utils.weight_norm(module, dim=dim)
        return module.weight_g, module.weight_v
    torch.nn.utils.parametrizations.weight_norm(module, dim=dim)
    original = module.parametrizations.weight
    return original.original0, original.original1


@pytest.mark.parametrize("dim", [0, 1, None])
@pytest.mark.parametrize("shape", [(4, 3), (5,)], ids=["Linear", "1-D"])
def test_weight_norm_equals_torch(dim, shape):
    if len(shape) == 1 and dim == 1:
        pytest.skip("a 1-D weight has no dim 1")
    rng = np.random.default_rng(4)
    w = rng.standard_normal(shape)

    class Mul(nn.Module):  # x @ W.T for a 2-D W, x * W for a 1-D W
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(tg.tensor(w.copy()))

        def forward(self, x):
            return x @ self.weight.T if self.weight.ndim == 2 else x * self.weight

    class TorchMul(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.tensor(w.copy()))

        def forward(self, x):
            return x @ self.weight.T if self.weight.ndim == 2 else x * self.weight

    ours = nn.utils.weight_norm(Mul(), dim=dim)
    theirs = TorchMul()
    g_torch, v_torch = torch_weight_norm(theirs, dim)
    assert ours.weight_g.shape == tuple(g_torch.shape)
    np.testing.assert_allclose(ours.weight_g.numpy(), g_torch.detach().numpy(), rtol=RTOL)
    np.testing.assert_array_equal(ours.weight_v.numpy(), v_torch.detach().numpy())

    # move g and v away from the start (where w is just the old weight), identically
    g_new = rng.uniform(0.5, 2.0, g_torch.shape)
    v_new = rng.standard_normal(shape)
    ours.weight_g.data[...] = g_new
    ours.weight_v.data[...] = v_new
    with torch.no_grad():
        g_torch.copy_(torch.tensor(g_new))
        v_torch.copy_(torch.tensor(v_new))

    x = rng.standard_normal((6, shape[-1]))
    grad_output = rng.standard_normal((6, shape[0]))
    y, grads = run(ours, tg, x, grad_output)
    y_torch, _ = run(theirs, torch, x, grad_output)
    np.testing.assert_allclose(y, y_torch, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(
        ours.weight.detach().numpy(), theirs.weight.detach().numpy(), rtol=RTOL, atol=ATOL
    )
    for ours_grad, their_param in [(grads[1], g_torch), (grads[2], v_torch)]:
        np.testing.assert_allclose(ours_grad, their_param.grad.numpy(), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(grads[0], theirs_input_grad(theirs, x, grad_output), rtol=RTOL)


def theirs_input_grad(module, x, grad_output):
    xt = torch.tensor(x, requires_grad=True)
    (module(xt) * torch.tensor(grad_output)).sum().backward()
    return xt.grad.numpy()


def test_weight_norm_on_linear_equals_torch_linear():
    """nn.Linear with weight_norm, as in seed 003, against torch.nn.Linear with weight_norm."""
    tg.manual_seed(0)
    ours = nn.Linear(4, 3).double()
    theirs = torch.nn.Linear(4, 3).double()
    theirs.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in
                            ours.state_dict().items()})  # fmt: skip
    nn.utils.weight_norm(ours)
    torch_weight_norm(theirs, 0)
    x = np.random.default_rng(5).standard_normal((2, 5, 4))
    np.testing.assert_allclose(
        ours(tg.tensor(x)).detach().numpy(), theirs(torch.tensor(x)).detach().numpy(), rtol=RTOL
    )
    nn.utils.remove_weight_norm(ours)
    if hasattr(theirs, "weight_g"):
        torch.nn.utils.remove_weight_norm(theirs)
    else:
        torch.nn.utils.parametrize.remove_parametrizations(theirs, "weight")
    assert list(ours.state_dict()) == list(theirs.state_dict())  # bias, weight (re-registered)
    np.testing.assert_allclose(ours.weight.numpy(), theirs.weight.detach().numpy(), rtol=RTOL)
