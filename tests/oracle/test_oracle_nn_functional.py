"""nn.functional against torch.nn.functional in float64: the same inputs give the same values,
gradients (rtol 1e-10) and, for a representative set, second derivatives.

Each case is written once as `fn(F, lib, *tensors)` and runs unchanged with
(F, lib) = (tinygrad_norm.nn.functional, tinygrad_norm) and (torch.nn.functional, torch).
"""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.nn import functional as tg_F

torch = pytest.importorskip("torch")
torch_F = torch.nn.functional
pytestmark = pytest.mark.oracle

RTOL, ATOL = 1e-10, 1e-12
TARGET = np.array([1, 0, 3, -100, 3])
TARGET_ND = np.array([[2, 0, 1], [3, -100, 3]])
CLASS_WEIGHT = np.array([1.0, 0.5, 2.0, 1.5])
BOOL_MASK = np.array([[True, False, True, True], [False, True, True, False], [True] * 4])
NO_KEY_MASK = np.array([[True, False, False, False], [False] * 4, [True] * 4])


def t(lib, array):
    return lib.tensor(array)


def conv1d_gpt2(F, lib, x, w, b):
    if lib is tg:
        return F.conv1d_gpt2(x, w, b)
    return torch.addmm(b, x.view(-1, x.size(-1)), w).view(*x.shape[:-1], w.shape[1])  # seed 001


def ce(target, **kw):
    return lambda F, lib, x: F.cross_entropy(x, t(lib, target), **kw)


def ce_weighted(target, **kw):
    return lambda F, lib, x: F.cross_entropy(x, t(lib, target), t(lib, CLASS_WEIGHT), **kw)


