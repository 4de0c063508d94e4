"""nn.functional: every function's forward against a plain-NumPy formula, its gradients against
finite differences (first and, where smooth, second order, float64), dropout's statistics and
randomness, running statistics, and the error messages."""

import math

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.nn import functional as F

INDEX = np.array([[0, 3, 3], [5, 0, 1]])  # repeated rows: their gradients add up
TARGET = np.array([1, 0, 3, -100])
TARGET_ND = np.array([[2, 0, 1], [3, 3, -100]])
CLASS_WEIGHT = np.array([1.0, 0.5, 2.0, 1.5])
BOOL_MASK = np.array([[True, False, True, True], [False, True, True, False], [True] * 4])
erf = np.vectorize(math.erf)


# --- plain NumPy formulas ------------------------------------------------------------------------
def np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def np_log_softmax(x, axis):
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def np_normalize(x, axes, eps):
    mean = x.mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)


def np_channel(v, ndim):
    return v.reshape((1, -1) + (1,) * (ndim - 2))


def np_group_norm(x, groups, w, b, eps=1e-5):
    g = x.reshape(x.shape[0], groups, -1)
    y = np_normalize(g, (2,), eps).reshape(x.shape)
    return y * np_channel(w, x.ndim) + np_channel(b, x.ndim)


def np_attention(q, k, v, bias=0.0, scale=None):
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    return np_softmax(q @ np.swapaxes(k, -1, -2) * scale + bias, -1) @ v


def np_nll(logp, target, weight=None, reduction="mean", ignore_index=-100):
    """-logp[n, target[n]] * weight[target[n]], by an explicit loop over the samples."""
    weight = np.ones(logp.shape[1]) if weight is None else weight
    moved = np.moveaxis(logp, 1, -1).reshape(-1, logp.shape[1])  # (samples, C)
    losses, total_weight = [], 0.0
    for row, t in zip(moved, target.reshape(-1)):
        losses.append(0.0 if t == ignore_index else -row[t] * weight[t])
        total_weight += 0.0 if t == ignore_index else weight[t]
    losses = np.array(losses).reshape(target.shape)
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.sum() / total_weight


def np_cross_entropy(x, target, weight=None, reduction="mean", ignore_index=-100, eps=0.0):
    """PyTorch's definition: (1 - eps) * nll + eps / C * (the smoothing term)."""
    logp = np_log_softmax(x, 1)
    n_classes = x.shape[1]
    weight = np.ones(n_classes) if weight is None else weight
    valid = target != ignore_index
    nll = np_nll(logp, target, weight, "none", ignore_index)
    smooth = -(logp * np_channel(weight, x.ndim)).sum(axis=1) * valid
    if reduction == "none":
        return (1 - eps) * nll + eps / n_classes * smooth
    if reduction == "sum":
        return (1 - eps) * nll.sum() + eps / n_classes * smooth.sum()
    denominator = np.where(valid, weight[np.where(valid, target, 0)], 0).sum()
    return ((1 - eps) * nll.sum() + eps / n_classes * smooth.sum()) / denominator


