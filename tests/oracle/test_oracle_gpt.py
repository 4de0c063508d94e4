"""A GPT-2 written in PyTorch, in this test, loads into tg.models.GPT: same logits, loss and
gradients. No download: the PyTorch model is small and random."""

import math

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.models import GPT, GPTConfig

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle
F = torch.nn.functional

V, N_CTX, D, LAYERS, HEADS = 11, 8, 12, 2, 3


class Conv1D(torch.nn.Module):  # GPT-2's: weight (nx, nf)
    def __init__(self, nf, nx):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(nx, nf, dtype=torch.float64) * 0.1)
        self.bias = torch.nn.Parameter(torch.randn(nf, dtype=torch.float64) * 0.1)

    def forward(self, x):
        return torch.addmm(self.bias, x.reshape(-1, x.shape[-1]), self.weight).reshape(
            *x.shape[:-1], -1
        )


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn, self.c_proj = Conv1D(3 * D, D), Conv1D(D, D)
        self.register_buffer("bias", torch.tril(torch.ones(N_CTX, N_CTX)).view(1, 1, N_CTX, N_CTX))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, HEADS, C // HEADS).transpose(1, 2) for t in (q, k, v))
        w = q @ k.transpose(-2, -1) / math.sqrt(C // HEADS)
        w = w.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf")).softmax(-1)
        return self.c_proj((w @ v).transpose(1, 2).reshape(B, T, C))


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc, self.c_proj = Conv1D(4 * D, D), Conv1D(D, 4 * D)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1, self.attn = torch.nn.LayerNorm(D, dtype=torch.float64), Attention()
        self.ln_2, self.mlp = torch.nn.LayerNorm(D, dtype=torch.float64), MLP()

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class TorchGPT2(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = torch.nn.ModuleDict(
            dict(
                wte=torch.nn.Embedding(V, D, dtype=torch.float64),
                wpe=torch.nn.Embedding(N_CTX, D, dtype=torch.float64),
                h=torch.nn.ModuleList([Block() for _ in range(LAYERS)]),
                ln_f=torch.nn.LayerNorm(D, dtype=torch.float64),
            )
        )
        for p in self.parameters():  # LayerNorm weights away from 1, biases away from 0
            torch.nn.init.normal_(p, 0.0, 0.3)
        self.lm_head = torch.nn.Linear(D, V, bias=False, dtype=torch.float64)
        self.lm_head.weight = self.transformer.wte.weight

    def forward(self, idx, targets):
        x = self.transformer.wte(idx) + self.transformer.wpe(torch.arange(idx.shape[1]))
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        return logits, F.cross_entropy(logits.view(-1, V), targets.view(-1))


def test_gpt2_weights_give_the_same_logits_loss_and_gradients():
    torch.manual_seed(0)
    theirs = TorchGPT2()
    state = {k: v.detach().numpy().copy() for k, v in theirs.state_dict().items()}
    assert "transformer.h.0.attn.bias" in state and "lm_head.weight" in state
    ours = GPT(
        GPTConfig(vocab_size=V, n_ctx=N_CTX, d_model=D, n_layer=LAYERS, n_head=HEADS, dropout=0.0)
    ).double()
    ours.load_state_dict(state)

    rng = np.random.default_rng(0)
    idx, targets = rng.integers(0, V, (2, 7)), rng.integers(0, V, (2, 7))
    logits, loss = ours(tg.tensor(idx), targets=tg.tensor(targets))
    tlogits, tloss = theirs(torch.tensor(idx), torch.tensor(targets))
    np.testing.assert_allclose(logits.numpy(), tlogits.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-12)

    loss.backward()
    tloss.backward()
    tparams = dict(theirs.named_parameters())
    for name, param in ours.named_parameters():
        np.testing.assert_allclose(
            param.grad.numpy(), tparams[name].grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=name
        )
