"""A character-level dataset of one text: the vocabulary is its characters, batches are random
windows of it.

>>> import numpy as np
>>> data = CharDataset("hello world, hello tinygrad\\n" * 4, block_size=8)
>>> data.vocab_size, data.decode(data.encode("hello"))
(16, 'hello')
>>> idx, targets = data.batch(2, np.random.default_rng(0))
>>> idx.shape, bool((idx[:, 1:] == targets[:, :-1]).all())   # targets: the next characters
((2, 8), True)
"""

from __future__ import annotations

import numpy as np


class CharDataset:
    """Windows of `block_size` characters of `text` and the characters that follow each.

    The last `val_fraction` of the text is kept for `batch(..., split="val")`, so a loss
    measured there is on text the model has not trained on.
    """

    def __init__(self, text: str, block_size: int = 64, val_fraction: float = 0.1):
        if not isinstance(text, str):
            raise TypeError(f"CharDataset: text must be a str, got {type(text).__name__}")
        self.vocab = "".join(sorted(set(text)))
        self._index = {c: i for i, c in enumerate(self.vocab)}
        self.block_size = block_size
        tokens = np.array(self.encode(text), dtype=np.int64)
        n_val = int(len(tokens) * val_fraction)
        if len(tokens) - n_val < block_size + 1:
            raise ValueError(
                f"CharDataset: the text has {len(tokens)} characters, too few for windows of "
                f"block_size={block_size} (+1 for the target) after keeping {n_val} for "
                "validation; use a longer text or a smaller block_size"
            )
        if n_val < block_size + 1:  # too short to hold out a window: validate on the training text
            n_val = 0
        self.splits = {"train": tokens[: len(tokens) - n_val], "val": tokens[len(tokens) - n_val :]}
        if n_val == 0:
            self.splits["val"] = self.splits["train"]

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def encode(self, text: str) -> list[int]:
        try:
            return [self._index[c] for c in text]
        except KeyError as err:
            unknown = err.args[0]
            raise ValueError(f"CharDataset: {unknown!r} is not in the text's vocabulary") from None

    def decode(self, ids) -> str:
        return "".join(self.vocab[int(i)] for i in np.asarray(ids).ravel())

    def batch(self, batch_size: int, rng: np.random.Generator, split: str = "train"):
        """Random windows: idx (B, block_size) and targets (B, block_size), the next
        characters, int64."""
        tokens = self.splits[split]
        starts = rng.integers(0, len(tokens) - self.block_size, size=batch_size)
        windows = starts[:, None] + np.arange(self.block_size + 1)  # (B, block_size + 1)
        chunk = tokens[windows]
        return chunk[:, :-1], chunk[:, 1:]

    def __repr__(self) -> str:
        n = sum(len(t) for k, t in self.splits.items() if k == "train")
        return f"CharDataset({n} training characters, vocab_size={self.vocab_size})"
