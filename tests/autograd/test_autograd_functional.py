"""tg.autograd.functional (SPEC §2): jacobian, hessian, vjp, jvp and hvp against derivatives
worked out by hand, with PyTorch's output shapes (a Jacobian is out.shape + in.shape).
"""

import numpy as np
import pytest

import tinygrad_norm as tg

F = tg.autograd.functional

X = np.array([1.0, 2.0, 3.0])
A = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]])  # (2, 3)


def cubic(x):
    """f(x) = sum(x^3) + x0 x1: gradient 3x^2 + (x1, x0, 0), Hessian diag(6x) + E01 + E10."""
    return (x**3).sum() + x[0] * x[1]


def cubic_hessian(x: np.ndarray) -> np.ndarray:
    h = np.diag(6 * x)
    h[0, 1] = h[1, 0] = 1.0
    return h


# --- jacobian -----------------------------------------------------------------------------------


def test_jacobian_of_an_elementwise_function_is_diagonal():
    x = tg.tensor(X)
    jac = F.jacobian(lambda t: t**2, x)
    assert jac.shape == (3, 3) and isinstance(jac, tg.Tensor)
    np.testing.assert_array_equal(jac.numpy(), np.diag(2 * X))
    assert not x.requires_grad and x.grad is None  # the caller's tensor is left alone


def test_jacobian_of_a_linear_map_is_its_matrix():
    jac = F.jacobian(lambda t: tg.tensor(A) @ t, tg.tensor(X))
    assert jac.shape == (2, 3)
    np.testing.assert_array_equal(jac.numpy(), A)


def test_jacobian_shape_is_output_shape_plus_input_shape():
    """f(x)[i, j] = x[i] * w[j] for x (3,), w (2,): d f[i, j] / d x[k] = [i == k] w[j]."""
    w = np.array([10.0, -1.0])
    jac = F.jacobian(lambda t: t.reshape(3, 1) * tg.tensor(w), tg.tensor(X))
    assert jac.shape == (3, 2, 3)
    expected = np.einsum("ik,j->ijk", np.eye(3), w)
    np.testing.assert_array_equal(jac.numpy(), expected)

    m = tg.tensor([[1.0, 2.0], [3.0, 4.0]])
    jac = F.jacobian(lambda t: t.sum(), m)  # scalar output: shape of the input
    assert jac.shape == (2, 2)
    np.testing.assert_array_equal(jac.numpy(), np.ones((2, 2)))
    jac = F.jacobian(lambda t: t * 3.0, tg.tensor(2.0))  # 0-d in, 0-d out
    assert jac.shape == () and jac.item() == 3.0


def test_jacobian_with_two_inputs_is_a_tuple():
    """out = a @ b for a (2, 2), b (2,): d out[i] / d a[j, k] = [i == j] b[k];
    d out[i] / d b[k] = a[i, k]."""
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    b = np.array([1.0, -1.0])
    jac_a, jac_b = F.jacobian(lambda s, t: s @ t, (tg.tensor(a), tg.tensor(b)))
    assert jac_a.shape == (2, 2, 2) and jac_b.shape == (2, 2)
    np.testing.assert_array_equal(jac_a.numpy(), np.einsum("ij,k->ijk", np.eye(2), b))
    np.testing.assert_array_equal(jac_b.numpy(), a)


def test_jacobian_of_two_outputs_is_one_entry_per_output():
    total, doubled = F.jacobian(lambda t: (t.sum(), t * 2.0), tg.tensor(X))
    assert total.shape == (3,) and doubled.shape == (3, 3)
    np.testing.assert_array_equal(total.numpy(), np.ones(3))
    np.testing.assert_array_equal(doubled.numpy(), 2 * np.eye(3))


def test_jacobian_of_an_input_the_output_ignores_is_zero():
    jac_x, jac_y = F.jacobian(lambda x, y: x * 2.0, (tg.tensor(X), tg.tensor([1.0, 2.0])))
    assert jac_y.shape == (3, 2)
    np.testing.assert_array_equal(jac_y.numpy(), np.zeros((3, 2)))
    np.testing.assert_array_equal(jac_x.numpy(), 2 * np.eye(3))


# --- hessian ------------------------------------------------------------------------------------


def test_hessian_of_a_cubic_is_exact():
    h = F.hessian(cubic, tg.tensor(X))
    assert h.shape == (3, 3)
    np.testing.assert_array_equal(h.numpy(), cubic_hessian(X))


def test_hessian_of_a_matrix_input_has_shape_input_twice():
    """f(M) = sum(M^2): H = 2 I, reshaped to (2, 2, 2, 2)."""
    m = tg.tensor([[1.0, 2.0], [3.0, 4.0]])
    h = F.hessian(lambda t: (t * t).sum(), m)
    assert h.shape == (2, 2, 2, 2)
    np.testing.assert_array_equal(h.numpy().reshape(4, 4), 2 * np.eye(4))


def test_hessian_with_two_inputs_is_a_tuple_of_tuples():
    """f(x, y) = sum(x^2 y): d2f/dx2 = diag(2y), d2f/dxdy = diag(2x), d2f/dy2 = 0."""
    x, y = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    (hxx, hxy), (hyx, hyy) = F.hessian(lambda s, t: (s * s * t).sum(), (tg.tensor(x), tg.tensor(y)))
    for block in (hxx, hxy, hyx, hyy):
        assert block.shape == (2, 2)
    np.testing.assert_array_equal(hxx.numpy(), np.diag(2 * y))
    np.testing.assert_array_equal(hxy.numpy(), np.diag(2 * x))
    np.testing.assert_array_equal(hyx.numpy(), np.diag(2 * x))
    np.testing.assert_array_equal(hyy.numpy(), np.zeros((2, 2)))


