"""Every operation of SPEC §1, from the shared case table: forward against a plain-NumPy formula,
first and second derivatives against finite differences (float64)."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.testing.op_cases import CASES


def as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def tensors(case, requires_grad=True):
    return tuple(tg.tensor(a, requires_grad=requires_grad) for a in case.inputs())


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_forward_matches_numpy_formula(case):
    ours = as_tuple(case.fn(tg, *tensors(case, requires_grad=False)))
    expected = as_tuple(case.ref(*case.inputs()))
    assert len(ours) == len(expected)
    for out, ref in zip(ours, expected):
        assert out.dtype == tg.float64
        assert out.shape == np.shape(ref)
        np.testing.assert_allclose(out.data, ref, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_gradcheck(case):
    assert tg.gradcheck(lambda *xs: case.fn(tg, *xs), tensors(case))


@pytest.mark.parametrize("case", [c for c in CASES if c.second_order], ids=lambda c: c.name)
def test_gradgradcheck(case):
    assert tg.gradgradcheck(lambda *xs: case.fn(tg, *xs), tensors(case))


def test_every_case_has_a_unique_name():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names))


def test_repeated_indices_add_up():
    x = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[[0, 2, 0, 0]].sum().backward()
    assert x.grad.tolist() == [3.0, 0.0, 1.0]
