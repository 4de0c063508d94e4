"""GPT-2's Attention and FeedForward: a NumPy reference, gradients, causality, masks, errors,
and GPT-2's parameter names and shapes."""

import math

import numpy as np
import pytest
from helpers import randn, t64

import tinygrad_norm as tg
from tinygrad_norm import nn
from tinygrad_norm.nn import functional as F

D, NH, N_CTX = 8, 2, 6


def make_attention(seed=0, **kwargs):
    tg.manual_seed(seed)
    attn = nn.Attention(D, NH, N_CTX, **kwargs).double()
    for i, p in enumerate(attn.parameters()):  # nonzero biases and O(1) scores: a sharp test
        p.numpy()[...] = randn(*p.shape, seed=seed + 10 * i) * 0.5
    return attn


def numpy_attention(attn, x, mask=None, scale=True):
    """GPT-2's attention written head by head, query by query, in plain NumPy."""
    B, T, C = x.shape
    hs = C // attn.n_head
    qkv = x @ attn.c_attn.weight.numpy() + attn.c_attn.bias.numpy()  # (B, T, 3C)
    q, k, v = qkv[..., :C], qkv[..., C : 2 * C], qkv[..., 2 * C :]
    out = np.zeros((B, T, C))
    weights = np.zeros((B, attn.n_head, T, T))
    for b in range(B):
        for h in range(attn.n_head):
            cols = slice(h * hs, (h + 1) * hs)
            for i in range(T):
                keys = [j for j in range(i + 1) if mask is None or mask[b, j]]
                scores = np.array([q[b, i, cols] @ k[b, j, cols] for j in keys])
                scores = scores / math.sqrt(hs) if scale else scores
                p = np.exp(scores - scores.max())
                weights[b, h, i, keys] = p / p.sum()
                out[b, i, cols] = weights[b, h, i] @ v[b, :, cols]
    return out @ attn.c_proj.weight.numpy() + attn.c_proj.bias.numpy(), weights


