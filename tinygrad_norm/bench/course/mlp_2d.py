"""A small MLP classifying 2-D points (the "two moons" lesson): Linear + ReLU layers,
full-batch, binary cross-entropy with logits, SGD."""

import torch
import torch.nn as nn


def make(cfg):
    H = cfg["hidden"]
    model = nn.Sequential(nn.Linear(2, H), nn.ReLU(), nn.Linear(H, H), nn.ReLU(), nn.Linear(H, 1))
    return model, torch.optim.SGD(model.parameters(), lr=0.1)


def make_batch(rng, cfg):
    X = rng.standard_normal((cfg["points"], 2)).astype("float32")
    y = (X[:, 0] * X[:, 1] > 0).astype("float32")
    return torch.tensor(X), torch.tensor(y).unsqueeze(1)


loss_fn = nn.BCEWithLogitsLoss()


def train_step(model, optimizer, batch):
    X, y = batch
    optimizer.zero_grad()
    loss = loss_fn(model(X), y)
    loss.backward()
    optimizer.step()
    return loss.item()
