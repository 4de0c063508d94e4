"""Matrix multiplication, the one primitive of linear algebra here."""

import numpy as np

from ..autograd.function import Function
from .xp import operands


class MatMul(Function):
    """out = a @ b for a of shape (..., n, k) and b of shape (..., k, m); out is (..., n, m).

    Each out[i, j] = sum_k a[i, k] * b[k, j], so
      d out[i, j] / d a[i, k] = b[k, j]   =>  grad_a = grad_out @ b^T     (..., n, k)
      d out[i, j] / d b[k, j] = a[i, k]   =>  grad_b = a^T @ grad_out     (..., k, m)
    where ^T swaps the last two axes. Batch axes that were broadcast are summed back by the
    engine. Both inputs have at least two dimensions (`tg.matmul` handles vectors).

    NOTE: when b is a plain matrix (a layer's weight) and a has batch axes, grad_b would be a
    batch of small products summed by the engine; flattening a and grad_out to 2-D makes it
    one matrix product, (k, B·n) @ (B·n, m), several times faster (docs/speed.md).
    """

    formula = "grad_a = grad_out @ b^T;  grad_b = a^T @ grad_out"

    @staticmethod
    def forward(ctx, a, b):
        if a.ndim < 2 or b.ndim < 2:
            raise ValueError(
                f"MatMul: both inputs need at least 2 dimensions, got shapes {a.shape} and "
                f"{b.shape}; use tg.matmul (or @), which also handles vectors"
            )
        ctx.save_for_backward(
            b if ctx.needs_input_grad[0] else None, a if ctx.needs_input_grad[1] else None
        )
        return np.matmul(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        g, b, a = operands(grad_output, *ctx.saved_tensors)
        grad_a = g @ b.swapaxes(-1, -2) if ctx.needs_input_grad[0] else None
        grad_b = None
        if ctx.needs_input_grad[1]:
            b_shape = ctx.input_shapes[1]
            if len(b_shape) == 2 and a.ndim > 2:
                k, m = b_shape
                grad_b = a.reshape(-1, k).T @ g.reshape(-1, m)
            else:
                grad_b = a.swapaxes(-1, -2) @ g
        return grad_a, grad_b


def _adjugate_transposed(a: np.ndarray) -> np.ndarray:
    """The cofactor matrix C (C[i, j] = (-1)^(i+j) det(a without row i and column j)) of each
    matrix of a batch: d det(A) / dA = C, also where A is singular and has no inverse."""
    n = a.shape[-1]
    cof = np.empty_like(a)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(a, i, axis=-2), j, axis=-1)
            cof[..., i, j] = (-1) ** (i + j) * (np.linalg.det(minor) if n > 1 else 1.0)
    return cof


class Det(Function):
    """out = det(A) for A of shape (..., n, n).

    Jacobi's formula: d det(A) / dA = cofactor(A) = det(A) · A^(-T), so
    grad_A = grad_out · det(A) · A^(-T) (the cofactors directly when A is singular).
    """

    formula = "grad_A = grad_out * det(A) * inverse(A)^T"

    @staticmethod
    def forward(ctx, a):
        if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
            raise RuntimeError(
                f"det: expected a square matrix or a batch of them (..., n, n), got shape {a.shape}"
            )
        out = np.asarray(np.linalg.det(a), dtype=a.dtype)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        # NOTE: NumPy's inverse, so this gradient is not differentiable again (create_graph)
        g, (a, out) = np.asarray(grad_output.array), (t.array for t in ctx.saved_tensors)
        try:
            cof = out[..., None, None] * np.linalg.inv(a).swapaxes(-1, -2)
        except np.linalg.LinAlgError:
            cof = _adjugate_transposed(a)
        return g[..., None, None] * cof
