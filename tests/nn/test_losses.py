"""Losses: the identities that define them, their stability, gradients and errors, and the loss
modules (CrossEntropyLoss, NLLLoss, MSELoss) against NumPy formulas and check_module. (Values
and gradients of the functions against NumPy formulas: the op table, tests/ops/test_ops.py;
against PyTorch: tests/oracle/test_oracle_losses.py.)"""

import itertools

import numpy as np
import pytest
from helpers import randn, t64

import tinygrad_norm as tg
import tinygrad_norm.nn.functional as F
from tinygrad_norm import nn

rng = np.random.default_rng(0)


def t(*shape, requires_grad=True):
    return tg.tensor(rng.standard_normal(shape), requires_grad=requires_grad)


def brute_force_ctc(log_probs: np.ndarray, labels: list, blank=0) -> float:
    """-log of the summed probability of every frame-by-frame path that collapses (merge
    repeats, then drop blanks) to `labels`: the definition CTC's recursion computes."""
    frames, classes = log_probs.shape
    total = 0.0
    for path in itertools.product(range(classes), repeat=frames):
        merged = [c for i, c in enumerate(path) if i == 0 or c != path[i - 1]]
        if [c for c in merged if c != blank] == labels:
            total += np.exp(sum(log_probs[i, c] for i, c in enumerate(path)))
    return -np.log(total)


@pytest.mark.parametrize("labels", [[1, 2], [1, 1], [2], []])
def test_ctc_loss_sums_every_alignment(labels):
    log_probs = np.log(rng.dirichlet(np.ones(3), 5))  # (T=5, C=3)
    lp = tg.tensor(log_probs[:, None, :])  # (T, N=1, C)
    targets = tg.tensor([labels or [1]])
    loss = F.ctc_loss(lp, targets, [5], [len(labels)], reduction="sum")
    assert loss.item() == pytest.approx(brute_force_ctc(log_probs, labels), rel=1e-12)


def test_ctc_loss_gradients_with_short_inputs_and_concatenated_targets():
    x = t(5, 3, 4)
    targets, lengths = tg.tensor([1, 3, 2, 2, 1]), [2, 2, 1]

    def loss(x):
        return F.ctc_loss(x.log_softmax(2), targets, [5, 4, 2], lengths, reduction="sum")

    assert tg.gradcheck(loss, (x,))
    assert tg.gradgradcheck(loss, (x,))


def test_ctc_loss_rejects_the_blank_as_a_label():
    with pytest.raises(IndexError, match="blank"):
        F.ctc_loss(t(3, 1, 3), tg.tensor([[0, 1]]), [3], [2])


def test_cross_entropy_none_gives_plus_zero_for_ignored_targets_in_the_logits_dtype():
    """reduction="none": an ignored target's loss is +0 (PyTorch prints 0.0000, not -0.0000),
    and the losses keep the logits' dtype when float64 class probabilities are the target."""
    x = tg.tensor(np.arange(12.0).reshape(3, 4) / 7)
    out = F.cross_entropy(x, tg.tensor([1, -100, 2]), reduction="none").numpy()
    assert out[1] == 0 and not np.signbit(out[1])
    x32 = tg.tensor(np.ones((2, 4), np.float32))
    probabilities = tg.tensor(np.full((2, 4), 0.25))  # float64
    for reduction in ("none", "sum", "mean"):
        assert F.cross_entropy(x32, probabilities, reduction=reduction).dtype == tg.float32


def test_binary_cross_entropy_with_logits_is_stable_for_large_logits():
    x = tg.tensor([1000.0, -1000.0, 1000.0], requires_grad=True)
    loss = F.binary_cross_entropy_with_logits(x, tg.tensor([1.0, 0.0, 0.0]), reduction="none")
    assert loss.tolist() == [0.0, 0.0, 1000.0]
    loss.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0]  # sigmoid(x) - target


def test_binary_cross_entropy_with_logits_equals_bce_of_the_sigmoid():
    x, y = t(3, 4), tg.tensor(rng.uniform(0, 1, (3, 4)))
    a = F.binary_cross_entropy_with_logits(x, y)
    b = F.binary_cross_entropy(x.sigmoid(), y)
    assert a.item() == pytest.approx(b.item(), rel=1e-12)


