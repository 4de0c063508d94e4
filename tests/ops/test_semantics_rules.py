"""PyTorch's rules, checked without PyTorch (its answers written out; the oracle leg compares
them live in tests/oracle/test_semantics_probe_more.py): bools where PyTorch has no kernel,
bitwise ops in the promoted dtype, fill_diagonal_(wrap=True), unique_consecutive(dim=),
atleast_Nd, as_strided, the empty joins, in-place changes through views."""

import numpy as np
import pytest

import tinygrad_norm as tg


@pytest.mark.parametrize(
    "call",
    [
        lambda b: b.floor(),
        lambda b: b.round(),
        lambda b: b.reshape(1, 2) @ b.reshape(2, 1),
        lambda b: b**b,
        lambda b: b.clamp(min=True),
        lambda b: b << b,
    ],
)
def test_bools_without_a_kernel_are_refused(call):
    with pytest.raises(NotImplementedError, match="bool"):
        call(tg.tensor([True, False]))


def test_bool_rules_that_compute():
    b = tg.tensor([True, False])
    assert (b**True).dtype == tg.bool and (b**True).tolist() == [True, False]
    assert (b**False).tolist() == [True, True]
    assert b.clamp(min=tg.tensor(False)).dtype == tg.bool
    with pytest.raises(RuntimeError, match="argmax"):
        b.argmax()


def test_bitwise_ops_promote_as_pytorch():
    u8 = tg.tensor([7, 200], dtype=tg.uint8)
    assert (u8 ^ tg.tensor(-2)).dtype == tg.uint8  # a 0-d int64 does not widen a uint8 tensor
    assert (u8 ^ -2).tolist() == [249, 54]
    assert (tg.tensor([1], dtype=tg.int8) << tg.tensor(3, dtype=tg.uint8)).dtype == tg.int8
    with pytest.raises(NotImplementedError, match="bitwise_and"):
        tg.tensor([1.0]) & 1


def test_fill_diagonal_wrap_restarts_after_a_blank_row():
    m = tg.zeros(7, 3).fill_diagonal_(5.0, wrap=True)
    expected = np.zeros((7, 3))
    expected.flat[:: 3 + 1] = 5.0  # NumPy's wrap: every (columns + 1)-th element
    np.testing.assert_array_equal(m.numpy(), expected)
    assert tg.zeros(7, 3).fill_diagonal_(5.0).numpy()[3:].sum() == 0  # no wrap: stops


def test_unique_consecutive_along_a_dim():
    x = tg.tensor([[1, 1, 2], [1, 1, 2], [3, 3, 3], [1, 1, 2]])
    values, inverse, counts = x.unique_consecutive(dim=0, return_inverse=True, return_counts=True)
    assert values.tolist() == [[1, 1, 2], [3, 3, 3], [1, 1, 2]]
    assert inverse.tolist() == [0, 0, 1, 2] and counts.tolist() == [2, 1, 1]
    values, inverse, counts = x.unique_consecutive(dim=1, return_inverse=True, return_counts=True)
    assert values.tolist() == [[1, 2], [1, 2], [3, 3], [1, 2]]
    assert inverse.tolist() == [0, 0, 1] and counts.tolist() == [2, 1]
    with pytest.raises(IndexError):
        tg.tensor(1).unique_consecutive(dim=0)


def test_atleast_and_empty_joins():
    assert tg.atleast_3d(tg.ones(3)).shape == (1, 3, 1)
    assert tg.atleast_3d(tg.ones(2, 3)).shape == (2, 3, 1)
    assert [t.shape for t in tg.atleast_2d(tg.tensor(1.0), tg.ones(3))] == [(1, 1), (1, 3)]
    x = tg.tensor(2.0)
    tg.atleast_1d(x).add_(1)  # a view
    assert x.item() == 3.0
    with pytest.raises(ValueError, match="non-empty"):
        tg.cat([])
    for join in (tg.stack, tg.hstack, tg.vstack):
        with pytest.raises(RuntimeError, match="non-empty"):
            join([])


