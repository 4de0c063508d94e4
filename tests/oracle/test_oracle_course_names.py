"""The names course code uses, against PyTorch: constants, comparisons by name, shifts, legacy
tensor types, the memory methods, the gamma family, det, torch.range."""

import math

import numpy as np
import pytest

import tinygrad_norm as tg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(0)
A = RNG.integers(-3, 4, size=(3, 4))
B = RNG.integers(-3, 4, size=(3, 4))


def test_constants_are_pytorchs():
    for name in ("inf", "nan", "pi", "e"):
        ours, theirs = getattr(tg, name), getattr(torch, name)
        assert ours == theirs or (math.isnan(ours) and math.isnan(theirs)), name


@pytest.mark.parametrize("name", ["eq", "ne", "lt", "le", "gt", "ge", "greater", "less_equal"])
@pytest.mark.parametrize("other", ["tensor", "number"])
def test_comparisons_by_name_as_functions_and_methods(name, other):
    for lib in (tg, torch):
        b = lib.tensor(B) if other == "tensor" else 1
        got_function = getattr(lib, name)(lib.tensor(A), b)
        got_method = getattr(lib.tensor(A), name)(b)
        if lib is tg:
            ours = (got_function.numpy(), got_method.numpy(), str(got_function.dtype))
        else:
            theirs = (got_function.numpy(), got_method.numpy(), str(got_function.dtype))
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[1], theirs[1])
    assert ours[2] == theirs[2]


def test_the_accuracy_line_of_a_classifier():
    logits, target = RNG.normal(size=(8, 5)), RNG.integers(0, 5, size=8)
    results = []
    for lib in (tg, torch):
        pred = lib.tensor(logits).argmax(dim=1, keepdim=True)
        results.append(pred.eq(lib.tensor(target).view_as(pred)).sum().item())
    assert results[0] == results[1]


def test_equal_isposinf_isneginf():
    x = np.array([1.0, np.inf, -np.inf, np.nan])
    for name in ("isposinf", "isneginf"):
        ours = getattr(tg, name)(tg.tensor(x)).numpy()
        np.testing.assert_array_equal(ours, getattr(torch, name)(torch.tensor(x)).numpy())
        np.testing.assert_array_equal(ours, getattr(tg.tensor(x), name)().numpy())
    for a, b in ((A, A), (A, B), (A, A[:2])):
        assert tg.equal(tg.tensor(a), tg.tensor(b)) == torch.equal(torch.tensor(a), torch.tensor(b))
        assert tg.tensor(a).equal(tg.tensor(b)) == torch.equal(torch.tensor(a), torch.tensor(b))


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_shifts(dtype):
    a = np.array([1, 5, 7, 100], dtype=dtype)
    s = np.array([0, 1, 2, 3], dtype=dtype)
    for ours, theirs in (
        (tg.tensor(a) << 2, torch.tensor(a) << 2),
        (tg.tensor(a) >> 1, torch.tensor(a) >> 1),
        (tg.tensor(a) << tg.tensor(s), torch.tensor(a) << torch.tensor(s)),
        (3 << tg.tensor(s), 3 << torch.tensor(s)),
        (tg.bitwise_right_shift(tg.tensor(a), 2), torch.bitwise_right_shift(torch.tensor(a), 2)),
    ):
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
        assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_array_equal((tg.tensor([-8]) >> 1).numpy(), (torch.tensor([-8]) >> 1).numpy())


def test_shifting_floats_is_refused_as_pytorch():
    with pytest.raises(NotImplementedError, match="bitwise_left_shift"):
        tg.tensor([1.0]) << 1
    with pytest.raises(RuntimeError):
        torch.tensor([1.0]) << 1


@pytest.mark.parametrize("name", ["FloatTensor", "LongTensor", "DoubleTensor", "BoolTensor"])
def test_legacy_tensor_types(name):
    ours, theirs = getattr(tg, name), getattr(torch, name)
    a, b = ours([[1, 0], [2, 3]]), theirs([[1, 0], [2, 3]])
    assert str(a.dtype) == str(b.dtype)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert ours(2, 3).shape == theirs(2, 3).shape
    assert isinstance(a, ours) and isinstance(b, theirs)
    assert isinstance(tg.zeros(2, dtype=tg.float32), ours) == isinstance(torch.zeros(2), theirs)
    assert str(tg.ones(2).type(ours).dtype) == str(torch.ones(2).type(theirs).dtype)


