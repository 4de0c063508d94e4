"""tinygrad_norm.utils.data: datasets, samplers, DataLoader and default_collate, against what
each promises (every index once per epoch, lengths, frequencies) and (oracle) against
torch.utils.data where the result is deterministic."""

import collections
import warnings

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.utils import data as tgdata
from tinygrad_norm.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    TensorDataset,
    WeightedRandomSampler,
    default_collate,
    random_split,
)
from tinygrad_norm.utils.data.dataloader import _noted_num_workers
from tinygrad_norm.utils.data.sampler import _generator

Point = collections.namedtuple("Point", ["x", "y"])


def tensors(n=10):
    return tg.arange(2.0 * n).reshape(n, 2), tg.arange(n)


class Stream(IterableDataset):
    def __init__(self, n, with_length=True):
        self.n, self.with_length = n, with_length

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        if not self.with_length:
            raise TypeError("a stream without a length")
        return self.n


def seeded(seed=0):
    """A tg.Generator with its own seed."""
    return tg.Generator().manual_seed(seed)


# --- datasets ------------------------------------------------------------------------------------


def test_tensor_dataset_pairs_rows():
    X, y = tensors(4)
    ds = TensorDataset(X, y)
    assert len(ds) == 4
    x1, y1 = ds[1]
    assert x1.tolist() == [2.0, 3.0] and int(y1) == 1
    with pytest.raises(AssertionError, match=r"\(4, 2\), \(3,\)"):
        TensorDataset(X, tg.arange(3))


def test_subset_concat_and_add():
    ds = TensorDataset(*tensors(5))
    sub = Subset(ds, [4, 0])
    assert len(sub) == 2 and int(sub[0][1]) == 4 and int(sub[1][1]) == 0
    both = ConcatDataset([range(3), range(10, 14)])
    assert [both[i] for i in range(len(both))] == [0, 1, 2, 10, 11, 12, 13]
    assert both.cumulative_sizes == [3, 7] and both[-7] == 0
    with pytest.raises(ValueError):
        both[-8]
    with pytest.raises(IndexError):
        both[7]

    class Range(Dataset):
        def __init__(self, n):
            self.n = n

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            return i

    assert len(Range(2) + Range(3)) == 5
    with pytest.raises(AssertionError, match="IterableDataset"):
        ConcatDataset([Stream(3)])
    assert list(Stream(2) + Stream(3)) == [0, 1, 0, 1, 2]


@pytest.mark.parametrize(
    "lengths, sizes",
    [([3, 7], [3, 7]), ([0.5, 0.5], [5, 5]), ([0.33, 0.33, 0.34], [4, 3, 3]), ([0.8, 0.2], [8, 2])],
)
def test_random_split_sizes_cover_the_dataset_once(lengths, sizes):
    parts = random_split(range(10), lengths, generator=seeded())
    assert [len(p) for p in parts] == sizes
    assert sorted(i for p in parts for i in p) == list(range(10))


def test_random_split_is_repeatable_and_checks_lengths():
    a = [list(p) for p in random_split(range(20), [5, 15], generator=seeded(3))]
    b = [list(p) for p in random_split(range(20), [5, 15], generator=seeded(3))]
    assert a == b and a[0] != list(range(5))
    tg.manual_seed(1)
    c = [list(p) for p in random_split(range(20), [5, 15])]
    tg.manual_seed(1)
    assert c == [list(p) for p in random_split(range(20), [5, 15])]
    with pytest.raises(ValueError, match="add up to 11"):
        random_split(range(10), [5, 6])
    with pytest.warns(UserWarning, match="empty"):
        random_split(range(2), [0.9, 0.1])


def test_generator_accepts_generators_and_refuses_others():
    g = tg.Generator()
    assert _generator(g) is g
    assert _generator(None) is tg.random.generator()
    with pytest.raises(TypeError, match="tg.Generator"):
        _generator(42)
    with pytest.raises(TypeError, match="tg.Generator"):
        _generator(np.random.default_rng(0))


# --- samplers ------------------------------------------------------------------------------------


def test_random_sampler_is_a_new_permutation_each_pass():
    sampler = RandomSampler(range(50), generator=seeded())
    first, second = list(sampler), list(sampler)
    assert sorted(first) == sorted(second) == list(range(50))
    assert first != second and len(sampler) == 50
    assert all(type(i) is int for i in first)


