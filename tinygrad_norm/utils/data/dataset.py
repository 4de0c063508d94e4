"""Datasets: what a DataLoader draws samples from.

A map-style `Dataset` answers `dataset[i]` and `len(dataset)`; an `IterableDataset` is a
stream (`iter(dataset)`). `TensorDataset` pairs tensors along their first dimension; `Subset`,
`ConcatDataset` and `random_split` select, join and split datasets without copying samples.
"""

from __future__ import annotations

import math
import warnings
from bisect import bisect_right
from itertools import accumulate

from ...random import transforms
from ...tensor import Tensor
from .sampler import _generator


class Dataset:
    """The base class of map-style datasets: define `__getitem__(i)` and `__len__()`.

    >>> class Squares(Dataset):
    ...     def __len__(self):
    ...         return 4
    ...     def __getitem__(self, i):
    ...         return i, i * i
    >>> Squares()[3]
    (3, 9)
    """

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __add__(self, other) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """The base class of stream datasets: define `__iter__()`, which yields samples.

    A DataLoader batches the stream in order; `shuffle` and samplers do not apply to it.
    """

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")

    def __add__(self, other) -> ChainDataset:
        return ChainDataset([self, other])


class ChainDataset(IterableDataset):
    """Several iterable datasets, one after the other."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for dataset in self.datasets:
            yield from dataset

    def __len__(self) -> int:
        return sum(len(dataset) for dataset in self.datasets)


class TensorDataset(Dataset):
    """Sample i is `(tensors[0][i], tensors[1][i], ...)`: inputs and targets side by side.

    >>> import tinygrad_norm as tg
    >>> ds = TensorDataset(tg.arange(6).reshape(3, 2), tg.tensor([0, 1, 0]))
    >>> x, y = ds[1]
    >>> x.tolist(), int(y), len(ds)
    ([2, 3], 1, 3)
    """

    def __init__(self, *tensors: Tensor):
        sizes = [t.shape[0] if t.ndim else None for t in tensors]
        if not tensors or None in sizes or len(set(sizes)) != 1:
            shapes = ", ".join(str(tuple(t.shape)) for t in tensors) or "none"
            raise AssertionError(  # PyTorch raises an AssertionError here too
                f"TensorDataset: size mismatch between tensors: every tensor needs the same "
                f"first dimension (one row per sample), got shapes {shapes}"
            )
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order: `Subset(ds, idx)[i] = ds[idx[i]]`."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several map-style datasets end to end: indices 0 .. len(a) - 1 are a's, then b's, ...

    `cumulative_sizes[k]` is the total length of the first k + 1 datasets.

    >>> ds = ConcatDataset([range(3), range(10, 12)])
    >>> len(ds), ds[3], ds[-1]
    (5, 10, 11)
    """

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("ConcatDataset: datasets should not be an empty iterable")
        for dataset in self.datasets:
            if isinstance(dataset, IterableDataset):
                raise AssertionError(
                    "ConcatDataset does not support IterableDataset (it has no length or "
                    "indices); use ChainDataset to chain streams"
                )
        self.cumulative_sizes = list(accumulate(len(dataset) for dataset in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int):
        if index < 0:
            if -index > len(self):
                raise ValueError(
                    f"ConcatDataset: index {index} is out of range for {len(self)} samples"
                )
            index += len(self)
        which = bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        if which == len(self.datasets):
            raise IndexError(
                f"ConcatDataset: index {index} is out of range for {len(self)} samples"
            )
        return self.datasets[which][index - start]


def random_split(dataset, lengths, generator=None) -> list[Subset]:
    """Split `dataset` into non-overlapping random `Subset`s of the given `lengths`.

    `lengths` are counts that add up to len(dataset), or fractions that add up to 1: then
    each gets floor(fraction * n) samples and the remainder goes one each to the first
    subsets, as in PyTorch. `generator` (a tg.Generator) makes the split repeatable.

    >>> import tinygrad_norm as tg
    >>> train, val = random_split(range(10), [0.8, 0.2], generator=tg.random.generator())
    >>> len(train), len(val), sorted(list(train) + list(val)) == list(range(10))
    (8, 2, True)
    """
    lengths = list(lengths)
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        for i, fraction in enumerate(lengths):
            if not 0 <= fraction <= 1:
                raise ValueError(f"random_split: fraction at index {i} is not in [0, 1]")
        counts = [int(math.floor(n * fraction)) for fraction in lengths]
        for i in range(n - sum(counts)):  # the remainder, one each, round robin
            counts[i % len(counts)] += 1
        for i, count in enumerate(counts):
            if count == 0:
                warnings.warn(
                    f"random_split: length of split at index {i} is 0; this results in an "
                    "empty dataset",
                    UserWarning,
                    stacklevel=2,
                )
        lengths = counts
    if sum(lengths) != n:
        raise ValueError(
            f"random_split: the lengths {lengths} add up to {sum(lengths)}, but the dataset has "
            f"{n} samples; give counts that add up to {n}, or fractions that add up to 1"
        )
    order = transforms.randperm(_generator(generator), n).tolist()
    ends = list(accumulate(lengths))
    return [Subset(dataset, order[end - k : end]) for end, k in zip(ends, lengths)]
