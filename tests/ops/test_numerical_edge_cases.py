"""Numerical edge cases: values where a naive formula overflows, divides 0 by 0, or has no
derivative, each checked against the stable formula (and PyTorch's values when installed).

* softmax, log_softmax and cross_entropy of logits of magnitude 1e4 and with -inf entries,
  through every public entry point, in float32 and float64 (test_fused.py checks the fused
  functions themselves in float64);
* LayerNorm, GroupNorm, InstanceNorm, BatchNorm and RMSNorm of a constant input, where the
  variance is 0: finite outputs and the closed-form gradients;
* sqrt, log, rsqrt, pow and norm at 0: PyTorch's values and gradients (inf where the slope is
  infinite, exact 0 where the function is flat);
* var / std with no degrees of freedom: nan (or inf) with a warning, as PyTorch;
* an integer next to a list in an index: PyTorch's order (the integer selects first);
* a small GPT trained in float32 for 200 steps: no NaN anywhere, and it learns.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import tinygrad_norm as tg
import tinygrad_norm.nn.functional as F
from tinygrad_norm import nn

inf = math.inf
DTYPES = [np.float32, np.float64]
RTOL = {np.float32: 1e-5, np.float64: 1e-12}


def leaf(array, dtype=np.float64):
    return tg.tensor(np.asarray(array, dtype=dtype), requires_grad=True)


def grad_of(out, x, upstream):
    """d(sum(out * upstream))/dx, without touching x.grad."""
    (g,) = tg.autograd.grad(out, x, tg.tensor(np.asarray(upstream, dtype=out.dtype)))
    return g.numpy()


def stable_log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """(x - m) - log(sum exp(x - m)), m the maximum: the reference, in float64."""
    x = np.asarray(x, dtype=np.float64)
    shifted = x - x.max(axis=axis, keepdims=True)
    with np.errstate(divide="ignore"):
        return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


# --- softmax, log_softmax and cross_entropy at 1e4 ------------------------------------------
def huge_logits(seed=0) -> np.ndarray:
    """(2, 4, 3) logits spread over [-1e4, 1e4], with near-ties at the top of some slices."""
    rng = np.random.default_rng(seed)
    x = np.round(rng.uniform(-1e4, 1e4, (2, 4, 3)))
    x[0, 1, :] = [1e4, 1e4 - 1.0, -1e4]  # two large logits one apart: p = (0.73, 0.27, 0)
    x[1, :, 2] = [-1e4, -1e4 + 2.0, -1e4, -1e4]
    return x


SOFTMAX_ENTRY_POINTS = {
    "Tensor.softmax": lambda x, dim: x.softmax(dim),
    "tg.softmax": lambda x, dim: tg.softmax(x, dim),
    "F.softmax": lambda x, dim: F.softmax(x, dim=dim),
    "nn.Softmax": lambda x, dim: nn.Softmax(dim=dim)(x),
}
LOG_SOFTMAX_ENTRY_POINTS = {
    "Tensor.log_softmax": lambda x, dim: x.log_softmax(dim),
    "tg.log_softmax": lambda x, dim: tg.log_softmax(x, dim),
    "F.log_softmax": lambda x, dim: F.log_softmax(x, dim=dim),
    "nn.LogSoftmax": lambda x, dim: nn.LogSoftmax(dim=dim)(x),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("name", sorted(SOFTMAX_ENTRY_POINTS))
def test_softmax_of_logits_1e4_is_the_stable_formula_with_finite_gradients(name, dim, dtype):
    logits = huge_logits()
    x = leaf(logits, dtype)
    y = SOFTMAX_ENTRY_POINTS[name](x, dim)
    p = np.exp(stable_log_softmax(logits, dim))
    assert y.dtype == dtype
    np.testing.assert_allclose(y.numpy(), p, rtol=RTOL[dtype], atol=1e-30)
    upstream = np.random.default_rng(1).standard_normal(x.shape)
    grad = grad_of(y, x, upstream)
    assert np.isfinite(grad).all()
    expected = p * (upstream - (upstream * p).sum(axis=dim, keepdims=True))
    np.testing.assert_allclose(grad, expected, rtol=RTOL[dtype], atol=10 * np.finfo(dtype).eps)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("name", sorted(LOG_SOFTMAX_ENTRY_POINTS))
def test_log_softmax_of_logits_1e4_is_the_stable_formula_with_finite_gradients(name, dim, dtype):
    logits = huge_logits()
    x = leaf(logits, dtype)
    y = LOG_SOFTMAX_ENTRY_POINTS[name](x, dim)
    logp = stable_log_softmax(logits, dim)
    assert np.isfinite(y.numpy()).all() and y.numpy().min() < -1e4  # e.g. -2e4, not -inf
    np.testing.assert_allclose(y.numpy(), logp, rtol=RTOL[dtype], atol=np.finfo(dtype).eps)
    upstream = np.random.default_rng(1).standard_normal(x.shape)
    grad = grad_of(y, x, upstream)
    expected = upstream - np.exp(logp) * upstream.sum(axis=dim, keepdims=True)
    assert np.isfinite(grad).all()
    np.testing.assert_allclose(grad, expected, rtol=RTOL[dtype], atol=10 * np.finfo(dtype).eps)


CROSS_ENTROPY_ENTRY_POINTS = {
    "F.cross_entropy": lambda x, t, **kw: F.cross_entropy(x, t, **kw),
    "nn.CrossEntropyLoss": lambda x, t, **kw: nn.CrossEntropyLoss(**kw)(x, t),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
@pytest.mark.parametrize("name", sorted(CROSS_ENTROPY_ENTRY_POINTS))
def test_cross_entropy_of_logits_1e4_is_the_stable_formula(name, smoothing, dtype):
    """(N, C, d) = (2, 4, 3) logits; some targets sit on classes 2e4 below the best one, so the
    loss is about 1e4, finite; the gradient is (p * sum(q) - q) / N, also finite."""
    logits = huge_logits()
    target = np.array([[0, 1, 3], [2, 1, 0]])
    x = leaf(logits, dtype)
    loss = CROSS_ENTROPY_ENTRY_POINTS[name](x, tg.tensor(target), label_smoothing=smoothing)
    logp = stable_log_softmax(logits, 1)
    onehot = np.moveaxis(np.eye(4)[target], -1, 1)  # (2, 4, 3)
    q = (1 - smoothing) * onehot + smoothing / 4
    n = target.size
    assert loss.dtype == dtype
    np.testing.assert_allclose(loss.item(), -(q * logp).sum() / n, rtol=RTOL[dtype])
    assert 1e3 < loss.item() < 1e5
    grad = grad_of(loss, x, 1.0)
    assert np.isfinite(grad).all()
    np.testing.assert_allclose(grad, (np.exp(logp) - q) / n, rtol=RTOL[dtype], atol=1e-7)


# --- -inf entries: masks ---------------------------------------------------------------------
SCORES = np.array([[0.5, 2.0, -1.0, 3.0], [1.0, 1.0, 1.0, 1.0], [-2.0, 0.0, 4.0, 1.5]])
MASK = np.array(
    [[False, True, False, True], [True, True, True, False], [False, False, False, False]]
)


@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_of_masked_scores_gives_exact_zeros_and_zero_gradients_where_masked(dtype):
    """Attention's pattern: scores.masked_fill(mask, -inf).softmax(-1). Masked entries get
    probability exactly 0, and their scores a gradient of exactly 0 (not NaN)."""
    scores = leaf(SCORES, dtype)
    weights = scores.masked_fill(tg.tensor(MASK), -inf).softmax(-1)
    p = np.exp(stable_log_softmax(np.where(MASK, -inf, SCORES), -1))
    np.testing.assert_allclose(weights.numpy(), p, rtol=RTOL[dtype])
    assert (weights.numpy()[MASK] == 0).all()
    upstream = np.random.default_rng(2).standard_normal(SCORES.shape)
    grad = grad_of(weights, scores, upstream)
    assert np.isfinite(grad).all() and (grad[MASK] == 0).all()
    expected = p * (upstream - (upstream * p).sum(-1, keepdims=True))
    np.testing.assert_allclose(grad, expected, rtol=RTOL[dtype], atol=1e-7)


@pytest.mark.parametrize("dtype", DTYPES)
def test_log_softmax_of_masked_scores_is_minus_inf_exactly_there_and_finite_elsewhere(dtype):
    scores = leaf(SCORES, dtype)
    logp = F.log_softmax(scores.masked_fill(tg.tensor(MASK), -inf), dim=1)
    reference = stable_log_softmax(np.where(MASK, -inf, SCORES), 1)
    assert (logp.numpy()[MASK] == -inf).all() and np.isfinite(logp.numpy()[~MASK]).all()
    np.testing.assert_allclose(logp.numpy()[~MASK], reference[~MASK], rtol=RTOL[dtype])
    upstream = np.random.default_rng(3).standard_normal(SCORES.shape)
    used = logp.masked_fill(tg.tensor(MASK), 0.0)  # a loss reads the entries that exist
    grad = grad_of(used, scores, upstream)
    kept = np.where(MASK, 0.0, upstream)
    expected = kept - np.exp(reference) * kept.sum(1, keepdims=True)
    assert np.isfinite(grad).all() and (grad[MASK] == 0).all()
    np.testing.assert_allclose(grad, expected, rtol=RTOL[dtype], atol=1e-7)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cross_entropy_with_minus_inf_logits_off_the_target_is_finite(dtype):
    logits = np.where(MASK, -inf, SCORES)
    target = np.array([0, 3, 2])  # never a masked class
    x = leaf(logits, dtype)
    loss = F.cross_entropy(x, tg.tensor(target))
    logp = stable_log_softmax(logits, 1)
    np.testing.assert_allclose(loss.item(), -logp[np.arange(3), target].mean(), rtol=RTOL[dtype])
    grad = grad_of(loss, x, 1.0)
    expected = (np.exp(logp) - np.eye(4)[target]) / 3
    assert np.isfinite(grad).all() and (grad[MASK] == 0).all()
    np.testing.assert_allclose(grad, expected, rtol=RTOL[dtype], atol=1e-7)


def test_cross_entropy_with_probabilities_zero_on_minus_inf_classes_is_finite():
    """q_c = 0 on a class of probability 0 adds 0 * log 0 = 0 (the documented convention;
    PyTorch's composed formula gives NaN there)."""
    logits = np.where(MASK, -inf, SCORES)
    q = np.where(MASK, 0.0, 1.0)
    q /= q.sum(1, keepdims=True)
    x = leaf(logits)
    loss = F.cross_entropy(x, tg.tensor(q))
    logp = stable_log_softmax(logits, 1)
    with np.errstate(invalid="ignore"):  # 0 * -inf, replaced by 0 just below
        expected = -np.where(MASK, 0.0, q * logp).sum() / 3
    np.testing.assert_allclose(loss.item(), expected, rtol=1e-12)
    grad = grad_of(loss, x, 1.0)
    np.testing.assert_allclose(grad, (np.exp(logp) - q) / 3, rtol=1e-12, atol=1e-15)


def test_cross_entropy_whose_target_class_is_minus_inf_is_infinite_not_nan():
    """log p = -inf for the target: the loss really is infinite (PyTorch: inf too)."""
    x = leaf([[0.0, -inf, 1.0]])
    loss = F.cross_entropy(x, tg.tensor([1]))
    assert loss.item() == inf


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", DTYPES)
def test_huge_and_masked_logits_match_pytorch(dtype):
    torch = pytest.importorskip("torch")
    logits = huge_logits()
    target = np.array([[0, 1, 3], [2, 1, 0]])
    masked = np.where(MASK, -inf, SCORES)
    ce = lambda m, x, t, **kw: m.nn.functional.cross_entropy(x, m.tensor(t), **kw)  # noqa: E731
    cases = [
        (logits, lambda m, x: m.softmax(x, 1)),
        (logits, lambda m, x: m.log_softmax(x, -1)),
        (logits, lambda m, x: ce(m, x, target)),
        (logits, lambda m, x: ce(m, x, target, reduction="none")),
        (logits, lambda m, x: ce(m, x, target, label_smoothing=0.2)),
        (masked, lambda m, x: m.softmax(x, -1)),
        (masked, lambda m, x: ce(m, x, [0, 3, 2])),
    ]
    for i, (array, f) in enumerate(cases):
        x = leaf(array, dtype)
        t = torch.tensor(np.asarray(array, dtype=dtype), requires_grad=True)
        y, ty = f(tg, x), f(torch, t)
        np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=RTOL[dtype], err_msg=str(i))
        upstream = np.random.default_rng(i).standard_normal(y.shape).astype(dtype)
        (ty * torch.tensor(upstream)).sum().backward()
        grad = grad_of(y, x, upstream)
        np.testing.assert_allclose(
            grad, t.grad.numpy(), rtol=RTOL[dtype], atol=10 * np.finfo(dtype).eps, err_msg=str(i)
        )