def test_huber_is_delta_times_smooth_l1():
    x, y = t(4, 5), t(4, 5)
    np.testing.assert_allclose(
        F.huber_loss(x, y, delta=0.3).numpy(),
        0.3 * F.smooth_l1_loss(x, y, beta=0.3).numpy(),
        rtol=1e-12,
    )


def test_kl_div_batchmean_is_the_sum_over_the_batch_size():
    log_q, p = t(4, 3).log_softmax(1), tg.tensor(rng.dirichlet(np.ones(3), 4))
    total = F.kl_div(log_q, p, reduction="sum").item()
    assert F.kl_div(log_q, p, reduction="batchmean").item() == pytest.approx(total / 4)
    assert F.kl_div(p.log(), p, reduction="batchmean").item() == pytest.approx(0, abs=1e-15)


def test_legacy_size_average_and_reduce():
    x, y = t(3), t(3)
    assert F.l1_loss(x, y, size_average=False).item() == pytest.approx(
        F.l1_loss(x, y, reduction="sum").item()
    )
    assert F.l1_loss(x, y, reduce=False).shape == (3,)


def test_cosine_similarity_is_scale_invariant():
    a, b = t(3, 4), t(3, 4)
    np.testing.assert_allclose(
        F.cosine_similarity(a * 7.0, b).numpy(), F.cosine_similarity(a, b).numpy(), rtol=1e-12
    )


def test_cdist_is_every_pairwise_distance():
    a, b = t(3, 4), t(5, 4)
    d = tg.cdist(a, b).numpy()
    assert d.shape == (3, 5)
    assert d[1, 2] == pytest.approx(np.linalg.norm(a.numpy()[1] - b.numpy()[2]))


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: F.binary_cross_entropy(tg.tensor([1.5]), tg.tensor([1.0])),
            RuntimeError,
            "[0, 1]",
        ),
        (lambda: F.l1_loss(tg.ones(3), tg.ones(2)), ValueError, "input's shape"),
        (lambda: F.l1_loss(tg.ones(3), tg.ones(3), reduction="avg"), ValueError, "reduction"),
        (lambda: F.gaussian_nll_loss(tg.ones(3), tg.ones(3), -tg.ones(3)), ValueError, "negative"),
    ],
)
def test_mistakes(call, error, message):
    with pytest.raises(error, match=message):
        call()


# --- integer and bool inputs: refused, never wrapped around (uint8 1 - 2 is 255) ----------------
def _input_of(dtype):
    return tg.tensor([[1, 0], [0, 1]]).to(dtype)


INTEGER_INPUT_CALLS = {
    "mse_loss": lambda x: F.mse_loss(x, tg.ones(2, 2)),
    "l1_loss": lambda x: F.l1_loss(x, tg.ones(2, 2)),
    "smooth_l1_loss": lambda x: F.smooth_l1_loss(x, tg.ones(2, 2)),
    "huber_loss": lambda x: F.huber_loss(x, tg.ones(2, 2)),
    "soft_margin_loss": lambda x: F.soft_margin_loss(x, tg.ones(2, 2)),
    "binary_cross_entropy": lambda x: F.binary_cross_entropy(x, tg.ones(2, 2)),
    "binary_cross_entropy_with_logits": lambda x: F.binary_cross_entropy_with_logits(
        x, tg.ones(2, 2)
    ),
    "kl_div": lambda x: F.kl_div(x, tg.ones(2, 2), reduction="sum"),
    "poisson_nll_loss": lambda x: F.poisson_nll_loss(x, tg.ones(2, 2)),
    "gaussian_nll_loss": lambda x: F.gaussian_nll_loss(x, tg.ones(2, 2), tg.ones(2, 2)),
    "hinge_embedding_loss": lambda x: F.hinge_embedding_loss(x, tg.ones(2, 2)),
    "margin_ranking_loss": lambda x: F.margin_ranking_loss(x, x, tg.ones(2, 2)),
    "cosine_embedding_loss": lambda x: F.cosine_embedding_loss(x, x, tg.ones(2)),
    "nll_loss": lambda x: F.nll_loss(x, tg.tensor([0, 1])),
    "cross_entropy": lambda x: F.cross_entropy(x, tg.tensor([0, 1])),
}


