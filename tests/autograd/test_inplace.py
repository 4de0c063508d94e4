"""In place: the parameter-update idioms of micrograd and PyTorch, and NumPy meeting a Tensor."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm import nn


def trained_linear():
    tg.manual_seed(0)
    lin = nn.Linear(2, 3)
    lin(tg.ones(3, 2)).sum().backward()
    return lin


def test_data_is_a_detached_tensor_sharing_memory_as_in_pytorch():
    lin = trained_linear()
    array, before = lin.weight.numpy(), lin.weight.numpy().copy()
    for p in lin.parameters():
        p.data += -0.1 * p.grad  # micrograd's and PyTorch's update idiom
    assert lin.weight.numpy() is array  # changed in place: the same memory
    np.testing.assert_allclose(array, before - 0.1 * lin.weight.grad.numpy(), rtol=1e-6)
    data = lin.weight.data
    assert isinstance(data, tg.Tensor) and not data.requires_grad and data.grad_fn is None
    assert np.shares_memory(data.numpy(), array)
    # PyTorch's meaning of p.data.std(): the unbiased standard deviation of a Tensor
    np.testing.assert_allclose(float(data.std()), np.std(array, ddof=1), rtol=1e-6)
    lin.weight.data.normal_(0, 0.02)  # initialisation through .data, as courses write it
    assert lin.weight.numpy() is array and abs(float(array.std()) - 0.02) < 0.015
    assert lin(tg.ones(1, 2)).shape == (1, 3)  # the model still works


def test_writes_through_data_are_not_tracked_as_in_pytorch():
    x = tg.ones(3, requires_grad=True)
    w = tg.ones(3)
    y = x * w
    w.data.mul_(2)  # PyTorch does not notice this either: .data has its own version counter
    assert w._version == 0
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_assigning_data_replaces_the_values():
    p = tg.nn.Parameter(tg.zeros(2))
    p.data = tg.tensor([1.0, 2.0])
    assert p.tolist() == [1.0, 2.0] and p.requires_grad


def test_minus_equals_under_no_grad_updates_the_parameter():
    lin = trained_linear()
    weight, before = lin.weight, lin.weight.numpy().copy()
    with tg.no_grad():
        for p in lin.parameters():
            p -= 0.1 * p.grad
    assert lin.weight is weight
    np.testing.assert_allclose(weight.numpy(), before - 0.1 * weight.grad.numpy(), rtol=1e-6)


def test_in_place_on_a_leaf_that_requires_grad_while_recording_is_an_error():
    w = tg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="no_grad"):
        w += 1
    np.testing.assert_array_equal(w.numpy(), np.ones(3))


def test_other_tensors_change_in_place_as_in_pytorch():
    x = tg.ones(2)
    w = tg.ones(2, requires_grad=True)
    y = w * 2  # a non-leaf
    alias_x, alias_y = x, y
    x += 1
    y *= 3
    assert x is alias_x and x.tolist() == [2.0, 2.0] and x._version == 1
    assert y is alias_y and y.tolist() == [6.0, 6.0] and repr(y.grad_fn) == "<MulBackward>"
    y.sum().backward()
    assert w.grad.tolist() == [6.0, 6.0]


def test_numpy_array_with_a_tensor_is_the_differentiable_tensor_op():
    t = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = np.array([2.0, 2.0, 2.0]) * t
    assert isinstance(y, tg.Tensor) and y.grad_fn is not None
    y.sum().backward()
    assert t.grad.tolist() == [2.0, 2.0, 2.0]
    assert (np.ones(3) < t).tolist() == [False, True, True]
    np.testing.assert_allclose(np.exp(t), np.exp([1.0, 2.0, 3.0]), rtol=1e-6)


def test_tensor_of_sizes_is_a_clear_error():
    with pytest.raises(TypeError, match=r"tg.zeros\(2, 3\)"):
        tg.Tensor(2, 3)