# --- the table: name, fn(*tensors), ref(*arrays), input shapes, second order? --------------------
CASES = [
    ("linear", lambda x, w, b: F.linear(x, w, b), lambda x, w, b: x @ w.T + b,
     ((2, 3, 4), (5, 4), (5,)), True),
    ("linear_no_bias_2d", lambda x, w: F.linear(x, w), lambda x, w: x @ w.T, ((3, 4), (2, 4)),
     True),
    ("conv1d_gpt2", lambda x, w, b: F.conv1d_gpt2(x, w, b), lambda x, w, b: x @ w + b,
     ((2, 3, 4), (4, 6), (6,)), True),
    ("embedding", lambda w: F.embedding(tg.tensor(INDEX), w), lambda w: w[INDEX], ((6, 3),),
     True),
    ("gelu", lambda x: F.gelu(x), lambda x: x * 0.5 * (1 + erf(x / math.sqrt(2))), ((3, 4),),
     True),
    ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh"),
     lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
     ((3, 4),), True),
    ("relu", lambda x: F.relu(x), lambda x: np.maximum(x, 0), ((3, 4),), False),
    ("softmax", lambda x: F.softmax(x, dim=1), lambda x: np_softmax(x, 1), ((2, 3, 4),), True),
    ("log_softmax", lambda x: F.log_softmax(x, -1), lambda x: np_log_softmax(x, -1), ((3, 4),),
     True),
    ("dropout_eval", lambda x: F.dropout(x, 0.5, training=False), lambda x: x, ((3, 4),), True),
    ("layer_norm", lambda x, w, b: F.layer_norm(x, (4,), w, b),
     lambda x, w, b: np_normalize(x, (-1,), 1e-5) * w + b, ((2, 3, 4), (4,), (4,)), True),
    ("layer_norm_2d_shape", lambda x, w, b: F.layer_norm(x, [3, 4], w, b, eps=1e-3),
     lambda x, w, b: np_normalize(x, (-2, -1), 1e-3) * w + b, ((2, 3, 4), (3, 4), (3, 4)), True),
    ("layer_norm_no_affine", lambda x: F.layer_norm(x, 4),
     lambda x: np_normalize(x, (-1,), 1e-5), ((3, 4),), True),
    ("batch_norm_train_2d", lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
     lambda x, w, b: np_normalize(x, (0,), 1e-5) * w + b, ((5, 3), (3,), (3,)), True),
    ("batch_norm_train_4d", lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
     lambda x, w, b: np_normalize(x, (0, 2, 3), 1e-5) * np_channel(w, 4) + np_channel(b, 4),
     ((2, 3, 2, 2), (3,), (3,)), True),
    ("batch_norm_eval_3d",
     lambda x, w, b: F.batch_norm(x, np.array([0.1, -0.2, 0.3]), np.array([1.5, 0.5, 2.0]), w, b),
     lambda x, w, b: (x - np_channel(np.array([0.1, -0.2, 0.3]), 3))
     / np.sqrt(np_channel(np.array([1.5, 0.5, 2.0]), 3) + 1e-5) * np_channel(w, 3)
     + np_channel(b, 3), ((2, 3, 4), (3,), (3,)), True),
    ("instance_norm", lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
     lambda x, w, b: np_normalize(x, (2, 3), 1e-5) * np_channel(w, 4) + np_channel(b, 4),
     ((2, 3, 2, 3), (3,), (3,)), True),
    ("instance_norm_no_affine", lambda x: F.instance_norm(x),
     lambda x: np_normalize(x, (2,), 1e-5), ((2, 3, 4),), True),
    ("group_norm", lambda x, w, b: F.group_norm(x, 2, w, b),
     lambda x, w, b: np_group_norm(x, 2, w, b), ((2, 4, 3), (4,), (4,)), True),
    ("group_norm_one_group_4d", lambda x, w, b: F.group_norm(x, 1, w, b),
     lambda x, w, b: np_group_norm(x, 1, w, b), ((2, 3, 2, 2), (3,), (3,)), True),
    ("rms_norm", lambda x, w: F.rms_norm(x, (4,), w, eps=1e-6),
     lambda x, w: x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w, ((2, 3, 4), (4,)),
     True),
    ("rms_norm_default_eps", lambda x: F.rms_norm(x, [3, 4]),
     lambda x: x / np.sqrt((x * x).mean((-2, -1), keepdims=True) + np.finfo(np.float64).eps),
     ((2, 3, 4),), True),
    ("sdpa", lambda q, k, v: F.scaled_dot_product_attention(q, k, v), np_attention,
     ((2, 3, 5), (2, 4, 5), (2, 4, 2)), True),
    ("sdpa_causal_scale", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                                                          scale=0.7),
     lambda q, k, v: np_attention(q, k, v, np.where(np.tril(np.ones((3, 3))) > 0, 0, -np.inf),
                                  0.7), ((2, 1, 3, 4), (2, 1, 3, 4), (2, 1, 3, 3)), True),
    ("sdpa_bool_mask",
     lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=tg.tensor(BOOL_MASK)),
     lambda q, k, v: np_attention(q, k, v, np.where(BOOL_MASK, 0, -np.inf)),
     ((2, 3, 5), (2, 4, 5), (2, 4, 3)), True),
    ("sdpa_float_mask", lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
     lambda q, k, v, m: np_attention(q, k, v, m), ((3, 5), (4, 5), (4, 2), (3, 4)), True),
    ("cross_entropy", lambda x: F.cross_entropy(x, tg.tensor(TARGET)),
     lambda x: np_cross_entropy(x, TARGET), ((4, 4),), True),
    ("cross_entropy_weight_smoothing_sum",
     lambda x: F.cross_entropy(x, tg.tensor(TARGET), tg.tensor(CLASS_WEIGHT), reduction="sum",
                               label_smoothing=0.2),
     lambda x: np_cross_entropy(x, TARGET, CLASS_WEIGHT, "sum", eps=0.2), ((4, 4),), True),
    ("cross_entropy_nd_none",
     lambda x: F.cross_entropy(x, tg.tensor(TARGET_ND), reduction="none", label_smoothing=0.1),
     lambda x: np_cross_entropy(x, TARGET_ND, reduction="none", eps=0.1), ((2, 4, 3),), True),
    ("cross_entropy_unbatched", lambda x: F.cross_entropy(x, tg.tensor(2)),
     lambda x: -np_log_softmax(x, 0)[2], ((4,),), True),
    ("cross_entropy_probabilities", lambda x, p: F.cross_entropy(x, p.softmax(-1)),
     lambda x, p: -(np_softmax(p, -1) * np_log_softmax(x, -1)).sum(-1).mean(), ((3, 4), (3, 4)),
     True),
    ("nll_loss", lambda x: F.nll_loss(x, tg.tensor(TARGET)), lambda x: np_nll(x, TARGET),
     ((4, 4),), True),
    ("nll_loss_weight_nd_none",
     lambda x: F.nll_loss(x, tg.tensor(TARGET_ND), tg.tensor(CLASS_WEIGHT), reduction="none"),
     lambda x: np_nll(x, TARGET_ND, CLASS_WEIGHT, "none"), ((2, 4, 3),), True),
    ("nll_loss_weight_mean",
     lambda x: F.nll_loss(x, tg.tensor(TARGET_ND), tg.tensor(CLASS_WEIGHT)),
     lambda x: np_nll(x, TARGET_ND, CLASS_WEIGHT), ((2, 4, 3),), True),
    ("mse_loss", lambda x, y: F.mse_loss(x, y), lambda x, y: ((x - y) ** 2).mean(),
     ((3, 4), (3, 4)), True),
    ("mse_loss_sum_broadcast", lambda x, y: _mse_sum_warns_of_broadcast(x, y),
     lambda x, y: ((x - y) ** 2).sum(), ((3, 4), (4,)), True),
    ("mse_loss_none", lambda x, y: F.mse_loss(x, y, reduction="none"),
     lambda x, y: (x - y) ** 2, ((3, 4), (3, 4)), True),
]  # fmt: skip
IDS = [c[0] for c in CASES]


