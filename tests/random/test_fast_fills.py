"""The fast float32 fills against their composed references, on the same words: the Box-Muller
rows made straight from 64-bit draws (`_normal_rows_float32`) give exactly the numbers of
`_box_muller16` on uniforms made word by word, and the batched uniforms and 64-bit draws are
the single-word formulas."""

import numpy as np
import pytest

from tinygrad_norm.random import transforms
from tinygrad_norm.random.generator import Generator

TO_UNIT = np.float32(2.0**-24)


def pair(seed):
    return Generator().manual_seed(seed), Generator().manual_seed(seed)


def position(gen):
    return gen.bits.state["state"]["pos"], gen.bits.state["state"]["key"].tolist()


@pytest.mark.parametrize("rows", [1, 2, 3, 39, 4096, 4097, 9000])
@pytest.mark.parametrize(("mean", "std"), [(0.0, 1.0), (1.5, 0.02)])
def test_normal_rows_equal_the_composed_box_muller(rows, mean, std):
    fast, slow = pair(rows)
    ours = np.empty((rows, 16), np.float32)
    transforms._normal_rows_float32(fast, ours, mean, std)
    uniforms = (slow.words(16 * rows) & 0xFFFFFF).astype(np.float32) * TO_UNIT
    expected = np.empty(16 * rows, np.float32)
    transforms._box_muller16(uniforms, expected, mean, std)
    np.testing.assert_array_equal(ours.reshape(-1), expected)
    assert position(fast) == position(slow)


@pytest.mark.parametrize("n", [1, 2, 1023, 1024, 1025, 2**16 + 1, 70001])
def test_float32_uniforms_are_the_low_24_bits_in_any_batch(n):
    fast, slow = pair(n)
    expected = (slow.words(n) & 0xFFFFFF).astype(np.float32) * TO_UNIT
    np.testing.assert_array_equal(transforms.unit_uniform(fast, n), expected)
    assert position(fast) == position(slow)


@pytest.mark.parametrize("n", [0, 1, 511, 512, 3001])
def test_64_bit_draws_are_two_words_hi_first(n):
    fast, slow = pair(n)
    words = slow.words(2 * n).astype(np.uint64).reshape(-1, 2)
    expected = (words[:, 0] << np.uint64(32)) | words[:, 1]
    np.testing.assert_array_equal(fast.words64(n), expected)
    assert position(fast) == position(slow)


@pytest.mark.parametrize("n", [1, 2, 5, 1000])
def test_low24_of_64_bit_draws_keep_the_word_order(n):
    fast, slow = pair(n)
    words = transforms.low24_in_word_order(fast.words64(n))
    np.testing.assert_array_equal(words, slow.words(2 * n) & 0xFFFFFF)
