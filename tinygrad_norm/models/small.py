"""Two small models for the tasks of `tinygrad_norm.datasets.shapes`: a CNN and an LSTM.

Both follow `tg.models.GPT`'s convention, so `tinygrad_norm.models.training.train` trains them:
`model(inputs, targets=None) -> (logits, loss)`, the loss None without targets.

>>> import numpy as np, tinygrad_norm as tg
>>> _ = tg.manual_seed(0)
>>> logits, loss = ShapesCNN()(tg.randn(2, 1, 16, 16), tg.tensor([0, 3]))
>>> tuple(logits.shape), tuple(loss.shape)
((2, 4), ())
>>> logits, loss = ParityLSTM()(tg.tensor(np.array([[0, 1, 1], [1, 1, 0]])))
>>> tuple(logits.shape), loss is None
((2, 3, 2), True)
"""

from __future__ import annotations

from .. import nn
from ..nn import functional as F
from ..tensor import Tensor


class ShapesCNN(nn.Module):
    """Two convolution blocks and a linear classifier, for (B, 1, 16, 16) images:

        (B, 1, 16, 16) ─ conv 3x3 ─ BatchNorm ─ ReLU ─ max-pool 2  →  (B, c1, 8, 8)
                       ─ conv 3x3 ─ BatchNorm ─ ReLU ─ max-pool 2  →  (B, c2, 4, 4)
                       ─ flatten  →  (B, c2·16)  ─ linear  →  logits (B, n_classes)

    The 3x3 convolutions pad by 1, so they keep the size; each pooling halves it. The
    convolutions have no bias: the BatchNorm right after them subtracts the mean anyway.
    """

    def __init__(self, n_classes: int = 4, channels: tuple[int, int] = (8, 16), size: int = 16):
        super().__init__()
        c1, c2 = channels
        self.features = nn.Sequential(
            nn.Conv2d(1, c1, kernel_size=3, padding=1, bias=False),  # (B, c1, size, size)
            nn.BatchNorm2d(c1),
            nn.ReLU(),
            nn.MaxPool2d(2),  # (B, c1, size/2, size/2)
            nn.Conv2d(c1, c2, kernel_size=3, padding=1, bias=False),  # (B, c2, size/2, size/2)
            nn.BatchNorm2d(c2),
            nn.ReLU(),
            nn.MaxPool2d(2),  # (B, c2, size/4, size/4)
        )
        self.flatten = nn.Flatten()  # (B, c2 * (size/4)²)
        self.classifier = nn.Linear(c2 * (size // 4) ** 2, n_classes)  # (B, n_classes)

    def forward(self, images, targets=None):
        images = images if isinstance(images, Tensor) else Tensor(images)
        logits = self.classifier(self.flatten(self.features(images)))
        loss = None if targets is None else F.cross_entropy(logits, _tensor(targets))
        return logits, loss


class ParityLSTM(nn.Module):
    """Reads bits one at a time and says, after each, the parity of those read so far:

        bits (B, T) ─ embedding  →  (B, T, 8) ─ LSTM  →  (B, T, hidden) ─ linear  →  (B, T, 2)

    The right answer at step t depends on every bit up to t, so the LSTM must carry one bit of
    state along the sequence (its cell c_t), flipping it at every 1.
    """

    def __init__(self, hidden_size: int = 32, embedding_dim: int = 8):
        super().__init__()
        self.embedding = nn.Embedding(2, embedding_dim)  # bit 0 or 1 -> a learned vector
        self.lstm = nn.LSTM(embedding_dim, hidden_size, batch_first=True)
        self.head = nn.Linear(hidden_size, 2)  # logits for parity 0 and parity 1

    def forward(self, bits, targets=None):
        x = self.embedding(_tensor(bits))  # (B, T, embedding_dim)
        hidden, _ = self.lstm(x)  # (B, T, hidden_size): h_t at every step
        logits = self.head(hidden)  # (B, T, 2)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.reshape(-1, 2), _tensor(targets).reshape(-1))
        return logits, loss


def _tensor(x) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor(x)
