"""nn layers against PyTorch in float64: the same weights and inputs give the same outputs and
the same gradients for the input and every parameter (rtol 1e-10).

Linear, Embedding, the activations and the losses are compared with torch.nn's modules;
Attention and FeedForward with GPT-2's layers written below in PyTorch (Conv1D as addmm with a
(nx, nf) weight, the causal mask from a tril buffer), with dropout off.
"""

import math

import numpy as np
import pytest
from helpers import randn

import tinygrad_norm as tg
from tinygrad_norm import nn

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

RTOL, ATOL = 1e-10, 1e-12


def compare(ours, theirs, *inputs, copy_weights=True, seed=1, **options):
    """Run both modules on the same inputs (float arrays are differentiated, integer and bool
    arrays are not) and keyword `options`, backpropagate the same random upstream gradient
    through every output, and compare the outputs and the gradients of each float input and
    each parameter. Returns the number of parameters compared."""
    ours = ours.double()
    if copy_weights:
        state = {k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()}
        theirs.load_state_dict(state, strict=True)
    ours_in = [tg.tensor(x, requires_grad=x.dtype.kind == "f") for x in inputs]
    theirs_in = [torch.tensor(x, requires_grad=x.dtype.kind == "f") for x in inputs]
    ours_out = _tuple(ours(*ours_in, **options))
    theirs_out = _tuple(theirs(*theirs_in, **options))
    assert len(ours_out) == len(theirs_out)
    for i, (a, b) in enumerate(zip(ours_out, theirs_out)):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=RTOL, atol=ATOL)
        g = randn(*a.shape, seed=seed + i)
        a.backward(tg.tensor(g), retain_graph=True)
        b.backward(torch.from_numpy(g), retain_graph=True)
    for i, (a, b) in enumerate(zip(ours_in, theirs_in)):
        if b.requires_grad:
            np.testing.assert_allclose(
                a.grad.numpy(), b.grad.numpy(), rtol=RTOL, atol=ATOL, err_msg=f"input {i}"
            )
    theirs_params = dict(theirs.named_parameters())
    ours_params = dict(ours.named_parameters())
    assert set(ours_params) == set(theirs_params)
    for name, p in ours_params.items():
        np.testing.assert_allclose(
            p.grad.numpy(), theirs_params[name].grad.numpy(), rtol=RTOL, atol=ATOL, err_msg=name
        )
    return len(ours_params)


def _tuple(out):
    return out if isinstance(out, tuple) else (out,)


# --- torch.nn layers -----------------------------------------------------------------------------
def test_linear():
    tg.manual_seed(0)
    n = compare(nn.Linear(4, 3), torch.nn.Linear(4, 3, dtype=torch.float64), randn(2, 5, 4))
    assert n == 2
    tg.manual_seed(0)
    theirs = torch.nn.Linear(4, 3, bias=False, dtype=torch.float64)
    compare(nn.Linear(4, 3, bias=False), theirs, randn(5, 4))


def test_linear_init_has_pytorchs_bounds():
    """Different generators, so compare the distributions: in a large layer, the weights and
    the biases of both fill the same interval (-1/sqrt(in), 1/sqrt(in)) with the same spread."""
    tg.manual_seed(0)
    torch.manual_seed(0)
    ours, theirs = nn.Linear(300, 200), torch.nn.Linear(300, 200)
    bound = 1 / math.sqrt(300)
    for a, b in ((ours.weight, theirs.weight), (ours.bias, theirs.bias)):
        for values in (a.numpy(), b.detach().numpy()):
            assert 0.95 * bound < np.abs(values).max() <= bound
    np.testing.assert_allclose(
        ours.weight.numpy().std(), theirs.weight.detach().std().item(), rtol=0.01
    )


def test_embedding_with_repeated_indices():
    tg.manual_seed(0)
    theirs = torch.nn.Embedding(6, 3, dtype=torch.float64)
    compare(nn.Embedding(6, 3), theirs, np.array([[0, 3, 3], [5, 0, 3]]))