# --- normalizations of a constant input ----------------------------------------------------------
# Each normalizes over `axes`: a constant there has variance 0, so y = 0 * weight + bias, and
# the gradient is the closed form of d(x - mean)/sqrt(var + eps) at var = 0, x = mean:
#     grad_x = (g_w - mean_axes(g_w)) / sqrt(eps),   g_w = upstream * weight,
# large (1 / sqrt(1e-5) = 316) but finite. grad_weight = sum(upstream * 0) = 0 and
# grad_bias = sum(upstream) over everything but the parameter's own axes.
NORMS = {
    # name: (make module, input shape, normalized axes, axes of the parameters' shape)
    "LayerNorm": (lambda: nn.LayerNorm(3), (2, 4, 3), (2,), (2,)),
    "LayerNorm(dimensions=2)": (lambda: nn.LayerNorm(dimensions=2), (2, 4, 3), (1, 2), (1, 2)),
    "GroupNorm": (lambda: nn.GroupNorm(2, 4), (2, 4, 3), None, (1,)),  # groups: see below
    "InstanceNorm1d": (lambda: nn.InstanceNorm1d(4, affine=True), (2, 4, 3), (2,), (1,)),
    "InstanceNorm2d": (lambda: nn.InstanceNorm2d(4, affine=True), (2, 4, 3, 2), (2, 3), (1,)),
    "BatchNorm1d": (lambda: nn.BatchNorm1d(4), (2, 4, 3), (0, 2), (1,)),
}


