"""A character LSTM language model: Embedding, a 2-layer nn.LSTM (batch_first), Linear;
cross-entropy over every position, gradient clipping, Adam."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from gpt_composed import make_batch  # noqa: F401 - the same random (batch, block) token batches


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


def train_step(model, optimizer, batch):
    x, y = batch
    logits, _ = model(x)
    loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return loss.item()