def test_memory_methods_answer_pytorchs_questions():
    for lib in (tg, torch):
        x = lib.arange(12.0).reshape(3, 4)
        row, column = x[1], x[:, 1]
        assert row.storage_offset() == 4 and column.storage_offset() == 1
        assert row.data_ptr() == x.data_ptr() + 4 * x.element_size()
        assert x.clone().data_ptr() != x.data_ptr()
        assert x.ravel().data_ptr() == x.data_ptr()  # a view
        assert x.t().ravel().tolist() == x.t().reshape(-1).tolist()
        assert x.storage().data_ptr() == row.storage().data_ptr()
        assert len(x.storage()) == 12 and x.storage().tolist()[:3] == [0.0, 1.0, 2.0]
        assert x.is_xpu is False
        y = lib.arange(6.0)
        assert y.resize_(2, 3).shape == (2, 3) and y[1].tolist() == [3.0, 4.0, 5.0]
        assert y.resize_(2, 2).tolist() == [[0.0, 1.0], [2.0, 3.0]]
        assert x.clone(memory_format=lib.preserve_format).tolist() == x.tolist()
        assert lib.zeros_like(x, memory_format=lib.preserve_format).shape == x.shape


def test_record_stream_refuses_what_is_not_a_stream_as_pytorch_on_the_cpu():
    for lib in (tg, torch):
        with pytest.raises(RuntimeError, match="unknown parameter type"):
            lib.ones(2).record_stream(None)
        with pytest.raises(RuntimeError):  # no CUDA stream to record on the CPU
            lib.cuda.Stream()


@pytest.mark.parametrize("args", [(1, 4), (0, 1, 0.25), (5, 1, -1), (1.5, 3.2, 0.5)], ids=str)
def test_range_includes_its_end(args):
    ours, theirs = tg.range(*args), torch.range(*args)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())
    assert str(ours.dtype) == str(theirs.dtype)


X = np.array([0.1, 0.5, 1.0, 2.5, 7.0, 12.0, 50.0, -0.5, -3.3, -15.7, -25.2, 1e-3, 0.0, -2.0])


@pytest.mark.parametrize("name", ["lgamma", "digamma"])
def test_gamma_family_values_and_gradients(name):
    ours = tg.tensor(X, requires_grad=True)
    theirs = torch.tensor(X, requires_grad=True)
    y, z = getattr(tg, name)(ours), getattr(torch, name)(theirs)
    np.testing.assert_allclose(y.detach().numpy(), z.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(getattr(ours, name)().detach().numpy(), y.detach().numpy())
    finite = np.isfinite(z.detach().numpy())
    y[finite].sum().backward()
    z[torch.tensor(finite)].sum().backward()
    # NOTE: PyTorch's trigamma is good to about 5e-10 (trigamma(1) = pi^2/6 exactly here)
    np.testing.assert_allclose(ours.grad.numpy()[finite], theirs.grad.numpy()[finite], rtol=1e-8)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_polygamma(n):
    ours = tg.polygamma(n, tg.tensor(X[:12])).numpy()
    np.testing.assert_allclose(ours, torch.polygamma(n, torch.tensor(X[:12])).numpy(), rtol=1e-8)


def test_gamma_family_float32_and_gradchecks():
    x = RNG.uniform(0.2, 6.0, size=5)
    assert str(tg.lgamma(tg.tensor(x, dtype=tg.float32)).dtype) == "torch.float32"
    assert tg.gradcheck(tg.lgamma, (tg.tensor(x, requires_grad=True),))
    assert tg.gradcheck(tg.digamma, (tg.tensor(x, requires_grad=True),))
    assert tg.gradgradcheck(tg.lgamma, (tg.tensor(x, requires_grad=True),))


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1)])
def test_det_values_and_gradients(shape):
    a = RNG.normal(size=shape)
    ours, theirs = tg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    y, z = tg.det(ours), torch.det(theirs)
    np.testing.assert_allclose(y.detach().numpy(), z.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(tg.linalg.det(ours).detach().numpy(), y.detach().numpy())
    np.testing.assert_allclose(ours.det().detach().numpy(), y.detach().numpy())
    y.sum().backward()
    z.sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-8, atol=1e-12)
    assert tg.gradcheck(tg.det, (tg.tensor(a, requires_grad=True),))


def test_det_gradient_of_a_singular_matrix_is_the_cofactor_matrix():
    """Jacobi's formula holds at a singular matrix too: d det / dA = cofactors (written out
    here in NumPy). (PyTorch 2.13 returns zeros for this exactly singular input.)"""
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    ours = tg.tensor(a, requires_grad=True)
    tg.det(ours).backward()
    cofactors = [
        [(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(a, i, 0), j, 1)) for j in range(3)]
        for i in range(3)
    ]
    np.testing.assert_allclose(ours.grad.numpy(), cofactors, atol=1e-12)
    assert np.abs(cofactors).max() > 1


def test_det_refuses_a_non_square_matrix_as_pytorch():
    with pytest.raises(RuntimeError, match="det: expected a square matrix"):
        tg.det(tg.ones(2, 3))
    with pytest.raises(RuntimeError):
        torch.det(torch.ones(2, 3))