def test_embedding_padding_idx():
    tg.manual_seed(0)
    theirs = torch.nn.Embedding(6, 3, padding_idx=2, dtype=torch.float64)
    compare(nn.Embedding(6, 3, padding_idx=2), theirs, np.array([[0, 2, 3], [2, 2, 1]]))


ACTIVATIONS = [
    (nn.GELU(), torch.nn.GELU()),
    (nn.GELU(approximate="tanh"), torch.nn.GELU(approximate="tanh")),
    (nn.ReLU(), torch.nn.ReLU()),
    (nn.Tanh(), torch.nn.Tanh()),
    (nn.Sigmoid(), torch.nn.Sigmoid()),
    (nn.Softmax(dim=1), torch.nn.Softmax(dim=1)),
    (nn.Softmax(dim=-1), torch.nn.Softmax(dim=-1)),
    (nn.LogSoftmax(dim=1), torch.nn.LogSoftmax(dim=1)),
    (nn.LogSoftmax(dim=-1), torch.nn.LogSoftmax(dim=-1)),
]


@pytest.mark.parametrize("ours, theirs", ACTIVATIONS, ids=lambda m: repr(m))
def test_activations(ours, theirs):
    compare(ours, theirs, randn(2, 3, 4) * 3)


def test_dropout_in_eval_mode_and_with_p_zero():
    compare(nn.Dropout(0.5).eval(), torch.nn.Dropout(0.5).eval(), randn(3, 4))
    compare(nn.Dropout(0.0), torch.nn.Dropout(0.0), randn(3, 4))


LOGITS = randn(5, 4, seed=3)
TARGET = np.array([1, 0, 3, 2, 3])
TARGET_IGNORED = np.array([1, 0, -1, 2, 3])
WEIGHT = np.array([1.0, 0.5, 2.0, 1.5])
LOSSES = [
    ("ce", lambda m: m.CrossEntropyLoss(), TARGET),
    ("ce_sum", lambda m: m.CrossEntropyLoss(reduction="sum"), TARGET),
    ("ce_none", lambda m: m.CrossEntropyLoss(reduction="none"), TARGET),
    ("ce_ignore", lambda m: m.CrossEntropyLoss(ignore_index=-1), TARGET_IGNORED),
    ("ce_smooth", lambda m: m.CrossEntropyLoss(label_smoothing=0.15), TARGET),
    (
        "ce_all",
        lambda m: m.CrossEntropyLoss(
            _weight(m), ignore_index=-1, label_smoothing=0.2, reduction="mean"
        ),
        TARGET_IGNORED,
    ),
    ("ce_probs", lambda m: m.CrossEntropyLoss(), "probs"),
    ("nll", lambda m: m.NLLLoss(), TARGET),
    ("nll_weight_ignore", lambda m: m.NLLLoss(_weight(m), ignore_index=-1), TARGET_IGNORED),
    ("nll_none", lambda m: m.NLLLoss(reduction="none"), TARGET),
]


def _weight(m):
    return torch.tensor(WEIGHT) if m is torch.nn else tg.tensor(WEIGHT)


@pytest.mark.parametrize("make, target", [c[1:] for c in LOSSES], ids=[c[0] for c in LOSSES])
def test_class_losses(make, target):
    if isinstance(target, str):  # class probabilities, a float target that also gets a gradient
        target = np.exp(randn(5, 4, seed=4))
        target /= target.sum(1, keepdims=True)
    compare(make(nn), make(torch.nn), LOGITS, target, copy_weights=False)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss(reduction):
    ours, theirs = nn.MSELoss(reduction=reduction), torch.nn.MSELoss(reduction=reduction)
    compare(ours, theirs, randn(3, 4), randn(3, 4, seed=5))


# --- GPT-2's layers, written in PyTorch ---------------------------------------------------------
class TorchConv1D(torch.nn.Module):
    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = torch.nn.Parameter(torch.empty(nx, nf, dtype=torch.float64))
        self.bias = torch.nn.Parameter(torch.empty(nf, dtype=torch.float64))

    def forward(self, x):
        flat = torch.addmm(self.bias, x.reshape(-1, x.size(-1)), self.weight)  # (B*T, nf)
        return flat.view(*x.shape[:-1], self.nf)


