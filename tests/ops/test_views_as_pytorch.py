"""Views and copies as PyTorch's: a view writes through both ways, a copy never does; in-place
changes of views inside a graph give PyTorch's gradients."""

import numpy as np
import pytest

import tinygrad_norm as tg


def _writes_through(make):
    x = tg.arange(12.0).reshape(3, 4)
    out = make(x)
    before = x.numpy().copy()
    out.view(-1)[0:1].fill_(-7) if out.is_contiguous() else out.fill_(-7)
    return not np.array_equal(x.numpy(), before)


@pytest.mark.parametrize(
    "make",
    [lambda x: x.flip(0), lambda x: tg.fliplr(x), lambda x: tg.rot90(x), lambda x: x.repeat(1, 1)],
    ids=["flip", "fliplr", "rot90", "repeat_ones"],
)
def test_copies_never_write_back(make):
    assert not _writes_through(make)


def test_repeat_over_a_size_one_dim_is_writable_and_its_own():
    a = tg.ones(1, 3)
    r = a.repeat(4, 1)
    r[0, 0] = 5.0
    assert a.tolist() == [[1.0, 1.0, 1.0]] and r[1, 0].item() == 1.0


def test_diagonal_is_a_view():
    m = tg.zeros(3, 3)
    m.diagonal().fill_(1)
    assert m.tolist() == np.eye(3).tolist()
    m.diagonal(1)[0] = 5.0
    assert m[0, 1].item() == 5.0


def test_unfold_is_a_view():
    x = tg.arange(6.0)
    x.unfold(0, 2, 2)[1, 0] = 9.0
    assert x.tolist() == [0.0, 1.0, 9.0, 3.0, 4.0, 5.0]


def test_diagonal_mul_in_a_graph_gives_pytorchs_gradient():
    x = tg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    y.diagonal().mul_(3)
    (y * tg.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert x.grad.tolist() == [[3.0, 2.0], [3.0, 12.0]]


def test_in_place_on_a_transposed_view_in_a_graph():
    x = tg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 2
    y.t()[0].add_(x[1])
    (y * y).sum().backward()
    assert x.grad.tolist() == [[20.0, 16.0], [50.0, 52.0]]


def test_in_place_on_an_expanded_view_is_refused():
    y = tg.tensor([1.0, 2.0], requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="single memory location"):
        y[None].expand(2, 2).mul_(2)


def test_is_contiguous_follows_the_strides():
    x = tg.arange(6.0).reshape(2, 3)
    assert x.is_contiguous() and x[:1].is_contiguous()
    assert not x.t().is_contiguous() and not x[:, ::2].is_contiguous()
    assert x.t().contiguous().is_contiguous()


@pytest.mark.parametrize("step", [-1, -2, 0])
def test_a_slice_step_below_one_is_a_value_error(step):
    with pytest.raises(ValueError, match="step"):
        tg.arange(4.0)[::step]


def test_uint8_index_tensor_is_a_mask():
    x = tg.tensor([10.0, 20.0, 30.0])
    assert x[tg.tensor([1, 0, 1], dtype=tg.uint8)].tolist() == [10.0, 30.0]


@pytest.mark.oracle
def test_view_cases_match_pytorch():
    torch = pytest.importorskip("torch")
    for lib in (tg, torch):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x * 1
        y.diagonal().mul_(3)
        (y * lib.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
        assert x.grad.tolist() == [[3.0, 2.0], [3.0, 12.0]]
        m = lib.zeros(3, 3)
        m.diagonal().fill_(1)
        assert m.tolist() == np.eye(3).tolist()
        f = lib.arange(4.0)
        lib.flip(f, [0])[0] = 9
        assert f.tolist() == [0.0, 1.0, 2.0, 3.0]
        with pytest.raises(ValueError):
            f[::-1]
        assert lib.tensor([10.0, 20.0])[lib.tensor([1, 0], dtype=lib.uint8)].tolist() == [10.0]
