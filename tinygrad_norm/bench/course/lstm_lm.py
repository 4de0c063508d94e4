"""A character LSTM language model: Embedding, a 2-layer nn.LSTM (batch_first), Linear;
cross-entropy over every position, gradient clipping, Adam."""

import torch
import torch.nn as nn
import torch.nn.functional as F

NAME = "LSTM language model, 2 layers"
CONFIG = {"vocab": 65, "embd": 64, "hidden": 128, "layers": 2, "seq": 32, "batch": 16}
TINY = {"vocab": 7, "embd": 4, "hidden": 6, "layers": 1, "seq": 4, "batch": 2}


class LSTMLM(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg["vocab"], cfg["embd"])
        self.lstm = nn.LSTM(cfg["embd"], cfg["hidden"], num_layers=cfg["layers"], batch_first=True)
        self.fc = nn.Linear(cfg["hidden"], cfg["vocab"])

    def forward(self, x, hidden=None):
        out, hidden = self.lstm(self.embed(x), hidden)  # (B, T, hidden)
        return self.fc(out), hidden


def make(cfg):
    model = LSTMLM(cfg)
    return model, torch.optim.Adam(model.parameters(), lr=2e-3)


def make_batch(rng, cfg):
    shape = (cfg["batch"], cfg["seq"])
    x = rng.integers(0, cfg["vocab"], shape)
    y = rng.integers(0, cfg["vocab"], shape)
    return torch.tensor(x), torch.tensor(y)


def train_step(model, optimizer, batch):
    x, y = batch
    logits, _ = model(x)
    loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return loss.item()