def _randomize(module, dtype):
    """Weights and biases away from 1 and 0, so they show up in the closed forms."""
    module = module.to(dtype)
    rng = np.random.default_rng(5)
    for p in module.parameters():
        p.numpy()[...] = rng.uniform(0.5, 1.5, p.shape)
    return module


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(NORMS))
@pytest.mark.parametrize("constant", [3.0, 0.0])
def test_normalization_of_a_constant_input_is_finite_with_the_closed_form_gradient(
    name, constant, dtype
):
    make, shape, axes, param_axes = NORMS[name]
    module = make()
    x = leaf(np.full(shape, constant), dtype)
    if name.startswith("LayerNorm(dimensions"):
        module(x.detach())  # the first call gives its weights their shape
    module = _randomize(module, dtype)
    y = module(x)
    upstream = np.random.default_rng(6).standard_normal(shape)
    y.backward(tg.tensor(upstream.astype(dtype)))
    params = dict(module.named_parameters())
    weight = params["weight"].numpy().astype(np.float64)
    bias = params["bias"].numpy().astype(np.float64)
    broadcast = [1] * len(shape)
    for a in param_axes:
        broadcast[a] = shape[a]
    weight, bias = weight.reshape(broadcast), bias.reshape(broadcast)

    assert np.isfinite(y.numpy()).all() and np.isfinite(x.grad.numpy()).all()
    np.testing.assert_allclose(y.numpy(), np.broadcast_to(bias, shape), rtol=RTOL[dtype])
    g_w = upstream * weight
    if name == "GroupNorm":  # 2 groups of 2 channels, each over (channels, length)
        grouped = g_w.reshape(2, 2, 2, 3)
        centered = (grouped - grouped.mean(axis=(2, 3), keepdims=True)).reshape(shape)
    else:
        centered = g_w - g_w.mean(axis=axes, keepdims=True)
    expected = centered / math.sqrt(1e-5)
    np.testing.assert_allclose(
        x.grad.numpy(), expected, rtol=100 * RTOL[dtype], atol=1e-3 if dtype == np.float32 else 1e-9
    )
    others = tuple(a for a in range(len(shape)) if a not in param_axes)
    np.testing.assert_allclose(params["weight"].grad.numpy(), 0.0, atol=1e-9)
    np.testing.assert_allclose(
        params["bias"].grad.numpy(),
        upstream.sum(axis=others).reshape(params["bias"].shape),
        rtol=RTOL[dtype] * 10,
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_rms_norm_of_zeros_is_zero_with_gradient_weight_over_sqrt_eps(dtype):
    """RMSNorm at x = 0: y = x * w / sqrt(mean(x²) + eps) = 0, and since mean(x²) is flat at
    0, dy/dx = w / sqrt(eps), with eps = machine epsilon by default (PyTorch's)."""
    module = _randomize(nn.RMSNorm(3), dtype)
    x = leaf(np.zeros((2, 4, 3)), dtype)
    y = module(x)
    upstream = np.random.default_rng(7).standard_normal(x.shape)
    y.backward(tg.tensor(upstream.astype(dtype)))
    eps = np.finfo(dtype).eps
    assert (y.numpy() == 0).all()
    assert np.isfinite(x.grad.numpy()).all()
    np.testing.assert_allclose(
        x.grad.numpy(), upstream * module.weight.numpy() / math.sqrt(eps), rtol=RTOL[dtype] * 10
    )
    np.testing.assert_array_equal(module.weight.grad.numpy(), 0.0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rms_norm_of_a_constant_is_its_sign_times_weight(dtype):
    module = _randomize(nn.RMSNorm(3), dtype)
    x = leaf(np.full((2, 3), -3.0), dtype)
    y = module(x)
    y.sum().backward()
    expected = -3.0 / math.sqrt(9.0 + np.finfo(dtype).eps) * module.weight.numpy()
    np.testing.assert_allclose(y.numpy(), np.broadcast_to(expected, (2, 3)), rtol=RTOL[dtype])
    assert np.isfinite(x.grad.numpy()).all() and np.isfinite(module.weight.grad.numpy()).all()


@pytest.mark.oracle
@pytest.mark.parametrize("constant", [3.0, 0.0])
def test_normalizations_of_a_constant_match_pytorch(constant):
    torch = pytest.importorskip("torch")
    tnn = torch.nn
    pairs = [
        (nn.LayerNorm(3), tnn.LayerNorm(3), (2, 4, 3)),
        (nn.GroupNorm(2, 4), tnn.GroupNorm(2, 4), (2, 4, 3)),
        (nn.InstanceNorm1d(4, affine=True), tnn.InstanceNorm1d(4, affine=True), (2, 4, 3)),
        (nn.BatchNorm1d(4), tnn.BatchNorm1d(4), (2, 4, 3)),
        (nn.RMSNorm(3), tnn.RMSNorm(3), (2, 4, 3)),
    ]
    for ours, theirs, shape in pairs:
        ours = _randomize(ours, np.float64)
        theirs = theirs.double()
        with torch.no_grad():
            for name, p in theirs.named_parameters():
                p.copy_(torch.tensor(dict(ours.named_parameters())[name].numpy()))
        x = leaf(np.full(shape, constant))
        t = torch.tensor(np.full(shape, constant), requires_grad=True)
        y, ty = ours(x), theirs(t)
        upstream = np.random.default_rng(8).standard_normal(shape)
        y.backward(tg.tensor(upstream))
        ty.backward(torch.tensor(upstream))
        label = type(ours).__name__
        np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-12, err_msg=label)
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-9, err_msg=label)
        for name, p in theirs.named_parameters():
            np.testing.assert_allclose(
                dict(ours.named_parameters())[name].grad.numpy(),
                p.grad.numpy(),
                rtol=1e-9,
                atol=1e-12,
                err_msg=f"{label}.{name}",
            )


