"""A linear layer, y = x @ w + b, as one node (GPT-2's Conv1D, and nn.Linear with w = Wᵀ).

Composed from primitives it is four nodes: x viewed as (N, k), the matmul, the view back to
(..., m), the bias added. Here it is one node with the same maths, whose weight gradient is one
2-D matrix product over all N = B·T positions.
"""

import math

import numpy as np

from ...autograd.function import Function
from ..xp import operands


class Linear(Function):
    """y = x @ w + b over the last axis: x (..., k), w (k, m), b (m,) or None -> y (..., m).

    Backward. View x as X (N, k) and grad_out as G (N, m), N the product of the leading axes;
    then y = X w + b is a plain matrix product, and

        grad_x = G wᵀ     (viewed back as (..., k)),
        grad_w = Xᵀ G     (k, m): one GEMM, every position's contribution summed by it,
        grad_b = sum of G over its N rows (b was added to every row).

    `out_in=True` takes w as nn.Linear stores it, (m, k), and computes y = x @ wᵀ + b: then
    grad_w = Gᵀ X (m, k), and grad_x = G w. (Passing `weight.T` instead would add a Permute
    node, forward and backward, to every nn.Linear call.)

    >>> import tinygrad_norm as tg
    >>> x = tg.ones(2, 3, 4, requires_grad=True)
    >>> w = tg.ones(4, 5, requires_grad=True)
    >>> y = Linear.apply(x, w, None)
    >>> y.shape, y.grad_fn
    (torch.Size([2, 3, 5]), <LinearBackward>)
    >>> y.sum().backward()
    >>> w.grad.shape, float(w.grad[0, 0])     # 6 positions, each x = 1
    (torch.Size([4, 5]), 6.0)
    """

    formula = "grad_x = grad_out @ w^T;  grad_w = x^T @ grad_out;  grad_b = sum(grad_out)"

    @staticmethod
    def forward(ctx, x, w, b, out_in=False):
        needs_x, needs_w = ctx.needs_input_grad[:2]
        ctx.save_for_backward(x if needs_w else None, w if needs_x else None)
        y = _rows(x) @ (w.T if out_in else w)  # (N, k) @ (k, m) -> (N, m)
        if b is not None:
            y = np.add(y, b, out=y if b.dtype == y.dtype else None)  # in place: y is new
        if x.ndim == 2:  # NOTE: y itself, not a view of it (the engine would check the view)
            return y
        return y.reshape(x.shape[:-1] + (y.shape[1],))  # (..., m)

    @staticmethod
    def backward(ctx, grad_output):
        # NOTE: the formulas read the same for arrays and Tensors (see `xp.py`): on arrays
        # when nothing is recorded, with no op overhead for the reshapes.
        grad_output, x, w = operands(grad_output, *ctx.saved_tensors)
        needs_x, needs_w, needs_b = ctx.needs_input_grad
        x_shape = ctx.input_shape
        g = _rows(grad_output)  # (N, m)
        if ctx.out_in:  # w (m, k)
            grad_x = (g @ w).reshape(x_shape) if needs_x else None
            grad_w = g.T @ _rows(x) if needs_w else None  # (m, N) @ (N, k)
        else:  # w (k, m)
            grad_x = (g @ w.T).reshape(x_shape) if needs_x else None
            grad_w = _rows(x).T @ g if needs_w else None  # (k, N) @ (N, m)
        grad_b = g.sum(0) if needs_b else None
        return grad_x, grad_w, grad_b


def _rows(a):
    """a (..., n) viewed as (N, n), N the product of the leading sizes. (reshape(-1, n) cannot
    tell N when n is 0: any N fits.)"""
    if a.ndim == 2:  # already rows (the usual nn.Linear input): no view to make
        return a
    return a.reshape(math.prod(a.shape[:-1]), a.shape[-1])


def linear_reference(x, w, b=None, out_in=False):
    """x @ w + b composed from primitives (a view, a MatMul, a view back, an Add): the test
    reference of `Linear` (autograd derives the gradient)."""
    w = w.T if out_in else w
    y = (x.reshape(-1, x.shape[-1]) @ w).reshape(x.shape[:-1] + (w.shape[1],))
    return y if b is None else y + b


def linear(x, w, b=None, out_in=False):
    """x @ w + b over the last axis (x @ wᵀ + b with out_in), as one fused node (`Linear`)."""
    return Linear.apply(x, w, b, out_in=out_in)
