"""The batched float32 fills against the single-word formulas, on the same words: uniforms made
from 64-bit draws (two words each, in chunks) are the low 24 bits of each word, and normals
made chunk by chunk are one Box-Muller pass over those uniforms."""

import numpy as np
import pytest

from tinygrad_norm.random import transforms
from tinygrad_norm.random.generator import Generator

TO_UNIT = np.float32(2.0**-24)


def pair(seed):
    return Generator().manual_seed(seed), Generator().manual_seed(seed)


def position(gen):
    return gen.bits.state["state"]["pos"], gen.bits.state["state"]["key"].tolist()


@pytest.mark.parametrize("n", [16, 48, 2**16, 2**16 + 48])
@pytest.mark.parametrize(("mean", "std"), [(0.0, 1.0), (1.5, 0.02)])
def test_float32_normals_in_chunks_are_one_box_muller_on_the_words(n, mean, std):
    fast, slow = pair(n)
    ours = transforms.normal(fast, (n,), np.float32, mean, std)
    uniforms = (slow.words(n) & 0xFFFFFF).astype(np.float32) * TO_UNIT
    expected = np.empty(n, np.float32)
    transforms._box_muller16(uniforms, expected, mean, std)
    np.testing.assert_array_equal(ours, expected)
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