# --- sqrt, log, pow at 0 -------------------------------------------------------------------------
# (name, f, value at 0, derivative at 0): PyTorch's, also where the maths has only a one-sided
# limit (sqrt, log) or a flat function whose chain rule would read 0 * inf (x ** 0).
AT_ZERO = [
    ("sqrt", lambda x: x.sqrt(), 0.0, inf),
    ("log", lambda x: x.log(), -inf, inf),
    ("rsqrt", lambda x: x.rsqrt(), inf, -inf),
    ("x ** 2", lambda x: x**2, 0.0, 0.0),
    ("x ** 3", lambda x: x**3, 0.0, 0.0),
    ("x ** 1", lambda x: x**1, 0.0, 1.0),
    ("x ** 0", lambda x: x**0, 1.0, 0.0),
    ("x ** 0.5", lambda x: x**0.5, 0.0, inf),
    ("x ** 1.5", lambda x: x**1.5, 0.0, 0.0),
    ("x ** -1", lambda x: x**-1, inf, -inf),
    ("x ** -0.5", lambda x: x**-0.5, inf, -inf),
    ("x.pow(2.0)", lambda x: x.pow(2.0), 0.0, 0.0),
    ("norm of zeros", lambda x: x.expand(2, 3).norm(dim=-1), 0.0, 0.0),
    ("norm(p=3) of zeros", lambda x: x.expand(2, 3).norm(p=3, dim=-1), 0.0, 0.0),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy on log(0), 1 / 0
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, f, value, slope", AT_ZERO, ids=[c[0] for c in AT_ZERO])
def test_value_and_gradient_at_zero_are_pytorchs(name, f, value, slope, dtype):
    x = leaf([[0.0], [4.0]], dtype)  # 0 beside an ordinary point, whose gradient stays right
    y = f(x)
    y.sum().backward()
    assert y.numpy().reshape(-1)[0] == value
    np.testing.assert_array_equal(x.grad.numpy()[0], slope)
    assert np.isfinite(x.grad.numpy()[1]).all()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_zero_to_a_tensor_power_is_flat_in_the_exponent_where_defined():
    """d(a^b)/db = a^b log(a): at a = 0 and b >= 0 the function is constant in b (0, or 1 at
    b = 0), so the gradient is 0, as PyTorch's; below 0 it is -inf."""
    base = leaf([0.0, 0.0, 0.0, 0.0, 2.0])
    exponent = leaf([2.0, 0.0, 0.5, -1.0, 0.5])
    (base**exponent).sum().backward()
    np.testing.assert_array_equal(base.grad.numpy()[:4], [0.0, 0.0, inf, -inf])
    np.testing.assert_array_equal(exponent.grad.numpy()[:4], [0.0, 0.0, 0.0, -inf])
    np.testing.assert_allclose(base.grad.numpy()[4], 0.5 / math.sqrt(2), rtol=1e-15)
    np.testing.assert_allclose(exponent.grad.numpy()[4], math.sqrt(2) * math.log(2), rtol=1e-15)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy on 0 ** -1 inside backward
def test_x_to_the_zero_stays_twice_differentiable():
    x = leaf([0.0, 1.5])
    (grad,) = tg.autograd.grad((x**0).sum(), x, create_graph=True)
    assert grad.requires_grad
    np.testing.assert_array_equal(grad.numpy(), [0.0, 0.0])
    assert tg.gradgradcheck(lambda x: x**0 + x**2, leaf([0.5, 1.5]))


@pytest.mark.oracle
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", DTYPES)
def test_values_and_gradients_at_zero_match_pytorch(dtype):
    torch = pytest.importorskip("torch")
    for name, f, _, _ in AT_ZERO:
        x = leaf([[0.0], [4.0]], dtype)
        t = torch.tensor(np.array([[0.0], [4.0]], dtype=dtype), requires_grad=True)
        y, ty = f(x), f(t)
        y.sum().backward()
        ty.sum().backward()
        np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-6, err_msg=name)
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-6, err_msg=name)
    base, exponent = leaf([0.0, 0.0, 0.0, 0.0]), leaf([2.0, 0.0, 0.5, -1.0])
    t_base = torch.tensor([0.0, 0.0, 0.0, 0.0], dtype=torch.float64, requires_grad=True)
    t_exponent = torch.tensor([2.0, 0.0, 0.5, -1.0], dtype=torch.float64, requires_grad=True)
    (base**exponent).sum().backward()
    (t_base**t_exponent).sum().backward()
    np.testing.assert_array_equal(base.grad.numpy(), t_base.grad.numpy())
    np.testing.assert_array_equal(exponent.grad.numpy(), t_exponent.grad.numpy())


