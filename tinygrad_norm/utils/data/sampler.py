"""Samplers: which dataset indices a DataLoader visits, and in what order.

A sampler is an iterable of indices (Python ints); `BatchSampler` groups them into lists.
Random samplers draw from a `tg.Generator` given as `generator=`, or else from the global
generator that `tg.manual_seed` seeds, at the start of each pass (each epoch differs).
"""

from __future__ import annotations

import numpy as np

from ... import random
from ...tensor import Tensor

_CHUNK = 4096  # draws with replacement are made this many at a time, as they are used


def _numpy_rng(generator=None) -> np.random.Generator:
    """The `numpy.random.Generator` to draw from: the global one for None, else the one inside
    `generator` (a tg.Generator keeps it as `.numpy` or `._rng`; a numpy Generator is itself)."""
    if generator is None:
        return random.generator()
    if isinstance(generator, np.random.Generator):
        return generator
    for attribute in ("numpy", "_rng"):
        rng = getattr(generator, attribute, None)
        if isinstance(rng, np.random.Generator):
            return rng
    raise TypeError(
        "generator must be a tg.Generator (e.g. tg.Generator().manual_seed(0)) or None for the "
        f"global one, got {type(generator).__name__}"
    )


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
        n, rng = len(self.data_source), _numpy_rng(self.generator)
        if self.replacement:  # in chunks: minGPT asks for num_samples=int(1e10)
            for start in range(0, self.num_samples, _CHUNK):
                size = min(_CHUNK, self.num_samples - start)
                yield from rng.integers(0, n, size=size).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from rng.permutation(n).tolist()
        yield from rng.permutation(n)[: self.num_samples % n].tolist()

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given `indices`, in a random order each pass."""

    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        for i in _numpy_rng(self.generator).permutation(len(self.indices)).tolist():
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
        p = self.weights / self.weights.sum()
        rng = _numpy_rng(self.generator)
        if not self.replacement:
            yield from rng.choice(len(p), size=self.num_samples, replace=False, p=p).tolist()
            return
        for start in range(0, self.num_samples, _CHUNK):
            size = min(_CHUNK, self.num_samples - start)
            yield from rng.choice(len(p), size=size, p=p).tolist()

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
