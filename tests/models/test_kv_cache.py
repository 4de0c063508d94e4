"""The key/value cache of GPT.generate and nn.Attention(use_cache=True): the same numbers and
tokens as recomputing the whole prefix, at the cost of one position per new token."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm import nn
from tinygrad_norm.models import GPT, GPTConfig


def _model(n_ctx=8, dropout=0.1):
    tg.manual_seed(0)
    config = GPTConfig(vocab_size=30, n_ctx=n_ctx, d_model=16, n_layer=2, n_head=4, dropout=dropout)
    return GPT(config)


def test_attention_with_a_cache_equals_attention_over_the_whole_sequence():
    tg.manual_seed(0)
    attn = nn.Attention(d_model=8, n_head=2, n_ctx=6).eval()
    x = tg.randn(2, 5, 8)
    mask = tg.tensor(np.array([[1, 1, 1, 1, 1], [0, 1, 1, 1, 1]], dtype=bool)[:, None, None, :])
    for attn_mask in (None, mask):
        full = attn(x, attn_mask=attn_mask)
        first, (k, v) = attn(
            x[:, :3], use_cache=True, attn_mask=None if attn_mask is None else mask[..., :3]
        )
        assert k.shape == v.shape == (2, 2, 3, 4)  # (B, nh, P, hs)
        rest, (k, v) = attn(x[:, 3:], layer_past=(k, v), attn_mask=attn_mask)
        assert k.shape == (2, 2, 5, 4)
        together = np.concatenate([first.numpy(), rest.numpy()], axis=1)
        np.testing.assert_allclose(together, full.numpy(), atol=1e-6, rtol=1e-5)
    with pytest.raises(ValueError, match="5 cached \\+ 2 new positions exceed n_ctx = 6"):
        attn(tg.randn(2, 2, 8), layer_past=(k, v))


def test_forward_cached_gives_the_logits_of_forward():
    model = _model().eval()
    idx = tg.randint(0, 30, size=(2, 7))
    full, _ = model(idx)
    logits, past = model.forward_cached(idx[:, :4])
    pieces = [logits.numpy()]
    for t in range(4, 7):  # then one token at a time
        logits, past = model.forward_cached(idx[:, t : t + 1], past)
        pieces.append(logits.numpy())
    assert len(past) == 2 and past[0][0].shape == (2, 4, 7, 4)
    np.testing.assert_allclose(np.concatenate(pieces, axis=1), full.numpy(), atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("temperature, top_k", [(0, None), (1.0, None), (0.8, 5)])
def test_generate_gives_the_same_tokens_with_and_without_the_cache(temperature, top_k):
    model = _model()
    prompt = tg.randint(0, 30, size=(3, 3))
    runs = []
    for use_cache in (True, False):
        tg.manual_seed(1)  # the same random draws for sampling
        runs.append(model.generate(prompt, 12, temperature, top_k, use_cache=use_cache).numpy())
    assert runs[0].shape == (3, 15)  # past n_ctx = 8: the cache gives way to the window
    np.testing.assert_array_equal(runs[0], runs[1])
    assert model.training  # generate restores the mode


def test_with_the_cache_each_new_token_costs_one_position(monkeypatch):
    model = _model(n_ctx=16)
    lengths = []
    c_attn = model.transformer.h[0].attn.c_attn
    forward = c_attn.forward

    def recording(x):
        lengths.append(x.shape[1])
        return forward(x)

    monkeypatch.setattr(c_attn, "forward", recording)
    model.generate(tg.randint(0, 30, size=(1, 5)), 4, temperature=0)
    assert lengths == [5, 1, 1, 1]
    lengths.clear()
    model.generate(tg.randint(0, 30, size=(1, 5)), 4, temperature=0, use_cache=False)
    assert lengths == [5, 6, 7, 8]