# name, fn(F, lib, *tensors), input shapes
CASES = [
    ("linear", lambda F, lib, x, w, b: F.linear(x, w, b), ((2, 3, 4), (5, 4), (5,))),
    ("linear_no_bias", lambda F, lib, x, w: F.linear(x, w), ((3, 4), (2, 4))),
    ("conv1d_gpt2", conv1d_gpt2, ((2, 3, 4), (4, 6), (6,))),
    ("embedding", lambda F, lib, w: F.embedding(t(lib, np.array([[0, 3, 3], [5, 0, 1]])), w),
     ((6, 3),)),
    ("gelu", lambda F, lib, x: F.gelu(x), ((3, 4),)),
    ("gelu_tanh", lambda F, lib, x: F.gelu(x, approximate="tanh"), ((3, 4),)),
    ("relu", lambda F, lib, x: F.relu(x), ((3, 4),)),
    ("softmax", lambda F, lib, x: F.softmax(x, dim=1), ((2, 3, 4),)),
    ("log_softmax", lambda F, lib, x: F.log_softmax(x, -1), ((3, 4),)),
    ("layer_norm", lambda F, lib, x, w, b: F.layer_norm(x, (4,), w, b), ((2, 3, 4), (4,), (4,))),
    ("layer_norm_2d", lambda F, lib, x, w, b: F.layer_norm(x, [3, 4], w, b, eps=1e-3),
     ((2, 3, 4), (3, 4), (3, 4))),
    ("layer_norm_no_affine", lambda F, lib, x: F.layer_norm(x, (2, 3, 4)), ((2, 2, 3, 4),)),
    ("batch_norm_train", lambda F, lib, x, w, b: F.batch_norm(x, None, None, w, b, True),
     ((4, 3, 2, 2), (3,), (3,))),
    ("batch_norm_eval",
     lambda F, lib, x, w, b: F.batch_norm(x, t(lib, np.array([0.1, -0.2, 0.3])),
                                          t(lib, np.array([1.5, 0.5, 2.0])), w, b),
     ((2, 3, 4), (3,), (3,))),
    ("instance_norm", lambda F, lib, x, w, b: F.instance_norm(x, weight=w, bias=b),
     ((2, 3, 2, 3), (3,), (3,))),
    ("group_norm", lambda F, lib, x, w, b: F.group_norm(x, 2, w, b), ((2, 4, 3), (4,), (4,))),
    ("group_norm_4d", lambda F, lib, x, w, b: F.group_norm(x, 3, w, b, eps=1e-3),
     ((2, 6, 2, 2), (6,), (6,))),
    ("rms_norm", lambda F, lib, x, w: F.rms_norm(x, (4,), w, eps=1e-6), ((2, 3, 4), (4,))),
    ("rms_norm_default_eps", lambda F, lib, x, w: F.rms_norm(x, [3, 4], w),
     ((2, 3, 4), (3, 4))),
    ("sdpa", lambda F, lib, q, k, v: F.scaled_dot_product_attention(q, k, v),
     ((2, 2, 3, 5), (2, 2, 4, 5), (2, 2, 4, 3))),
    ("sdpa_causal", lambda F, lib, q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
     ((2, 2, 4, 5), (2, 2, 4, 5), (2, 2, 4, 3))),
    ("sdpa_causal_rectangular_scale",
     lambda F, lib, q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.3),
     ((2, 3, 5), (2, 4, 5), (2, 4, 3))),
    ("sdpa_bool_mask",
     lambda F, lib, q, k, v: F.scaled_dot_product_attention(q, k, v,
                                                            attn_mask=t(lib, BOOL_MASK)),
     ((2, 2, 3, 5), (2, 2, 4, 5), (2, 2, 4, 3))),
    ("sdpa_bool_mask_row_without_keys",
     lambda F, lib, q, k, v: F.scaled_dot_product_attention(q, k, v,
                                                            attn_mask=t(lib, NO_KEY_MASK)),
     ((2, 3, 5), (2, 4, 5), (2, 4, 3))),
    ("sdpa_float_mask",
     lambda F, lib, q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
     ((2, 2, 3, 5), (2, 2, 4, 5), (2, 2, 4, 3), (2, 1, 3, 4))),
    ("cross_entropy", ce(TARGET), ((5, 4),)),
    ("cross_entropy_sum", ce(TARGET, reduction="sum"), ((5, 4),)),
    ("cross_entropy_none", ce(TARGET, reduction="none"), ((5, 4),)),
    ("cross_entropy_ignore_index", ce(np.array([1, 0, 3, 2, 3]), ignore_index=3), ((5, 4),)),
    ("cross_entropy_ignore_index_smoothing_weight",
     ce_weighted(np.array([1, 0, 3, 2, 3]), ignore_index=3, label_smoothing=0.2), ((5, 4),)),
    ("cross_entropy_smoothing", ce(TARGET, label_smoothing=0.2), ((5, 4),)),
    ("cross_entropy_smoothing_none", ce(TARGET, label_smoothing=0.3, reduction="none"),
     ((5, 4),)),
    ("cross_entropy_weight", ce_weighted(TARGET), ((5, 4),)),
    ("cross_entropy_weight_smoothing", ce_weighted(TARGET, label_smoothing=0.1), ((5, 4),)),
    ("cross_entropy_weight_smoothing_sum",
     ce_weighted(TARGET, label_smoothing=0.1, reduction="sum"), ((5, 4),)),
    ("cross_entropy_nd", ce(TARGET_ND), ((2, 4, 3),)),
    ("cross_entropy_nd_smoothing_none", ce(TARGET_ND, label_smoothing=0.25, reduction="none"),
     ((2, 4, 3),)),
    ("cross_entropy_nd_4d_weight", ce_weighted(np.array([[[0, 1], [2, 3]], [[3, 3], [1, 0]]])),
     ((2, 4, 2, 2),)),
    ("cross_entropy_unbatched", lambda F, lib, x: F.cross_entropy(x, t(lib, np.array(2))),
     ((4,),)),
    ("cross_entropy_probabilities", lambda F, lib, x, p: F.cross_entropy(x, p.softmax(-1)),
     ((3, 4), (3, 4))),
    ("cross_entropy_probabilities_smoothing_none",
     lambda F, lib, x, p: F.cross_entropy(x, p.softmax(1), label_smoothing=0.2,
                                          reduction="none"), ((2, 4, 3), (2, 4, 3))),
    ("cross_entropy_probabilities_nd_mean", lambda F, lib, x, p: F.cross_entropy(x, p.softmax(1)),
     ((2, 4, 3), (2, 4, 3))),
    ("cross_entropy_probabilities_weight_sum",
     lambda F, lib, x, p: F.cross_entropy(x, p.softmax(-1), t(lib, CLASS_WEIGHT),
                                          reduction="sum"), ((3, 4), (3, 4))),
    ("nll_loss", lambda F, lib, x: F.nll_loss(x, t(lib, TARGET)), ((5, 4),)),
    ("nll_loss_weight_nd_none",
     lambda F, lib, x: F.nll_loss(x, t(lib, TARGET_ND), t(lib, CLASS_WEIGHT), reduction="none"),
     ((2, 4, 3),)),
    ("nll_loss_weight_nd_mean",
     lambda F, lib, x: F.nll_loss(x, t(lib, TARGET_ND), t(lib, CLASS_WEIGHT)), ((2, 4, 3),)),
    ("nll_loss_weight_sum",
     lambda F, lib, x: F.nll_loss(x, t(lib, TARGET), t(lib, CLASS_WEIGHT), reduction="sum"),
     ((5, 4),)),
    ("mse_loss", lambda F, lib, x, y: F.mse_loss(x, y), ((3, 4), (3, 4))),
    ("mse_loss_sum", lambda F, lib, x, y: F.mse_loss(x, y, reduction="sum"), ((3, 4), (3, 4))),
    ("mse_loss_none", lambda F, lib, x, y: F.mse_loss(x, y, reduction="none"), ((3, 4), (3, 4))),
]  # fmt: skip
IDS = [c[0] for c in CASES]
SECOND_ORDER = ["linear", "gelu", "gelu_tanh", "softmax", "log_softmax",
                "layer_norm", "layer_norm_2d", "batch_norm_train", "instance_norm", "group_norm",
                "rms_norm", "sdpa_causal", "sdpa_bool_mask", "cross_entropy_smoothing",
                "cross_entropy_weight_smoothing", "cross_entropy_nd",
                "cross_entropy_probabilities", "mse_loss"]  # fmt: skip


