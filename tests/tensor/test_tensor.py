"""The Tensor itself (SPEC §1, §7): dtype rules, attributes, creation, indexing habits,
comparisons and reductions. (How it prints: test_printing.py; NumPy meeting it:
test_numpy_interop.py; saving it: tests/io/test_io.py.)"""

import numpy as np
import pytest

import tinygrad_norm as tg

# --- construction and dtypes --------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, dtype",
    [
        (1.5, tg.float32),
        ([1.0, 2.0], tg.float32),
        ([[1, 2.5]], tg.float32),  # mixed ints and floats are floats
        (3, tg.int64),
        ([1, 2, 3], tg.int64),
        (True, tg.bool),
        ([True, False], tg.bool),
        (np.array([1.0, 2.0]), tg.float64),  # a NumPy array keeps its floating dtype
        (np.array([1.0], dtype=np.float16), tg.float16),
        (np.float64(2.0), tg.float64),
    ],
)
def test_dtype_of_new_tensors(data, dtype):
    t = tg.tensor(data)
    assert t.dtype == dtype
    np.testing.assert_array_equal(t.numpy(), np.asarray(data))


def test_default_dtype_can_be_changed(default_float64):
    assert tg.get_default_dtype() == tg.float64
    assert tg.tensor([1.0, 2.0]).dtype == tg.float64
    assert tg.tensor(0.5).dtype == tg.float64
    assert tg.ones(2).dtype == tg.float64 and tg.randn(2).dtype == tg.float64
    assert (tg.tensor([1, 2]) * 2.5).dtype == tg.float64  # ints meet a float: the default
    assert tg.tensor([1, 2]).dtype == tg.int64  # integers are not affected


def test_default_dtype_is_restored():
    assert tg.get_default_dtype() == tg.float32
    with pytest.raises(TypeError, match="floating"):
        tg.set_default_dtype(tg.int64)


def test_dtype_argument_overrides_everything():
    assert tg.tensor([1, 2], dtype=tg.float32).dtype == tg.float32
    assert tg.tensor([1.5, 2.5], dtype=tg.float64).dtype == tg.float64
    assert tg.tensor(np.array([1.0, 2.0]), dtype=tg.float32).dtype == tg.float32
    np.testing.assert_array_equal(tg.tensor([1.7, -2.7], dtype=tg.int64).numpy(), [1, -2])


def test_tensor_from_zero_d_tensors():
    t0, t1 = tg.tensor(1.5), tg.tensor(-2.0)
    t = tg.tensor([t0, t1])
    assert t.shape == (2,) and t.dtype == tg.float32
    np.testing.assert_array_equal(t.numpy(), [1.5, -2.0])
    assert tg.tensor([tg.tensor(1), tg.tensor(2)]).dtype == tg.int64


def test_tensor_copies_its_data():
    a = np.array([1.0, 2.0], dtype=np.float32)
    t = tg.tensor(a)
    a[0] = 100.0
    assert t.numpy()[0] == 1.0
    u = tg.tensor(t)
    t.numpy()[1] = 50.0
    assert u.numpy()[1] == 2.0


@pytest.mark.parametrize(
    "make, dtype",
    [
        (lambda t: t * 2.5, tg.float32),
        (lambda t: 2.5 * t, tg.float32),
        (lambda t: 2.5 - t, tg.float32),
        (lambda t: t / 3, tg.float32),
        (lambda t: t**2, tg.float32),
        (lambda t: t + True, tg.float32),
    ],
)
def test_python_scalars_never_change_a_float32_tensors_dtype(make, dtype):
    assert make(tg.tensor([1.0, 2.0])).dtype == dtype
    assert make(tg.tensor([1.0, 2.0], dtype=tg.float64)).dtype == tg.float64
    assert make(tg.tensor([1.0, 2.0], dtype=tg.float16)).dtype == tg.float16


def test_python_scalars_with_integer_tensors():
    ints = tg.tensor([1, 2])
    assert (ints * 2).dtype == tg.int64
    assert (ints * 2.5).dtype == tg.float32  # the default float, as PyTorch
    np.testing.assert_array_equal((ints * 2.5).numpy(), [2.5, 5.0])
    assert (ints / 2).dtype == tg.float32  # true division of integers gives a float
    np.testing.assert_array_equal((ints / 2).numpy(), [0.5, 1.0])
    assert (tg.tensor([True, False]) + 1).dtype == tg.int64


