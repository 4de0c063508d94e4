"""A LeNet-style CNN on 28x28 grey images (MNIST shapes): two Conv2d + ReLU + MaxPool2d, then
three Linear layers; cross-entropy, SGD with momentum."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class LeNet(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        c = cfg["channels"]
        self.conv1 = nn.Conv2d(1, c, 5, padding=2)  # 28x28 -> 28x28
        self.conv2 = nn.Conv2d(c, 16, 5)  # 14x14 -> 10x10
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, cfg["classes"])

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))  # (B, c, 14, 14)
        x = self.pool(F.relu(self.conv2(x)))  # (B, 16, 5, 5)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def make(cfg):
    model = LeNet(cfg)
    return model, torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)


def make_batch(rng, cfg):
    x = rng.standard_normal((cfg["batch"], 1, 28, 28)).astype("float32")
    y = rng.integers(0, cfg["classes"], (cfg["batch"],))
    return torch.tensor(x), torch.tensor(y)


criterion = nn.CrossEntropyLoss()


def train_step(model, optimizer, batch):
    images, labels = batch
    optimizer.zero_grad()
    outputs = model(images)
    loss = criterion(outputs, labels)
    loss.backward()
    optimizer.step()
    return loss.item()
