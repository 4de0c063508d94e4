"""Samplers: which dataset indices a DataLoader visits, and in what order.

A sampler is an iterable of indices (Python ints); `BatchSampler` groups them into lists.
Random samplers draw from a `tg.Generator` given as `generator=`, or else from the global
generator that `tg.manual_seed` seeds, at the start of each pass (each epoch differs).
"""

from __future__ import annotations

import numpy as np

from ... import random
from ...random import transforms
from ...tensor import Tensor

_CHUNK = 32  # draws with replacement are made this many at a time, as they are used (PyTorch's)


def _generator(generator=None) -> random.Generator:
    """The tg.Generator to draw from: `generator`, or the global one for None."""
    if generator is None or isinstance(generator, random.Generator):
        return random.resolve(generator)
    raise TypeError(
        "generator must be a tg.Generator (e.g. tg.Generator().manual_seed(0)) or None for the "
        f"global one, got {type(generator).__name__}"
    )


def seed_from(generator=None) -> int:
    """PyTorch's `torch.empty((), dtype=torch.int64).random_(generator=...)`: a seed in
    [0, 2**63) drawn from `generator` (or the global one), e.g. for a fresh Generator."""
    return int(transforms.random_bits(_generator(generator), (), np.int64))


def _check_positive_int(owner: str, name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{owner}: {name} should be a positive integer, got {name}={value!r}")


def _check_bool(owner: str, name: str, value) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{owner}: {name} should be a bool (True or False), got {value!r}")


class Sampler:
    """The base class: an iterable of indices into a dataset (optionally with a length)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1, in order."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random order of the indices: a fresh permutation each pass, or with `replacement=True`
    `num_samples` independent uniform draws. Without replacement, a `num_samples` above the
    dataset's length chains several permutations.

    >>> import tinygrad_norm as tg
    >>> sorted(RandomSampler(range(5), generator=tg.random.generator()))
    [0, 1, 2, 3, 4]
    """

    def __init__(self, data_source, replacement: bool = False, num_samples=None, generator=None):
        _check_bool("RandomSampler", "replacement", replacement)
        if num_samples is not None:
            _check_positive_int("RandomSampler", "num_samples", num_samples)
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        """As PyTorch: without a generator, a fresh one seeded from the global stream; then
        permutations (the last one cut), or with replacement integers 32 at a time."""
        n = len(self.data_source)
        if self.generator is None:
            gen = random.Generator().manual_seed(seed_from(None))
        else:
            gen = _generator(self.generator)
        if self.replacement:  # in chunks: minGPT asks for num_samples=int(1e10)
            for _ in range(self.num_samples // _CHUNK):
                yield from transforms.integers(gen, 0, n, (_CHUNK,)).tolist()
            yield from transforms.integers(gen, 0, n, (self.num_samples % _CHUNK,)).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from transforms.randperm(gen, n).tolist()
        yield from transforms.randperm(gen, n)[: self.num_samples % n].tolist()

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given `indices`, in a random order each pass."""

    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        for i in transforms.randperm(_generator(self.generator), len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """`num_samples` indices drawn with probability weights[i] / sum(weights) (with replacement
    by default: an index may come many times), e.g. to oversample a rare class.

    >>> import tinygrad_norm as tg
    >>> list(WeightedRandomSampler([0.0, 1.0, 0.0], 4, generator=tg.random.generator()))
    [1, 1, 1, 1]
    """

    def __init__(self, weights, num_samples: int, replacement: bool = True, generator=None):
        _check_positive_int("WeightedRandomSampler", "num_samples", num_samples)
        _check_bool("WeightedRandomSampler", "replacement", replacement)
        w = np.asarray(weights.numpy() if isinstance(weights, Tensor) else weights, np.float64)
        if w.ndim != 1:
            raise ValueError(
                f"WeightedRandomSampler: weights should be a 1-D sequence, got shape {w.shape}"
            )
        if not (w >= 0).all() or not np.isfinite(w).all() or w.sum() <= 0:
            raise RuntimeError(
                "WeightedRandomSampler: invalid distribution, the weights must be finite, >= 0 "
                f"and not all 0 (got {w.tolist()[:8]}{' ...' if w.size > 8 else ''})"
            )
        if not replacement and num_samples > np.count_nonzero(w):
            raise RuntimeError(
                f"WeightedRandomSampler: cannot draw {num_samples} samples without replacement "
                f"from {np.count_nonzero(w)} indices of non-zero weight"
            )
        self.weights, self.num_samples = w, int(num_samples)
        self.replacement, self.generator = replacement, generator

    def __iter__(self):
        """As PyTorch: one multinomial draw of all num_samples from the float64 weights."""
        gen, rows = _generator(self.generator), self.weights[None, :]
        draws = transforms.multinomial(gen, rows, self.num_samples, self.replacement)
        yield from draws[0].tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Group another sampler's indices into lists of `batch_size`; the last, shorter one is
    kept unless `drop_last`.

    >>> list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False))
    [[0, 1, 2], [3, 4, 5], [6]]
    """

    def __init__(self, sampler, batch_size: int, drop_last: bool):
        _check_positive_int("BatchSampler", "batch_size", batch_size)
        if not isinstance(drop_last, bool):
            raise ValueError(f"BatchSampler: drop_last should be a bool, got {drop_last!r}")
        self.sampler, self.batch_size, self.drop_last = sampler, int(batch_size), drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
