"""Datasets, samplers and the DataLoader, as `torch.utils.data`.

    from tinygrad_norm.utils.data import DataLoader, TensorDataset, random_split
    train, val = random_split(TensorDataset(X, Y), [0.9, 0.1], generator=g)
    for xb, yb in DataLoader(train, batch_size=32, shuffle=True):   # one epoch
        ...

Files: dataset.py (what to draw from), sampler.py (in which order), dataloader.py (batches,
`default_collate`).
"""

from .dataloader import DataLoader, default_collate, default_convert
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
