"""Indexing, shape ops, F.pad / one_hot / normalize, products, einsum and tg.linalg: the maths
stated with small hand-checked numbers, the edge cases (0-d, empty, negative dims), the
errors PyTorch raises, and a coverage list of every indexing, shape and product name.
The op table (testing/op_cases_shape.py) adds gradcheck, gradgradcheck and NumPy formulas."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.nn import functional as F

# --- coverage -----------------------------------------------------------------------------------
FUNCTIONS = (
    "gather scatter scatter_add scatter_reduce index_select index_add masked_select "
    "masked_scatter take take_along_dim nonzero argwhere where flip fliplr flipud roll rot90 "
    "repeat_interleave unflatten narrow movedim moveaxis diag diagonal diag_embed tril_indices "
    "triu_indices meshgrid broadcast_to broadcast_tensors trace einsum bmm mm mv dot inner outer "
    "tensordot kron baddbmm addmm addmv"
).split()
METHODS = (
    "gather scatter scatter_add scatter_reduce index_select index_add masked_select "
    "masked_scatter take take_along_dim nonzero argwhere where index_put flip fliplr flipud roll "
    "rot90 repeat_interleave unfold unflatten narrow movedim moveaxis diag diagonal diag_embed "
    "trace broadcast_to expand_as view_as reshape_as bmm mm mv dot inner outer kron baddbmm "
    "addmm addmv scatter_ scatter_add_ scatter_reduce_ index_add_ masked_scatter_ index_put_"
).split()
FUNCTIONAL = ["one_hot", "pad", "normalize"]
LINALG = ["norm", "vector_norm", "matrix_norm"]


def test_every_indexing_shape_and_product_name_exists():
    missing = [f"tg.{n}" for n in FUNCTIONS if not callable(getattr(tg, n, None))]
    missing += [f"Tensor.{n}" for n in METHODS if not callable(getattr(tg.Tensor, n, None))]
    missing += [f"F.{n}" for n in FUNCTIONAL if not callable(getattr(F, n, None))]
    missing += [f"tg.linalg.{n}" for n in LINALG if not callable(getattr(tg.linalg, n, None))]
    assert not missing, f"missing: {missing}"


def leaf(values):
    return tg.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)


# --- gather / scatter: the gradient rules -------------------------------------------------------
def test_gather_gradient_adds_up_at_repeated_indices():
    x = leaf([[1.0, 2.0, 3.0]])
    x.gather(1, tg.tensor([[2, 2, 0, 2]])).sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0, 3.0]]


def test_scatter_masks_the_overwritten_places_in_the_gradient():
    x, src = leaf([1.0, 2.0, 3.0, 4.0]), leaf([10.0, 20.0])
    out = x.scatter(0, tg.tensor([3, 1]), src)
    assert out.tolist() == [1.0, 20.0, 3.0, 10.0]
    out.backward(tg.tensor([1.0, 2.0, 3.0, 4.0], dtype=tg.float64))
    assert x.grad.tolist() == [1.0, 0.0, 3.0, 0.0]  # overwritten places get nothing
    assert src.grad.tolist() == [4.0, 2.0]  # each src value: the gradient where it landed


def test_scatter_reduce_amax_shares_the_gradient_between_ties():
    x, src = leaf([0.0, 0.0]), leaf([5.0, 5.0, 1.0])
    out = x.scatter_reduce(0, tg.tensor([0, 0, 1]), src, "amax")
    assert out.tolist() == [5.0, 1.0]
    out.sum().backward()
    assert src.grad.tolist() == [0.5, 0.5, 1.0]
    assert x.grad.tolist() == [0.0, 0.0]


def test_scatter_reduce_prod_gradient_is_exact_at_zero():
    x, src = leaf([2.0]), leaf([0.0, 3.0])
    out = x.scatter_reduce(0, tg.tensor([0, 0]), src, "prod")
    out.sum().backward()
    assert out.tolist() == [0.0]
    assert src.grad.tolist() == [6.0, 0.0]  # d(2 * a * b)/da = 2 b, no division by a = 0


def test_scatter_reduce_mean_and_integers():
    x = tg.tensor([10, 20, 30])
    out = x.scatter_reduce(0, tg.tensor([0, 0, 2]), tg.tensor([1, 2, 5]), "mean")
    assert out.tolist() == [4, 20, 17] and out.dtype == tg.int64  # floor division, as PyTorch
    out = x.scatter_reduce(0, tg.tensor([0]), tg.tensor([1]), "sum", include_self=False)
    assert out.tolist() == [1, 20, 30]


def test_scatter_reduce_argument_of_scatter():
    x = tg.tensor([1.0, 1.0])
    assert x.scatter(0, tg.tensor([1]), 3.0, reduce="multiply").tolist() == [1.0, 3.0]
    assert x.scatter(0, tg.tensor([1]), tg.tensor([2.0]), reduce="add").tolist() == [1.0, 3.0]


def test_index_add_and_index_put_accumulate_repeated_indices():
    x = tg.zeros(3)
    assert x.index_add(0, tg.tensor([1, 1]), tg.tensor([1.0, 2.0])).tolist() == [0, 3, 0]
    out = x.index_put((tg.tensor([2, 2]),), tg.tensor(1.0), accumulate=True)
    assert out.tolist() == [0, 0, 2]


def test_masked_scatter_takes_source_in_order():
    x = tg.zeros(2, 2)
    mask = tg.tensor([[True, False], [True, True]])
    assert x.masked_scatter(mask, tg.tensor([1.0, 2.0, 3.0, 4.0])).tolist() == [[1, 0], [2, 3]]


def test_in_place_forms_write_into_the_tensor():
    target = tg.zeros(2, 3)
    view = target[0]
    assert target.scatter_(1, tg.tensor([[2], [0]]), 1.0) is target
    assert target.tolist() == [[0, 0, 1], [1, 0, 0]] and view.tolist() == [0, 0, 1]
    x = tg.zeros(3)
    x.index_add_(0, tg.tensor([1, 1]), tg.ones(2)).scatter_add_(0, tg.tensor([0]), tg.ones(1))
    x.index_put_((tg.tensor([2]),), tg.tensor(5.0))
    assert x.tolist() == [1, 2, 5]
    with pytest.raises(RuntimeError, match="in-place"):
        tg.zeros(3, requires_grad=True).scatter_(0, tg.tensor([0]), 1.0)


def test_in_place_scatter_inside_the_graph_is_recorded():
    w, src = leaf([1.0, 2.0, 3.0]), leaf([10.0])
    y = w * 2
    y.scatter_(0, tg.tensor([0]), src)
    assert y.tolist() == [10.0, 4.0, 6.0] and y.grad_fn is not None
    y.sum().backward()
    assert w.grad.tolist() == [0.0, 2.0, 2.0] and src.grad.tolist() == [1.0]


# --- index results ------------------------------------------------------------------------------
def test_nonzero_argwhere_and_where_with_one_argument():
    x = tg.tensor([[0.0, 1.5], [2.0, 0.0]])
    assert x.nonzero().tolist() == [[0, 1], [1, 0]] and x.nonzero().dtype == tg.int64
    assert tg.argwhere(x).tolist() == [[0, 1], [1, 0]]
    rows, cols = tg.where(x != 0)
    assert rows.tolist() == [0, 1] and cols.tolist() == [1, 0]
    assert tg.nonzero(tg.tensor(3.0)).shape == (1, 0)
    assert [t.tolist() for t in tg.nonzero(tg.tensor(3.0), as_tuple=True)] == [[0]]
    assert tg.nonzero(tg.zeros(0, 3)).shape == (0, 2)


def test_triangle_indices_match_numpy():
    for row, col, offset in [(3, 4, 0), (4, 3, -1), (3, 3, 2), (0, 2, 0)]:
        assert tg.tril_indices(row, col, offset).tolist() == [
            list(a) for a in np.tril_indices(row, offset, col)
        ]
        assert tg.triu_indices(row, col, offset).tolist() == [
            list(a) for a in np.triu_indices(row, offset, col)
        ]


def test_repeat_interleave_of_counts_alone():
    assert tg.repeat_interleave(tg.tensor([2, 0, 1])).tolist() == [0, 0, 2]


def test_one_hot():
    out = F.one_hot(tg.tensor([[0, 2], [1, 1]]))
    assert out.dtype == tg.int64 and out.shape == (2, 2, 3)
    assert out.tolist() == [[[1, 0, 0], [0, 0, 1]], [[0, 1, 0], [0, 1, 0]]]
    assert F.one_hot(tg.tensor([], dtype=tg.int64), 4).shape == (0, 4)
    assert F.one_hot(tg.tensor(1), 3).tolist() == [0, 1, 0]


# --- 0-d and empty inputs -----------------------------------------------------------------------
def test_zero_dim_inputs():
    s = leaf(2.0)
    assert s.gather(0, tg.tensor(0)).shape == ()
    assert s.flip(0).shape == () and s.roll(1).shape == ()
    assert s.unfold(0, 1, 1).shape == (1,)
    assert s.index_select(0, tg.tensor([0])).shape == ()  # as PyTorch
    assert tg.einsum(",->", s, s).item() == 4.0
    assert s.scatter(0, tg.tensor(0), 5.0).shape == ()


def test_empty_inputs():
    e = leaf(np.zeros((2, 0)))
    assert e.gather(1, tg.zeros(2, 0, dtype=tg.int64)).shape == (2, 0)
    assert e.flip(1).shape == (2, 0) and e.roll(1, 1).shape == (2, 0)
    assert e.masked_select(tg.zeros(2, 0, dtype=tg.bool)).shape == (0,)
    assert e.index_select(0, tg.tensor([], dtype=tg.int64)).shape == (0, 0)
    assert tg.einsum("ij,jk->ik", e, tg.zeros(0, 3, dtype=tg.float64)).tolist() == [[0] * 3] * 2
    assert tg.linalg.vector_norm(e).item() == 0.0
    assert F.pad(e, (1, 1)).shape == (2, 2)
    out = e.sum() + tg.einsum("ij->", e)
    out.backward()
    assert e.grad.shape == (2, 0)


# --- F.pad and F.normalize ----------------------------------------------------------------------
def test_pad_modes_on_a_small_example():
    x = tg.tensor([[[1.0, 2.0, 3.0]]])
    assert F.pad(x, (2, 1), mode="reflect").tolist() == [[[3, 2, 1, 2, 3, 2]]]
    assert F.pad(x, (2, 1), mode="replicate").tolist() == [[[1, 1, 1, 2, 3, 3]]]
    assert F.pad(x, (2, 1), mode="circular").tolist() == [[[2, 3, 1, 2, 3, 1]]]
    assert F.pad(x, (1, -1), value=9.0).tolist() == [[[9, 1, 2]]]


def test_pad_gradient_collects_all_copies():
    x = leaf([[[1.0, 2.0, 3.0]]])
    F.pad(x, (2, 2), mode="replicate").sum().backward()
    assert x.grad.tolist() == [[[3.0, 1.0, 3.0]]]


def test_normalize_is_safe_at_zero():
    x = leaf([[0.0, 0.0], [3.0, 4.0]])
    out = F.normalize(x)
    assert out.tolist()[0] == [0.0, 0.0]
    out.sum().backward()
    assert np.isfinite(x.grad.data).all()


# --- einsum -------------------------------------------------------------------------------------
def test_einsum_repeated_label_gradient_lives_on_the_diagonal():
    a = leaf(np.arange(9.0).reshape(3, 3))
    tg.einsum("ii->i", a).backward(tg.tensor([1.0, 2.0, 3.0], dtype=tg.float64))
    assert a.grad.tolist() == np.diag([1.0, 2.0, 3.0]).tolist()


def test_einsum_second_order_through_repeated_operands():
    x = leaf([1.0, 2.0, 3.0])
    a = leaf(np.arange(9.0).reshape(3, 3))
    assert tg.gradgradcheck(lambda x, a: tg.einsum("i,ij,j->", x, a, x), (x, a))


def test_einsum_implicit_output_is_alphabetical_upper_case_first():
    a, b = tg.randn(2, 3), tg.randn(3, 4)
    assert tg.einsum("cb,bA", b.T, a.T).shape == (2, 4)  # "Ac", not "cA"
    assert tg.einsum("ba", a).shape == (3, 2)


# --- tg.linalg ----------------------------------------------------------------------------------
def test_singular_value_gradient_is_u_diag_g_v_transposed():
    a = np.random.default_rng(0).standard_normal((3, 2))
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    x = leaf(a)
    tg.linalg.matrix_norm(x, "nuc").backward()  # d(sum s)/da = U V^T
    np.testing.assert_allclose(x.grad.data, u @ vh, rtol=1e-12)
    assert tg.gradgradcheck(lambda a: tg.linalg.matrix_norm(a, 2), (leaf(a.T),))


def test_norm_dispatch():
    x = tg.tensor([[3.0, 4.0], [0.0, 0.0]])
    assert tg.linalg.norm(x).item() == 5.0
    assert tg.linalg.norm(x, dim=1).tolist() == [5.0, 0.0]
    assert tg.linalg.norm(x, float("inf")).item() == 7.0  # 2-D with ord: a matrix norm
    assert tg.linalg.vector_norm(x, 0).item() == 2.0
    assert tg.linalg.vector_norm(x, dtype=tg.float64).dtype == tg.float64


# --- errors, with PyTorch's exception classes ---------------------------------------------------
x34 = tg.zeros(3, 4)
ERRORS = [
    (RuntimeError, lambda: x34.gather(1, tg.tensor([[4]]))),
    (RuntimeError, lambda: x34.gather(1, tg.tensor([[1.0]]))),
    (RuntimeError, lambda: x34.gather(1, tg.tensor([1]))),
    (RuntimeError, lambda: x34.gather(1, tg.zeros(4, 1, dtype=tg.int64))),
    (IndexError, lambda: x34.gather(2, tg.tensor([[1]]))),
    (IndexError, lambda: x34.take(tg.tensor([12]))),
    (IndexError, lambda: x34.index_select(0, tg.tensor([[0]]))),
    (IndexError, lambda: x34.index_select(0, tg.tensor([3]))),
    (RuntimeError, lambda: x34.masked_select(tg.tensor([1.0, 0.0, 1.0, 0.0]))),
    (RuntimeError, lambda: x34.masked_scatter(tg.ones(3, 4, dtype=tg.bool), tg.zeros(5))),
    (RuntimeError, lambda: x34.scatter(1, tg.tensor([[4]]), 1.0)),
    (RuntimeError, lambda: x34.scatter_reduce(1, tg.tensor([[0]]), x34, "add")),
    (RuntimeError, lambda: x34.index_add(0, tg.tensor([0]), tg.zeros(2, 4))),
    (RuntimeError, lambda: x34.flip(1, 1)),
    (RuntimeError, lambda: x34.roll((1, 2), (0,))),
    (RuntimeError, lambda: tg.zeros(3).rot90()),
    (RuntimeError, lambda: x34.repeat_interleave(-1)),
    (RuntimeError, lambda: x34.repeat_interleave(tg.tensor([1, 2]), dim=1)),
    (RuntimeError, lambda: x34.unfold(1, 5, 1)),
    (RuntimeError, lambda: x34.unflatten(1, (3, 2))),
    (RuntimeError, lambda: x34.narrow(1, 3, 2)),
    (RuntimeError, lambda: x34.movedim((0, 1), (0, 0))),
    (RuntimeError, lambda: tg.zeros(2, 2, 2).diag()),
    (RuntimeError, lambda: x34.diagonal(0, 1, 1)),
    (RuntimeError, lambda: x34.broadcast_to((3, 3))),
    (RuntimeError, lambda: tg.meshgrid(tg.zeros(2, 2), tg.zeros(2), indexing="ij")),
    (RuntimeError, lambda: F.one_hot(tg.tensor([1.0]))),
    (RuntimeError, lambda: F.one_hot(tg.tensor([3]), 2)),
    (RuntimeError, lambda: F.one_hot(tg.tensor([-1]), 2)),
    (RuntimeError, lambda: F.one_hot(tg.tensor([], dtype=tg.int64))),
    (RuntimeError, lambda: F.pad(x34, (1,))),
    (RuntimeError, lambda: F.pad(tg.zeros(3), (1, 1, 1, 1))),
    (NotImplementedError, lambda: F.pad(x34, (1, 1), mode="mirror")),
    (NotImplementedError, lambda: F.pad(tg.zeros(3), (1, 1), mode="reflect")),
    (RuntimeError, lambda: F.pad(x34[None], (4, 0), mode="reflect")),
    (RuntimeError, lambda: F.pad(x34[None], (5, 0), mode="circular")),
    (RuntimeError, lambda: tg.einsum("i1->i", x34)),
    (RuntimeError, lambda: tg.einsum("ij,jk->ik", x34)),
    (RuntimeError, lambda: tg.einsum("ij->i", tg.zeros(3))),
    (RuntimeError, lambda: tg.einsum("ij,jk->ik", x34, tg.zeros(3, 2))),
    (RuntimeError, lambda: tg.einsum("ij->ii", x34)),
    (RuntimeError, lambda: tg.einsum("ij->k", x34)),
    (RuntimeError, lambda: tg.einsum("ii->i", x34)),
    (RuntimeError, lambda: tg.einsum("i,i->", tg.zeros(3), tg.zeros(3, dtype=tg.float64))),
    (RuntimeError, lambda: tg.mm(tg.zeros(3), x34)),
    (RuntimeError, lambda: tg.mm(x34, x34)),
    (RuntimeError, lambda: tg.bmm(tg.zeros(2, 2, 3), tg.zeros(3, 3, 4))),
    (RuntimeError, lambda: tg.mv(x34, tg.zeros(3))),
    (RuntimeError, lambda: tg.dot(tg.zeros(2), tg.zeros(3))),
    (RuntimeError, lambda: tg.outer(x34, tg.zeros(3))),
    (RuntimeError, lambda: tg.linalg.matrix_norm(tg.zeros(3))),
    (RuntimeError, lambda: tg.linalg.matrix_norm(x34, 3)),
    (RuntimeError, lambda: tg.linalg.vector_norm(tg.tensor([1, 2]))),
    (RuntimeError, lambda: tg.linalg.vector_norm(tg.zeros(0), float("inf"))),
    (RuntimeError, lambda: tg.linalg.norm(tg.zeros(2, 3, 4), 2)),
    (RuntimeError, lambda: tg.linalg.norm(x34, dim=(0, 1, 2))),
]


@pytest.mark.parametrize("error, call", ERRORS, ids=range(len(ERRORS)))
def test_errors_use_pytorchs_exception_classes(error, call):
    with pytest.raises(error):
        call()
