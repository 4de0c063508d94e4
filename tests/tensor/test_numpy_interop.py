"""NumPy meeting a Tensor. Memory: np.asarray, from_numpy and DLPack share it. Ufuncs on Tensors
follow one rule (tensor_methods/numpy_interop.py): the Tensor operation when there is one, a
TypeError instead of an array cut from the graph, else a Tensor."""

import numpy as np
import pytest

import tinygrad_norm as tg


def leaf(values):
    return tg.tensor(values, dtype=tg.float64, requires_grad=True)


@pytest.mark.parametrize(
    "ufunc, method, grad",
    [
        (np.maximum, lambda x: x.maximum(tg.tensor(0.0, dtype=tg.float64)), [1.0, 0.0, 1.0]),
        (np.exp, lambda x: x.exp(), None),
        (np.tanh, lambda x: x.tanh(), None),
        (np.negative, lambda x: -x, [-1.0, -1.0, -1.0]),
        (np.absolute, lambda x: abs(x), [1.0, -1.0, 1.0]),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_a_ufunc_tinygrad_norm_has_is_recorded_like_the_method(ufunc, method, grad):
    x = leaf([1.0, -2.0, 3.0])
    y = ufunc(x, 0.0) if ufunc is np.maximum else ufunc(x)
    assert isinstance(y, tg.Tensor) and y.grad_fn is not None
    y.sum().backward()
    expected = leaf([1.0, -2.0, 3.0])
    method(expected).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), expected.grad.numpy())
    if grad is not None:
        assert x.grad.tolist() == grad


def test_binary_ufuncs_with_an_array_on_the_left_are_the_tensor_op():
    x = leaf([1.0, 2.0])
    y = np.multiply(np.array([3.0, 4.0]), x)
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 4.0]


def test_a_ufunc_without_a_tensor_op_refuses_a_tensor_that_requires_grad():
    x = leaf([1.0, 8.0])
    with pytest.raises(TypeError, match=r"np.cbrt .* cut from the graph; tinygrad_norm has no"):
        np.cbrt(x)
    with pytest.raises(TypeError, match=r"np.add.reduce on a tensor that requires grad"):
        np.add.reduce(x)


def test_without_grad_numpy_computes_and_a_tensor_comes_back():
    x = tg.tensor([1.0, 8.0], dtype=tg.float64)
    y = np.cbrt(x)
    assert isinstance(y, tg.Tensor) and y.tolist() == [1.0, 2.0]
    with tg.no_grad():
        z = np.cbrt(leaf([27.0]))
    assert isinstance(z, tg.Tensor) and not z.requires_grad
    assert z.tolist() == pytest.approx([3.0], rel=1e-15)  # NumPy's cbrt may round the last bit
    assert float(np.add.reduce(x)) == 9.0


def test_out_writes_into_arrays_in_place():
    a = np.array([1.0, 2.0])
    np.multiply(a, tg.tensor([2.0, 3.0], dtype=tg.float64), out=a)
    assert a.tolist() == [2.0, 6.0]
    p = leaf([1.0, 1.0])
    with pytest.raises(RuntimeError, match="out=.*requires grad"):
        np.multiply(p, 0.0, out=p)
    with tg.no_grad():
        np.multiply(p, 0.0, out=p)
    assert p.tolist() == [0.0, 0.0]


# --- shared memory --------------------------------------------------------------------------------
def test_np_asarray_shares_memory():
    t = tg.tensor([1.0, 2.0])
    a = np.asarray(t)
    assert np.shares_memory(a, t.numpy())
    a[0] = 9.0
    assert t.tolist() == [9.0, 2.0]
    assert np.asarray(t, dtype=np.float64).dtype == np.float64


def test_from_numpy_shares_memory_both_ways():
    a = np.array([1.0, 2.0, 3.0])
    t = tg.from_numpy(a)
    assert t.dtype == tg.float64
    a[0] = 10.0
    assert t.tolist()[0] == 10.0
    t.numpy()[1] = 20.0
    assert a[1] == 20.0
    with pytest.raises(TypeError):
        tg.from_numpy([1.0, 2.0])


@pytest.mark.oracle
def test_dlpack_lets_torch_see_the_same_memory():
    torch = pytest.importorskip("torch")
    t = tg.tensor([1.0, 2.0, 3.0])
    seen = torch.from_dlpack(t)
    assert seen.dtype == torch.float32 and seen.shape == (3,)
    np.asarray(t)[1] = 42.0  # write through NumPy ...
    assert seen[1].item() == 42.0  # ... and torch sees it
    seen[2] = -1.0
    assert t.tolist() == [1.0, 42.0, -1.0]


# --- ufuncs ---------------------------------------------------------------------------------------
def test_numpy_array_with_a_tensor_is_the_differentiable_tensor_op():
    t = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = np.array([2.0, 2.0, 2.0]) * t
    assert isinstance(y, tg.Tensor) and y.grad_fn is not None
    y.sum().backward()
    assert t.grad.tolist() == [2.0, 2.0, 2.0]
    assert (np.ones(3) < t).tolist() == [False, True, True]
    np.testing.assert_allclose(np.exp(t), np.exp([1.0, 2.0, 3.0]), rtol=1e-6)