def inputs(shapes, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]
    ours = tuple(tg.tensor(a, requires_grad=True) for a in arrays)
    theirs = tuple(torch.tensor(a, requires_grad=True) for a in arrays)
    return ours, theirs


def assert_close(ours, theirs):
    np.testing.assert_allclose(ours.data, theirs.detach().numpy(), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("name, fn, shapes", CASES, ids=IDS)
def test_values_and_gradients_equal_pytorch(name, fn, shapes):
    ours, theirs = inputs(shapes)
    out, expected = fn(tg_F, tg, *ours), fn(torch_F, torch, *theirs)
    assert out.shape == tuple(expected.shape)
    assert_close(out, expected)
    weight = np.random.default_rng(1).standard_normal(out.shape)
    (out * tg.tensor(weight)).sum().backward()
    (expected * torch.tensor(weight)).sum().backward()
    for x, tx in zip(ours, theirs):
        assert x.grad is not None and tx.grad is not None
        assert_close(x.grad, tx.grad)


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_second_derivatives_equal_pytorch(name):
    """d/dx of <grad, direction>: a Hessian-vector product through create_graph."""
    _, fn, shapes = next(c for c in CASES if c[0] == name)
    ours, theirs = inputs(shapes)
    out, expected = fn(tg_F, tg, *ours), fn(torch_F, torch, *theirs)
    rng = np.random.default_rng(2)
    weight = rng.standard_normal(out.shape)
    grads = tg.autograd.grad((out * tg.tensor(weight)).sum(), ours, create_graph=True)
    tgrads = torch.autograd.grad((expected * torch.tensor(weight)).sum(), theirs,
                                 create_graph=True)  # fmt: skip
    directions = [rng.standard_normal(x.shape) for x in ours]
    hvp = tg.autograd.grad(sum((g * tg.tensor(d)).sum() for g, d in zip(grads, directions)),
                           ours, allow_unused=True)  # fmt: skip
    thvp = torch.autograd.grad(sum((g * torch.tensor(d)).sum() for g, d in zip(tgrads, directions)),
                               theirs, allow_unused=True)  # fmt: skip
    for h, th, x in zip(hvp, thvp, ours):
        h = np.zeros(x.shape) if h is None else h.data
        th = np.zeros(x.shape) if th is None else th.numpy()
        np.testing.assert_allclose(h, th, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("momentum", [0.1, 0.5])
def test_batch_norm_running_stats_after_several_training_calls(momentum):
    rng = np.random.default_rng(0)
    ours = (tg.zeros(3, dtype=tg.float64), tg.ones(3, dtype=tg.float64))
    theirs = (torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64))
    for step in range(4):
        x = rng.standard_normal((5, 3, 2)) * (step + 1) + step
        out = tg_F.batch_norm(tg.tensor(x), *ours, training=True, momentum=momentum)
        expected = torch_F.batch_norm(torch.tensor(x), *theirs, training=True, momentum=momentum)
        assert_close(out, expected)
    for mine, reference in zip(ours, theirs):
        assert_close(mine, reference)
    x = rng.standard_normal((5, 3, 2))
    assert_close(tg_F.batch_norm(tg.tensor(x), *ours), torch_F.batch_norm(torch.tensor(x), *theirs))


def test_instance_norm_running_stats_after_several_calls():
    rng = np.random.default_rng(0)
    ours, theirs = (np.zeros(3), np.ones(3)), (torch.zeros(3, dtype=torch.float64),
                                               torch.ones(3, dtype=torch.float64))  # fmt: skip
    for step in range(3):
        x = rng.standard_normal((2, 3, 5)) * (step + 1)
        out = tg_F.instance_norm(tg.tensor(x), *ours, momentum=0.3)
        assert_close(out, torch_F.instance_norm(torch.tensor(x), *theirs, momentum=0.3))
    for mine, reference in zip(ours, theirs):
        np.testing.assert_allclose(mine, reference.numpy(), rtol=RTOL)
    x = rng.standard_normal((2, 3, 5))
    out = tg_F.instance_norm(tg.tensor(x), *ours, use_input_stats=False)
    assert_close(out, torch_F.instance_norm(torch.tensor(x), *theirs, use_input_stats=False))


def test_rms_norm_default_eps_float32_equals_pytorch():
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32) * 1e-4
    out = tg_F.rms_norm(tg.tensor(x), (4,))
    expected = torch_F.rms_norm(torch.tensor(x), (4,))
    np.testing.assert_allclose(out.data, expected.numpy(), rtol=1e-6)


def test_cross_entropy_with_huge_logits_equals_pytorch():
    x = np.array([[1e4, -1e4, 0.0], [-1e4, -1e4 + 3, 5e3]])
    ours, theirs = tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out = tg_F.cross_entropy(ours, tg.tensor([1, 0]), label_smoothing=0.1)
    expected = torch_F.cross_entropy(theirs, torch.tensor([1, 0]), label_smoothing=0.1)
    assert_close(out, expected)
    out.backward()
    expected.backward()
    assert_close(ours.grad, theirs.grad)


def test_dropout_scale_and_gradient_match_pytorch_given_the_same_mask():
    """The masks come from different generators; given PyTorch's mask, the values agree."""
    x = torch.tensor(np.random.default_rng(0).uniform(1, 2, 1000), requires_grad=True)
    expected = torch_F.dropout(x, 0.3)
    kept = expected.detach().numpy() != 0
    ours = tg.tensor(x.detach().numpy(), requires_grad=True)
    tg.manual_seed(0)
    out = tg_F.dropout(ours, 0.3)
    both = kept & (out.data != 0)
    np.testing.assert_allclose(out.data[both], expected.detach().numpy()[both], rtol=1e-15)
