"""A minGPT-style GPT, written the way minGPT's `mingpt/model.py` writes one (our own copy of
its style, not its source): a `NewGELU` module with `torch.pow(x, 3.0)`, attention through a
registered causal `bias` buffer, `masked_fill(..., float('-inf'))`, `F.softmax` and dropout
modules, an `nn.ModuleDict` transformer and an MLP as a lambda over a `ModuleDict`, the GPT-2
initialisation through `self.apply`, AdamW with decay / no-decay parameter groups and
`clip_grad_norm_`. Dropout is 0 so that both libraries compute the same numbers."""

import math

import torch
import torch.nn as nn
from torch.nn import functional as F


class NewGELU(nn.Module):
    """GELU as in Google BERT and OpenAI GPT (the tanh approximation)."""

    def forward(self, x):
        return (
            0.5
            * x
            * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))
        )


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config["embd"] % config["heads"] == 0
        self.c_attn = nn.Linear(config["embd"], 3 * config["embd"])
        self.c_proj = nn.Linear(config["embd"], config["embd"])
        self.attn_dropout = nn.Dropout(config["pdrop"])
        self.resid_dropout = nn.Dropout(config["pdrop"])
        T = config["block"]
        self.register_buffer("bias", torch.tril(torch.ones(T, T)).view(1, 1, T, T))
        self.n_head = config["heads"]
        self.n_embd = config["embd"]

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        y = self.resid_dropout(self.c_proj(y))
        return y


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config["embd"])
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config["embd"])
        self.mlp = nn.ModuleDict(
            dict(
                c_fc=nn.Linear(config["embd"], 4 * config["embd"]),
                c_proj=nn.Linear(4 * config["embd"], config["embd"]),
                act=NewGELU(),
                dropout=nn.Dropout(config["pdrop"]),
            )
        )
        m = self.mlp
        self.mlpf = lambda x: m.dropout(m.c_proj(m.act(m.c_fc(x))))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlpf(self.ln_2(x))
        return x


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.block_size = config["block"]
        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(config["vocab"], config["embd"]),
                wpe=nn.Embedding(config["block"], config["embd"]),
                drop=nn.Dropout(config["pdrop"]),
                h=nn.ModuleList([Block(config) for _ in range(config["layers"])]),
                ln_f=nn.LayerNorm(config["embd"]),
            )
        )
        self.lm_head = nn.Linear(config["embd"], config["vocab"], bias=False)
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config["layers"]))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
        elif isinstance(module, nn.LayerNorm):
            torch.nn.init.zeros_(module.bias)
            torch.nn.init.ones_(module.weight)

    def configure_optimizers(self, learning_rate=5e-4, weight_decay=0.1, betas=(0.9, 0.95)):
        decay, no_decay = set(), set()
        for mn, m in self.named_modules():
            for pn, _p in m.named_parameters():
                fpn = f"{mn}.{pn}" if mn else pn
                if pn.endswith("bias"):
                    no_decay.add(fpn)
                elif pn.endswith("weight") and isinstance(m, nn.Linear):
                    decay.add(fpn)
                elif pn.endswith("weight") and isinstance(m, (nn.LayerNorm, nn.Embedding)):
                    no_decay.add(fpn)
        param_dict = dict(self.named_parameters())
        optim_groups = [
            {"params": [param_dict[pn] for pn in sorted(decay)], "weight_decay": weight_decay},
            {"params": [param_dict[pn] for pn in sorted(no_decay)], "weight_decay": 0.0},
        ]
        return torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas)

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long).unsqueeze(0)
        tok_emb = self.transformer.wte(idx)
        pos_emb = self.transformer.wpe(pos)
        x = self.transformer.drop(tok_emb + pos_emb)
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        logits = self.lm_head(x)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(
                logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1
            )
        return logits, loss


def make(cfg):
    """(model, optimizer)"""
    model = GPT(cfg)
    return model, model.configure_optimizers()


def make_batch(rng, cfg):
    shape = (cfg["batch"], cfg["block"])
    x = rng.integers(0, cfg["vocab"], shape)
    y = rng.integers(0, cfg["vocab"], shape)
    return torch.tensor(x), torch.tensor(y)


def train_step(model, optimizer, batch):
    x, y = batch
    logits, loss = model(x, y)
    model.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return loss.item()
