"""Every operation against PyTorch in float64: values, gradients and second derivatives.

Skipped when PyTorch is not installed; `make test-oracle` installs it.
"""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.testing.op_cases import CASES, CASES_BY_NAME

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

RTOL, ATOL = 1e-10, 1e-12

# Ops whose second derivatives are compared with PyTorch's (a representative set).
SECOND_ORDER = [
    "mul_broadcast",
    "div_broadcast",
    "pow_tensor",
    "exp",
    "log",
    "sqrt",
    "tanh",
    "sigmoid",
    "erf",
    "var_unbiased",
    "std",
    "norm_dim",
    "softmax",
    "log_softmax",
    "matmul_batch_broadcast",
    "layer_norm_by_hand",
]


def as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def both(case):
    """The same float64 inputs as tinygrad_norm and as PyTorch leaves."""
    arrays = case.inputs()
    ours = tuple(tg.tensor(a, requires_grad=True) for a in arrays)
    theirs = tuple(torch.tensor(a, requires_grad=True) for a in arrays)
    return ours, theirs


def weights_for(outputs, seed=1):
    """A fixed random upstream gradient per output, as NumPy arrays."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(tuple(o.shape)) for o in outputs]


def assert_close(ours, theirs):
    np.testing.assert_allclose(np.asarray(ours.data), theirs.detach().numpy(), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("case", [c for c in CASES if c.torch], ids=lambda c: c.name)
def test_values_and_gradients_equal_pytorch(case):
    ours, theirs = both(case)
    outs, touts = as_tuple(case.fn(tg, *ours)), as_tuple(case.fn(torch, *theirs))
    assert len(outs) == len(touts)
    for o, t in zip(outs, touts):
        assert tuple(o.shape) == tuple(t.shape)
        assert_close(o, t)
    ws = weights_for(outs)
    sum((o * tg.tensor(w)).sum() for o, w in zip(outs, ws)).backward()
    sum((t * torch.tensor(w)).sum() for t, w in zip(touts, ws)).backward()
    for x, tx in zip(ours, theirs):
        assert x.grad is not None and tx.grad is not None
        assert_close(x.grad, tx.grad)


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_second_derivatives_equal_pytorch(name):
    """d/dx of (wᵀ J(x) u): a Hessian-vector-style product through every op of the case."""
    case = CASES_BY_NAME[name]
    ours, theirs = both(case)
    outs, touts = as_tuple(case.fn(tg, *ours)), as_tuple(case.fn(torch, *theirs))
    ws = weights_for(outs)
    first = tg.autograd.grad(
        sum((o * tg.tensor(w)).sum() for o, w in zip(outs, ws)), ours, create_graph=True
    )
    tfirst = torch.autograd.grad(
        sum((t * torch.tensor(w)).sum() for t, w in zip(touts, ws)), theirs, create_graph=True
    )
    us = weights_for(first, seed=2)
    second = tg.autograd.grad(
        sum((g * tg.tensor(u)).sum() for g, u in zip(first, us)), ours, allow_unused=True
    )
    tsecond = torch.autograd.grad(
        sum((g * torch.tensor(u)).sum() for g, u in zip(tfirst, us)), theirs, allow_unused=True
    )
    for g, tg_ in zip(second, tsecond):
        if tg_ is None:
            assert g is None or np.all(g.data == 0)
        else:
            assert_close(g, tg_)