def _mse_sum_warns_of_broadcast(x, y):
    """mse_loss of a (3, 4) input and a (4,) target: computed, with a warning that says so."""
    with pytest.warns(UserWarning, match=r"target of shape \(4,\) differs from input"):
        return F.mse_loss(x, y, reduction="sum")


def arrays(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal(s) for s in shapes)


def leaves(shapes, seed=0):
    return tuple(tg.tensor(a, requires_grad=True) for a in arrays(shapes, seed))


@pytest.mark.parametrize("name, fn, ref, shapes, smooth", CASES, ids=IDS)
def test_forward_matches_numpy_formula(name, fn, ref, shapes, smooth):
    out = fn(*leaves(shapes))
    expected = ref(*arrays(shapes))
    assert out.shape == np.shape(expected)
    assert out.dtype == tg.float64
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("name, fn, ref, shapes, smooth", CASES, ids=IDS)
def test_gradcheck(name, fn, ref, shapes, smooth):
    assert tg.gradcheck(fn, leaves(shapes))


@pytest.mark.parametrize("name, fn, ref, shapes, smooth", [c for c in CASES if c[4]],
                         ids=[c[0] for c in CASES if c[4]])  # fmt: skip
def test_gradgradcheck(name, fn, ref, shapes, smooth):
    assert tg.gradgradcheck(fn, leaves(shapes))