# --- var / std without degrees of freedom -------------------------------------------------------
def test_unbiased_var_of_one_element_is_nan_with_a_warning_as_pytorch():
    x = leaf([3.0])
    with pytest.warns(UserWarning, match=r"var: 1 element.*correction=1.*unbiased=False"):
        v = x.var()
    assert math.isnan(v.item())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's 0 / 0 inside backward
        v.backward()
    assert np.isnan(x.grad.numpy()).all()  # PyTorch: nan too


def test_unbiased_std_and_var_over_a_dim_of_size_one():
    x = leaf(np.arange(3.0).reshape(1, 3))
    with pytest.warns(UserWarning, match="std: 1 element"):
        s = x.std(dim=0)
    assert s.shape == (3,) and np.isnan(s.numpy()).all()
    with pytest.warns(UserWarning, match="var: 1 element"):
        v = tg.var(x, dim=0, keepdim=True)
    assert v.shape == (1, 3) and np.isnan(v.numpy()).all()


def test_biased_var_of_one_element_is_zero_without_a_warning():
    x = leaf([3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = x.var(unbiased=False)
        v.backward()
    assert v.item() == 0.0 and x.grad.numpy().tolist() == [0.0]


def test_a_correction_beyond_the_count_is_inf_never_a_negative_variance():
    x = leaf([1.0, 2.0])
    with pytest.warns(UserWarning, match="correction=3"):
        v = x.var(correction=3)
    assert v.item() == inf  # sum of squares 0.5 over max(0, 2 - 3) = 0, as PyTorch


@pytest.mark.oracle
def test_var_without_degrees_of_freedom_matches_pytorch():
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for data, kwargs in [
            ([3.0], {}),
            ([1.0, 2.0], {"correction": 2}),
            ([[1.0, 2.0]], {"dim": 0}),
        ]:
            ours = leaf(data).var(**kwargs).numpy()
            theirs = torch.tensor(data, dtype=torch.float64).var(**kwargs).numpy()
            np.testing.assert_array_equal(ours, theirs)
            x, t = leaf([5.0]), torch.tensor([5.0], dtype=torch.float64, requires_grad=True)
            x.var().backward()
            t.var().backward()
            np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())


# --- indexing: an integer next to a list -------------------------------------------------------
def test_an_integer_and_a_list_separated_by_a_slice_index_in_pytorchs_order():
    """x[0, :, [1, 1]] on (2, 3, 4): PyTorch selects x[0] (3, 4) first, then columns [1, 1]:
    (3, 2). NumPy alone gives (2, 3). The repeated column's gradient adds up."""
    data = np.arange(24.0).reshape(2, 3, 4)
    x = leaf(data)
    y = x[0, :, [1, 1]]
    assert y.shape == (3, 2)
    np.testing.assert_array_equal(y.numpy(), data[0][:, [1, 1]])
    y.backward(tg.ones(3, 2, dtype=tg.float64))
    expected = np.zeros_like(data)
    expected[0, :, 1] = 2.0
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    z = tg.tensor(data.copy())
    z[1, :, [0, 3]] = tg.zeros(3, 2, dtype=tg.float64)  # setitem follows the same order
    assert (z.numpy()[1][:, [0, 3]] == 0).all() and z.numpy().sum() == data.sum() - data[1][
        :, [0, 3]
    ].sum()


@pytest.mark.oracle
def test_mixed_integer_and_list_indices_match_pytorch():
    torch = pytest.importorskip("torch")
    data = np.arange(24.0).reshape(2, 3, 4)
    for index in [(0, slice(None), [1, 1]), ([1, 0], slice(None), -1), (..., [0, 2], 1),
                  (1, None, slice(1, 3), [3, 3, 0])]:  # fmt: skip
        t_index = tuple(torch.tensor(i) if isinstance(i, list) else i for i in index)
        x, t = leaf(data), torch.tensor(data, requires_grad=True)
        y, ty = x[index], t[t_index]
        assert y.shape == tuple(ty.shape), index
        np.testing.assert_array_equal(y.numpy(), ty.detach().numpy())
        y.sum().backward()
        ty.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())


