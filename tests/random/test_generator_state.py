"""Oracle: generator states move both ways between tinygrad_norm and PyTorch (the same
5056-byte layout), fork_rng restores, and data loading shuffles as PyTorch's does."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.utils.data import (
    DataLoader,
    RandomSampler,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    random_split,
)

pytestmark = pytest.mark.oracle
torch = pytest.importorskip("torch")
tud = pytest.importorskip("torch.utils.data")


def aligned():
    return np.array_equal(tg.get_rng_state().numpy(), torch.get_rng_state().numpy())


@pytest.mark.parametrize("seed", [0, 7, 2**40 + 3, -1])
def test_seeding_gives_pytorchs_state_bytes(seed):
    tg.manual_seed(seed)
    torch.manual_seed(seed)
    assert aligned() and tg.initial_seed() == torch.initial_seed()
    tg.randn(1)  # leaves a cached normal
    torch.randn(1)
    assert aligned()
    tg.rand(2000)  # re-twists
    torch.rand(2000)
    assert aligned()


@pytest.mark.parametrize("draws", [0, 1, 623, 624, 625, 5000])
def test_pytorchs_state_replays_here_and_ours_there(draws):
    torch.manual_seed(3)
    torch.rand(draws)
    torch.randn(3, dtype=torch.float64)  # a cached double normal travels too
    tg.set_rng_state(tg.tensor(torch.get_rng_state().numpy()))
    assert aligned()
    np.testing.assert_array_equal(tg.rand(700).numpy(), torch.rand(700).numpy())
    assert tg.randn(1, dtype=tg.float64).item() == torch.randn(1, dtype=torch.float64).item()
    tg.manual_seed(4)
    tg.rand(draws)
    tg.randn(1)
    torch.set_rng_state(torch.from_numpy(tg.get_rng_state().numpy()))
    assert aligned()
    np.testing.assert_array_equal(
        tg.randint(0, 9, (900,)).numpy(), torch.randint(0, 9, (900,)).numpy()
    )


def test_generator_get_and_set_state_both_ways():
    g, h = tg.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    tg.randn(5, generator=g)
    h.set_state(torch.from_numpy(g.get_state().numpy()))
    np.testing.assert_array_equal(
        tg.randperm(50, generator=g).numpy(), torch.randperm(50, generator=h).numpy()
    )
    torch.rand(33, generator=h)
    g.set_state(tg.tensor(h.get_state().numpy()))
    np.testing.assert_array_equal(
        tg.rand(9, generator=g).numpy(), torch.rand(9, generator=h).numpy()
    )


def test_fork_rng_restores_the_global_stream():
    tg.manual_seed(6)
    torch.manual_seed(6)
    with tg.random.fork_rng():
        tg.randn(100)
    with torch.random.fork_rng():
        torch.randn(100)
    assert aligned()


def test_samplers_and_random_split():
    tg.manual_seed(7)
    torch.manual_seed(7)
    for n, kwargs in [
        (50, {}),
        (10, {"num_samples": 25}),
        (50, {"replacement": True, "num_samples": 70}),
    ]:
        assert list(RandomSampler(range(n), **kwargs)) == list(
            tud.RandomSampler(range(n), **kwargs)
        )
        assert aligned()
    g, h = tg.Generator().manual_seed(4), torch.Generator().manual_seed(4)
    assert list(RandomSampler(range(30), generator=g)) == list(
        tud.RandomSampler(range(30), generator=h)
    )
    assert list(SubsetRandomSampler([3, 5, 9, 11], g)) == list(
        tud.SubsetRandomSampler([3, 5, 9, 11], h)
    )
    w = [0.1, 0.5, 0.2, 0.2]
    assert list(WeightedRandomSampler(w, 12)) == list(tud.WeightedRandomSampler(w, 12))
    assert list(WeightedRandomSampler(w, 3, False)) == list(tud.WeightedRandomSampler(w, 3, False))
    ours = [list(s) for s in random_split(range(30), [0.3, 0.3, 0.4])]
    assert ours == [list(s) for s in tud.random_split(range(30), [0.3, 0.3, 0.4])]
    ours = [list(s) for s in random_split(range(30), [10, 20], generator=g)]
    assert ours == [list(s) for s in tud.random_split(range(30), [10, 20], generator=h)]
    assert aligned()


@pytest.mark.parametrize("with_generator", [False, True])
def test_dataloader_shuffles_as_pytorchs(with_generator):
    tg.manual_seed(8)
    torch.manual_seed(8)
    x = np.arange(40, dtype=np.float32).reshape(20, 2)
    g = tg.Generator().manual_seed(5) if with_generator else None
    h = torch.Generator().manual_seed(5) if with_generator else None
    ours = DataLoader(TensorDataset(tg.tensor(x)), batch_size=6, shuffle=True, generator=g)
    theirs = tud.DataLoader(
        tud.TensorDataset(torch.tensor(x)), batch_size=6, shuffle=True, generator=h
    )
    for _epoch in range(3):
        a = [b.numpy() for (b,) in ours]
        b = [b.numpy() for (b,) in theirs]
        np.testing.assert_array_equal(np.concatenate(a), np.concatenate(b))
        assert aligned()
