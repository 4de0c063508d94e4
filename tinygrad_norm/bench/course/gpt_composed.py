"""A nanoGPT-style GPT as a course writes it: composed causal attention (q @ k^T, masked_fill,
softmax, @ v), nn.LayerNorm, exact GELU through F.gelu, AdamW. `gpt_sdpa.py` imports these
blocks and switches the attention to F.scaled_dot_product_attention (nanoGPT's flash path)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalSelfAttention(nn.Module):
    flash = False  # True: F.scaled_dot_product_attention does the masked softmax (gpt_sdpa.py)

    def __init__(self, cfg):
        super().__init__()
        E, T = cfg["embd"], cfg["block"]
        self.c_attn = nn.Linear(E, 3 * E)
        self.c_proj = nn.Linear(E, E)
        self.n_head = cfg["heads"]
        if not self.flash:
            self.register_buffer("bias", torch.tril(torch.ones(T, T)).view(1, 1, T, T))

    def forward(self, x):
        B, T, C = x.size()
        hs = C // self.n_head
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, self.n_head, hs).transpose(1, 2)  # (B, nh, T, hs)
        k = k.view(B, T, self.n_head, hs).transpose(1, 2)
        v = v.view(B, T, self.n_head, hs).transpose(1, 2)
        if self.flash:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))  # (B, nh, T, T)
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = F.softmax(att, dim=-1)
            y = att @ v  # (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self, cfg, attention=CausalSelfAttention):
        super().__init__()
        E = cfg["embd"]
        self.ln_1 = nn.LayerNorm(E)
        self.attn = attention(cfg)
        self.ln_2 = nn.LayerNorm(E)
        self.c_fc = nn.Linear(E, 4 * E)
        self.c_proj = nn.Linear(4 * E, E)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.c_proj(F.gelu(self.c_fc(self.ln_2(x))))


class GPT(nn.Module):
    def __init__(self, cfg, attention=CausalSelfAttention):
        super().__init__()
        V, T, E = cfg["vocab"], cfg["block"], cfg["embd"]
        self.wte = nn.Embedding(V, E)
        self.wpe = nn.Embedding(T, E)
        self.h = nn.ModuleList([Block(cfg, attention) for _ in range(cfg["layers"])])
        self.ln_f = nn.LayerNorm(E)
        self.lm_head = nn.Linear(E, V, bias=False)

    def forward(self, idx, targets):
        B, T = idx.size()
        pos = torch.arange(0, T, dtype=torch.long)
        x = self.wte(idx) + self.wpe(pos)  # (B, T, E)
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))  # (B, T, V)
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def make(cfg, attention=CausalSelfAttention):
    """(model, optimizer)"""
    model = GPT(cfg, attention)
    return model, torch.optim.AdamW(model.parameters(), lr=1e-3)


def make_batch(rng, cfg):
    shape = (cfg["batch"], cfg["block"])
    x = rng.integers(0, cfg["vocab"], shape)
    y = rng.integers(0, cfg["vocab"], shape)
    return torch.tensor(x), torch.tensor(y)


def train_step(model, optimizer, batch):
    x, y = batch
    loss = model(x, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()
