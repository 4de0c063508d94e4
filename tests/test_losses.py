"""Losses: the identities that define them, their stability, gradients and errors. (Values
and gradients against NumPy formulas: the op table, tests/test_ops.py; against PyTorch:
tests/test_oracle_losses.py.)"""

import itertools

import numpy as np
import pytest

import tinygrad_norm as tg
import tinygrad_norm.nn.functional as F

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
