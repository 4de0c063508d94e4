"""Euclidean distances between two sets of rows by a matrix product, as one node: the composed
form (`cdist_reference`: the differences (..., P, R, M), squared, summed, square root) makes
a tensor M times larger than the result and several passes over it each way.

    x1 (..., P, M), x2 (..., R, M),   d_pr = ||x1_p - x2_r||
    d^2 = |x1_p|^2 + |x2_r|^2 - 2 x1_p . x2_r    (one GEMM: x1 @ x2^T)
    d = sqrt(max(d^2, 0))                        (rounding can make d^2 slightly negative)

PyTorch computes p = 2 this way ("use_mm_for_euclid_dist") when either set has more than 25
rows, or always when asked (`compute_mode`); `nn/functional/loss.py`'s `cdist` follows the
same rule, so both round alike. The subtraction cancels for nearby rows (d much smaller
than |x1_p|): the price of the GEMM, PyTorch's too.

Backward. With r = grad_out / d (0 where d = 0, as PyTorch):
    d d_pr / d x1_p = (x1_p - x2_r) / d_pr, so
    grad_x1 = x1 * sum_r r_pr - r @ x2,    grad_x2 = x2 * sum_p r_pr - r^T @ x1,
two GEMMs, never the (P, R, M) differences. Under `create_graph=True` the same formula runs
on Tensors, d recomputed from x1 and x2 by the matrix product, so it is twice
differentiable.
"""

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ..xp import data, masked_fill_, operands

__all__ = ["Cdist", "cdist_mm", "cdist_reference", "cdist_uses_matmul"]


def _squared_distances(x1, x2):
    """|x1_p|^2 + |x2_r|^2 - 2 x1_p . x2_r, arrays (in place on the GEMM's result) or Tensors."""
    n1 = (x1 * x1).sum(-1)[..., :, None]
    n2 = (x2 * x2).sum(-1)[..., None, :]
    if isinstance(x1, np.ndarray):
        d2 = np.matmul(x1, _transposed(x2))
        d2 *= -2.0
        d2 += n1
        d2 += n2
        return np.maximum(d2, 0.0, out=d2)
    return (n1 + n2 - 2.0 * (x1 @ _transposed(x2))).clamp_min(0.0)


class Cdist(Function):
    """d = ||x1_p - x2_r|| by the matrix product (see the module docstring); x1 and x2 of
    one dtype and the same batch shape.

    >>> import tinygrad_norm as tg
    >>> Cdist.apply(tg.tensor([[0.0, 0.0]]), tg.tensor([[3.0, 4.0], [0.0, 1.0]]))
    tensor([[5., 1.]])
    """

    formula = "r = g / d;  grad_x1 = x1 r.sum(-1) - r @ x2;  grad_x2 = x2 r.sum(-2) - r.T @ x1"

    @staticmethod
    def forward(ctx, x1, x2):
        d = np.sqrt(_squared_distances(x1, x2))
        ctx.save_for_backward(x1, x2, d)
        return d

    @staticmethod
    def backward(ctx, grad_output):
        x1, x2, d = ctx.saved_tensors
        if is_grad_enabled():  # recorded: d as a function of x1 and x2
            d = _squared_distances(x1, x2).sqrt()
        g, x1, x2, d = operands(grad_output, x1, x2, d)
        zero = data(d) == 0
        if zero.any():  # r = 0 there: divide by 1 instead of 0, then mask
            r = masked_fill_(g / masked_fill_(d + 0.0, zero, 1.0), zero, 0.0)
        else:
            r = g / d
        grad_x1 = x1 * r.sum(-1)[..., :, None] - r @ x2
        grad_x2 = x2 * r.sum(-2)[..., :, None] - _transposed(r) @ x1
        return grad_x1, grad_x2


def _transposed(a):
    """a with its last two axes swapped: a view of an array, a node of a Tensor."""
    return np.swapaxes(a, -1, -2) if isinstance(a, np.ndarray) else a.transpose(-1, -2)


def cdist_mm(x1, x2):
    """Euclidean cdist as one node by the matrix product (see `Cdist`)."""
    return Cdist.apply(x1, x2)


def cdist_reference(x1, x2):
    """Euclidean cdist composed from primitives (the differences, squared, summed, square
    root): the test reference."""
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return (diff * diff).sum(-1).sqrt()


def cdist_uses_matmul(a, b, p, compute_mode) -> bool:
    """PyTorch's choice of the matrix product for cdist: p = 2 and `compute_mode`
    "use_mm_for_euclid_dist", or the default ("use_mm_for_euclid_dist_if_necessary") when
    either set has more than 25 rows; and inputs `Cdist` takes (one floating dtype, one batch
    shape)."""
    if p != 2 or compute_mode == "donot_use_mm_for_euclid_dist":
        return False
    if compute_mode != "use_mm_for_euclid_dist" and max(a.shape[-2], b.shape[-2]) <= 25:
        return False
    return a.dtype == b.dtype and a.dtype.kind == "f" and a.shape[:-2] == b.shape[:-2]