def test_random_sampler_num_samples_and_replacement():
    longer = list(RandomSampler(range(4), num_samples=10, generator=seeded()))
    counts = collections.Counter(longer)
    assert len(longer) == 10 and all(counts[i] in (2, 3) for i in range(4))  # 2 perms + 2
    drawn = list(RandomSampler(range(3), replacement=True, num_samples=300, generator=seeded()))
    assert len(drawn) == 300 and set(drawn) == {0, 1, 2}
    endless = iter(RandomSampler(range(3), replacement=True, num_samples=int(1e10)))
    assert {next(endless) for _ in range(10000)} == {0, 1, 2}  # drawn as used (minGPT's way)
    endless = DataLoader(range(3), sampler=RandomSampler(range(3), True, int(1e10)), batch_size=4)
    assert len(endless) == 2_500_000_000 and next(iter(endless)).shape == (4,)
    with pytest.raises(ValueError, match="num_samples"):
        RandomSampler(range(3), num_samples=0)
    with pytest.raises(TypeError, match="replacement"):
        RandomSampler(range(3), replacement=1)


def test_weighted_sampler_frequencies_follow_the_weights():
    weights = [1.0, 3.0, 0.0, 6.0]
    drawn = list(WeightedRandomSampler(weights, 20000, generator=seeded()))
    freq = np.bincount(drawn, minlength=4) / len(drawn)
    np.testing.assert_allclose(freq, np.array(weights) / 10, atol=0.015)  # ~4 sigma
    once = list(WeightedRandomSampler(tg.tensor(weights), 3, replacement=False))
    assert sorted(once) == [0, 1, 3]
    with pytest.raises(RuntimeError, match="without replacement"):
        WeightedRandomSampler(weights, 4, replacement=False)
    with pytest.raises(RuntimeError, match=">= 0"):
        WeightedRandomSampler([1.0, -1.0], 2)


def test_batch_sampler_lengths():
    assert list(BatchSampler(range(5), 2, drop_last=True)) == [[0, 1], [2, 3]]
    assert len(BatchSampler(SequentialSampler(range(5)), 2, False)) == 3
    assert len(BatchSampler(SequentialSampler(range(5)), 2, True)) == 2
    with pytest.raises(ValueError, match="batch_size"):
        BatchSampler(range(5), 0, False)


# --- DataLoader ----------------------------------------------------------------------------------


def test_loader_batches_in_order_with_len():
    ds = TensorDataset(*tensors(10))
    loader = DataLoader(ds, batch_size=4)
    batches = list(loader)
    assert len(loader) == 3 and [b[0].shape for b in batches] == [(4, 2), (4, 2), (2, 2)]
    assert tg.cat([y for _, y in batches]).tolist() == list(range(10))
    assert len(DataLoader(ds, batch_size=4, drop_last=True)) == 2
    assert len(list(DataLoader(ds, batch_size=4, drop_last=True))) == 2


def test_shuffle_visits_every_sample_once_per_epoch_and_repeats_with_the_seed():
    ds = TensorDataset(*tensors(12))
    tg.manual_seed(0)
    loader = DataLoader(ds, batch_size=5, shuffle=True)
    epochs = [tg.cat([y for _, y in loader]).tolist() for _ in range(3)]
    assert all(sorted(e) == list(range(12)) for e in epochs)
    assert epochs[0] != epochs[1]
    tg.manual_seed(0)
    again = [tg.cat([y for _, y in loader]).tolist() for _ in range(3)]
    assert again == epochs
    mine = DataLoader(ds, batch_size=5, shuffle=True, generator=seeded(7))
    other = DataLoader(ds, batch_size=5, shuffle=True, generator=seeded(7))
    assert [y.tolist() for _, y in mine] == [y.tolist() for _, y in other]


def test_sampler_batch_sampler_batch_size_none_and_collate_fn():
    ds = list(range(10, 20))
    assert [b.tolist() for b in DataLoader(ds, sampler=[9, 0, 3], batch_size=2)] == [
        [19, 10],
        [13],
    ]
    assert [b.tolist() for b in DataLoader(ds, batch_sampler=[[1, 2], [5]])] == [[11, 12], [15]]
    singles = list(DataLoader(ds, batch_size=None))
    assert singles == ds and len(DataLoader(ds, batch_size=None)) == 10
    assert list(DataLoader(ds, batch_size=3, collate_fn=sum)) == [33, 42, 51, 19]


def test_iterable_dataset_is_batched_in_stream_order():
    loader = DataLoader(Stream(7), batch_size=3)
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(loader) == 3 and len(DataLoader(Stream(7), batch_size=3, drop_last=True)) == 2
    with pytest.raises(TypeError):
        len(DataLoader(Stream(7, with_length=False), batch_size=3))
    with pytest.raises(ValueError, match="shuffle"):
        DataLoader(Stream(7), shuffle=True)


