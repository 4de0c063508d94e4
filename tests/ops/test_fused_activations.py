"""The ELU family, hardswish (ops/fused/elu.py), leaky_relu (ops/fused/leaky_relu.py) and
hardtanh (ops/fused/clamp.py) as one node each against their composed
references: values and gradients (plain backward on arrays), first and second derivatives
(recorded, float64), edge values (0, +-3, +-inf, NaN), float32 kept."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.nn.functional.activation import SELU_ALPHA, SELU_SCALE
from tinygrad_norm.ops.fused import (
    Hardtanh,
    LeakyRelu,
    elu,
    elu_reference,
    hardswish,
    hardswish_reference,
    hardtanh_reference,
    leaky_relu_reference,
)

EDGES = np.array([0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 2.9, -2.9, 1e-8, 50.0, -50.0, np.inf, -np.inf])
PARAMS = [(1.0, 1.0, 1.0), (1.5, 1.0, 1.0), (SELU_ALPHA, SELU_SCALE, 1.0), (0.7, 1.0, 1 / 0.7)]
KINDS = [(lambda x, p=p: elu(x, *p), lambda x, p=p: elu_reference(x, *p)) for p in PARAMS]
KINDS.append((hardswish, hardswish_reference))
for slope in (0.01, 0.2, 1.0, 1.5, -0.3, 0.0):
    KINDS.append(
        (
            lambda x, s=slope: LeakyRelu.apply(x, s),
            lambda x, s=slope: leaky_relu_reference(x, s),
        )
    )
for low, high in ((-1.0, 1.0), (0.0, 6.0), (-2.9, 3.0)):
    KINDS.append(
        (
            lambda x, a=low, b=high: Hardtanh.apply(x, a, b),
            lambda x, a=low, b=high: hardtanh_reference(x, a, b),
        )
    )


def _value_and_grad(fn, array, g):
    x = tg.tensor(array, requires_grad=True)
    out = fn(x)
    out.backward(tg.tensor(g))
    return out.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("fast, reference", KINDS)
def test_equals_the_composed_reference(fast, reference):
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.standard_normal(50) * 4, EDGES, [np.nan]])
    g = rng.standard_normal(values.size)
    (y, grad), (y_ref, grad_ref) = (_value_and_grad(f, values, g) for f in (fast, reference))
    np.testing.assert_allclose(y, y_ref, rtol=1e-15, atol=1e-300, equal_nan=True)
    # NOTE the reference's Expm1 backward, exp(x) = expm1(x) + 1, cancels where exp(x) is
    # small (0 at x = -50); the fused backward takes exp(x) itself
    np.testing.assert_allclose(grad, grad_ref, rtol=1e-12, atol=1e-15, equal_nan=True)


@pytest.mark.parametrize("fast, reference", KINDS)
def test_first_and_second_derivatives(fast, reference):
    values = np.random.default_rng(1).standard_normal((3, 4)) * 3
    x = tg.tensor(values, requires_grad=True)
    assert tg.autograd.gradcheck(fast, [x])
    assert tg.autograd.gradgradcheck(fast, [x])


@pytest.mark.parametrize("fast, reference", KINDS)
def test_float32_and_zero_dimensional(fast, reference):
    x = tg.tensor(np.float32(-0.5), requires_grad=True)
    out = fast(x)
    out.backward()
    assert out.dtype == tg.float32 and out.ndim == 0 and x.grad.dtype == tg.float32
    np.testing.assert_allclose(out.item(), reference(tg.tensor(np.float32(-0.5))).item())


def test_one_node():
    x = tg.tensor([1.0, -1.0], requires_grad=True)
    for fn in (tg.nn.functional.elu, tg.nn.functional.selu, tg.nn.functional.celu):
        assert fn(x).grad_fn.fn is tg.ops.fused.Elu
    assert tg.nn.functional.hardswish(x).grad_fn.fn is tg.ops.fused.Hardswish
    assert tg.nn.functional.leaky_relu(x).grad_fn.fn is tg.ops.fused.LeakyRelu
    for fn in (tg.nn.functional.hardtanh, tg.nn.functional.relu6):
        assert fn(x).grad_fn.fn is tg.ops.fused.Hardtanh


@pytest.mark.parametrize("g", [1.0, -1.0])
def test_hardswish_gradient_below_minus_three_is_plus_zero(g):
    """PyTorch's backward writes 0 there, whatever the sign of the incoming gradient."""
    x = tg.tensor([-4.0, -3.0], requires_grad=True)
    (tg.nn.functional.hardswish(x) * g).sum().backward()
    assert not np.signbit(x.grad.numpy()).any()
