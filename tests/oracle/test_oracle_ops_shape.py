"""Indexing, shape, pad, products, einsum and norms against PyTorch: values and gradients on
edge inputs (0-d, empty, broadcasting, negative dims, non-default arguments), integer
results, and the exception class of each mistake. The op table covers the ordinary inputs."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.testing.op_cases import CASES_BY_NAME

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def _t(lib, values, dtype=None):
    return lib.tensor(values) if dtype is None else lib.tensor(values, dtype=dtype)


def _long(lib, values):
    return lib.tensor(np.asarray(values, dtype=np.int64))


def _bool(lib, values):
    return lib.tensor(np.asarray(values, dtype=bool))


# name, fn(lib, *xs), input shapes (float64 leaves)
EDGE = [
    ("gather_0d", lambda lib, x: x.gather(0, _long(lib, 0)), [()]),
    ("gather_empty_index", lambda lib, x: x.gather(-1, _long(lib, np.zeros((3, 0)))), [(3, 4)]),
    ("gather_3d_neg", lambda lib, x: x.gather(-2, _long(lib, [[[1, 0, 1]]])), [(2, 3, 3)]),
    ("take_0d", lambda lib, x: lib.take(x, _long(lib, -1)), [(2, 3)]),
    (
        "take_along_dim_bcast_input",
        lambda lib, x: lib.take_along_dim(x, _long(lib, [[[0], [1]]]), 2),
        [(1, 2, 3)],
    ),
    ("index_select_0d_index", lambda lib, x: x.index_select(0, _long(lib, 1)), [(2, 3)]),
    ("index_select_empty", lambda lib, x: x.index_select(1, _long(lib, [])), [(2, 3)]),
    ("index_select_0d", lambda lib, x: x.index_select(0, _long(lib, [0])), [()]),
    (
        "masked_select_mask_bigger",
        lambda lib, x: x.masked_select(_bool(lib, [[True], [False]])),
        [(3,)],
    ),
    ("masked_select_none", lambda lib, x: x.masked_select(_bool(lib, np.zeros((2, 3)))), [(2, 3)]),
    ("scatter_0d", lambda lib, x, s: x.scatter(0, _long(lib, 0), s), [(), ()]),
    (
        "scatter_empty_index",
        lambda lib, x, s: x.scatter(1, _long(lib, np.zeros((2, 0))), s),
        [(2, 3), (2, 0)],
    ),
    (
        "scatter_add_dim0",
        lambda lib, x, s: x.scatter_add(-2, _long(lib, [[1, 1, 0]]), s),
        [(2, 3), (1, 3)],
    ),
    (
        "scatter_reduce_mean_excl",
        lambda lib, x, s: x.scatter_reduce(0, _long(lib, [1, 1, 3]), s, "mean", include_self=False),
        [(4,), (3,)],
    ),
    (
        "index_add_neg_dim",
        lambda lib, x, s: x.index_add(-1, _long(lib, [0, 0]), s, alpha=3),
        [(2, 3), (2, 2)],
    ),
    ("index_add_0d", lambda lib, x, s: x.index_add(0, _long(lib, [0]), s), [(), ()]),
    (
        "masked_scatter_bcast",
        lambda lib, x, s: x.masked_scatter(_bool(lib, [True, False, True]), s),
        [(2, 3), (2, 3)],
    ),
    (
        "index_put_bool",
        lambda lib, x, v: x.index_put((_bool(lib, [True, False, True]),), v),
        [(3, 2), (2,)],
    ),
    ("flip_neg_dims", lambda lib, x: lib.flip(x, (-1, -3)), [(2, 3, 4)]),
    ("flip_empty_dims", lambda lib, x: x.flip(()), [(2, 3)]),
    ("roll_negative_big", lambda lib, x: x.roll(-7, -1), [(2, 3)]),
    ("roll_0d", lambda lib, x: x.roll(2), [()]),
    ("rot90_k5", lambda lib, x: x.rot90(5, (-1, -2)), [(2, 3, 4)]),
    ("rot90_neg", lambda lib, x: x.rot90(-2), [(2, 3)]),
    ("repeat_interleave_0d", lambda lib, x: x.repeat_interleave(3), [()]),
    (
        "repeat_interleave_tensor_1",
        lambda lib, x: x.repeat_interleave(_long(lib, [2]), dim=0),
        [(2, 3)],
    ),
    ("unfold_0d", lambda lib, x: x.unfold(0, 1, 1), [()]),
    ("unfold_step_big", lambda lib, x: x.unfold(-1, 2, 5), [(2, 3, 7)]),
    ("unflatten_neg", lambda lib, x: x.unflatten(-2, (-1, 2)), [(4, 3)]),
    ("narrow_neg_start", lambda lib, x: x.narrow(0, -2, 2), [(3, 2)]),
    ("narrow_tensor_start", lambda lib, x: x.narrow(1, _long(lib, 1), 1), [(3, 2)]),
    ("movedim_same", lambda lib, x: x.movedim(-1, -1), [(2, 3)]),
    ("diag_neg_big", lambda lib, x: lib.diag(x, -5), [(3, 4)]),
    ("diag_vector_neg", lambda lib, x: lib.diag(x, -2), [(2,)]),
    ("diagonal_offset_past", lambda lib, x: x.diagonal(4), [(3, 4)]),
    ("diagonal_3d_neg", lambda lib, x: lib.diagonal(x, -1, 2, 0), [(3, 2, 4)]),
    ("diag_embed_default", lambda lib, x: x.diag_embed(), [(2, 3)]),
    ("diag_embed_dims_first", lambda lib, x: x.diag_embed(1, 0, 1), [(2, 3)]),
    ("meshgrid_0d", lambda lib, x, y: lib.meshgrid(x, y, indexing="xy"), [(), (3,)]),
    ("meshgrid_list", lambda lib, x, y: lib.meshgrid([x, y], indexing="ij"), [(2,), (0,)]),
    ("broadcast_to_0d", lambda lib, x: x.broadcast_to((2, 3)), [()]),
    (
        "pad_constant_negative_all",
        lambda lib, x: lib.nn.functional.pad(x, (-1, -1, 1, 0)),
        [(2, 3)],
    ),
    (
        "pad_reflect_2d_unbatched",
        lambda lib, x: lib.nn.functional.pad(x, (1, 2, 2, 1), mode="reflect"),
        [(2, 3, 4)],
    ),
    (
        "pad_circular_negative",
        lambda lib, x: lib.nn.functional.pad(x, (-1, 2), mode="circular"),
        [(1, 2, 4)],
    ),
    (
        "pad_replicate_empty_batch",
        lambda lib, x: lib.nn.functional.pad(x, (1, 1), mode="replicate"),
        [(0, 2, 3)],
    ),
    ("pad_int_sizes_zero", lambda lib, x: lib.nn.functional.pad(x, (0, 0)), [(2, 3)]),
    ("normalize_dim0_eps", lambda lib, x: lib.nn.functional.normalize(x, 3.0, 0, 0.5), [(3, 2)]),
    ("einsum_0d", lambda lib, x, y: lib.einsum(",i->i", x, y), [(), (3,)]),
    ("einsum_empty", lambda lib, x, y: lib.einsum("ij,jk->ik", x, y), [(2, 0), (0, 3)]),
    ("einsum_iii", lambda lib, x: lib.einsum("iii->", x), [(3, 3, 3)]),
    ("einsum_ellipsis_middle", lambda lib, x: lib.einsum("i...j->j...i", x), [(2, 3, 4, 5)]),
    ("einsum_ellipsis_empty", lambda lib, x: lib.einsum("...ij->...ji", x), [(2, 3)]),
    ("einsum_output_ellipsis_only_out", lambda lib, x: lib.einsum("ij->...ij", x), [(2, 3)]),
    (
        "einsum_four_operands",
        lambda lib, a, b, c, d: lib.einsum("ab,bc,cd,da->", a, b, c, d),
        [(2, 3), (3, 4), (4, 2), (2, 2)],
    ),
    (
        "einsum_diag_and_only_in_one",
        lambda lib, a, b: lib.einsum("iik,j->j", a, b),
        [(3, 3, 2), (4,)],
    ),
    ("tensordot_0", lambda lib, a, b: lib.tensordot(a, b, 0), [(2,), (3,)]),
    ("tensordot_neg_axes", lambda lib, a, b: lib.tensordot(a, b, ([-1], [0])), [(2, 3), (3, 2)]),
    ("kron_0d", lambda lib, a, b: lib.kron(a, b), [(), (2, 3)]),
    ("inner_0d", lambda lib, a, b: lib.inner(a, b), [(), (2, 3)]),
    (
        "baddbmm_beta0",
        lambda lib, c, a, b: lib.baddbmm(c, a, b, beta=0),
        [(2, 2, 2), (2, 2, 3), (2, 3, 2)],
    ),
    ("addmm_1d_input", lambda lib, c, a, b: c.addmm(a, b, alpha=2), [(2,), (3, 3), (3, 2)]),
    ("vector_norm_neg_ord", lambda lib, x: lib.linalg.vector_norm(x, -2.5, -1), [(2, 3)]),
    ("vector_norm_0d", lambda lib, x: lib.linalg.vector_norm(x), [()]),
    ("vector_norm_empty", lambda lib, x: lib.linalg.vector_norm(x, 3), [(0, 2)]),
    (
        "matrix_norm_keepdim_neg",
        lambda lib, x: lib.linalg.matrix_norm(x, "fro", (-1, 0), True),
        [(3, 2, 4)],
    ),
    (
        "matrix_norm_nuc_keepdim",
        lambda lib, x: lib.linalg.matrix_norm(x, "nuc", keepdim=True),
        [(2, 3, 4)],
    ),
    ("linalg_norm_vector_ord", lambda lib, x: lib.linalg.norm(x, 1), [(4,)]),
    ("linalg_norm_dims_ord", lambda lib, x: lib.linalg.norm(x, float("-inf"), (2, 0)), [(3, 2, 4)]),
]


@pytest.mark.parametrize("fn, shapes", [e[1:] for e in EDGE], ids=[e[0] for e in EDGE])
def test_edge_values_and_gradients_equal_pytorch(fn, shapes):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    ours = [tg.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    outs, touts = fn(tg, *ours), fn(torch, *theirs)
    outs = outs if isinstance(outs, tuple) else (outs,)
    touts = touts if isinstance(touts, tuple) else (touts,)
    total, ttotal = 0, 0
    for o, t in zip(outs, touts, strict=True):
        assert tuple(o.shape) == tuple(t.shape) and str(o.dtype) == str(t.dtype)
        np.testing.assert_allclose(o.data, t.detach().numpy(), rtol=1e-10, atol=1e-12)
        w = rng.standard_normal(tuple(o.shape))
        total, ttotal = total + (o * tg.tensor(w)).sum(), ttotal + (t * torch.tensor(w)).sum()
    if not isinstance(total, int) and ttotal.requires_grad:
        total.backward()
        ttotal.backward()
    for x, tx in zip(ours, theirs):
        expected = np.zeros(tx.shape) if tx.grad is None else tx.grad.numpy()
        got = np.zeros(x.shape) if x.grad is None else x.grad.data
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


# name, fn(lib): integer and bool results, compared with PyTorch's values and dtypes
INTEGER = [
    ("nonzero", lambda lib: _t(lib, [[0.0, 1.0], [2.0, 0.0]]).nonzero()),
    ("nonzero_empty", lambda lib: lib.nonzero(lib.zeros(0, 3))),
    ("nonzero_0d", lambda lib: lib.nonzero(_t(lib, 0.0))),
    ("nonzero_tuple", lambda lib: lib.nonzero(_t(lib, [[1, 0], [1, 1]]), as_tuple=True)),
    ("nonzero_tuple_0d", lambda lib: _t(lib, 2).nonzero(as_tuple=True)),
    ("argwhere", lambda lib: lib.argwhere(_t(lib, [[0, 1, 1]]))),
    ("where_cond", lambda lib: lib.where(_t(lib, [[True, False], [False, True]]))),
    ("where_scalars", lambda lib: lib.where(_bool(lib, [True, False]), 1.0, 0.0)),
    ("tril_indices", lambda lib: lib.tril_indices(4, 3, 1)),
    ("triu_indices", lambda lib: lib.triu_indices(3, 5, -1)),
    ("triu_indices_empty", lambda lib: lib.triu_indices(0, 0)),
    ("one_hot", lambda lib: lib.nn.functional.one_hot(_long(lib, [[3, 0], [1, 1]]))),
    ("one_hot_classes", lambda lib: lib.nn.functional.one_hot(_long(lib, [2]), num_classes=5)),
    ("repeat_interleave_counts", lambda lib: lib.repeat_interleave(_long(lib, [1, 0, 3]))),
    ("repeat_interleave_int", lambda lib: _long(lib, [[1, 2]]).repeat_interleave(2, dim=0)),
    ("gather_int", lambda lib: _long(lib, [[1, 2], [3, 4]]).gather(0, _long(lib, [[1, 0]]))),
    (
        "scatter_reduce_amax_int",
        lambda lib: _long(lib, [5, 1]).scatter_reduce(
            0, _long(lib, [1, 1]), _long(lib, [3, 7]), "amax", include_self=False
        ),
    ),
    (
        "scatter_reduce_prod_int",
        lambda lib: _long(lib, [2, 3]).scatter_reduce(
            0, _long(lib, [0, 0]), _long(lib, [4, 5]), "prod"
        ),
    ),
    ("flip_bool", lambda lib: _bool(lib, [True, False]).flip(0)),
    ("pad_int_value", lambda lib: lib.nn.functional.pad(_long(lib, [1, 2]), (1, 0), value=7)),
    ("einsum_int", lambda lib: lib.einsum("ij,j->i", _long(lib, [[1, 2]]), _long(lib, [3, 4]))),
    ("kron_int", lambda lib: lib.kron(_long(lib, [1, 2]), _long(lib, [[1], [3]]))),
]


@pytest.mark.parametrize("fn", [e[1] for e in INTEGER], ids=[e[0] for e in INTEGER])
def test_integer_results_equal_pytorch(fn):
    ours, theirs = fn(tg), fn(torch)
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    for o, t in zip(ours, theirs, strict=True):
        assert tuple(o.shape) == tuple(t.shape)
        assert str(o.dtype) == str(t.dtype)
        assert o.tolist() == t.tolist()


# the same mistake in both: the same exception class
MISTAKES = [
    lambda lib: lib.zeros(3, 4).gather(1, _long(lib, [[4]])),
    lambda lib: lib.zeros(3, 4).gather(1, _t(lib, [[1.0]])),
    lambda lib: lib.zeros(3, 4).gather(1, _long(lib, [1])),
    lambda lib: lib.zeros(3, 4).gather(5, _long(lib, [[1]])),
    lambda lib: lib.zeros(3, 4).take(_long(lib, [12])),
    lambda lib: lib.zeros(3, 4).index_select(0, _long(lib, [[0]])),
    lambda lib: lib.zeros(3, 4).index_select(0, _long(lib, [3])),
    lambda lib: lib.zeros(3, 4).masked_select(_t(lib, [1.0, 0.0, 1.0, 0.0])),
    lambda lib: lib.zeros(3).masked_scatter(_bool(lib, [True] * 3), lib.zeros(2)),
    lambda lib: lib.zeros(3).scatter(0, _long(lib, [3]), 1.0),
    lambda lib: lib.zeros(3).scatter_reduce(0, _long(lib, [0]), lib.zeros(1), "add"),
    lambda lib: lib.zeros(()).index_select(0, _long(lib, [0, 0])),
    lambda lib: lib.zeros(3, 4).flip(1, -3),
    lambda lib: lib.zeros(3, 4).flip(1, 1),
    lambda lib: lib.zeros(3, 4).roll((1, 2), (0,)),
    lambda lib: lib.zeros(3).rot90(),
    lambda lib: lib.zeros(3, 4).repeat_interleave(-1),
    lambda lib: lib.zeros(3, 4).unfold(1, 5, 1),
    lambda lib: lib.zeros(3, 4).unflatten(1, (3, 2)),
    lambda lib: lib.zeros(3, 4).narrow(1, 3, 2),
    lambda lib: lib.zeros(3, 4).movedim((0, 1), (0, 0)),
    lambda lib: lib.zeros(2, 2, 2).diag(),
    lambda lib: lib.zeros(3, 4).diagonal(0, 1, 1),
    lambda lib: lib.zeros(3, 4).diagonal(0, 1, 2),
    lambda lib: lib.zeros(3, 4).broadcast_to((3, 3)),
    lambda lib: lib.nn.functional.one_hot(_long(lib, [3]), 2),
    lambda lib: lib.nn.functional.one_hot(_t(lib, [1.0])),
    lambda lib: lib.nn.functional.pad(lib.zeros(3, 4), (1,)),
    lambda lib: lib.nn.functional.pad(lib.zeros(3, 4), (1, 1), mode="mirror"),
    lambda lib: lib.nn.functional.pad(lib.zeros(3), (1, 1), mode="reflect"),
    lambda lib: lib.nn.functional.pad(lib.zeros(1, 3, 4), (4, 0), mode="reflect"),
    lambda lib: lib.nn.functional.pad(lib.zeros(1, 3, 4), (5, 0), mode="circular"),
    lambda lib: lib.einsum("i1->i", lib.zeros(3, 4)),
    lambda lib: lib.einsum("ij,jk->ik", lib.zeros(3, 4)),
    lambda lib: lib.einsum("ij,jk->ik", lib.zeros(3, 4), lib.zeros(3, 2)),
    lambda lib: lib.einsum("ij->ii", lib.zeros(3, 4)),
    lambda lib: lib.einsum("ii->i", lib.zeros(3, 4)),
    lambda lib: lib.mm(lib.zeros(3), lib.zeros(3, 4)),
    lambda lib: lib.bmm(lib.zeros(2, 2, 3), lib.zeros(3, 3, 4)),
    lambda lib: lib.dot(lib.zeros(2), lib.zeros(3)),
    lambda lib: lib.linalg.matrix_norm(lib.zeros(3)),
    lambda lib: lib.linalg.matrix_norm(lib.zeros(3, 4), 3),
    lambda lib: lib.linalg.vector_norm(_long(lib, [1, 2])),
    lambda lib: lib.linalg.norm(lib.zeros(2, 3, 4), 2),
]


@pytest.mark.parametrize("call", MISTAKES, ids=range(len(MISTAKES)))
def test_mistakes_raise_pytorchs_exception_class(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(Exception) as ours:
        call(tg)
    assert isinstance(ours.value, type(theirs.value)), (ours.value, theirs.value)


# Second derivatives, d/dx of (wᵀ J(x) u), for the cases of the op table that are not linear
# (for a linear op the gradient is a constant: both libraries refuse to differentiate it).
SECOND_ORDER = [
    "scatter_reduce_prod",
    "scatter_reduce_prod_exclude_self",
    "normalize",
    "normalize_p1",
    "kron",
    "tensordot_pairs",
    "baddbmm",
    "einsum_repeated_across",
    "einsum_bilinear",
    "einsum_size_one_broadcast",
    "vector_norm_ord3_keepdim",
    "matrix_norm_fro",
    "matrix_norm_nuc",
    "matrix_norm_2",
    "matrix_norm_-2",
    "linalg_norm_dim",
]


def _array(grad, shape):
    if grad is None:
        return np.zeros(shape)
    return grad.detach().numpy() if isinstance(grad, torch.Tensor) else grad.data


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_second_derivatives_equal_pytorch(name):
    case = CASES_BY_NAME[name]
    arrays = case.inputs()
    results = []
    for lib, make in ((tg, tg.tensor), (torch, torch.tensor)):
        xs = [make(a, requires_grad=True) for a in arrays]
        outs = case.fn(lib, *xs)
        outs = outs if isinstance(outs, tuple) else (outs,)
        ws = [np.random.default_rng(i).standard_normal(tuple(o.shape)) for i, o in enumerate(outs)]
        total = sum((o * make(w)).sum() for o, w in zip(outs, ws))
        first = lib.autograd.grad(total, xs, create_graph=True)
        us = [
            np.random.default_rng(10 + i).standard_normal(tuple(g.shape))
            for i, g in enumerate(first)
        ]
        total = sum((g * make(u)).sum() for g, u in zip(first, us))
        second = lib.autograd.grad(total, xs, allow_unused=True)
        results.append([_array(g, a.shape) for g, a in zip(second, arrays)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
