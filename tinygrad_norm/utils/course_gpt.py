"""Time one training step of a nanoGPT-style GPT written the way course code writes it, under
tinygrad_norm and under PyTorch: the same source, the same weights, the same batch.

The attention is composed (`q @ k.transpose(-2, -1) * scale`, `masked_fill`, `F.softmax`,
`att @ v`) and the MLP uses the exact GELU, so this measures the generic paths a learner's
model goes through, not the fused ones of `tg.models.GPT`. Steps alternate between the two
libraries (one BLAS thread each), and the figure is the median CPU time of forward + backward.

    python -m tinygrad_norm.utils.course_gpt                 # B 12, T 64, E 128, H 4, L 4
    python -m tinygrad_norm.utils.course_gpt --tune-malloc --steps 30
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import tinygrad_norm as tg

CONFIG = {"batch": 12, "block": 64, "embd": 128, "heads": 4, "layers": 4, "vocab": 65}


def build(torch, nn, F, cfg: dict):
    """The GPT, written once against a `torch`-like namespace (PyTorch or tinygrad_norm)."""

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            E, T = cfg["embd"], cfg["block"]
            self.c_attn = nn.Linear(E, 3 * E)
            self.c_proj = nn.Linear(E, E)
            self.n_head = cfg["heads"]
            self.register_buffer("bias", torch.tril(torch.ones(T, T)).view(1, 1, T, T))

        def forward(self, x):
            B, T, C = x.size()
            hs = C // self.n_head
            q, k, v = self.c_attn(x).split(C, dim=2)
            q = q.view(B, T, self.n_head, hs).transpose(1, 2)  # (B, nh, T, hs)
            k = k.view(B, T, self.n_head, hs).transpose(1, 2)
            v = v.view(B, T, self.n_head, hs).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))  # (B, nh, T, T)
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = F.softmax(att, dim=-1)
            y = att @ v  # (B, nh, T, hs)
            y = y.transpose(1, 2).contiguous().view(B, T, C)  # (B, T, C)
            return self.c_proj(y)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            E = cfg["embd"]
            self.ln_1, self.attn = nn.LayerNorm(E), CausalSelfAttention()
            self.ln_2 = nn.LayerNorm(E)
            self.c_fc, self.c_proj = nn.Linear(E, 4 * E), nn.Linear(4 * E, E)

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.c_proj(F.gelu(self.c_fc(self.ln_2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            V, T, E = cfg["vocab"], cfg["block"], cfg["embd"]
            self.wte, self.wpe = nn.Embedding(V, E), nn.Embedding(T, E)
            self.h = nn.ModuleList([Block() for _ in range(cfg["layers"])])
            self.ln_f, self.lm_head = nn.LayerNorm(E), nn.Linear(E, V, bias=False)

        def forward(self, idx, targets):
            B, T = idx.size()
            x = self.wte(idx) + self.wpe(torch.arange(0, T, dtype=torch.long))  # (B, T, E)
            for block in self.h:
                x = block(x)
            logits = self.lm_head(self.ln_f(x))  # (B, T, V)
            return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))

    return GPT()


def setups(cfg: dict) -> dict:
    """{library name: (model, idx, targets)}: tinygrad_norm, and PyTorch when installed, with
    PyTorch's initial weights copied into tinygrad_norm's model (else tinygrad_norm's own)."""
    rng = np.random.default_rng(0)
    idx = rng.integers(0, cfg["vocab"], (cfg["batch"], cfg["block"]))
    targets = rng.integers(0, cfg["vocab"], (cfg["batch"], cfg["block"]))
    ours = build(tg, tg.nn, tg.nn.functional, cfg)
    out = {"tinygrad_norm": (ours, tg.tensor(idx), tg.tensor(targets))}
    try:
        import torch  # optional: the comparison
    except ImportError:
        return out
    torch.set_num_threads(1)
    torch.manual_seed(0)
    theirs = build(torch, torch.nn, torch.nn.functional, cfg)
    ours.load_state_dict({k: tg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    out["torch"] = (theirs, torch.tensor(idx), torch.tensor(targets))
    return out


def step(model, idx, targets) -> float:
    """Forward and backward (no optimizer): the loss."""
    for p in model.parameters():
        p.grad = None
    loss = model(idx, targets)
    loss.backward()
    return float(loss.item())


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=15)
    parser.add_argument("--tune-malloc", action="store_true", help="tg.utils.tune_malloc()")
    for name, value in CONFIG.items():
        parser.add_argument(f"--{name}", type=int, default=value)
    args = parser.parse_args(argv)
    if args.tune_malloc:
        tg.utils.tune_malloc()
    libs = setups({name: getattr(args, name) for name in CONFIG})
    losses = {name: step(*setup) for name, setup in libs.items()}  # also the warm-up
    times = {name: [] for name in libs}
    for _ in range(args.steps):
        for name, setup in libs.items():
            start = time.thread_time()
            step(*setup)
            times[name].append(time.thread_time() - start)
    for name in libs:
        print(f"{name:<14} loss {losses[name]:.6f}  {np.median(times[name]) * 1e3:7.1f} ms/step")
    if "torch" in times:
        ratio = np.median(np.array(times["tinygrad_norm"]) / np.array(times["torch"]))
        print(f"tinygrad_norm / torch: {ratio:.2f}")


if __name__ == "__main__":
    main()
