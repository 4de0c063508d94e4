"""torch.distributions' Categorical and Normal: log_prob and entropy against their formulas in
NumPy, gradients by gradcheck, sample frequencies, and (with PyTorch) values and gradients
against torch.distributions."""

import math

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.distributions import Categorical, Normal


def randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def test_categorical_log_prob_and_entropy_formulas():
    logits = randn(3, 4)
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    d = Categorical(logits=tg.tensor(logits))
    value = np.array([0, 3, 1])
    np.testing.assert_allclose(
        d.log_prob(tg.tensor(value)).numpy(), log_p[range(3), value], rtol=1e-14
    )
    np.testing.assert_allclose(d.entropy().numpy(), -(np.exp(log_p) * log_p).sum(-1), rtol=1e-14)
    same = Categorical(probs=tg.tensor(np.exp(logits)))  # probs are normalised first
    np.testing.assert_allclose(same.probs.numpy(), np.exp(log_p), rtol=1e-14)
    assert d.batch_shape == (3,) and d.sample((5, 2)).shape == (5, 2, 3)
    with pytest.raises(ValueError, match="either `probs` or `logits`"):
        Categorical(probs=tg.ones(2), logits=tg.ones(2))


def test_categorical_samples_follow_the_probabilities():
    tg.manual_seed(0)
    draws = Categorical(probs=tg.tensor([0.1, 0.6, 0.3])).sample((20000,)).numpy()
    assert draws.dtype == np.int64
    np.testing.assert_allclose(np.bincount(draws, minlength=3) / 20000, [0.1, 0.6, 0.3], atol=0.015)
    assert Categorical(probs=tg.tensor([0.0, 1.0])).entropy().item() == 0.0  # 0 log 0 = 0


def test_categorical_and_normal_gradients_check():
    value = tg.tensor([2, 0])
    assert tg.gradcheck(
        lambda l: Categorical(logits=l).log_prob(value),
        (tg.tensor(randn(2, 3), requires_grad=True),),
    )
    assert tg.gradcheck(
        lambda l: Categorical(logits=l).entropy(), (tg.tensor(randn(2, 3), requires_grad=True),)
    )
    x = tg.tensor(randn(4, seed=3))
    loc, scale = (
        tg.tensor(randn(4), requires_grad=True),
        tg.tensor(np.exp(randn(4, seed=1)), requires_grad=True),
    )
    assert tg.gradcheck(lambda m, s: Normal(m, s).log_prob(x), (loc, scale))
    assert tg.gradcheck(lambda m, s: Normal(m, s).entropy(), (loc, scale))


def test_normal_formulas_and_reparameterised_sample():
    loc, scale, x = randn(3), np.exp(randn(3, seed=1)), randn(3, seed=2)
    d = Normal(tg.tensor(loc), tg.tensor(scale))
    expected = -((x - loc) ** 2) / (2 * scale**2) - np.log(scale) - 0.5 * np.log(2 * np.pi)
    np.testing.assert_allclose(d.log_prob(tg.tensor(x)).numpy(), expected, rtol=1e-14)
    np.testing.assert_allclose(
        d.entropy().numpy(), 0.5 + 0.5 * math.log(2 * math.pi) + np.log(scale)
    )
    m, s = tg.tensor(0.5, requires_grad=True), tg.tensor(2.0, requires_grad=True)
    tg.manual_seed(1)
    y = Normal(m, s).rsample((10000,))
    y.sum().backward()  # dy/dm = 1 per sample, dy/ds = eps
    assert m.grad.item() == 10000 and abs(y.detach().numpy().std() - 2.0) < 0.05
    assert not Normal(m, s).sample().requires_grad


@pytest.mark.oracle
def test_against_torch_distributions():
    torch = pytest.importorskip("torch")
    logits, value = randn(3, 5), np.array([4, 0, 2])
    ours, theirs = tg.tensor(logits, requires_grad=True), torch.tensor(logits, requires_grad=True)
    a = tg.distributions.Categorical(logits=ours)
    b = torch.distributions.Categorical(logits=theirs)
    (a.log_prob(tg.tensor(value)).sum() + a.entropy().sum()).backward()
    (b.log_prob(torch.tensor(value)).sum() + b.entropy().sum()).backward()
    np.testing.assert_allclose(
        a.entropy().detach().numpy(), b.entropy().detach().numpy(), rtol=1e-14
    )
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12, atol=1e-15)
    loc, scale, x = randn(2, 3), np.exp(randn(2, 3, seed=1)), randn(2, 3, seed=2)
    n_ours = tg.distributions.Normal(tg.tensor(loc), tg.tensor(scale))
    n_theirs = torch.distributions.Normal(torch.tensor(loc), torch.tensor(scale))
    np.testing.assert_allclose(
        n_ours.log_prob(tg.tensor(x)).numpy(),
        n_theirs.log_prob(torch.tensor(x)).numpy(),
        rtol=1e-14,
    )
    np.testing.assert_allclose(n_ours.entropy().numpy(), n_theirs.entropy().numpy(), rtol=1e-14)
