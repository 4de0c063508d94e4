"""tg.models.GPT: shapes, weight tying, generation, gradients, and that it learns."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.models import GPT, GPTConfig

TINY = dict(vocab_size=7, n_ctx=6, d_model=8, n_layer=2, n_head=2)


def tiny(**overrides):
    tg.manual_seed(0)
    return GPT(GPTConfig(**{**TINY, "dropout": 0.1, **overrides}))


def test_shapes_and_loss():
    model = tiny()
    idx = tg.randint(0, 7, size=(3, 5))
    logits, loss = model(idx)
    assert logits.shape == (3, 5, 7) and loss is None
    logits, loss = model(idx, targets=idx)
    assert loss.shape == () and 0 < loss.item() < 10


def test_state_dict_uses_gpt2_names_and_ties_the_head():
    model = tiny()
    keys = list(model.state_dict())
    for key in [
        "transformer.wte.weight",
        "transformer.wpe.weight",
        "transformer.h.0.ln_1.weight",
        "transformer.h.0.attn.c_attn.weight",
        "transformer.h.0.attn.c_proj.bias",
        "transformer.h.1.mlp.c_fc.weight",
        "transformer.h.1.ln_2.bias",
        "transformer.ln_f.bias",
        "lm_head.weight",
    ]:
        assert key in keys
    assert not any(k.endswith(".attn.bias") for k in keys)  # the mask is a constant, not a weight
    assert model.lm_head.weight is model.transformer.wte.weight
    assert len(list(model.parameters())) == len(keys) - 1  # the tied weight counts once
    assert model.transformer.h[0].attn.c_attn.weight.shape == (8, 24)  # Conv1D: (nx, nf)


def test_gpt2_checkpoint_buffers_and_a_missing_tied_head_are_accepted():
    model, other = tiny(), tiny(dropout=0.0)
    tg.manual_seed(1)
    other._init_weights()
    state = {k: v.numpy().copy() for k, v in other.state_dict().items()}
    state["transformer.h.0.attn.bias"] = np.tril(np.ones((1, 1, 6, 6)))
    state["transformer.h.1.attn.masked_bias"] = np.array(-1e4)
    del state["lm_head.weight"]
    model.load_state_dict(state)
    np.testing.assert_array_equal(model.lm_head.weight.data, state["transformer.wte.weight"])


def test_generate_returns_the_prompt_then_new_tokens():
    model = tiny()
    prompt = tg.tensor([[1, 2, 3], [4, 5, 6]])
    out = model.generate(prompt, max_new_tokens=8, top_k=3)  # longer than n_ctx: crops
    assert out.shape == (2, 11) and out.dtype == tg.int64
    np.testing.assert_array_equal(out.numpy()[:, :3], prompt.numpy())
    assert out.numpy().min() >= 0 and out.numpy().max() < 7
    greedy = model.generate(prompt, max_new_tokens=2, temperature=0)
    logits, _ = model.eval()(prompt)
    assert greedy.numpy()[0, 3] == logits.numpy()[0, -1].argmax()
    assert model.training is False  # eval() above; generate restores the mode it found
    model.train()
    model.generate(prompt, max_new_tokens=1)
    assert model.training


def test_too_long_a_sequence_is_a_clear_error():
    with pytest.raises(ValueError, match="longer than n_ctx = 6"):
        tiny()(tg.zeros(1, 7, dtype=tg.int64))


def test_gradients_of_the_whole_model_are_right():
    model = tiny(n_layer=1, d_model=4, n_head=2)
    idx = tg.randint(0, 7, size=(2, 4))

    class WithLoss(tg.nn.Module):
        def __init__(self):
            super().__init__()
            self.gpt = model

        def forward(self):
            return self.gpt(idx, targets=idx)[1]

    assert tg.check_module(WithLoss(), fast_mode=True)


def test_a_small_gpt_learns_to_count():
    """Next token = previous + 1 (mod 7): the loss must fall by more than half."""
    tg.manual_seed(0)
    model = GPT(GPTConfig(vocab_size=7, n_ctx=8, d_model=32, n_layer=1, n_head=2, dropout=0.0))
    optimizer = tg.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.0)
    rng = np.random.default_rng(0)
    losses = []
    for _ in range(150):
        start = rng.integers(0, 7, size=(16, 1))
        seq = (start + np.arange(9)) % 7
        _, loss = model(tg.tensor(seq[:, :-1]), targets=tg.tensor(seq[:, 1:]))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert np.mean(losses[-10:]) < 0.5 * np.mean(losses[:10])