# --- a GPT trained in float32 ------------------------------------------------------------------
def test_gpt_trains_in_float32_for_200_steps_without_nan():
    """A 2-layer GPT learns to sort 4 digits (AdamW, lr 1e-2, dropout on). Every loss and, at
    every step, every gradient is finite; everything stays float32; the loss falls."""
    tg.manual_seed(0)
    config = tg.models.GPTConfig(vocab_size=8, n_ctx=8, d_model=16, n_layer=2, n_head=2)
    model = tg.models.GPT(config)
    optimizer = tg.optim.AdamW(model.parameters(), lr=1e-2)
    rng = np.random.default_rng(0)
    losses = []
    for step in range(200):
        digits = rng.integers(0, 8, (4, 4))
        sequence = np.concatenate([digits, np.sort(digits, axis=1)], axis=1)  # (4, 8)
        idx, targets = sequence[:, :-1], sequence[:, 1:].copy()
        targets[:, :3] = -100  # only the sorted half is predictable
        _, loss = model(tg.tensor(idx), targets=tg.tensor(targets))
        optimizer.zero_grad()
        loss.backward()
        for name, p in model.named_parameters():
            assert p.grad.dtype == tg.float32 and np.isfinite(p.grad.numpy()).all(), (step, name)
        optimizer.step()
        assert loss.dtype == tg.float32 and math.isfinite(loss.item()), step
        losses.append(loss.item())
    for name, p in model.named_parameters():
        assert p.dtype == tg.float32 and np.isfinite(p.numpy()).all(), name
    assert np.mean(losses[-20:]) < 0.6 * np.mean(losses[:20])


def test_argmin_of_unsigned_integers_and_bools():
    """argmin is its own search, not argmax of -x: -x wraps around for unsigned integers
    (-[0, 1] is [0, 255] in uint8); bools are refused, as PyTorch refuses them."""
    assert tg.tensor(np.array([0, 1], dtype=np.uint8)).argmin().item() == 0
    assert tg.tensor(np.array([[2, 0], [0, 3]], dtype=np.uint8)).argmin(dim=1).tolist() == [1, 0]
    with pytest.raises(RuntimeError, match="argmin"):
        tg.tensor(np.array([True, False, True])).argmin()