@pytest.mark.parametrize("dtype", [tg.uint8, tg.int64, tg.bool], ids=str)
@pytest.mark.parametrize("name", list(INTEGER_INPUT_CALLS))
def test_every_loss_refuses_an_integer_or_bool_input_naming_itself(name, dtype):
    """PyTorch's losses refuse integer inputs (NotImplementedError or its base RuntimeError);
    ours did arithmetic in the integer dtype: huber_loss(uint8 1, uint8 2) was 254.5."""
    with pytest.raises(NotImplementedError) as info:
        INTEGER_INPUT_CALLS[name](_input_of(dtype))
    message = str(info.value)
    assert message.startswith(f"{name}:"), message
    assert str(dtype).removeprefix("torch.") in message and "(2, 2)" in message, message
    assert ".float()" in message, message


def test_the_integer_losses_of_the_sweep_raise():
    u8 = tg.uint8
    with pytest.raises(NotImplementedError, match="huber_loss: .* uint8"):
        F.huber_loss(tg.tensor([1], dtype=u8), tg.tensor([2], dtype=u8))
    with pytest.raises(NotImplementedError, match="nll_loss: .* uint8 of shape \\(1, 2\\)"):
        F.nll_loss(tg.tensor([[3, 1]], dtype=u8), tg.tensor([0]))
    with pytest.raises(NotImplementedError, match="l1_loss: .* bool"):  # was NumPy's TypeError
        F.l1_loss(tg.tensor([True]), tg.tensor([False]))
    with pytest.raises(NotImplementedError, match="mse_loss: .* int64"):  # named "mean:" before
        F.mse_loss(tg.tensor([1, 2]), tg.tensor([1, 2]))


TARGET_LOSSES = """mse_loss l1_loss smooth_l1_loss huber_loss soft_margin_loss kl_div
binary_cross_entropy binary_cross_entropy_with_logits poisson_nll_loss
hinge_embedding_loss""".split()


@pytest.mark.parametrize("dtype", [tg.uint8, tg.int64, tg.bool], ids=str)
@pytest.mark.parametrize(
    "loss",
    [getattr(F, name) for name in TARGET_LOSSES],
    ids=lambda f: f.__name__,
)
def test_an_integer_or_bool_target_counts_as_the_float_it_holds(loss, dtype):
    """A float input with an integer target is fine (PyTorch promotes the target to the
    input's dtype); a uint8 target must not wrap: soft_margin_loss's -target was 255."""
    x = tg.tensor([[0.2, 0.7], [0.4, 0.9]], requires_grad=True)
    target = tg.tensor([[1, 0], [0, 1]])
    out = loss(x, target.to(dtype))
    expected = loss(x, target.to(tg.float32))
    assert out.dtype == tg.float32
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-6)


# --- kl_div: PyTorch's xlogy(t, t) - t · input -------------------------------------------------
def test_kl_div_is_xlogy_of_the_target_minus_target_times_input():
    x = tg.tensor([0.5, 0.2, -np.inf, 0.3, 0.1, -1.5], dtype=tg.float64, requires_grad=True)
    t = tg.tensor([-1.0, 0.0, 0.0, 0.5, np.nan, 0.25], dtype=tg.float64, requires_grad=True)
    loss = F.kl_div(x, t, reduction="none")
    # t log t - t x; NaN for a negative or NaN target and for 0 · (-inf); 0 · log 0 counts as 0
    expected = [np.nan, 0.0, np.nan, 0.5 * np.log(0.5) - 0.15, np.nan, 0.25 * np.log(0.25) + 0.375]
    np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-15)
    loss.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), -t.numpy(), rtol=1e-15)  # d/dx = -t
    # d/dt = log t + 1 - x; -x at t = 0 (0 · log 0 sends 0); NaN where log t is
    expected_t = [np.nan, -0.2, np.inf, np.log(0.5) + 1 - 0.3, np.nan, np.log(0.25) + 2.5]
    np.testing.assert_allclose(t.grad.numpy(), expected_t, rtol=1e-12)


def test_kl_div_of_a_negative_target_is_nan_not_a_number():
    # the sweep's case: -0.4466 before (the negative target was dropped as if 0)
    assert np.isnan(F.kl_div(tg.tensor([0.5, 0.2]), tg.tensor([-1.0, 0.5]), reduction="sum").item())


