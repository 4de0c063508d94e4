"""erfinv on NumPy arrays (`ops/erfinv_numpy.py`): float64 inverts erf to double precision,
float32 (one Newton step) is the float64 erfinv rounded, and erfc's backward array path
agrees with its recorded (create_graph) formula."""

import math

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.ops.erf_numpy import BLOCK, erf, erfc
from tinygrad_norm.ops.erfinv_numpy import erfinv


def test_float64_erf_of_erfinv_is_y():
    y = np.random.default_rng(0).uniform(-0.5, 0.5, 100_000)
    x = erfinv(y)
    assert np.max(np.abs(erf(x) - y) / np.abs(y)) < 1e-15


def test_float64_tail_erfc_of_erfinv_is_one_minus_y():
    q = 10.0 ** np.random.default_rng(1).uniform(-16, np.log10(0.5), 100_000)
    x = erfinv(1.0 - q)  # 1 - q rounds; compare with the q it rounded to
    exact_q = 1.0 - (1.0 - q)
    assert np.max(np.abs(erfc(x) - exact_q) / exact_q) < 1e-14


def test_float32_is_the_float64_erfinv_rounded():
    rng = np.random.default_rng(2)
    top = np.arange(np.float32(0.5).view(np.int32), np.float32(1).view(np.int32), 97)
    y = np.concatenate([rng.uniform(-0.5, 0.5, 200_000).astype(np.float32), top.view(np.float32)])
    assert erfinv(y).dtype == np.float32
    assert np.array_equal(erfinv(y), erfinv(y.astype(np.float64)).astype(np.float32))


def test_special_values_and_blocks():
    y = np.array([0.0, -0.0, 1.0, -1.0, 1.5, -2.0, np.nan])
    got = erfinv(y)
    assert got[:4].tolist() == [0.0, 0.0, math.inf, -math.inf]
    assert np.signbit(got[1])
    assert np.isnan(got[4:]).all()
    long = np.random.default_rng(3).uniform(-1.2, 1.2, 2 * BLOCK + 5)
    pieces = np.concatenate([erfinv(long[i : i + 100]) for i in range(0, long.size, 100)])
    np.testing.assert_array_equal(erfinv(long), pieces)


@pytest.mark.parametrize("name", ["erfc", "erfinv"])
def test_backward_array_path_equals_the_recorded_formula(name):
    values = np.random.default_rng(4).uniform(-0.99, 0.99, (3, 5))
    x = tg.tensor(values, dtype=tg.float64, requires_grad=True)
    g = tg.tensor(np.random.default_rng(5).standard_normal((3, 5)))
    (plain,) = tg.autograd.grad(getattr(x, name)(), x, g)
    (recorded,) = tg.autograd.grad(getattr(x, name)(), x, g, create_graph=True)
    np.testing.assert_allclose(plain.numpy(), recorded.detach().numpy(), rtol=1e-15)


@pytest.mark.oracle
def test_float64_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(6)
    y = np.concatenate([rng.uniform(-1, 1, 50_000), 1 - 10 ** rng.uniform(-16, 0, 50_000)])
    want = torch.erfinv(torch.tensor(y)).numpy()
    assert np.max(np.abs(erfinv(y) - want) / np.abs(want)) < 1e-15
