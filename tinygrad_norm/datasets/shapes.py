"""Two small tasks beyond the GPT's digits, generated on the fly (no download).

    Shapes():  16x16 grayscale images of a circle, square, triangle or cross, of random size,
               position, brightness and noise  ->  the shape's class (0-3). For a CNN.
    Parity():  a string of 16 bits  ->  the parity of every prefix ("running XOR"); the last
               one is the parity of the whole string. For an LSTM: it must carry one bit of
               memory along the sequence.

Held-out problems, as in `tasks.py`: every problem has an integer key (a shape: its class,
size and position; a bit string: the bits read as a binary number), and the same fixed hash
puts one key in ten into the held-out set. `batch` never draws those and `held_out` draws only
those, so the accuracy counts shapes at sizes and positions, and bit strings, never trained on.

>>> import numpy as np
>>> images, labels = Shapes().batch(4, np.random.default_rng(0))
>>> images.shape, images.dtype, labels.shape
((4, 1, 16, 16), dtype('float32'), (4,))
>>> bits, parities = Parity(length=5).batch(1, np.random.default_rng(0))
>>> bits[0].tolist(), parities[0].tolist()       # parities[t] = bits[0] xor ... xor bits[t]
([1, 1, 0, 1, 1], [1, 0, 0, 1, 0])
"""

from __future__ import annotations

import numpy as np

from .tasks import HELD_OUT_ONE_IN, _mix


def _held_out(keys: np.ndarray) -> np.ndarray:
    return _mix(np.asarray(keys)) % np.uint64(HELD_OUT_ONE_IN) == 0


class Shapes:
    """Images of four shapes to classify: `batch(B, rng)` -> images (B, 1, size, size) float32
    and labels (B,) int64, with `classes[label]` the shape's name.

    A shape is a class, a half-width s (3-5 pixels) and a centre (cx, cy) that keeps it inside
    the image: 800 of them at size 16. Each drawing gets a random brightness (0.6-1.0) and
    Gaussian pixel noise of std `noise`, so no two images are the same.
    """

    classes = ("circle", "square", "triangle", "cross")

    def __init__(self, size: int = 16, noise: float = 0.25):
        if size < 12:
            raise ValueError(f"Shapes: size must be at least 12 pixels, got {size}")
        self.size, self.noise = size, noise
        rows = [
            (label, s, cx, cy)
            for label in range(len(self.classes))
            for s in (3, 4, 5)
            for cx in range(s, size - s)
            for cy in range(s, size - s)
        ]
        self.shapes = np.array(rows, dtype=np.int64)  # (n_shapes, 4): label, s, cx, cy
        keys = ((self.shapes[:, 0] * 8 + self.shapes[:, 1]) * 64 + self.shapes[:, 2]) * 64
        held_out = _held_out(keys + self.shapes[:, 3])
        self.splits = {"train": np.flatnonzero(~held_out), "held_out": np.flatnonzero(held_out)}

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    def batch(self, batch_size: int, rng: np.random.Generator, split: str = "train"):
        """batch_size random drawings of shapes from `split` ("train" or "held_out")."""
        rows = self.shapes[rng.choice(self.splits[split], size=batch_size)]
        return self.draw(rows, rng), rows[:, 0].copy()

    def held_out(self, n: int, rng: np.random.Generator):
        """n drawings of held-out shapes: images and labels."""
        return self.batch(n, rng, split="held_out")

    def draw(self, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Render rows of (label, s, cx, cy): (n, 1, size, size) float32, background 0."""
        label, s, cx, cy = (rows[:, i, None, None] for i in range(4))  # each (n, 1, 1)
        y, x = np.mgrid[: self.size, : self.size]  # (size, size) pixel coordinates
        dx, dy = np.abs(x - cx), y - cy  # (n, size, size)
        inside = np.select(
            [label == 0, label == 1, label == 2],
            [
                dx**2 + dy**2 <= s**2,  # circle of radius s
                (dx <= s) & (np.abs(dy) <= s),  # square of side 2s + 1
                (np.abs(dy) <= s) & (2 * dx <= dy + s),  # triangle, apex up, base 2s
            ],
            ((dx == 0) & (np.abs(dy) <= s)) | ((dy == 0) & (dx <= s)),  # cross, 1 pixel wide
        )
        brightness = rng.uniform(0.6, 1.0, size=(len(rows), 1, 1))
        images = inside * brightness + rng.normal(0.0, self.noise, size=inside.shape)
        return images[:, None].astype(np.float32)

    def __repr__(self) -> str:
        return f"Shapes(size={self.size}, noise={self.noise})"


class Parity:
    """Running parity of bit strings: `batch(B, rng)` -> bits (B, length) and parities
    (B, length), both int64, parities[:, t] = bits[:, 0] xor ... xor bits[:, t]."""

    def __init__(self, length: int = 16):
        if length < 2 or length > 62:
            raise ValueError(f"Parity: length must be between 2 and 62, got {length}")
        self.length = length

    def _bits(self, keys: np.ndarray) -> np.ndarray:
        return (keys[:, None] >> np.arange(self.length - 1, -1, -1)) & 1  # high bit first

    def sample_keys(self, n: int, rng: np.random.Generator, held_out: bool = False):
        """n random bit strings as numbers, all on one side of the held-out split."""
        keys = rng.integers(0, 2**self.length, size=n, dtype=np.int64)
        wrong_side = _held_out(keys) != held_out
        while wrong_side.any():
            keys[wrong_side] = rng.integers(0, 2**self.length, size=int(wrong_side.sum()))
            wrong_side = _held_out(keys) != held_out
        return keys

    def batch(self, batch_size: int, rng: np.random.Generator, held_out: bool = False):
        bits = self._bits(self.sample_keys(batch_size, rng, held_out))
        return bits, np.cumsum(bits, axis=1) % 2

    def held_out(self, n: int, rng: np.random.Generator):
        """n held-out bit strings and their running parities."""
        return self.batch(n, rng, held_out=True)

    def __repr__(self) -> str:
        return f"Parity(length={self.length})"
