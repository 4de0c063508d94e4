"""Mean squared error of two tensors of one shape, reduced to a number, as one node: the
composed form (`mse_loss_reference`: Sub, Mul, Mean) keeps the difference twice and makes
five passes in backward.

    d = x - y,   loss = sum(d^2) / n   ("mean"; "sum": n = 1)
    grad_x = (2 grad_out / n) d,   grad_y = -grad_x

Forward keeps d; backward is one multiplication (and a negation for y). Under
`create_graph=True` the same formula runs on Tensors, d recomputed from x and y, so it is
twice differentiable.
"""

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ..xp import operands

__all__ = ["MSELoss", "mse_loss", "mse_loss_reference"]


class MSELoss(Function):
    """loss = sum((x - y)^2) / n (see the module docstring).

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([1.0, 2.0], requires_grad=True)
    >>> MSELoss.apply(x, tg.tensor([1.0, 4.0]), "mean").backward()
    >>> x.grad   # 2 (x - y) / n
    tensor([ 0., -2.])
    """

    formula = "grad_x = 2 * grad_out * (x - y) / n;  grad_y = -grad_x"

    @staticmethod
    def forward(ctx, x, y, reduction):
        d = x - y
        ctx.save_for_backward(x, y, d)
        flat = d.reshape(-1)
        total = np.dot(flat, flat)  # (one pass, BLAS)
        return np.asarray(total / d.size if reduction == "mean" else total, dtype=d.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        x, y, d = ctx.saved_tensors
        if is_grad_enabled():  # recorded: d as a function of x and y
            d = x - y
        g, d = operands(grad_output, d)
        n = int(np.prod(ctx.input_shape)) if ctx.reduction == "mean" else 1
        scale = g * (2.0 / n)
        grad_x = d * scale
        return grad_x, (-grad_x if ctx.needs_input_grad[1] else None)


def mse_loss(x, y, reduction):
    """sum or mean of (x - y)^2 as one node (see `MSELoss`); x and y of one shape."""
    return MSELoss.apply(x, y, reduction)


def mse_loss_reference(x, y, reduction):
    """The same loss composed from primitives (Sub, Mul, Sum or Mean): the test reference."""
    diff = x - y
    squared = diff * diff
    return squared.sum() if reduction == "sum" else squared.mean()