def test_hessian_of_a_linear_function_is_zero():
    np.testing.assert_array_equal(
        F.hessian(lambda t: (t * 2.0).sum(), tg.tensor(X)).numpy(), np.zeros((3, 3))
    )


def test_hessian_needs_a_one_element_output():
    with pytest.raises(RuntimeError, match=r"one element.*\(3,\)"):
        F.hessian(lambda t: t * t, tg.tensor(X))


# --- vjp, jvp, hvp ------------------------------------------------------------------------------


def test_vjp_is_v_transposed_times_the_jacobian():
    v = np.array([1.0, -2.0])
    out, vjp = F.vjp(lambda t: tg.tensor(A) @ t, tg.tensor(X), tg.tensor(v))
    np.testing.assert_array_equal(out.numpy(), A @ X)
    assert vjp.shape == (3,)
    np.testing.assert_array_equal(vjp.numpy(), v @ A)

    out, grad = F.vjp(cubic, tg.tensor(X))  # one-element output: v may be omitted
    assert out.item() == 1 + 8 + 27 + 2
    np.testing.assert_array_equal(grad.numpy(), 3 * X**2 + np.array([2.0, 1.0, 0.0]))


def test_vjp_with_two_inputs():
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    v = np.array([1.0, 10.0])
    out, (va, vb) = F.vjp(lambda s, t: s * t, (tg.tensor(a), tg.tensor(b)), tg.tensor(v))
    np.testing.assert_array_equal(out.numpy(), a * b)
    np.testing.assert_array_equal(va.numpy(), v * b)
    np.testing.assert_array_equal(vb.numpy(), v * a)


def test_jvp_is_the_jacobian_times_u():
    u = np.array([1.0, 0.0, -1.0])
    out, jvp = F.jvp(lambda t: tg.tensor(A) @ t, tg.tensor(X), tg.tensor(u))
    np.testing.assert_array_equal(out.numpy(), A @ X)
    assert jvp.shape == (2,)  # the output's shape
    np.testing.assert_array_equal(jvp.numpy(), A @ u)

    _, jvp = F.jvp(lambda t: t**2, tg.tensor(X), tg.tensor(u))
    np.testing.assert_array_equal(jvp.numpy(), 2 * X * u)


def test_jvp_with_two_inputs_and_two_outputs():
    """f(a, b) = a * b: J u = b ua + a ub."""
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    ua, ub = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    _, jvp = F.jvp(lambda s, t: s * t, (tg.tensor(a), tg.tensor(b)), (tg.tensor(ua), tg.tensor(ub)))
    np.testing.assert_array_equal(jvp.numpy(), b * ua + a * ub)

    (twice, thrice), (j2, j3) = F.jvp(lambda t: (t * 2.0, t * 3.0), tg.tensor(a), tg.tensor(ub))
    np.testing.assert_array_equal(twice.numpy(), 2 * a)
    np.testing.assert_array_equal(j2.numpy(), 2 * ub)
    np.testing.assert_array_equal(j3.numpy(), 3 * ub)


def test_hvp_is_the_hessian_times_v():
    v = np.array([1.0, -1.0, 2.0])
    out, hvp = F.hvp(cubic, tg.tensor(X), tg.tensor(v))
    assert out.item() == 38.0
    np.testing.assert_array_equal(hvp.numpy(), cubic_hessian(X) @ v)


def test_hvp_with_two_inputs():
    """f(x, y) = sum(x^2 y): H (vx, vy) = (2y vx + 2x vy, 2x vx)."""
    x, y = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    vx, vy = np.array([1.0, 1.0]), np.array([-1.0, 2.0])
    _, (hx, hy) = F.hvp(
        lambda s, t: (s * s * t).sum(), (tg.tensor(x), tg.tensor(y)), (tg.tensor(vx), tg.tensor(vy))
    )
    np.testing.assert_array_equal(hx.numpy(), 2 * y * vx + 2 * x * vy)
    np.testing.assert_array_equal(hy.numpy(), 2 * x * vx)


def test_results_are_constants_unless_create_graph():
    x = tg.tensor(X, requires_grad=True)
    _, grad = F.vjp(cubic, x)
    assert not grad.requires_grad and grad.grad_fn is None
    assert x.grad is None

    _, grad = F.vjp(lambda t: (t**3).sum(), x, create_graph=True)  # 3x^2, still joined to x
    grad.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 6 * X)


@pytest.mark.oracle
def test_functional_matches_pytorch():
    """`cubic` is written with operations both libraries share, so one function serves both."""
    torch = pytest.importorskip("torch")
    tf = torch.autograd.functional

    x = np.array([0.5, -1.5, 2.0])
    v = np.array([1.0, 2.0, -1.0])
    tx, tv = torch.tensor(x), torch.tensor(v)
    np.testing.assert_allclose(
        F.hessian(cubic, tg.tensor(x)).numpy(), tf.hessian(cubic, tx).numpy(), rtol=1e-12
    )
    np.testing.assert_allclose(
        F.hvp(cubic, tg.tensor(x), tg.tensor(v))[1].numpy(),
        tf.hvp(cubic, tx, tv)[1].numpy(),
        rtol=1e-12,
    )
    mat = np.array([[1.0, 2.0, 0.0], [0.0, -1.0, 3.0]])
    ours = F.jacobian(lambda t: (tg.tensor(mat) @ t).tanh(), tg.tensor(x))
    theirs = tf.jacobian(lambda t: torch.tanh(torch.tensor(mat) @ t), tx)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-14)