def test_kl_div_gradchecks_at_positive_targets():
    x = t(2, 3)
    target = tg.tensor(rng.dirichlet(np.ones(3), 2), requires_grad=True)
    assert tg.gradcheck(lambda a, b: F.kl_div(a, b, reduction="sum"), (x, target))
    assert tg.gradgradcheck(lambda a, b: F.kl_div(a, b, reduction="batchmean"), (x, target))


# --- the loss modules -----------------------------------------------------------------------------
RTOL = 1e-12
LOGITS = randn(5, 4, seed=3)
TARGET = np.array([1, 0, 3, 2, 3])


def _log_softmax(x):
    shifted = x - x.max(1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(1, keepdims=True))


def test_cross_entropy_loss_equals_numpy():
    logp = _log_softmax(LOGITS)
    picked = -logp[np.arange(5), TARGET]
    loss = nn.CrossEntropyLoss()(t64(LOGITS), tg.tensor(TARGET))
    np.testing.assert_allclose(loss.item(), picked.mean(), rtol=RTOL)
    none = nn.CrossEntropyLoss(reduction="none")(t64(LOGITS), tg.tensor(TARGET))
    np.testing.assert_allclose(none.numpy(), picked, rtol=RTOL)


def test_cross_entropy_loss_weight_ignore_index_and_label_smoothing():
    weight = np.array([1.0, 0.5, 2.0, 1.5])
    target = np.array([1, 0, -1, 2, 3])
    eps = 0.2
    logp = _log_softmax(LOGITS)
    valid = target != -1
    safe = np.where(valid, target, 0)
    w_t = np.where(valid, weight[safe], 0)
    # PyTorch's rule: (1 - eps) * the weighted NLL + eps / C * the weighted sum over classes
    nll = -logp[np.arange(5), safe] * w_t
    smooth = -(logp * weight).sum(1) * valid / 4
    expected = ((1 - eps) * nll + eps * smooth).sum() / w_t.sum()
    loss_fn = nn.CrossEntropyLoss(t64(weight), ignore_index=-1, label_smoothing=eps)
    np.testing.assert_allclose(loss_fn(t64(LOGITS), tg.tensor(target)).item(), expected, rtol=RTOL)


def test_nll_loss_equals_numpy_and_log_softmax_then_nll_is_cross_entropy():
    weight = np.array([1.0, 0.5, 2.0, 1.5])
    logp = _log_softmax(LOGITS)
    expected = -(logp[np.arange(5), TARGET] * weight[TARGET]).sum() / weight[TARGET].sum()
    loss = nn.NLLLoss(t64(weight))(t64(logp), tg.tensor(TARGET))
    np.testing.assert_allclose(loss.item(), expected, rtol=RTOL)
    x = t64(LOGITS)
    composed = nn.NLLLoss()(nn.LogSoftmax(dim=1)(x), tg.tensor(TARGET))
    np.testing.assert_allclose(
        composed.item(), nn.CrossEntropyLoss()(x, tg.tensor(TARGET)).item(), rtol=RTOL
    )


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_equals_numpy(reduction):
    a, b = randn(3, 4), randn(3, 4, seed=1)
    squared = (a - b) ** 2
    expected = {"mean": squared.mean(), "sum": squared.sum(), "none": squared}[reduction]
    out = nn.MSELoss(reduction=reduction)(t64(a), t64(b))
    np.testing.assert_allclose(out.numpy(), expected, rtol=RTOL)


@pytest.mark.parametrize(
    "loss_fn",
    [
        nn.CrossEntropyLoss(),
        nn.CrossEntropyLoss(ignore_index=3, label_smoothing=0.1, reduction="sum"),
        nn.NLLLoss(tg.tensor([1.0, 0.5, 2.0, 1.5])),
    ],
    ids=["ce", "ce_options", "nll_weighted"],
)
def test_class_losses_check_module(loss_fn):
    assert tg.check_module(loss_fn, t64(LOGITS), tg.tensor(TARGET))


def test_mse_loss_check_module():
    assert tg.check_module(nn.MSELoss(), t64(randn(3, 4)), t64(randn(3, 4, seed=1)))


def test_loss_class_weights_are_a_buffer_that_follows_to():
    loss_fn = nn.CrossEntropyLoss(tg.tensor([1.0, 2.0]))
    assert [name for name, _ in loss_fn.named_buffers()] == ["weight"]
    assert loss_fn.double().weight.dtype == np.float64
