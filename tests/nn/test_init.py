"""nn.init: every initialiser fills its tensor in place from the global generator (or the one
given), with the bounds, means and variances its formula promises; fans and gains."""

import math

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm import nn


def test_init_draws_from_the_global_generator_in_place():
    w = nn.Parameter(tg.empty(300, 200, dtype=tg.float64))
    array = w.numpy()
    tg.manual_seed(3)
    assert nn.init.uniform_(w, -2.0, 5.0) is w
    assert w.numpy() is array  # in place: same memory, same Parameter
    # PyTorch's float64 uniform: 53 bits of two mt19937 words (hi, lo) seeded as RandomState
    bits = np.random.MT19937()
    key = np.random.RandomState(3).get_state()[1]
    bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": 624}}
    words = bits.random_raw(2 * 300 * 200).reshape(-1, 2)
    u = (((words[:, 0] << np.uint64(32)) | words[:, 1]) & np.uint64(2**53 - 1)) * 2.0**-53
    np.testing.assert_allclose(w.numpy(), (u * 7.0 - 2.0).reshape(300, 200), atol=1e-15)
    tg.manual_seed(4)
    nn.init.normal_(w, 1.0, 0.5)
    z = tg.randn(300, 200, generator=tg.Generator().manual_seed(4), dtype=tg.float64).numpy()
    np.testing.assert_allclose(w.numpy(), z * 0.5 + 1.0, rtol=1e-15)
    assert w.grad_fn is None and w.requires_grad


def test_init_statistics_over_a_large_tensor():
    tg.manual_seed(0)
    t = tg.empty(1000, 1000)
    nn.init.normal_(t, mean=2.0, std=3.0)
    assert abs(t.numpy().mean() - 2.0) < 0.01 and abs(t.numpy().std() - 3.0) < 0.01
    nn.init.uniform_(t, -1.0, 3.0)
    assert t.numpy().min() >= -1.0 and t.numpy().max() < 3.0
    assert abs(t.numpy().mean() - 1.0) < 0.01 and abs(t.numpy().var() - 16 / 12) < 0.01
    assert t.dtype == np.float32


def test_constant_zeros_ones():
    t = tg.empty(2, 3)
    assert (nn.init.constant_(t, 0.25).numpy() == 0.25).all()
    assert (nn.init.ones_(t).numpy() == 1).all()
    assert (nn.init.zeros_(t).numpy() == 0).all()


def test_fan_in_and_fan_out():
    assert nn.init._calculate_fan_in_and_fan_out(tg.empty(30, 20)) == (20, 30)
    assert nn.init._calculate_fan_in_and_fan_out(tg.empty(8, 4, 3, 3)) == (36, 72)
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        nn.init._calculate_fan_in_and_fan_out(tg.empty(5))


def test_xavier_bounds_and_variance():
    tg.manual_seed(1)
    fan_out, fan_in = 400, 600
    w = nn.init.xavier_uniform_(tg.empty(fan_out, fan_in, dtype=tg.float64), gain=2.0)
    bound = 2.0 * math.sqrt(6.0 / (fan_in + fan_out))
    assert np.abs(w.numpy()).max() <= bound and np.abs(w.numpy()).max() > 0.999 * bound
    assert abs(w.numpy().var() / (bound**2 / 3) - 1) < 0.01
    w = nn.init.xavier_normal_(tg.empty(fan_out, fan_in, dtype=tg.float64), gain=0.5)
    std = 0.5 * math.sqrt(2.0 / (fan_in + fan_out))
    assert abs(w.numpy().std() / std - 1) < 0.01 and abs(w.numpy().mean()) < 0.01 * std


def test_kaiming_uniform_bounds():
    tg.manual_seed(2)
    w = nn.init.kaiming_uniform_(tg.empty(500, 200, dtype=tg.float64), a=math.sqrt(5))
    bound = 1 / math.sqrt(200)  # sqrt(3) * sqrt(2 / (1 + 5)) / sqrt(fan_in): nn.Linear's
    assert np.abs(w.numpy()).max() <= bound and np.abs(w.numpy()).max() > 0.999 * bound
    w = nn.init.kaiming_uniform_(tg.empty(500, 200), mode="fan_out", nonlinearity="relu")
    bound = math.sqrt(2) * math.sqrt(3 / 500)
    assert np.abs(w.numpy()).max() <= bound * (1 + 1e-6) and np.abs(w.numpy()).max() > 0.999 * bound
    w = nn.init.kaiming_normal_(tg.empty(500, 200, dtype=tg.float64), nonlinearity="relu")
    assert abs(w.numpy().std() / math.sqrt(2 / 200) - 1) < 0.01
    with pytest.raises(ValueError, match="fan_in"):
        nn.init.kaiming_uniform_(tg.empty(2, 2), mode="fan")


def test_calculate_gain():
    assert nn.init.calculate_gain("linear") == 1.0
    assert nn.init.calculate_gain("sigmoid") == 1.0
    assert nn.init.calculate_gain("tanh") == 5 / 3
    assert nn.init.calculate_gain("relu") == math.sqrt(2)
    assert nn.init.calculate_gain("leaky_relu") == math.sqrt(2 / (1 + 0.01**2))
    assert nn.init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2 / 1.04)
    assert nn.init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="unsupported nonlinearity"):
        nn.init.calculate_gain("swish")


def test_trunc_normal_stays_in_bounds_with_the_truncated_variance():
    """N(0, 1) truncated to [-2, 2] has variance 1 - 2 * 2 phi(2) / (Phi(2) - Phi(-2))."""
    w = nn.init.trunc_normal_(
        tg.empty(40000, dtype=tg.float64), generator=tg.Generator().manual_seed(0)
    )
    values = w.numpy()
    assert values.min() >= -2 and values.max() <= 2
    phi2 = np.exp(-2.0) / np.sqrt(2 * np.pi)
    z = 0.9544997361036416  # Phi(2) - Phi(-2)
    assert abs(values.var() - (1 - 4 * phi2 / z)) < 0.02
    small = nn.init.trunc_normal_(tg.empty(1000), mean=1.0, std=0.02, a=0.98, b=1.01).numpy()
    assert small.min() >= 0.98 and small.max() <= 1.01


def test_orthogonal_gives_orthonormal_rows_or_columns_times_gain():
    wide = nn.init.orthogonal_(tg.empty(3, 5, dtype=tg.float64)).numpy()
    np.testing.assert_allclose(wide @ wide.T, np.eye(3), atol=1e-12)
    tall = nn.init.orthogonal_(tg.empty(6, 2, 2, dtype=tg.float64), gain=2.0).numpy().reshape(6, 4)
    np.testing.assert_allclose(tall.T @ tall, 4 * np.eye(4), atol=1e-12)
    with pytest.raises(ValueError, match="2 or more dimensions"):
        nn.init.orthogonal_(tg.empty(3))
    g1, g2 = tg.Generator().manual_seed(3), tg.Generator().manual_seed(3)
    a = nn.init.orthogonal_(tg.empty(4, 4), generator=g1).numpy()
    assert (a == nn.init.orthogonal_(tg.empty(4, 4), generator=g2).numpy()).all()
