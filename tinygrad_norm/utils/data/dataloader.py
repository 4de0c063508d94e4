"""DataLoader: batches of samples from a dataset, one epoch per `for` loop, and the default
way samples are stacked into a batch (`default_collate`).

Everything runs in this process: `num_workers` is accepted so PyTorch code runs unchanged, and
ignored (with a note, once).
"""

from __future__ import annotations

import collections.abc
import copy
import warnings

import numpy as np

from ...functions.shape import stack
from ...tensor import Tensor
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, seed_from

_noted_num_workers = []  # a note about num_workers is shown once per process


def _check_same_shape(batch: list, what: str) -> None:
    shapes = {tuple(sample.shape) for sample in batch}
    if len(shapes) > 1:
        raise RuntimeError(
            f"default_collate: cannot stack {what} of different shapes {sorted(shapes)} into "
            "one batch; make every sample the same shape (pad or crop), or pass a collate_fn"
        )


def default_collate(batch: list):
    """Stack a list of samples into a batch, as PyTorch's default_collate does:

        Tensors / NumPy arrays of one shape  ->  one Tensor with a new first dimension
        Python floats -> float64 Tensor;  ints (and bools) -> int64 (bool) Tensor
        NumPy scalars -> a Tensor of their dtype;  strings, bytes -> left as they are
        dicts -> a dict of batches;  tuples, lists -> a list of batches, one per position
        namedtuples -> the same namedtuple of batches

    >>> import tinygrad_norm as tg
    >>> x, y = default_collate([(tg.zeros(2), 1), (tg.ones(2), 0)])
    >>> x.shape, y.tolist()
    (torch.Size([2, 2]), [1, 0])
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        _check_same_shape(batch, "tensors")
        return stack(batch, 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "OSUV":
            raise TypeError(_unsupported(elem.dtype))
        _check_same_shape(batch, "arrays")
        return Tensor(np.stack(batch))
    if isinstance(elem, (np.bool_, np.number)):
        return Tensor(np.array(batch))
    if isinstance(elem, float):
        return Tensor(np.array(batch, dtype=np.float64))
    if isinstance(elem, int):  # bool is an int: a bool batch stays bool, as in PyTorch
        return Tensor(np.array(batch, dtype=bool if isinstance(elem, bool) else np.int64))
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([sample[key] for sample in batch]) for key in elem}
        if isinstance(elem, collections.abc.MutableMapping):
            clone = copy.copy(elem)  # keeps the mapping's type (an OrderedDict, ...)
            clone.update(collated)
            return clone
        return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError(
                "default_collate: each element in list of batch should be of equal size, got "
                f"lengths {[len(sample) for sample in batch]}"
            )
        return [default_collate(samples) for samples in zip(*batch)]
    raise TypeError(_unsupported(type(elem)))


def _unsupported(kind) -> str:
    return (
        "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        f"found {kind}. Pass a collate_fn to the DataLoader to batch these samples"
    )


def default_convert(data):
    """What a DataLoader with batch_size=None does to each sample: NumPy arrays (also inside
    dicts, tuples and lists) become Tensors; everything else stays as it is."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "OSUV":
        return Tensor(data)
    if isinstance(data, (np.bool_, np.number)):
        return Tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        return {key: default_convert(value) for key, value in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (tuple, list)):
        return [default_convert(d) for d in data]
    return data


