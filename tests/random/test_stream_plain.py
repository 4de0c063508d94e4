"""The random stream without PyTorch: numbers PyTorch 2.13 printed for the lecture's seed,
committed here, and the mt19937 words against NumPy's own MT19937 (the same bit generator)."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.gradcheck import gradcheck
from tinygrad_norm.random import transforms

SEED = 2147483647  # makemore's seed
# torch.Generator().manual_seed(SEED), then these calls in this order (torch 2.13, CPU)
RAND_4 = [0.7081288695335388, 0.3542391061782837, 0.10543233156204224, 0.5996444225311279]
RANDINT_6 = [53, 80, 84, 16, 47, 7]
RANDPERM_8 = [1, 5, 4, 6, 7, 3, 0, 2]
RANDN64_3 = [0.9903892880923645, -0.6681835677221757, -1.0200426495909922]
RANDN_17 = [
    -0.7814186215400696, -0.7158754467964172, -1.0548527240753174, 0.8371972441673279,
    -0.4971446692943573, -0.9397953748703003, 0.13428707420825958, 0.054010938853025436,
    -1.7400306463241577, 1.0736411809921265, 0.2222435027360916, 1.065638542175293,
    -0.01154217217117548, 0.48346081376075745, -0.3164006769657135, 0.38011646270751953,
    0.4732840359210968,
]  # fmt: skip
RAND64_2 = [0.16082906886380344, 0.3114413219105555]
MULTINOMIAL_5 = [1, 0, 3, 2, 2]
MULTINOMIAL_1 = [1]


def test_the_lecture_seed_gives_pytorchs_numbers():
    g = tg.Generator().manual_seed(SEED)
    assert tg.rand(4, generator=g).tolist() == pytest.approx(RAND_4, abs=0)
    assert tg.randint(0, 100, (6,), generator=g).tolist() == RANDINT_6
    assert tg.randperm(8, generator=g).tolist() == RANDPERM_8
    np.testing.assert_allclose(
        tg.randn(3, generator=g, dtype=tg.float64).numpy(), RANDN64_3, rtol=1e-14
    )
    np.testing.assert_allclose(tg.randn(17, generator=g).numpy(), RANDN_17, rtol=1e-6, atol=1e-6)
    assert tg.rand(2, generator=g, dtype=tg.float64).tolist() == RAND64_2
    p = tg.tensor([0.1, 0.2, 0.3, 0.4])
    assert tg.multinomial(p, 5, replacement=True, generator=g).tolist() == MULTINOMIAL_5
    assert tg.multinomial(p, 1, generator=g).tolist() == MULTINOMIAL_1


def test_the_words_are_mt19937_seeded_with_init_genrand():
    """state[0] = seed, state[j] = 1812433253 * (state[j-1] ^ (state[j-1] >> 30)) + j."""
    key = [SEED & 0xFFFFFFFF]
    for j in range(1, 624):
        key.append((1812433253 * (key[-1] ^ (key[-1] >> 30)) + j) & 0xFFFFFFFF)
    bits = np.random.MT19937()
    bits.state = {
        "bit_generator": "MT19937",
        "state": {"key": np.array(key, np.uint32), "pos": 624},
    }
    g = tg.Generator().manual_seed(SEED)
    np.testing.assert_array_equal(g.words(1000), bits.random_raw(1000))


def test_float_uniforms_are_the_low_24_bits_of_a_word():
    g, h = tg.Generator().manual_seed(5), tg.Generator().manual_seed(5)
    words = h.words(3000)
    expected = (words & 0xFFFFFF).astype(np.float64) / 2**24
    np.testing.assert_array_equal(tg.rand(3000, generator=g).numpy(), expected.astype(np.float32))


def test_double_uniforms_take_53_bits_of_two_words_high_first():
    g, h = tg.Generator().manual_seed(6), tg.Generator().manual_seed(6)
    w = h.words(200).astype(np.uint64).reshape(-1, 2)
    expected = (((w[:, 0] << np.uint64(32)) | w[:, 1]) & np.uint64(2**53 - 1)) / 2.0**53
    np.testing.assert_array_equal(tg.rand(100, generator=g, dtype=tg.float64).numpy(), expected)


def test_randint_is_a_word_modulo_the_range():
    g, h = tg.Generator().manual_seed(7), tg.Generator().manual_seed(7)
    expected = h.words(500).astype(np.int64) % 13 - 4
    np.testing.assert_array_equal(tg.randint(-4, 9, (500,), generator=g).numpy(), expected)


def test_randperm_is_fisher_yates_from_the_front():
    g, h = tg.Generator().manual_seed(8), tg.Generator().manual_seed(8)
    order = list(range(10))
    for i, w in enumerate(h.words(9)):
        j = i + int(w) % (10 - i)
        order[i], order[j] = order[j], order[i]
    assert tg.randperm(10, generator=g).tolist() == order


@pytest.mark.parametrize("n", [16, 32, 37, 100])
def test_normals_from_16_on_are_box_muller_blocks_of_16(n):
    g, h = tg.Generator().manual_seed(9), tg.Generator().manual_seed(9)
    u = (h.words(n + (16 if n % 16 else 0)) & 0xFFFFFF) / 2**24

    def block(v):
        r, theta = np.sqrt(-2 * np.log(1 - v[:8])), 2 * np.pi * v[8:]
        return np.concatenate([r * np.cos(theta), r * np.sin(theta)])

    expected = np.concatenate([block(u[i : i + 16]) for i in range(0, n - n % 16, 16)] + [[]])
    if n % 16:
        expected = np.concatenate([expected[: n - 16], block(u[n:])])
    np.testing.assert_allclose(tg.randn(n, generator=g).numpy(), expected, rtol=1e-5, atol=1e-5)


def test_single_normals_keep_the_second_of_each_pair():
    g = tg.Generator().manual_seed(10)
    pair = tg.randn(2, generator=g, dtype=tg.float64).numpy()
    g.manual_seed(10)
    first = tg.randn(1, generator=g, dtype=tg.float64).numpy()
    assert g.next_double_normal == pair[1]  # cached, as PyTorch's generator does
    second = tg.randn(1, generator=g, dtype=tg.float64).numpy()
    assert g.next_double_normal is None
    np.testing.assert_array_equal(np.concatenate([first, second]), pair)


def test_state_round_trip_keeps_the_cached_normal_and_the_position():
    g = tg.Generator().manual_seed(11)
    tg.randn(1, generator=g)
    tg.rand(700, generator=g)  # past a re-twist
    state = g.get_state()
    assert state.dtype == tg.uint8 and state.shape == (5056,)
    a = tg.randn(5, generator=g).numpy()
    b = tg.randn(5, generator=g.set_state(state)).numpy()
    np.testing.assert_array_equal(a, b)


def test_fresh_processes_differ_and_generator_starts_from_pytorchs_default_seed():
    assert tg.Generator().initial_seed() == 67280421310721
    assert tg.Generator().seed() != tg.Generator().seed()


def test_set_state_refuses_other_bytes():
    with pytest.raises(RuntimeError, match="5056 bytes"):
        tg.Generator().set_state(tg.zeros(10, dtype=tg.uint8))
    with pytest.raises(RuntimeError, match="invalid mt19937 state"):
        tg.Generator().set_state(tg.zeros(5056, dtype=tg.uint8))


def test_uniform_never_returns_its_upper_bound():
    g = tg.Generator().manual_seed(12)
    values = transforms.uniform(g, (100000,), np.float32, 1.0, 1.0 + 2**-20)
    assert values.max() < np.float32(1.0 + 2**-20)


def test_gradcheck_replays_the_draws_of_random_ops():
    """Finite differences re-run fn from the same generator state (SPEC §5), cached
    Box-Muller sample included; an fn that drew fresh numbers each call would fail."""
    x = tg.randn(4, 5, dtype=tg.float64, requires_grad=True)
    tg.randn(1, dtype=tg.float64)  # leaves a cached normal for the first draw in fn

    def noisy(x):
        return tg.nn.functional.dropout(x, 0.3).tanh() * tg.randn(1, dtype=tg.float64) + tg.rand(
            4, 5
        )

    assert gradcheck(noisy, (x,))
