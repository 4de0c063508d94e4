"""`tg.poisson`: PyTorch's CPU sampler (Knuth below a rate of 10, Hormann's transformed
rejection from 10 on) on the stream's float64 uniforms."""

import math

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.random import transforms

RATES = [0.0, 0.5, 3.0, 9.99, 10.0, 12.5, 100.0, 1e4]


def test_small_rates_count_uniforms_until_the_product_drops_below_exp_minus_rate():
    g, h = tg.Generator().manual_seed(1), tg.Generator().manual_seed(1)
    rates = [0.5, 3.0, 0.0, 9.5]
    u = iter(transforms.unit_uniform(h, 200, np.float64).tolist())
    expected = []
    for rate in rates:
        count, product = 0, 1.0
        while rate > 0:
            product *= next(u)
            if product <= math.exp(-rate):
                break
            count += 1
        expected.append(count)
    assert tg.poisson(tg.tensor(rates), generator=g).tolist() == expected
    used = sum(expected) + 3  # one more uniform than the count, for each non-zero rate
    after = tg.Generator().manual_seed(1)
    transforms.unit_uniform(after, used, np.float64)
    assert tg.rand(5, generator=g).tolist() == tg.rand(5, generator=after).tolist()


@pytest.mark.parametrize("rate", [0.7, 4.0, 10.0, 37.5, 400.0])
def test_mean_and_variance_are_the_rate(rate):
    g = tg.Generator().manual_seed(2)
    values = tg.poisson(tg.full((20000,), rate, dtype=tg.float64), generator=g).numpy()
    assert np.all(values == np.round(values)) and values.min() >= 0
    assert abs(values.mean() - rate) < 5 * math.sqrt(rate / 20000)
    assert abs(values.var() / rate - 1) < 0.06


def test_zero_rates_draw_nothing_and_bad_rates_are_refused():
    g = tg.Generator().manual_seed(3)
    state = g.get_state().numpy()
    assert tg.poisson(tg.zeros(4), generator=g).tolist() == [0.0] * 4
    np.testing.assert_array_equal(g.get_state().numpy(), state)
    for bad in [-1.0, float("inf"), float("nan")]:
        with pytest.raises(RuntimeError, match="poisson: every rate"):
            tg.poisson(tg.tensor([1.0, bad]))


@pytest.mark.oracle
@pytest.mark.parametrize("seed", [0, 1, 42, 2147483647])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pytorchs_numbers(seed, dtype):
    torch = pytest.importorskip("torch")
    tg.manual_seed(seed)
    torch.manual_seed(seed)
    for rates in [np.array(RATES * 3), np.linspace(0, 40, 333).reshape(9, 37), np.full(500, 25.0)]:
        rates = rates.astype(dtype)
        ours, theirs = tg.poisson(tg.tensor(rates)), torch.poisson(torch.tensor(rates))
        assert ours.dtype == getattr(tg, dtype)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
        np.testing.assert_array_equal(tg.get_rng_state().numpy(), torch.get_rng_state().numpy())
    grid = np.linspace(0.5, 30, 60, dtype=dtype).reshape(6, 10)  # a transposed view of rates
    np.testing.assert_array_equal(
        tg.poisson(tg.tensor(grid).t()).numpy(), torch.poisson(torch.tensor(grid).t()).numpy()
    )
    g, h = tg.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
    rates = np.array(RATES, dtype)
    np.testing.assert_array_equal(
        tg.poisson(tg.tensor(rates), generator=g).numpy(),
        torch.poisson(torch.tensor(rates), generator=h).numpy(),
    )
    np.testing.assert_array_equal(g.get_state().numpy(), h.get_state().numpy())
