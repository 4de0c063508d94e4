"""Singular values, the one primitive the spectral matrix norms (2, -2, 'nuc') need, and its
gradient as a second primitive so that second derivatives work.

a = U diag(s) V^T (thin SVD: a (..., m, n), U (..., m, k), s (..., k), V (..., n, k), k =
min(m, n), s descending). With distinct singular values, d s_i = u_i^T (d a) v_i, so the
gradient of the singular values is grad_a = U diag(grad_s) V^T (`SingularValuesGrad`). Its own
gradient needs how U and V move with a (Townsend, "Differentiating the Singular Value
Decomposition", 2016): see `SingularValuesGrad.backward`. NOTE: third derivatives are not
provided (that backward returns NumPy arrays; gradgradcheck of a gradgrad would say so).
"""

import numpy as np

from ..autograd.function import Function


def _t(m: np.ndarray) -> np.ndarray:
    return np.swapaxes(m, -1, -2)


class SingularValues(Function):
    """out = the singular values of each matrix of a, in descending order: (..., min(m, n))."""

    formula = "grad_a = U diag(grad_out) V^T"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.linalg.svd(a, compute_uv=False)

    @staticmethod
    def backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        return SingularValuesGrad.apply(a, grad_output)


class SingularValuesGrad(Function):
    """out = U diag(g) V^T with U, V the singular vectors of a: the gradient of the singular
    values, as a function of both a and the incoming gradient g.

    Backward, for the incoming H (..., m, n): grad_g = diag(U^T H V), and grad_a is the SVD's
    adjoint for the singular-vector gradients U_bar = H V diag(g), V_bar = H^T U diag(g):
      U [ (F o (U^T U_bar - U_bar^T U)) S + S (F o (V^T V_bar - V_bar^T V)) ] V^T
      + (I - U U^T) U_bar S^-1 V^T + U S^-1 V_bar^T (I - V V^T),
    with F_ij = 1 / (s_j^2 - s_i^2) off the diagonal and 0 on it (o: elementwise product).
    """

    formula = "grad_g = diag(U^T H V);  grad_a = the SVD adjoint of (H V G, H^T U G)"

    @staticmethod
    def forward(ctx, a, g):
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        ctx.u, ctx.s, ctx.v, ctx.g = u, s, _t(vh), g
        ctx.save_for_backward(g)  # only for its version: an in-place change of g is caught
        return (u * g[..., None, :]) @ vh

    @staticmethod
    def backward(ctx, grad_output):
        u, s, v, g = ctx.u, ctx.s, ctx.v, ctx.g
        h = np.asarray(grad_output.array)
        grad_g = np.einsum("...ik,...ij,...jk->...k", u, h, v)
        u_bar = (h @ v) * g[..., None, :]  # (..., m, k)
        v_bar = (_t(h) @ u) * g[..., None, :]  # (..., n, k)
        s2 = s * s
        with np.errstate(divide="ignore"):
            f = 1.0 / (s2[..., None, :] - s2[..., :, None])
        k = s.shape[-1]
        f[..., np.arange(k), np.arange(k)] = 0.0
        uu, vv = _t(u) @ u_bar, _t(v) @ v_bar  # (..., k, k)
        inner = (f * (uu - _t(uu))) * s[..., None, :] + s[..., :, None] * (f * (vv - _t(vv)))
        grad_a = u @ inner @ _t(v)
        inv_s = 1.0 / s
        grad_a = grad_a + (u_bar - u @ (_t(u) @ u_bar)) * inv_s[..., None, :] @ _t(v)
        grad_a = grad_a + (u * inv_s[..., None, :]) @ (_t(v_bar) - (_t(v_bar) @ v) @ _t(v))
        return grad_a, grad_g
