"""`DistributedSampler`, as `torch.utils.data.distributed`: each of `num_replicas` processes
draws its share of a dataset (indices rank, rank + num_replicas, ...). tinygrad_norm trains in
one process, so by default num_replicas = 1 and rank = 0: the sampler gives the whole dataset,
in a random order that `set_epoch(epoch)` changes (seeded with seed + epoch, as PyTorch; the
order is tinygrad_norm's own random numbers, not PyTorch's).
"""

from __future__ import annotations

import math

from ...functions.sampling import randperm
from ...random import Generator
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    def __init__(
        self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False
    ):
        num_replicas = 1 if num_replicas is None else int(num_replicas)
        rank = 0 if rank is None else int(rank)
        if not 0 <= rank < num_replicas:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.shuffle, self.seed, self.drop_last, self.epoch = shuffle, seed, drop_last, 0
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            generator = Generator().manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=generator).tolist()
        else:
            indices = list(range(n))
        if self.drop_last:
            indices = indices[: self.total_size]
        elif self.total_size > n:  # pad by repeating the start, so every replica has as many
            repeats = math.ceil((self.total_size - n) / max(n, 1))
            indices += (indices * repeats)[: self.total_size - n]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """A new shuffle for each epoch (the seed is seed + epoch)."""
        self.epoch = epoch