# --- linear layers -------------------------------------------------------------------------------
@pytest.mark.parametrize("layer", ["linear", "conv1d_gpt2"])
def test_weight_gradient_is_one_2d_matmul(layer):
    x = tg.randn(4, 8, 3, dtype=tg.float64, requires_grad=True)
    w = tg.randn(5, 3, dtype=tg.float64, requires_grad=True)
    weight = w if layer == "linear" else w.T.detach().requires_grad_()
    out = F.linear(x, w) if layer == "linear" else F.conv1d_gpt2(x, weight)
    assert out.grad_fn.name == "LinearBackward"  # one fused node
    out.backward(tg.ones_like(out), create_graph=True)  # records the backward's own ops
    matmuls, stack = [], [weight.grad.grad_fn]
    while stack:
        node = stack.pop()
        if node.name == "MatMulBackward":
            matmuls.append(node)
        stack.extend(e for e in node.edges if isinstance(e, tg.autograd.node.Context))
    assert len(matmuls) == 1  # (3, B*T) @ (B*T, 5), not a batch of (3, 8) @ (8, 5)
    # nn.Linear's weight is (out, in): its gradient is (5, B*T) @ (B*T, 3), no transpose after
    expected = [(5, 32), (32, 3)] if layer == "linear" else [(3, 32), (32, 5)]
    assert list(matmuls[0].input_shapes) == expected


@pytest.mark.parametrize("padding_idx", [0, -4])  # -4 names row 0 of 4, as in PyTorch
def test_embedding_padding_idx_gets_no_gradient(padding_idx):
    w = tg.tensor(np.arange(12.0).reshape(4, 3), requires_grad=True)
    out = F.embedding(tg.tensor([[3, 0], [2, 0]]), w, padding_idx=padding_idx)
    np.testing.assert_array_equal(out.numpy(), w.numpy()[[[3, 0], [2, 0]]])
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy().sum(1), [0.0, 0.0, 3.0, 3.0])  # row 0: padding


def test_embedding_refuses_a_negative_index_as_pytorch_does():
    # PyTorch raises "index out of range"; a -1 used as a padding marker must not silently
    # read the last row
    with pytest.raises(IndexError, match=r"embedding: index -1 .* 4 rows.*negative index"):
        F.embedding(tg.tensor([[-1, 0]]), tg.ones(4, 3))


@pytest.mark.parametrize("padding_idx", [4, -5])
def test_embedding_refuses_a_padding_idx_outside_the_table(padding_idx):
    # PyTorch asserts it; taken modulo 4 it would silently stop the gradient of another row
    with pytest.raises(ValueError, match=rf"embedding: padding_idx {padding_idx} .* 4-row"):
        F.embedding(tg.tensor([0, 1]), tg.ones(4, 3, requires_grad=True), padding_idx=padding_idx)


def test_soft_margin_loss_of_a_large_margin_is_exp_of_minus_the_margin_not_zero():
    # log(1 + e^-m) = e^-m to float32 for m = 17, 20 (4.1e-8, 2.1e-9): the sum 1 + e^-m alone
    # rounds to 1, whose log is 0; log1p keeps it, as PyTorch does
    margins = np.array([17.0, 20.0], np.float32)
    loss = F.soft_margin_loss(tg.tensor(margins), tg.ones(2), reduction="none")
    np.testing.assert_allclose(loss.numpy(), np.exp(-margins), rtol=1e-6)


# --- dropout -------------------------------------------------------------------------------------
@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_keeps_about_1_minus_p_and_scales_exactly(p):
    tg.manual_seed(0)
    x = tg.tensor(np.random.default_rng(1).uniform(1, 2, 200_000), requires_grad=True)
    out = F.dropout(x, p)
    kept = out.numpy() != 0
    assert abs(kept.mean() - (1 - p)) < 0.005  # 7 standard deviations at n = 200000
    np.testing.assert_array_equal(out.numpy()[kept], x.numpy()[kept] * (1 / (1 - p)))
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), kept * (1 / (1 - p)))


def test_dropout_identity_when_not_training_or_p_zero_and_zeros_when_p_one():
    x = tg.randn(3, 4, requires_grad=True)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    out = F.dropout(x, 1.0)
    assert (out.numpy() == 0).all() and out.requires_grad
    out.sum().backward()
    assert (x.grad.numpy() == 0).all()


