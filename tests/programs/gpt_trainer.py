"""A course-style PyTorch program: a minimal GPT with a trainer, in the style of minGPT and
nanoGPT (device choice, backends flags, autocast, GradScaler, a DataLoader, AdamW with
weight-decay groups, gradient clipping, sampling with a torch.Generator).

Plain PyTorch; tests/cli/test_run_command.py runs it under PyTorch and under
`python -m tinygrad_norm run` and compares the printed losses. The weights are loaded from
NumPy draws and the batches are not shuffled, so both runs compute the same numbers.
"""

import argparse
import math
from contextlib import nullcontext

import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.n_head = n_head
        mask = torch.tril(torch.ones(block_size, block_size))
        self.register_buffer("bias", mask.view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd), nn.Dropout(0.0)
        )

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size, block_size, n_embd=16, n_head=2, n_layer=2):
        super().__init__()
        self.block_size = block_size
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.blocks = nn.ModuleList([Block(n_embd, n_head, block_size) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(
                logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1
            )
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, generator=None):
        for _ in range(max_new_tokens):
            logits, _ = self(idx[:, -self.block_size :])
            probs = F.softmax(logits[:, -1, :], dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1, generator=generator)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=8)
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    dtype = (
        "bfloat16" if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else "float32"
    )
    ptdtype = {"float32": torch.float32, "bfloat16": torch.bfloat16}[dtype]
    ctx = (
        nullcontext() if device == "cpu" else torch.amp.autocast(device_type=device, dtype=ptdtype)
    )
    scaler = torch.amp.GradScaler(device, enabled=(dtype == "float16"))
    torch.manual_seed(1337)

    # the task: continue the sequence n, n+1, n+2, ... modulo the vocabulary
    vocab_size, block_size = 7, 6
    rows = np.array([[(s + i) % vocab_size for i in range(block_size + 1)] for s in range(14)])
    data = torch.tensor(rows, dtype=torch.long)
    loader = DataLoader(TensorDataset(data[:, :-1], data[:, 1:]), batch_size=4, drop_last=True)

    model = GPT(vocab_size, block_size).to(device)
    rng = np.random.default_rng(0)
    state = {k: torch.tensor(rng.standard_normal(tuple(v.shape)) * 0.1, dtype=torch.float32)
             for k, v in model.state_dict().items() if not k.endswith(".attn.bias")}  # fmt: skip
    model.load_state_dict(state, strict=False)
    print("parameters", sum(p.numel() for p in model.parameters()))

    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}]
    optimizer = torch.optim.AdamW(groups, lr=1e-2, betas=(0.9, 0.95))

    step = 0
    while step < args.steps:
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            with ctx:
                _, loss = model(x, y)
            optimizer.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
            print(f"step {step} loss {loss.item():.4f} norm {norm.item():.4f} x {x.shape}")
            step += 1
            if step == args.steps:
                break

    model.eval()
    with torch.inference_mode():
        _, loss = model(data[:, :-1], data[:, 1:].contiguous())
    print(f"final loss {loss.item():.4f}")
    g = torch.Generator(device=device).manual_seed(42)
    out = model.generate(torch.zeros((1, 1), dtype=torch.long), 8, generator=g)
    print("sample", out[0].tolist())


if __name__ == "__main__":
    main()