class TorchAttention(torch.nn.Module):
    """GPT-2's attention (dropout off). `use_sdpa` runs the heads through torch's own
    scaled_dot_product_attention with the causal and padding masks combined."""

    def __init__(self, d_model, n_head, n_ctx, scale=True, use_sdpa=False):
        super().__init__()
        self.n_head, self.scale, self.use_sdpa = n_head, scale, use_sdpa
        self.c_attn = TorchConv1D(3 * d_model, d_model)
        self.c_proj = TorchConv1D(d_model, d_model)
        tril = torch.tril(torch.ones(n_ctx, n_ctx)).view(1, 1, n_ctx, n_ctx)
        self.register_buffer("bias", tril, persistent=False)

    def forward(self, x, attn_mask=None, return_weights=False):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        allowed = self.bias[:, :, :T, :T] == 1
        if attn_mask is not None:
            allowed = allowed & attn_mask
        if self.use_sdpa:
            scale = None if self.scale else 1.0
            y = torch.nn.functional.scaled_dot_product_attention(
                q, k, v, attn_mask=allowed, scale=scale
            )
        else:
            w = q @ k.transpose(-2, -1)
            if self.scale:
                w = w / math.sqrt(v.size(-1))
            w = torch.softmax(w.masked_fill(~allowed, float("-inf")), dim=-1)
            y = w @ v
        y = self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))
        return (y, w) if return_weights else y


class TorchFeedForward(torch.nn.Module):
    def __init__(self, d_model, d_ff, approximate):
        super().__init__()
        self.c_fc, self.c_proj = TorchConv1D(d_ff, d_model), TorchConv1D(d_model, d_ff)
        self.approximate = approximate

    def forward(self, x):
        h = torch.nn.functional.gelu(self.c_fc(x), approximate=self.approximate)
        return self.c_proj(h)


def gpt2_attention(scale=True, bias_std=0.5):
    tg.manual_seed(0)
    attn = nn.Attention(8, 2, 6, scale=scale, attn_pdrop=0.1, resid_pdrop=0.1).eval()
    for p in attn.parameters():  # O(1) weights and nonzero biases: softmax far from uniform
        nn.init.normal_(p, 0.0, bias_std)
    return attn


@pytest.mark.parametrize("use_sdpa", [False, True], ids=["manual", "torch_sdpa"])
@pytest.mark.parametrize("scale", [True, False])
def test_attention_equals_gpt2s(scale, use_sdpa):
    theirs = TorchAttention(8, 2, 6, scale=scale, use_sdpa=use_sdpa)
    assert compare(gpt2_attention(scale), theirs, randn(2, 5, 8)) == 4


def test_attention_with_attn_mask_and_weights_equals_gpt2s():
    mask = np.ones((2, 1, 1, 5), dtype=bool)
    mask[0, ..., [2, 4]] = False  # hide keys 2 and 4 of sample 0
    theirs = TorchAttention(8, 2, 6)
    assert compare(gpt2_attention(), theirs, randn(2, 5, 8), mask, return_weights=True) == 4


def test_attention_query_with_no_key_equals_torch_sdpa():
    """torch's scaled_dot_product_attention gives a query that may see no key zero output."""
    mask = np.ones((2, 1, 1, 4), dtype=bool)
    mask[0, ..., 0] = False  # query 0 of sample 0 sees only key 0: hidden
    compare(gpt2_attention(), TorchAttention(8, 2, 6, use_sdpa=True), randn(2, 4, 8), mask)


def test_attention_full_context():
    compare(gpt2_attention(), TorchAttention(8, 2, 6), randn(1, 6, 8))


@pytest.mark.parametrize("approximate", ["tanh", "none"])
def test_feedforward_equals_gpt2s(approximate):
    tg.manual_seed(0)
    ours = nn.FeedForward(4, 6, dropout=0.1, approximate=approximate).eval()
    for p in ours.parameters():
        nn.init.normal_(p, 0.0, 0.8)
    assert compare(ours, TorchFeedForward(4, 6, approximate), randn(2, 3, 4)) == 4
