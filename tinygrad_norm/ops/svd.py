"""Singular values, the one primitive the spectral matrix norms (2, -2, 'nuc') need."""

import numpy as np

from ..autograd.engine import Function


class SingularValues(Function):
    """out = the singular values s of each matrix a = U diag(s) V^T, in descending order:
    a of shape (..., m, n) gives (..., min(m, n)).

    With distinct singular values, d s_i = u_i^T (d a) v_i, so grad_a = U diag(grad_out) V^T.

    NOTE: first order only. The second derivative needs the derivatives of U and V, which
    involve 1 / (s_i^2 - s_j^2); this backward returns NumPy arrays, so under create_graph it
    is recorded as not twice differentiable and gradgradcheck names it.
    """

    formula = "grad_a = U diag(grad_out) V^T"

    @staticmethod
    def forward(ctx, a):
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        ctx.u, ctx.vh = u, vh
        return s

    @staticmethod
    def backward(ctx, grad_output):
        return (ctx.u * np.asarray(grad_output.data)[..., None, :]) @ ctx.vh