def test_loader_option_errors():
    ds = list(range(5))
    with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
        DataLoader(ds, sampler=[0, 1], shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler"):
        DataLoader(ds, batch_sampler=[[0]], batch_size=2)
    with pytest.raises(ValueError, match="drop_last"):
        DataLoader(ds, batch_size=None, drop_last=True)
    with pytest.raises(ValueError, match="num_workers"):
        DataLoader(ds, num_workers=-1)


def test_num_workers_is_ignored_with_one_note():
    _noted_num_workers.clear()
    with pytest.warns(UserWarning, match="num_workers=4 is ignored"):
        loader = DataLoader(list(range(4)), batch_size=2, num_workers=4, pin_memory=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DataLoader(list(range(4)), num_workers=2, persistent_workers=True, prefetch_factor=2)
    assert [b.tolist() for b in loader] == [[0, 1], [2, 3]]


def test_default_collate_types_and_dtypes():
    batch = default_collate([(1.5, 2, True, "a"), (2.5, 3, False, "b")])
    floats, ints, bools, strings = batch
    assert floats.dtype == np.float64 and ints.dtype == np.int64 and bools.dtype == np.bool_
    assert strings == ("a", "b") and isinstance(batch, list)  # as PyTorch: zip gives tuples
    arrays = default_collate([np.zeros((2, 3), np.float32), np.ones((2, 3), np.float32)])
    assert arrays.shape == (2, 2, 3) and arrays.dtype == np.float32
    assert default_collate([np.int32(1), np.int32(2)]).dtype == np.int32
    nested = default_collate([{"p": Point(1, tg.zeros(2))}, {"p": Point(2, tg.ones(2))}])
    assert isinstance(nested["p"], Point) and nested["p"].y.shape == (2, 2)
    with pytest.raises(RuntimeError, match=r"\(2,\), \(3,\)"):
        default_collate([tg.zeros(2), tg.zeros(3)])
    with pytest.raises(RuntimeError, match="equal size"):
        default_collate([[1, 2], [1]])
    with pytest.raises(TypeError, match="collate_fn"):
        default_collate([object(), object()])


def test_a_training_loop_with_loader_and_scheduler_learns():
    tg.manual_seed(0)
    X = tg.randn(64, 3)
    y = X @ tg.tensor([[1.0], [-2.0], [0.5]])
    model = tg.nn.Linear(3, 1)
    opt = tg.optim.SGD(model.parameters(), lr=0.1)
    sched = tg.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)
    loader = DataLoader(TensorDataset(X, y), batch_size=16, shuffle=True)
    losses = []
    for _ in range(10):
        for xb, yb in loader:
            loss = ((model(xb) - yb) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        losses.append(float(loss))
    assert losses[-1] < 0.01 * losses[0]


# --- PyTorch oracle ------------------------------------------------------------------------------


def plain(x):
    """Batches of either library as plain Python/NumPy, with the tensors' dtypes."""
    if hasattr(x, "detach"):
        array = x.detach().numpy()
        return ("tensor", str(array.dtype), array.tolist())
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [plain(v) for v in x])
    return x


def samples(lib):
    return [
        {
            "x": lib.tensor([i, 2.0 * i], dtype=lib.float64),
            "pair": (np.full(2, i, np.float32), i, float(i) / 3, f"s{i}"),
            "point": Point(np.int16(i), [i, True]),
            "flag": i % 2 == 0,
        }
        for i in range(7)
    ]


@pytest.mark.oracle
@pytest.mark.parametrize(
    "options",
    [
        dict(batch_size=3),
        dict(batch_size=3, drop_last=True),
        dict(batch_size=None),
        dict(sampler=[6, 1, 2, 5], batch_size=2),
        dict(batch_sampler=[[3, 1, 4], [0]]),
    ],
)
def test_batches_equal_pytorch(options):
    torch = pytest.importorskip("torch")
    ours = DataLoader(samples(tg), **options)
    theirs = torch.utils.data.DataLoader(samples(torch), **options)
    assert len(ours) == len(theirs)
    assert [plain(b) for b in ours] == [plain(b) for b in theirs]


@pytest.mark.oracle
def test_random_split_lengths_and_errors_equal_pytorch():
    torch = pytest.importorskip("torch")
    for n, lengths in [(10, [0.33, 0.33, 0.34]), (7, [0.5, 0.5]), (11, [0.1] * 10), (5, [2, 3])]:
        ours = [len(p) for p in random_split(range(n), lengths)]
        assert ours == [len(p) for p in torch.utils.data.random_split(range(n), lengths)]
    for module in (tgdata, torch.utils.data):
        with pytest.raises(ValueError):
            module.random_split(range(5), [2, 2])
    with pytest.raises(AssertionError):
        tgdata.TensorDataset(tg.zeros(2), tg.zeros(3))
    with pytest.raises(AssertionError):
        torch.utils.data.TensorDataset(torch.zeros(2), torch.zeros(3))