def test_tensor_tensor_dtype_promotion_follows_pytorch():
    x = tg.tensor([1.0, 2.0, 3.0])
    assert (x / tg.arange(1, 4)).dtype == tg.float32  # NumPy alone would say float64
    assert (tg.arange(3) * x).dtype == tg.float32
    assert (x * tg.tensor(2)).dtype == tg.float32
    assert (x * tg.tensor(2.0, dtype=tg.float64)).dtype == tg.float32  # 0-d: no promotion
    assert (x * tg.ones(3, dtype=tg.float64)).dtype == tg.float64
    assert (tg.tensor([1, 2]) / tg.tensor([2, 4])).dtype == tg.float32
    assert (x * (x > 1)).dtype == tg.float32


def test_tensor_of_sizes_is_a_clear_error():
    with pytest.raises(TypeError, match=r"tg.zeros\(2, 3\)"):
        tg.Tensor(2, 3)


# --- attributes ---------------------------------------------------------------------------------


def test_shape_attributes():
    t = tg.zeros(2, 3, 4)
    assert t.shape == (2, 3, 4) and t.ndim == 3 and t.dtype == tg.float32
    assert t.size() == (2, 3, 4) and isinstance(t.size(), tuple)
    assert t.size(1) == 3 and t.size(-1) == 4
    assert t.numel() == 24 and len(t) == 2
    m = tg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert m.T.shape == (3, 2)
    np.testing.assert_array_equal(m.T.numpy(), m.numpy().T)
    with pytest.raises(TypeError):
        len(tg.tensor(1.0))


def test_item_tolist_numpy():
    assert tg.tensor(2.5).item() == 2.5 and isinstance(tg.tensor(2.5).item(), float)
    assert tg.tensor([7]).item() == 7 and isinstance(tg.tensor([7]).item(), int)
    assert tg.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    t = tg.tensor([1.0, 2.0])
    assert t.numpy() is t.numpy()
    with pytest.raises(ValueError, match=r"\(2,\)"):
        t.item()


def test_detach_shares_data_and_leaves_the_graph():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    d = y.detach()
    assert d.grad_fn is None and not d.requires_grad and d.is_leaf
    assert np.shares_memory(d.numpy(), y.numpy())
    d.numpy()[0] = 100.0
    assert y.numpy()[0] == 100.0


def test_clone_copies_and_is_differentiable():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    c = x.clone()
    assert repr(c.grad_fn) == "<CloneBackward>"
    assert not np.shares_memory(c.numpy(), x.numpy())
    (c * tg.tensor([3.0, 4.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 4.0])


def test_dtype_conversions_are_differentiable_and_grad_keeps_the_original_dtype():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x.double()
    assert y.dtype == tg.float64 and repr(y.grad_fn) == "<CastBackward>"
    (y * y).sum().backward()
    assert x.grad.dtype == tg.float32
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])

    z = tg.tensor([1.0, 2.0], dtype=tg.float64, requires_grad=True)
    assert z.float().dtype == tg.float32
    (z.to(tg.float32) * 3.0).sum().backward()
    assert z.grad.dtype == tg.float64
    np.testing.assert_array_equal(z.grad.numpy(), [3.0, 3.0])
    assert tg.tensor([1, 2]).float().dtype == tg.float32
    assert x.to(tg.float32) is x  # same dtype: nothing to do


def test_requires_grad_underscore_returns_self():
    x = tg.tensor([1.0, 2.0])
    assert not x.requires_grad and x.is_leaf
    assert x.requires_grad_() is x and x.requires_grad
    assert x.contiguous() is x


# --- creation -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fn", [tg.zeros, tg.ones, tg.empty, tg.randn, tg.rand])
def test_creation_sizes_as_varargs_tuple_or_size(fn):
    for t in (fn(2, 3), fn((2, 3)), fn([2, 3]), fn(size=(2, 3))):
        assert t.shape == (2, 3) and t.dtype == tg.float32
    assert fn(4).shape == (4,)
    assert fn(2, 3, dtype=tg.float64).dtype == tg.float64
    t = fn(2, requires_grad=True)
    assert t.requires_grad and t.is_leaf


