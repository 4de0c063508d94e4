"""topk, kthvalue and median by partition or by repeated argmax (ops/sort.py
`first_in_order`, `kth_in_order`) give exactly the positions of the full stable sort: ties
taken first by index, infinities, integers, every k and axis."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.ops.sort import argsort_array, first_in_order, kth_in_order


def _arrays(seed):
    rng = np.random.default_rng(seed)
    for t in range(150):
        shape = tuple(rng.integers(1, 12, rng.integers(1, 4)))
        kind = t % 4
        if kind == 0:
            a = rng.standard_normal(shape)
        elif kind == 1:
            a = rng.integers(0, 4, shape).astype(np.float32)  # many ties
        elif kind == 2:
            a = rng.integers(-(2**62), 2**62, shape)
            a.flat[0] = a.flat[-1] = 2**62 + 1  # ties that float64 would merge with others
        else:
            a = rng.integers(0, 5, shape).astype(np.float64)
            a[a > 3] = np.inf
            a[a < 1] = -np.inf
        yield a, int(rng.integers(0, a.ndim))


@pytest.mark.parametrize("seed", [0, 1])
def test_selection_equals_the_stable_sort(seed):
    for a, axis in _arrays(seed):
        n = a.shape[axis]
        for k in range(1, n + 1):
            for descending in (False, True):
                fast = first_in_order(a, axis, k, descending)
                full = np.take(argsort_array(a, axis, descending), np.arange(k), axis=axis)
                assert fast is None or np.array_equal(fast, full)
            kth = np.take(argsort_array(a, axis, False), k - 1, axis=axis)
            assert np.array_equal(kth_in_order(a, axis, k), kth)


def test_nan_falls_back_to_the_sort():
    a = np.array([[1.0, np.nan, 3.0, 0.0, 2.0, 5.0]])
    assert first_in_order(a, 1, 2, True) is None and kth_in_order(a, 1, 2) is None
    values, indices = tg.tensor(a).topk(2)
    assert np.isnan(values.numpy()[0, 0]) and indices.tolist() == [[1, 5]]


def test_topk_median_kthvalue_gradients_reach_the_chosen_elements():
    x = tg.tensor([[3.0, 1.0, 3.0, 2.0, 0.0, 3.0, -1.0, 0.5]], requires_grad=True)
    values, indices = x.topk(2)
    assert indices.tolist() == [[0, 2]]
    (values.sum() + x.kthvalue(2).values.sum() + x.median(dim=1).values.sum()).backward()
    assert x.grad.tolist() == [[1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0]]  # median: 1.0 at 1
