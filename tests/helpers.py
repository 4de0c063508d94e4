"""Helpers several test files share (`from helpers import randn, perturbed, ForgotTheTwo`).

pytest puts tests/ on sys.path (no __init__.py there), so the test files import this module by
its bare name.
"""

import numpy as np

import tinygrad_norm as tg


def randn(*shape, seed=0):
    """A float64 NumPy array of standard normals, the same for the same seed."""
    return np.random.default_rng(seed).standard_normal(shape)


def perturbed(module, seed=1):
    """`module` in float64, with parameters moved off their init (so swapped gates would show)."""
    module = module.double()
    rng = np.random.default_rng(seed)
    for p in module.parameters():
        p.data[...] += 0.3 * rng.standard_normal(p.shape)
    return module


class ForgotTheTwo(tg.Function):
    """x²: backward forgets the factor 2 (off by a constant factor), for tests that must see
    gradcheck (or the tools built on it) fail."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x  # should be grad_output * 2 * x
