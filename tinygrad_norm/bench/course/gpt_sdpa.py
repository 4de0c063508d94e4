"""The same GPT with its attention through F.scaled_dot_product_attention(is_causal=True)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "GPT, F.scaled_dot_product_attention"
CONFIG = {"vocab": 65, "block": 64, "embd": 128, "heads": 4, "layers": 4, "batch": 12}
TINY = {"vocab": 11, "block": 8, "embd": 16, "heads": 2, "layers": 1, "batch": 2}


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        E = cfg["embd"]
        self.c_attn = nn.Linear(E, 3 * E)
        self.c_proj = nn.Linear(E, E)
        self.n_head = cfg["heads"]

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        E = cfg["embd"]
        self.ln_1 = nn.LayerNorm(E)
        self.attn = CausalSelfAttention(cfg)
        self.ln_2 = nn.LayerNorm(E)
        self.mlp = nn.Sequential(nn.Linear(E, 4 * E), nn.GELU(), nn.Linear(4 * E, E))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        V, T, E = cfg["vocab"], cfg["block"], cfg["embd"]
        self.wte = nn.Embedding(V, E)
        self.wpe = nn.Embedding(T, E)
        self.blocks = nn.Sequential(*[Block(cfg) for _ in range(cfg["layers"])])
        self.ln_f = nn.LayerNorm(E)
        self.lm_head = nn.Linear(E, V, bias=False)

    def forward(self, idx, targets=None):
        B, T = idx.shape
        x = self.wte(idx) + self.wpe(torch.arange(T))
        logits = self.lm_head(self.ln_f(self.blocks(x)))
        B, T, V = logits.shape
        return F.cross_entropy(logits.view(B * T, V), targets.view(B * T))


def make(cfg):
    model = GPT(cfg)
    return model, torch.optim.AdamW(model.parameters(), lr=1e-3)


def make_batch(rng, cfg):
    shape = (cfg["batch"], cfg["block"])
    x = rng.integers(0, cfg["vocab"], shape)
    y = rng.integers(0, cfg["vocab"], shape)
    return torch.tensor(x), torch.tensor(y)


def train_step(model, optimizer, batch):
    x, y = batch
    loss = model(x, y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return loss.item()