def test_dropout_mask_follows_the_global_seed():
    x = tg.ones(1000)
    tg.manual_seed(7)
    first = F.dropout(x, 0.5)
    tg.manual_seed(7)
    with tg.random.fork_rng():
        inside = F.dropout(x, 0.5)
    after = F.dropout(x, 0.5)
    np.testing.assert_array_equal(inside.numpy(), first.numpy())
    np.testing.assert_array_equal(after.numpy(), first.numpy())  # fork_rng restored the state
    assert not np.array_equal(F.dropout(x, 0.5).numpy(), first.numpy())  # a new draw


def test_dropout_gradcheck_with_a_fixed_mask():
    tg.manual_seed(3)
    x = leaves([(4, 5)])
    assert tg.gradcheck(lambda x: F.dropout(x, 0.4), x)
    assert tg.gradgradcheck(lambda x: F.dropout(x, 0.4) * x, x)


# --- running statistics --------------------------------------------------------------------------
def test_batch_norm_training_updates_running_stats_with_unbiased_variance():
    x = arrays([(4, 3, 5)])[0] * 2 + 1
    mean, var = np.zeros(3), np.ones(3)
    running_mean, running_var = tg.zeros(3, dtype=tg.float64), tg.ones(3, dtype=tg.float64)
    for step in range(3):
        batch = x + step
        F.batch_norm(tg.tensor(batch), running_mean, running_var, training=True, momentum=0.2)
        mean = 0.8 * mean + 0.2 * batch.mean(axis=(0, 2))
        var = 0.8 * var + 0.2 * batch.var(axis=(0, 2), ddof=1)
    np.testing.assert_allclose(running_mean.numpy(), mean, rtol=1e-14)
    np.testing.assert_allclose(running_var.numpy(), var, rtol=1e-14)
    out = F.batch_norm(tg.tensor(x), running_mean, running_var)  # eval uses them
    np.testing.assert_allclose(out.numpy(), (x - mean[:, None]) / np.sqrt(var[:, None] + 1e-5))


def test_instance_norm_updates_running_stats_with_the_batch_average():
    x = arrays([(2, 3, 6)])[0]
    running_mean, running_var = np.zeros(3), np.ones(3)
    F.instance_norm(tg.tensor(x), running_mean, running_var, momentum=0.5)
    np.testing.assert_allclose(running_mean, 0.5 * x.mean(axis=2).mean(axis=0))
    np.testing.assert_allclose(running_var, 0.5 + 0.5 * x.var(axis=2, ddof=1).mean(axis=0))
    out = F.instance_norm(tg.tensor(x), running_mean, running_var, use_input_stats=False)
    expected = (x - running_mean[:, None]) / np.sqrt(running_var[:, None] + 1e-5)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)


def test_rms_norm_default_eps_is_the_dtype_machine_epsilon():
    x = tg.tensor([[1e-4, 0.0]], dtype=tg.float32)
    out = F.rms_norm(x, (2,))
    rms = np.sqrt(np.float32(0.5e-8) + np.finfo(np.float32).eps)
    np.testing.assert_allclose(out.numpy(), [[1e-4 / rms, 0.0]], rtol=1e-6)
    assert out.dtype == tg.float32


@pytest.mark.parametrize("kind", ["bool", "float"])
def test_attention_row_with_no_key_gives_zeros_and_zero_gradients(kind):
    q, k, v = leaves([(3, 4), (3, 4), (3, 2)])
    mask = np.array([[True, False, False], [False, False, False], [True, True, True]])
    if kind == "float":
        mask = np.where(mask, 0.0, -np.inf)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert (out.numpy()[1] == 0).all() and np.isfinite(out.numpy()).all()
    out.sum().backward()
    assert (q.grad.numpy()[1] == 0).all()
    assert all(np.isfinite(t.grad.numpy()).all() for t in (q, k, v))


def test_softmax_dtype_argument_converts_first():
    x = tg.tensor([[1.0, 2.0, 3.0]])
    assert x.dtype == tg.float32
    for f in (F.softmax, F.log_softmax):
        out = f(x, dim=-1, dtype=tg.float64)
        assert out.dtype == tg.float64
        np.testing.assert_allclose(out.numpy(), f(x.double(), -1).numpy(), rtol=0)


