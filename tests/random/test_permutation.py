"""randperm's Fisher-Yates without a loop over the swaps (`fisher_yates`) against the one
swap at a time reference beside it, on random and on extreme swap targets."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.random.permutation import fisher_yates, fisher_yates_reference


def random_targets(n, seed):
    """targets[i] = i + w % (n - i), as randperm makes them from words w."""
    words = np.random.default_rng(seed).integers(0, 2**32, max(n - 1, 0))
    return np.arange(n - 1) + words % np.arange(n, 1, -1)


@pytest.mark.parametrize("n", [*range(1, 70), 100, 257, 1000, 5000, 60000])
def test_random_swaps_give_the_reference_permutation(n):
    for seed in range(3 if n < 1000 else 1):
        targets = random_targets(n, seed)
        np.testing.assert_array_equal(fisher_yates(targets), fisher_yates_reference(targets))


@pytest.mark.parametrize("n", [2, 3, 10, 1000])
def test_extreme_swaps(n):
    """Every swap with the last entry (one long chain), none (the identity), each with the next."""
    steps = np.arange(n - 1)
    for targets in [np.full(n - 1, n - 1), steps, np.minimum(steps + 1, n - 1)]:
        np.testing.assert_array_equal(fisher_yates(targets), fisher_yates_reference(targets))


def test_randperm_is_the_loop_on_the_streams_words():
    g, h = tg.Generator().manual_seed(3), tg.Generator().manual_seed(3)
    n = 3000
    targets = np.arange(n - 1) + h.words(n - 1).astype(np.int64) % np.arange(n, 1, -1)
    expected = fisher_yates_reference(targets)
    np.testing.assert_array_equal(tg.randperm(n, generator=g).numpy(), expected)
    assert sorted(expected.tolist()) == list(range(n))
    assert tg.randperm(0).tolist() == [] and tg.randperm(1).tolist() == [0]