def test_as_strided_is_a_view_with_pytorchs_gradient():
    w = tg.arange(6.0).requires_grad_()
    y = w * 1
    windows = y.as_strided((2, 3), (1, 1))  # rows [0, 1, 2] and [1, 2, 3]: overlapping
    assert windows.tolist() == [[0.0, 1.0, 2.0], [1.0, 2.0, 3.0]]
    (windows * tg.arange(6.0).reshape(2, 3)).sum().backward()
    assert w.grad.tolist() == [0.0, 4.0, 6.0, 5.0, 0.0, 0.0]
    with pytest.raises(RuntimeError, match="out of bounds"):
        tg.arange(6.0).as_strided((2, 3), (3, 2))


def test_in_place_through_views():
    pieces = (tg.ones(4, requires_grad=True) * 1).split(2)
    with pytest.raises(RuntimeError, match="split"):
        pieces[0].mul_(2)  # one of several views: PyTorch refuses
    y = tg.arange(6.0)
    with pytest.raises(RuntimeError, match="single memory location"):
        y[2:5].add_(y[0:3])  # partly overlapping memory
    y.add_(y)  # the same memory is fine
    assert y.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]


def test_out_of_range_ints_into_a_small_dtype_are_refused():
    with pytest.raises(RuntimeError, match="overflow"):
        tg.tensor([300], dtype=tg.uint8)
    assert tg.tensor([-1], dtype=tg.uint8).tolist() == [255]  # wraps, as PyTorch's


SAME_SHAPE_VIEWS = {  # call -> PyTorch 2.13 returns the tensor itself (True) or a new view
    "view": (lambda x: x.view(2, 3), False),
    "reshape": (lambda x: x.reshape(-1, 3), False),
    "view_as": (lambda x: x.view_as(x), False),
    "reshape_as": (lambda x: x.reshape_as(x), False),
    "squeeze nothing": (lambda x: x.squeeze(), False),
    "expand": (lambda x: x.expand(2, 3), False),
    "broadcast_to": (lambda x: x.broadcast_to((2, 3)), False),
    "unflatten": (lambda x: x.unflatten(1, (3,)), False),
    "flatten one axis": (lambda x: x.flatten(1, 1), True),
    "contiguous": (lambda x: x.contiguous(), True),
    "to its dtype": (lambda x: x.to(x.dtype), True),
}


@pytest.mark.parametrize("name", sorted(SAME_SHAPE_VIEWS))
def test_a_view_to_the_same_shape_is_a_new_tensor_as_pytorchs(name):
    """x.view(x.shape) is a new view with a grad_fn (retain_grad on it is its own), not x."""
    call, itself = SAME_SHAPE_VIEWS[name]
    x = tg.ones(2, 3, requires_grad=True)
    y = call(x)
    assert (y is x) == itself
    if not itself:
        assert y.grad_fn is not None and not y.is_leaf
        y.retain_grad()
        (y * 2).sum().backward()
        assert y.grad is not x.grad and x.grad.tolist() == [[2.0] * 3] * 2


@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(SAME_SHAPE_VIEWS))
def test_same_shape_views_table_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    call, itself = SAME_SHAPE_VIEWS[name]
    x = torch.ones(2, 3, requires_grad=True)
    assert (call(x) is x) == itself


@pytest.mark.parametrize("value", [None, "a", {1: 2}])
def test_assigning_a_non_number_is_a_type_error_as_pytorchs(value):
    """x[0] = None wrote NaN (NumPy's float(None)); PyTorch raises TypeError."""
    x = tg.zeros(3)
    with pytest.raises(TypeError, match="can't assign a"):
        x[0] = value
    assert x.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.oracle
@pytest.mark.parametrize("value", [None, "a", {1: 2}])
def test_pytorch_refuses_the_same_assignments(value):
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError):
        torch.zeros(3)[0] = value
