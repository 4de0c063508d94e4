"""The fast array paths of indexing's and cumsum's backward against their references:
`xp.add_at` (bincount of positions) against np.add.at, for every kind of index with repeated
places, and the gradient of x[index] and of cumsum through the fast paths against the
recorded (create_graph) paths, float64 and float32."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.ops.scan import running_sum, running_sum_reference
from tinygrad_norm.ops.xp import add_at, add_at_reference

RNG = np.random.default_rng(0)
INDEXES = [
    ((5, 3), (np.array([0, 2, 0, 0, -1]),)),
    ((5, 3), (np.array([[1, 1], [4, 0]]), slice(None))),
    ((4, 6), (slice(None), np.array([5, 5, 0]))),
    ((4, 6), (np.array([0, 0, 3]), np.array([2, 2, -6]))),
    ((2, 3, 4), (Ellipsis, np.array([3, 3, 1]))),
    ((2, 3, 4), (1, np.array([0, 0, 2]), slice(1, 3))),
    ((3, 4), (RNG.random((3, 4)) > 0.5,)),
    ((3, 4), (None, np.array([2, 2]), slice(None, None, 2))),
    ((7,), (np.array([], dtype=np.int64),)),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape, index", INDEXES)
def test_add_at_equals_np_add_at(shape, index, dtype):
    picked = np.zeros(shape)[index].shape
    values = RNG.standard_normal(picked).astype(dtype)
    fast, ref = add_at(values, index, shape), add_at_reference(values, index, shape)
    assert fast.dtype == ref.dtype == dtype and fast.shape == ref.shape
    rtol = 1e-15 if dtype == np.float64 else 1e-6
    np.testing.assert_allclose(fast, ref, rtol=rtol, atol=1e-6 if dtype == np.float32 else 0)


def test_add_at_keeps_np_add_at_for_a_large_target_and_for_integers():
    index = (np.array([3, 3]),)
    big = add_at(np.ones((2, 4)), index, (100_000, 4))
    assert big[3].tolist() == [2.0] * 4 and big.sum() == 8
    assert add_at(np.array([1, 2]), index, (5,)).tolist() == [0, 0, 0, 3, 0]
    assert add_at(np.array([1 + 1j, 2]), index, (5,))[3] == 3 + 1j


@pytest.mark.parametrize("shape, index", INDEXES)
def test_indexing_gradient_fast_and_recorded_paths_agree(shape, index):
    x = tg.tensor(RNG.standard_normal(shape), requires_grad=True)
    out = x[index]
    w = tg.tensor(RNG.standard_normal(out.shape))
    (recorded,) = tg.autograd.grad((out * w).sum(), [x], create_graph=True)
    (x[index] * w).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), recorded.detach().numpy(), rtol=1e-15)
    np.testing.assert_allclose(x.grad.numpy(), add_at_reference(w.numpy(), index, shape))


@pytest.mark.parametrize("shape, dim", [((7,), 0), ((3, 5), 1), ((3, 5), 0), ((2, 3, 4), -2)])
def test_cumsum_gradient_fast_and_recorded_paths_agree(shape, dim):
    x = tg.tensor(RNG.standard_normal(shape), requires_grad=True)
    w = tg.tensor(RNG.standard_normal(shape))
    (recorded,) = tg.autograd.grad((x.cumsum(dim) * w).sum(), [x], create_graph=True)
    (x.cumsum(dim) * w).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), recorded.detach().numpy(), rtol=1e-14)
    reversed_sums = np.flip(np.cumsum(np.flip(w.numpy(), dim), dim), dim)
    np.testing.assert_allclose(x.grad.numpy(), reversed_sums, rtol=1e-14)


@pytest.mark.parametrize(
    "shape, axis", [((6, 300), 0), ((4, 9, 70), 1), ((3, 5, 80), 0), ((2, 300), 1)]
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.bool_])
def test_running_sum_is_nps_cumsum_bit_for_bit(shape, axis, dtype):
    a = (RNG.standard_normal(shape) * 100).astype(dtype)
    out_dtype = np.int64 if dtype in (np.int32, np.bool_) else None
    for array in (a, np.flip(a, axis), a.swapaxes(0, -1).copy().swapaxes(0, -1)):
        fast = running_sum(array, axis, out_dtype)
        ref = running_sum_reference(array, axis, out_dtype)
        assert fast.dtype == ref.dtype and fast.shape == ref.shape
        np.testing.assert_array_equal(fast, ref)
        into = np.empty(ref.shape, ref.dtype)
        assert running_sum(array, axis, out_dtype, out=np.flip(into, axis)).base is into
        np.testing.assert_array_equal(np.flip(into, axis), ref)


def test_cumsum_of_a_large_tensor_takes_the_loop_and_its_gradient_is_the_reversed_sum():
    a = RNG.standard_normal((8, 4, 100)).astype(np.float32)
    x = tg.tensor(a, requires_grad=True)
    w = RNG.standard_normal(a.shape).astype(np.float32)
    out = x.cumsum(0)
    out.backward(tg.tensor(w))
    np.testing.assert_array_equal(out.detach().numpy(), np.cumsum(a, 0))
    np.testing.assert_array_equal(x.grad.numpy(), np.flip(np.cumsum(np.flip(w, 0), 0), 0))
