"""`torch.func` (`tg.func`): grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, vmap,
functional_call, against NumPy formulas and (oracle) PyTorch."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm import func

X = np.array([0.3, -1.2, 2.0])


def t(values, requires_grad=False):
    return tg.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


def f(x):
    return (x.sin() * x).sum()


def grad_f(x):  # d/dx sum(x sin x) = sin x + x cos x
    return np.sin(x) + x * np.cos(x)


def hess_f(x):  # diagonal: 2 cos x - x sin x
    return np.diag(2 * np.cos(x) - x * np.sin(x))


def test_grad_and_value_and_aux():
    g = func.grad(f)(t(X))
    np.testing.assert_allclose(g.numpy(), grad_f(X), rtol=1e-12)
    assert g.grad_fn is None and not g.requires_grad  # a plain Tensor at the outermost level
    g, value = func.grad_and_value(f)(t(X))
    np.testing.assert_allclose(value.item(), np.sum(X * np.sin(X)), rtol=1e-12)
    g, aux = func.grad(lambda x: (f(x), x.max()), has_aux=True)(t(X))
    assert aux.item() == 2.0


def test_grad_with_respect_to_several_arguments_and_a_dict():
    a, b = t([1.0, 2.0]), t([3.0, 4.0])
    ga, gb = func.grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(a, b)
    assert ga.tolist() == [3.0, 4.0] and gb.tolist() == [1.0, 2.0]
    g = func.grad(lambda p: (p["w"] * p["b"][0]).sum())({"w": a, "b": (b,)})
    assert g["w"].tolist() == [3.0, 4.0] and g["b"][0].tolist() == [1.0, 2.0]


def test_grad_refuses_a_non_scalar_output():
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor"):
        func.grad(lambda x: x * 2)(t(X))


def test_grad_of_grad_and_an_argument_that_requires_grad():
    second = func.grad(lambda x: func.grad(lambda y: y.sin().sum())(x).sum())(t(X))
    np.testing.assert_allclose(second.numpy(), -np.sin(X), rtol=1e-12)
    x = t(X, requires_grad=True)
    g = func.grad(f)(x)
    assert g.requires_grad  # stays differentiable for the caller
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.diag(hess_f(X)), rtol=1e-12)


def test_vjp_and_jvp():
    out, vjp_fn = func.vjp(lambda a, b: a * b.cos(), t(X), t(X + 1))
    ga, gb = vjp_fn(tg.ones(3, dtype=tg.float64))
    np.testing.assert_allclose(ga.numpy(), np.cos(X + 1), rtol=1e-12)
    np.testing.assert_allclose(gb.numpy(), -X * np.sin(X + 1), rtol=1e-12)
    again = vjp_fn(tg.ones(3, dtype=tg.float64))  # may be called again
    np.testing.assert_allclose(again[0].numpy(), np.cos(X + 1), rtol=1e-12)
    out, tangent = func.jvp(lambda x: x.exp() * 2, (t(X),), (t([1.0, 0.0, 2.0]),))
    np.testing.assert_allclose(tangent.numpy(), 2 * np.exp(X) * [1.0, 0.0, 2.0], rtol=1e-12)
    np.testing.assert_allclose(out.numpy(), 2 * np.exp(X), rtol=1e-12)


def test_jacobians_both_ways_and_the_hessian():
    w = np.arange(6.0).reshape(2, 3) / 5

    def g(x):
        return t(w) @ x.tanh()

    want = w * (1 - np.tanh(X) ** 2)
    np.testing.assert_allclose(func.jacrev(g)(t(X)).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(func.jacfwd(g)(t(X)).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(func.hessian(f)(t(X)).numpy(), hess_f(X), atol=1e-12)
    np.testing.assert_allclose(func.jacfwd(func.jacrev(f))(t(X)).numpy(), hess_f(X), atol=1e-12)
    both = func.jacrev(lambda a, b: a * b, argnums=(0, 1))(t(X), t(X + 1))
    np.testing.assert_allclose(both[1].numpy(), np.diag(X), rtol=1e-12)
    pair = func.jacfwd(lambda x: (x * 2, x.sum()))(t(X))
    assert pair[0].shape == (3, 3) and pair[1].shape == (3,)


def test_vmap_in_dims_out_dims_and_nesting():
    x = t(np.arange(6.0).reshape(2, 3))
    assert func.vmap(lambda r: r.sum())(x).tolist() == [3.0, 12.0]
    assert func.vmap(lambda c: c.sum(), in_dims=1)(x).tolist() == [3.0, 5.0, 7.0]
    scaled = func.vmap(lambda r, s: r * s, in_dims=(0, None), out_dims=1)(x, t(2.0))
    assert scaled.shape == (3, 2) and scaled[:, 1].tolist() == [6.0, 8.0, 10.0]
    batch = t(np.ones((2, 3, 4)))
    assert func.vmap(func.vmap(lambda a, b: (a * b).sum()))(batch, batch).shape == (2, 3)
    pair = func.vmap(lambda r: {"max": r.max(), "row": r * 2})(x)
    assert pair["max"].tolist() == [2.0, 5.0] and pair["row"].shape == (2, 3)


def test_vmap_refuses_what_pytorch_refuses():
    with pytest.raises(ValueError, match="same size in the mapped dimension"):
        func.vmap(lambda a, b: a + b)(t([1.0, 2.0]), t([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="At least one of the inputs must be batched"):
        func.vmap(lambda a: a, in_dims=None)(t([1.0]))


def test_per_sample_gradients_with_functional_call():
    tg.manual_seed(0)
    model = tg.nn.Linear(3, 1).double()
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = t(np.arange(12.0).reshape(4, 3) / 10), t([[1.0], [0.0], [2.0], [1.0]])

    def loss(params, xi, yi):
        return ((func.functional_call(model, params, (xi,)) - yi) ** 2).sum()

    grads = func.vmap(func.grad(loss), in_dims=(None, 0, 0))(params, x, y)
    w, b = model.weight.detach().numpy(), model.bias.detach().numpy()
    residual = x.numpy() @ w.T + b - y.numpy()  # (4, 1)
    want = 2 * residual[:, :, None] * x.numpy()[:, None]
    np.testing.assert_allclose(grads["weight"].numpy(), want)
    np.testing.assert_allclose(grads["bias"].numpy(), 2 * residual)
    assert isinstance(model.weight, tg.nn.Parameter)  # the module is as it was
    with pytest.raises(AttributeError, match="no parameter or buffer 'nope'"):
        func.functional_call(model, {"nope": x}, (x,))


def test_custom_functions_work_inside_the_transforms():
    class Cube(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x**2

    g = func.vmap(func.grad(lambda x: Cube.apply(x).sum()))(t(np.ones((2, 2))))
    assert g.tolist() == [[3.0, 3.0], [3.0, 3.0]]
    hessian = func.hessian(lambda x: Cube.apply(x).sum())(t(X))
    np.testing.assert_allclose(hessian.numpy(), np.diag(6 * X))


@pytest.mark.oracle
def test_pytorch_gives_the_same_numbers():
    torch = pytest.importorskip("torch")
    from torch import func as their

    def theirs_tensor(values):
        return torch.tensor(np.asarray(values, dtype=np.float64))

    def ours_and_theirs(fn):
        return fn(tg, func, t), fn(torch, their, theirs_tensor)

    cases = [
        lambda m, fx, mk: fx.jacrev(lambda x: (x.sin() * x.exp()).cumsum(0))(mk(X)),
        lambda m, fx, mk: fx.jacfwd(lambda x: x.tanh() * x[0])(mk(X)),
        lambda m, fx, mk: fx.hessian(lambda x: (x.sin() * x).sum() * x.prod())(mk(X)),
        lambda m, fx, mk: fx.vmap(fx.grad(lambda x: (x.exp() * x).sum()))(mk(np.ones((2, 3)))),
        lambda m, fx, mk: fx.jvp(lambda x: x.sigmoid(), (mk(X),), (mk([1.0, 2.0, 3.0]),))[1],
        lambda m, fx, mk: fx.vjp(lambda x: x.cos(), mk(X))[1](mk([1.0, 0.5, 2.0]))[0],
    ]  # fmt: skip
    for case in cases:
        ours, theirs = ours_and_theirs(case)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-12)