# --- errors: each names the function and the sizes involved --------------------------------------
ERRORS = [
    (lambda: F.linear(tg.ones(2, 3), tg.ones(4, 5)), ValueError, r"linear: .*3 features.*5"),
    (lambda: F.conv1d_gpt2(tg.ones(2, 3), tg.ones(4, 5)), ValueError,
     r"conv1d_gpt2: .*last axis 3.*nx = 4.*OUTPUT size nf first"),
    (lambda: F.embedding(tg.tensor([0, 9]), tg.ones(4, 2)), IndexError, r"embedding: index 9.*4"),
    (lambda: F.embedding(tg.tensor([0.0]), tg.ones(4, 2)), TypeError, r"embedding: .*integer"),
    (lambda: F.dropout(tg.ones(2), p=1.5), ValueError, r"dropout: .*\[0, 1\].*1.5"),
    (lambda: F.dropout(tg.ones(2), p=-0.1), ValueError, r"dropout: .*-0.1"),
    (lambda: F.gelu(tg.ones(2), approximate="fast"), ValueError, r"gelu: .*'fast'"),
    (lambda: F.softmax(tg.ones(2)), TypeError, r"softmax: pass dim="),
    (lambda: F.layer_norm(tg.ones(2, 3), (4,)), ValueError,
     r"layer_norm: normalized_shape \(4,\).*\(2, 3\)"),
    (lambda: F.layer_norm(tg.ones(2, 3), (3,), tg.ones(2)), ValueError,
     r"layer_norm: weight of shape \(2,\)"),
    (lambda: F.group_norm(tg.ones(2, 6, 3), 4), ValueError, r"group_norm: the 6 channels.*4"),
    (lambda: F.batch_norm(tg.ones(2, 3), None, None), ValueError,
     r"batch_norm: evaluation .* running_mean"),
    (lambda: F.batch_norm(tg.ones(1, 3), None, None, training=True), ValueError,
     r"batch_norm: .*more than one value per channel"),
    (lambda: F.batch_norm(tg.ones(2, 3), np.zeros(4), np.ones(4)), ValueError,
     r"batch_norm: running_mean must have shape \(3,\)"),
    (lambda: F.instance_norm(tg.ones(2, 3, 1)), ValueError, r"instance_norm: .*more than one"),
    (lambda: F.rms_norm(tg.ones(2, 3), (2,)), ValueError, r"rms_norm: normalized_shape"),
    (lambda: F.scaled_dot_product_attention(tg.ones(2, 3), tg.ones(2, 4), tg.ones(2, 4)),
     ValueError, r"scaled_dot_product_attention: query \(2, 3\), key \(2, 4\)"),
    (lambda: F.scaled_dot_product_attention(tg.ones(2, 3), tg.ones(2, 3), tg.ones(2, 3),
                                            attn_mask=np.ones((3, 2), bool), is_causal=True),
     ValueError, r"attn_mask of shape \(3, 2\) does not broadcast"),
    (lambda: F.cross_entropy(tg.ones(2, 3), tg.tensor([0, 1, 2])), ValueError,
     r"cross_entropy: input of shape \(2, 3\).*shape \(2,\).*\(3,\)"),
    (lambda: F.cross_entropy(tg.ones(2, 3), tg.tensor([0, 3])), IndexError,
     r"cross_entropy: target 3 is out of range for 3 classes"),
    (lambda: F.cross_entropy(tg.ones(2, 3), tg.ones(2, 4)), ValueError,
     r"cross_entropy: a float target .*\(2, 3\)"),
    (lambda: F.cross_entropy(tg.ones(2, 3), tg.tensor([0, 1]), label_smoothing=1.5), ValueError,
     r"label_smoothing must be in \[0, 1\]"),
    (lambda: F.cross_entropy(tg.ones(2, 3), tg.tensor([0, 1]), reduction="avg"), ValueError,
     r"reduction must be one of"),
    (lambda: F.cross_entropy(tg.ones(2, 3), tg.tensor([0, 1]), "sum"), TypeError,
     r"by keyword"),
    (lambda: F.nll_loss(tg.ones(2, 3), tg.tensor([0, 5])), IndexError, r"nll_loss: target 5"),
    (lambda: F.mse_loss(tg.ones(2), tg.ones(2), reduction="max"), ValueError, r"mse_loss"),
]  # fmt: skip


@pytest.mark.parametrize("call, error, message", ERRORS)
def test_errors_are_clear(call, error, message):
    with pytest.raises(error, match=message):
        call()