def test_creation_values():
    np.testing.assert_array_equal(tg.zeros(2, 2).numpy(), np.zeros((2, 2)))
    np.testing.assert_array_equal(tg.ones(3).numpy(), np.ones(3))
    np.testing.assert_array_equal(tg.empty(2).numpy().shape, (2,))
    full = tg.full((2, 3), 1.5)
    assert full.dtype == tg.float32
    np.testing.assert_array_equal(full.numpy(), np.full((2, 3), 1.5))
    assert tg.full((2,), 7).dtype == tg.int64
    np.testing.assert_array_equal(tg.eye(3).numpy(), np.eye(3))
    np.testing.assert_array_equal(tg.eye(2, 3).numpy(), np.eye(2, 3))


def test_like_functions_copy_shape_and_dtype():
    base = tg.ones(2, 3, dtype=tg.float64)
    for made, value in [
        (tg.zeros_like(base), 0.0),
        (tg.ones_like(base), 1.0),
        (tg.full_like(base, 4.5), 4.5),
        (tg.empty_like(base), None),
    ]:
        assert made.shape == (2, 3) and made.dtype == tg.float64
        assert not np.shares_memory(made.numpy(), base.numpy())
        if value is not None:
            np.testing.assert_array_equal(made.numpy(), np.full((2, 3), value))
    assert tg.zeros_like(base, dtype=tg.float32).dtype == tg.float32


def test_random_creation_ranges():
    tg.manual_seed(0)
    r = tg.rand(1000)
    assert 0.0 <= r.numpy().min() and r.numpy().max() < 1.0
    n = tg.randn(10_000)
    assert abs(n.numpy().mean()) < 0.05 and abs(n.numpy().std() - 1.0) < 0.05
    i = tg.randint(3, 7, size=(1000,))
    assert i.dtype == tg.int64 and set(i.tolist()) == {3, 4, 5, 6}
    assert set(tg.randint(2, size=(100,)).tolist()) == {0, 1}


def test_arange_and_linspace():
    a = tg.arange(5)
    assert a.dtype == tg.int64 and a.tolist() == [0, 1, 2, 3, 4]
    b = tg.arange(1.0, 2.0, 0.25)
    assert b.dtype == tg.float32 and b.tolist() == [1.0, 1.25, 1.5, 1.75]
    assert tg.arange(2, 8, 3).tolist() == [2, 5]
    c = tg.linspace(0, 1, 5)
    assert c.dtype == tg.float32 and c.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]


def test_tril_and_triu():
    m = tg.arange(1.0, 10.0).reshape(3, 3)
    np.testing.assert_array_equal(tg.tril(m).numpy(), np.tril(m.numpy()))
    np.testing.assert_array_equal(m.tril(-1).numpy(), np.tril(m.numpy(), -1))
    np.testing.assert_array_equal(tg.triu(m, 1).numpy(), np.triu(m.numpy(), 1))
    x = tg.ones(3, 3, requires_grad=True)
    x.triu().sum().backward()  # the gradient passes only where the value was kept
    np.testing.assert_array_equal(x.grad.numpy(), np.triu(np.ones((3, 3))))


def test_tensor_empty_uniform_fills_in_place_and_returns_self():
    tg.manual_seed(0)
    t = tg.Tensor.empty(2, 3)
    assert t.uniform() is t
    values = t.numpy()
    assert values.shape == (2, 3) and t.dtype == tg.float32
    assert 0.0 <= values.min() and values.max() < 1.0
    assert len(np.unique(values)) == 6
    u = tg.Tensor.empty(1000).uniform_(-2.0, -1.0)
    assert -2.0 <= u.numpy().min() and u.numpy().max() < -1.0


# --- iteration and indexing habits --------------------------------------------------------------


def test_iteration_walks_the_first_axis():
    m = tg.tensor([[1, 2], [3, 4], [5, 6]])
    rows = list(m)
    assert len(rows) == 3 and all(isinstance(r, tg.Tensor) for r in rows)
    assert [r.tolist() for r in rows] == [[1, 2], [3, 4], [5, 6]]
    a, b = tg.tensor([1.0, 2.0])
    assert a.shape == () and b.item() == 2.0


