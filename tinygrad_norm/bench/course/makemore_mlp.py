"""A makemore-style character MLP (Bengio et al. 2003) with BatchNorm: embed 3 characters,
Linear, BatchNorm1d, Tanh, a few times, then logits; SGD at batch 32."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        V, H = cfg["vocab"], cfg["hidden"]
        self.C = nn.Embedding(V, cfg["embd"])
        layers = [
            nn.Linear(cfg["embd"] * cfg["block"], H, bias=False),
            nn.BatchNorm1d(H),
            nn.Tanh(),
        ]
        for _ in range(cfg["layers"] - 1):
            layers += [nn.Linear(H, H, bias=False), nn.BatchNorm1d(H), nn.Tanh()]
        layers += [nn.Linear(H, V)]
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        emb = self.C(x)  # (B, block, embd)
        return self.net(emb.view(emb.shape[0], -1))


def make(cfg):
    model = MLP(cfg)
    return model, torch.optim.SGD(model.parameters(), lr=0.1)


def make_batch(rng, cfg):
    x = rng.integers(0, cfg["vocab"], (cfg["batch"], cfg["block"]))
    y = rng.integers(0, cfg["vocab"], (cfg["batch"],))
    return torch.tensor(x), torch.tensor(y)


def train_step(model, optimizer, batch):
    Xb, Yb = batch
    logits = model(Xb)
    loss = F.cross_entropy(logits, Yb)
    for p in model.parameters():
        p.grad = None
    loss.backward()
    optimizer.step()
    return loss.item()