class DataLoader:
    """Iterate over a dataset in batches: `for x, y in DataLoader(ds, batch_size=32, shuffle=True)`.

    Each `for` loop is one epoch. The indices come from `sampler` (by default in order, or a
    `RandomSampler` drawing from `generator` with `shuffle=True`, a new order each epoch),
    grouped by `batch_sampler` (by default `BatchSampler(sampler, batch_size, drop_last)`);
    `collate_fn` (by default `default_collate`) turns each list of samples into a batch.
    `batch_size=None` yields single samples. An `IterableDataset` is batched in stream order.
    `num_workers`, `pin_memory` and the other multi-process options are accepted and ignored.

    >>> import tinygrad_norm as tg
    >>> from tinygrad_norm.utils.data import TensorDataset
    >>> ds = TensorDataset(tg.arange(10.0).reshape(5, 2), tg.arange(5))
    >>> loader = DataLoader(ds, batch_size=2)
    >>> len(loader), [y.tolist() for _, y in loader]
    (3, [[0, 1], [2, 3], [4]])
    """

    def __init__(
        self,
        dataset,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler=None,
        batch_sampler=None,
        num_workers: int = 0,
        collate_fn=None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ):
        if num_workers < 0:
            raise ValueError(f"DataLoader: num_workers must be >= 0, got {num_workers}")
        if num_workers > 0 and not _noted_num_workers:
            _noted_num_workers.append(True)
            warnings.warn(
                f"DataLoader: num_workers={num_workers} is ignored; tinygrad_norm loads every "
                "batch in this process (there are no worker processes)",
                UserWarning,
                stacklevel=2,
            )
        self.dataset, self.num_workers, self.generator = dataset, num_workers, generator
        self.pin_memory, self.timeout, self.prefetch_factor = pin_memory, timeout, prefetch_factor
        if isinstance(dataset, IterableDataset):
            if shuffle not in (None, False):
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, "
                    f"but got shuffle={shuffle}; shuffle the stream inside the dataset instead"
                )
            for name, value in (("sampler", sampler), ("batch_sampler", batch_sampler)):
                if value is not None:
                    raise ValueError(
                        f"DataLoader with IterableDataset: expected unspecified {name} option, "
                        f"but got {name}={value!r}"
                    )
        else:
            sampler, batch_sampler = self._samplers(
                dataset, batch_size, shuffle, sampler, batch_sampler, drop_last, generator
            )
            if batch_sampler is not None:
                batch_size, drop_last = None, False
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.batch_size, self.drop_last = batch_size, drop_last
        if collate_fn is None:
            batched = batch_size is not None or batch_sampler is not None
            collate_fn = default_collate if batched else default_convert
        self.collate_fn = collate_fn

    @staticmethod
    def _samplers(dataset, batch_size, shuffle, sampler, batch_sampler, drop_last, generator):
        if sampler is not None and shuffle:
            raise ValueError(
                "DataLoader: sampler option is mutually exclusive with shuffle (the sampler "
                "decides the order); pass a RandomSampler as sampler, or shuffle=True alone"
            )
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "DataLoader: batch_sampler option is mutually exclusive with batch_size, "
                    "shuffle, sampler, and drop_last (the batch sampler decides all four)"
                )
        elif batch_size is None and drop_last:
            raise ValueError(
                "DataLoader: batch_size=None option disables auto-batching and is mutually "
                "exclusive with drop_last"
            )
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else None
            sampler = sampler or SequentialSampler(dataset)
        if batch_sampler is None and batch_size is not None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        return sampler, batch_sampler

    def __iter__(self):
        """One epoch of batches. As PyTorch, starting one draws a seed for worker processes
        (there are none here) from `generator` or the global stream, so the streams stay
        aligned."""
        seed_from(self.generator)
        return self._batches()

    def _batches(self):
        if isinstance(self.dataset, IterableDataset):
            yield from self._iter_stream()
        elif self.batch_sampler is not None:
            for indices in self.batch_sampler:
                yield self.collate_fn([self.dataset[i] for i in indices])
        else:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])

    def _iter_stream(self):
        if self.batch_size is None:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self) -> int:
        """The number of batches in an epoch."""
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)  # a TypeError for a stream without a length, as in PyTorch
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    def __repr__(self) -> str:
        return (
            f"DataLoader({type(self.dataset).__name__} of {_length(self.dataset)}, "
            f"batch_size={self.batch_size}, sampler={type(self.sampler).__name__})"
        )


def _length(dataset) -> str:
    try:
        return f"{len(dataset)} samples"
    except TypeError:
        return "a stream"