# --- the forward against NumPy ------------------------------------------------------------------
@pytest.mark.parametrize("scale", [True, False])
def test_forward_equals_numpy_reference(scale):
    attn = make_attention(scale=scale).eval()
    x = randn(2, 5, D)
    y, w = attn(t64(x), return_weights=True)
    expected_y, expected_w = numpy_attention(attn, x, scale=scale)
    np.testing.assert_allclose(y.numpy(), expected_y, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(w.numpy(), expected_w, rtol=1e-12, atol=1e-14)


def test_scale_divides_the_scores_by_sqrt_head_dim():
    x = t64(randn(1, 4, D))
    scaled = make_attention(scale=True).eval()(x, return_weights=True)[1].numpy()
    unscaled = make_attention(scale=False).eval()(x, return_weights=True)[1].numpy()
    assert np.abs(scaled - unscaled).max() > 1e-3


def test_forward_equals_f_scaled_dot_product_attention():
    attn = make_attention().eval()
    x = t64(randn(2, 5, D))
    q, k, v = attn.c_attn(x).split(D, dim=2)
    heads = [t.reshape(2, 5, NH, D // NH).transpose(1, 2) for t in (q, k, v)]
    y = F.scaled_dot_product_attention(*heads, is_causal=True)  # (B, nh, T, hs)
    expected = attn.c_proj(y.transpose(1, 2).reshape(2, 5, D))
    np.testing.assert_allclose(attn(x).numpy(), expected.numpy(), rtol=1e-12, atol=1e-14)


# --- gradients -----------------------------------------------------------------------------------
def test_check_module_train_with_dropout_and_eval():
    attn = make_attention(attn_pdrop=0.3, resid_pdrop=0.2)
    result = tg.check_module(attn, t64(randn(2, 4, D)))
    assert result and set(result.results) == {"train", "eval"}
    assert "c_attn.weight" in str(result) and "c_proj.bias" in str(result)


def test_check_module_with_attn_mask_and_returned_weights():
    attn = make_attention(attn_pdrop=0.2, resid_pdrop=0.0)
    mask = np.ones((2, 1, 1, 4), dtype=bool)
    mask[0, ..., 2] = False
    assert tg.check_module(attn, t64(randn(2, 4, D)), tg.tensor(mask), True)


def test_dropout_is_active_in_train_mode_and_off_in_eval():
    attn = make_attention(attn_pdrop=0.5, resid_pdrop=0.0)
    x = t64(randn(2, 5, D))
    tg.manual_seed(1)
    _, w_train = attn(x, return_weights=True)
    _, w_eval = attn.eval()(x, return_weights=True)
    kept = w_train.numpy() != 0
    assert 0 < (~kept[w_eval.numpy() != 0]).sum()  # some weights were dropped, the rest scaled:
    np.testing.assert_allclose(w_train.numpy()[kept], w_eval.numpy()[kept] / 0.5, rtol=1e-12)


def test_residual_dropout_acts_on_the_output():
    attn = make_attention(attn_pdrop=0.0, resid_pdrop=0.5)
    x = t64(randn(2, 5, D))
    tg.manual_seed(1)
    y_train = attn(x).numpy()
    y_eval = attn.eval()(x).numpy()
    kept = y_train != 0
    assert 0.3 < 1 - kept.mean() < 0.7  # about half of the outputs dropped, the rest scaled:
    np.testing.assert_allclose(y_train[kept], y_eval[kept] / 0.5, rtol=1e-12)


# --- causality and the mask ----------------------------------------------------------------------
def test_changing_position_t_leaves_earlier_outputs_unchanged():
    attn = make_attention().eval()
    x = randn(2, 6, D)
    y = attn(t64(x)).numpy()
    for t in range(6):
        x2 = x.copy()
        x2[:, t] += 10.0 * randn(2, D, seed=t + 1)
        y2 = attn(t64(x2)).numpy()
        np.testing.assert_array_equal(y2[:, :t], y[:, :t])  # the past cannot see the future
        assert np.abs(y2[:, t] - y[:, t]).max() > 1e-3  # the change is seen where it happens


def test_gradient_of_an_output_reaches_no_later_input():
    attn = make_attention().eval()
    x = t64(randn(1, 5, D), requires_grad=True)
    attn(x)[:, 2].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy()[:, 3:], 0)
    assert np.abs(x.grad.numpy()[:, :3]).min(axis=-1).all()


def test_weights_are_lower_triangular_rows_summing_to_one():
    attn = make_attention().eval()
    _, w = attn(t64(randn(2, 5, D)), return_weights=True)
    assert w.shape == (2, NH, 5, 5)
    np.testing.assert_array_equal(np.triu(w.numpy(), k=1), 0)
    assert (np.tril(w.numpy()) > 0).sum() == 2 * NH * 15  # nothing on or below the diagonal is 0
    np.testing.assert_allclose(w.numpy().sum(-1), 1.0, rtol=1e-14)


def test_attn_mask_gives_masked_keys_zero_weight():
    attn = make_attention().eval()
    x = randn(2, 5, D)
    key_mask = np.ones((2, 5), dtype=bool)
    key_mask[0, [1, 3]] = False  # sample 0 hides keys 1 and 3; sample 1 hides nothing
    y, w = attn(t64(x), attn_mask=tg.tensor(key_mask[:, None, None, :]), return_weights=True)
    np.testing.assert_array_equal(w.numpy()[0, :, :, [1, 3]], 0)
    np.testing.assert_allclose(w.numpy().sum(-1), 1.0, rtol=1e-14)
    expected_y, expected_w = numpy_attention(attn, x, mask=key_mask)
    np.testing.assert_allclose(w.numpy(), expected_w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(y.numpy(), expected_y, rtol=1e-12, atol=1e-14)
    unmasked = attn(t64(x[1:]), return_weights=True)[1].numpy()
    np.testing.assert_allclose(w.numpy()[1:], unmasked, rtol=1e-12)


def test_attn_mask_is_combined_with_the_causal_mask_not_replacing_it():
    attn = make_attention().eval()
    everything = np.ones((5, 5), dtype=bool)  # would allow the future if it replaced the mask
    _, w = attn(t64(randn(1, 5, D)), attn_mask=everything, return_weights=True)
    np.testing.assert_array_equal(np.triu(w.numpy(), k=1), 0)


def test_a_query_with_no_key_gets_zero_weights_not_nan():
    attn = make_attention().eval()
    mask = np.ones((1, 1, 1, 4), dtype=bool)
    mask[..., 0] = False  # query 0 may only see key 0, which is hidden
    x = t64(randn(1, 4, D), requires_grad=True)
    y, w = attn(x, attn_mask=mask, return_weights=True)
    np.testing.assert_array_equal(w.numpy()[0, :, 0], 0)
    np.testing.assert_allclose(
        y.numpy()[0, 0], attn.c_proj.bias.numpy(), rtol=1e-14
    )  # no value mixed
    y.sum().backward()
    assert np.isfinite(x.grad.numpy()).all()


def test_bad_attn_masks_are_clear_errors():
    attn = make_attention()
    x = t64(randn(2, 4, D))
    with pytest.raises(TypeError, match=r"bool.*float64.*\.bool\(\)"):
        attn(x, attn_mask=np.ones((2, 1, 1, 4)))
    with pytest.raises(ValueError, match=r"\(3, 1, 1, 4\).*\(2, 2, 4, 4\)"):
        attn(x, attn_mask=np.ones((3, 1, 1, 4), dtype=bool))


# --- errors --------------------------------------------------------------------------------------
def test_sequence_longer_than_n_ctx_is_a_clear_error():
    attn = make_attention()
    attn(t64(randn(1, N_CTX, D)))  # T == n_ctx is fine
    with pytest.raises(ValueError, match=rf"T = {N_CTX + 1} .*n_ctx = {N_CTX}"):
        attn(t64(randn(1, N_CTX + 1, D)))


def test_d_model_not_divisible_by_n_head_is_a_clear_error():
    with pytest.raises(ValueError, match=r"d_model=10 .*n_head=4"):
        nn.Attention(10, 4, 8)


def test_wrong_width_names_both_sizes():
    attn = make_attention()
    with pytest.raises(ValueError, match=rf"d_model = {D}.*C = 5"):
        attn(t64(randn(2, 3, 5)))
    with pytest.raises(ValueError, match=r"\(B, T, C\)"):
        attn(t64(randn(3, D)))


# --- names, shapes, buffers ----------------------------------------------------------------------
def test_parameter_names_and_shapes_are_gpt2s():
    tg.manual_seed(0)
    attn = nn.Attention(d_model=16, n_head=4, n_ctx=8)
    shapes = {name: p.shape for name, p in attn.named_parameters()}
    assert shapes == {
        "c_attn.weight": (16, 48),
        "c_attn.bias": (48,),
        "c_proj.weight": (16, 16),
        "c_proj.bias": (16,),
    }
    assert attn.head_dim == 4
    assert isinstance(attn.attn_dropout, nn.Dropout) and isinstance(attn.resid_dropout, nn.Dropout)
    assert attn.attn_dropout.p == 0.1 and attn.resid_dropout.p == 0.1


def test_causal_mask_buffer_is_named_bias_and_not_saved():
    attn = make_attention()
    buffers = dict(attn.named_buffers())
    assert list(buffers) == ["bias"] and attn.use_bias is True
    mask = buffers["bias"].numpy()
    assert mask.shape == (1, 1, N_CTX, N_CTX) and mask.dtype == np.bool_
    np.testing.assert_array_equal(mask[0, 0], np.tril(np.ones((N_CTX, N_CTX), dtype=bool)))
    state = attn.state_dict()
    assert "bias" not in state and set(state) == {n for n, _ in attn.named_parameters()}
    fresh = nn.Attention(D, NH, N_CTX).double()
    fresh.load_state_dict(state)  # strict: loads without the mask
    x = t64(randn(1, 3, D))
    np.testing.assert_array_equal(fresh.eval()(x).numpy(), attn.eval()(x).numpy())


def test_bias_false_drops_the_conv1d_biases_but_keeps_the_mask():
    attn = nn.Attention(D, NH, N_CTX, bias=False)
    assert attn.use_bias is False and attn.c_attn.bias is None and attn.c_proj.bias is None
    assert sorted(attn.state_dict()) == ["c_attn.weight", "c_proj.weight"]
    assert attn.bias.shape == (1, 1, N_CTX, N_CTX)
    assert "bias=False" in repr(attn)
    assert tg.check_module(attn, t64(randn(1, 3, D)))


def test_double_converts_parameters_but_not_the_bool_mask():
    attn = nn.Attention(D, NH, N_CTX).double()
    assert attn.c_attn.weight.dtype == np.float64 and attn.bias.dtype == np.bool_


# --- FeedForward ---------------------------------------------------------------------------------
def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def test_feedforward_shapes_and_defaults():
    tg.manual_seed(0)
    mlp = nn.FeedForward(d_model=8)
    assert mlp.c_fc.weight.shape == (8, 32) and mlp.c_fc.bias.shape == (32,)
    assert mlp.c_proj.weight.shape == (32, 8) and mlp.c_proj.bias.shape == (8,)
    assert mlp.dropout.p == 0.1 and mlp.act.approximate == "tanh"
    assert nn.FeedForward(8, 12).c_fc.weight.shape == (8, 12)


def test_feedforward_forward_equals_numpy():
    tg.manual_seed(0)
    mlp = nn.FeedForward(4, 6).double().eval()
    for i, p in enumerate(mlp.parameters()):
        p.numpy()[...] = randn(*p.shape, seed=i) * 0.7
    x = randn(2, 3, 4)
    h = _gelu_tanh(x @ mlp.c_fc.weight.numpy() + mlp.c_fc.bias.numpy())
    expected = h @ mlp.c_proj.weight.numpy() + mlp.c_proj.bias.numpy()
    np.testing.assert_allclose(mlp(t64(x)).numpy(), expected, rtol=1e-12, atol=1e-14)


def test_feedforward_gelu_approximation_is_passed_on():
    tg.manual_seed(0)
    exact = nn.FeedForward(4, approximate="none").eval()
    tg.manual_seed(0)
    tanh = nn.FeedForward(4).eval()
    x = t64(randn(2, 4) * 20)
    assert exact.act.approximate == "none"
    assert np.abs(exact(x).numpy() - tanh(x).numpy()).max() > 1e-9


def test_feedforward_check_module():
    tg.manual_seed(0)
    mlp = nn.FeedForward(4, 6, dropout=0.3)
    for p in mlp.parameters():
        nn.init.normal_(p)
    assert tg.check_module(mlp, tg.randn(2, 3, 4))


def test_feedforward_wrong_width_names_both_sizes():
    with pytest.raises(ValueError, match=r"(?s)last axis 5.*nx = 4"):
        nn.FeedForward(4)(tg.randn(2, 5))