def test_a_zero_d_integer_tensor_works_as_an_index():
    i = tg.tensor(2)
    assert tg.tensor([10, 20, 30])[i].item() == 30
    assert ["a", "b", "c"][i] == "c"
    assert list(range(10))[tg.tensor(1) : tg.tensor(3)] == [1, 2]
    with pytest.raises(TypeError):
        [1, 2][tg.tensor(1.0)]


# --- comparisons --------------------------------------------------------------------------------


def test_comparisons_give_bool_tensors_without_grad():
    x = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    cases = [
        (x < 2, [True, False, False]),
        (x <= 2, [True, True, False]),
        (x > 2, [False, False, True]),
        (x >= 2, [False, True, True]),
        (x == 2, [False, True, False]),
        (x != 2, [True, False, True]),
        (x > tg.tensor([0.0, 5.0, 3.0]), [True, False, False]),
    ]
    for result, expected in cases:
        assert result.dtype == tg.bool and result.tolist() == expected
        assert not result.requires_grad and result.grad_fn is None


# --- reductions ---------------------------------------------------------------------------------

M = np.array([[1.0, 5.0, -2.0], [3.0, 2.0, 7.0]], dtype=np.float32)


def test_keepdims_is_an_alias_of_keepdim():
    t = tg.tensor(M)
    assert t.sum(dim=1, keepdims=True).shape == (2, 1)
    np.testing.assert_array_equal(t.sum(dim=1, keepdims=True).numpy(), M.sum(1, keepdims=True))
    assert t.mean(dim=0, keepdims=True).shape == (1, 3)
    assert t.amax(dim=1, keepdims=True).shape == (2, 1)


def test_max_without_dim_is_zero_d():
    x = tg.tensor(M, requires_grad=True)
    m = x.max()
    assert m.shape == () and m.item() == 7.0
    assert tg.max(x).item() == 7.0 and x.min().item() == -2.0
    m.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0, 0], [0, 0, 1]])


def test_max_with_dim_returns_values_and_indices():
    x = tg.tensor(M, requires_grad=True)
    result = x.max(dim=1)
    values, indices = result
    assert result.values is values and result.indices is indices
    np.testing.assert_array_equal(values.numpy(), [5.0, 7.0])
    assert indices.tolist() == [1, 2] and indices.dtype == tg.int64
    kept = x.max(dim=0, keepdim=True)
    assert kept.values.shape == (1, 3) and kept.indices.tolist() == [[1, 0, 1]]
    low = x.min(dim=1)
    assert low.values.tolist() == [-2.0, 2.0] and low.indices.tolist() == [2, 1]
    values.sum().backward()  # the gradient reaches exactly the selected elements
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 1, 0], [0, 0, 1]])


def test_mean_over_a_list_of_negative_dims():
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    m = tg.tensor(data).mean(dim=[-1, -2], keepdim=True)
    assert m.shape == (2, 1, 1)
    np.testing.assert_allclose(m.numpy(), data.mean(axis=(-1, -2), keepdims=True))
    assert tg.tensor(data).mean(dim=(0, 2)).shape == (3,)


@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1)])
def test_var_and_std_conventions_match_numpy_ddof(dim):
    x = tg.tensor(M)
    axis = dim
    np.testing.assert_allclose(x.var(dim=dim).numpy(), M.var(axis=axis, ddof=1), rtol=1e-6)
    np.testing.assert_allclose(
        x.var(dim=dim, unbiased=True).numpy(), M.var(axis=axis, ddof=1), rtol=1e-6
    )
    np.testing.assert_allclose(
        x.var(dim=dim, unbiased=False).numpy(), M.var(axis=axis, ddof=0), rtol=1e-6
    )
    np.testing.assert_allclose(x.std(dim=dim).numpy(), M.std(axis=axis, ddof=1), rtol=1e-6)
    np.testing.assert_allclose(
        x.std(dim=dim, unbiased=False).numpy(), M.std(axis=axis, ddof=0), rtol=1e-6
    )


def test_var_differs_between_conventions_by_n_over_n_minus_one():
    x = tg.tensor([1.0, 2.0, 3.0, 4.0])
    assert x.var(unbiased=False).item() == pytest.approx(1.25)
    assert x.var().item() == pytest.approx(1.25 * 4 / 3)
    assert x.var(dim=0, keepdim=True).shape == (1,)
