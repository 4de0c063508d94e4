"""The benchmark's hand-written NumPy GPT computes the same model as `tg.models.GPT`: for the
same weights and batch, in float64, its loss and every gradient equal tinygrad_norm's, and one
AdamW step moves every weight as `tg.optim.AdamW` does."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.bench.numpy_gpt import AdamW, NumpyGPT

CASES = {  # vocab, n_ctx, d_model, n_layer, n_head, B, T
    "two_layers": (13, 8, 16, 2, 4, 3, 7),
    "one_head_full_context": (7, 6, 8, 1, 1, 2, 6),
}


def _models(vocab, n_ctx, d, n_layer, n_head, seed=0):
    tg.manual_seed(seed)
    config = tg.models.GPTConfig(
        vocab_size=vocab, n_ctx=n_ctx, d_model=d, n_layer=n_layer, n_head=n_head, dropout=0.0
    )
    model = tg.models.GPT(config).double()
    rng = np.random.default_rng(seed)
    for _, p in model.named_parameters():  # move LayerNorm and biases off their 1 / 0 start
        p.data += rng.normal(0.0, 0.1, p.shape)
    params = {name: p.numpy().copy() for name, p in model.named_parameters()}
    return model, NumpyGPT(params, n_layer, n_head)


@pytest.mark.parametrize("case", CASES)
def test_numpy_reference_loss_and_gradients_equal_tinygrad(case):
    vocab, n_ctx, d, n_layer, n_head, B, T = CASES[case]
    model, reference = _models(vocab, n_ctx, d, n_layer, n_head)
    rng = np.random.default_rng(1)
    idx, targets = rng.integers(0, vocab, (B, T)), rng.integers(0, vocab, (B, T))

    _, loss = model(tg.tensor(idx), tg.tensor(targets))
    loss.backward()
    ref_loss, ref_grads = reference.loss_and_grads(idx, targets)

    assert loss.dtype == np.float64
    np.testing.assert_allclose(ref_loss, loss.item(), rtol=1e-12, atol=0)
    named = dict(model.named_parameters())
    assert sorted(ref_grads) == sorted(named)
    for name, p in named.items():
        assert ref_grads[name].shape == p.shape, name
        np.testing.assert_allclose(
            ref_grads[name], p.grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=name
        )


def test_numpy_reference_adamw_step_equals_tinygrad():
    model, reference = _models(13, 8, 16, 2, 4)
    rng = np.random.default_rng(2)
    idx, targets = rng.integers(0, 13, (2, 8)), rng.integers(0, 13, (2, 8))
    optimizer = tg.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)
    ref_optimizer = AdamW(reference.params, lr=1e-2, weight_decay=0.1)
    for _ in range(3):
        optimizer.zero_grad()
        _, loss = model(tg.tensor(idx), tg.tensor(targets))
        loss.backward()
        optimizer.step()
        ref_optimizer.step(reference.loss_and_grads(idx, targets)[1])
    for name, p in model.named_parameters():
        np.testing.assert_allclose(reference.params[name], p.numpy(), rtol=1e-9, atol=1e-12)
