"""Smooth L1 and Huber losses, elementwise (before the reduction), as one node: the composed
form (`smooth_l1_reference`: Sub, Abs, two masked pieces added) makes some ten nodes.

With d = x - t, a threshold beta > 0 and a factor c (smooth_l1: c = 1; huber: c = beta):

    loss = (c / beta) d^2 / 2          where |d| < beta
    loss = c (|d| - beta / 2)          elsewhere
    d loss / dx = c clip(d, -beta, beta) / beta = -d loss / dt

(at |d| = beta both pieces have the slope c sign(d): clip gives beta / beta = 1 exactly.)
Forward keeps d; backward is a clip and, for smooth_l1, a division by beta. Under
`create_graph=True` the same formula runs on Tensors, d recomputed from x and t, so it is
twice differentiable.
"""

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ..xp import operands

__all__ = ["SmoothL1", "smooth_l1_reference"]


class SmoothL1(Function):
    """The elementwise smooth L1 (c = 1) or Huber (c = beta) loss (see the module docstring).

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([0.5, 3.0], requires_grad=True)
    >>> SmoothL1.apply(x, tg.tensor([0.0, 0.0]), beta=1.0, c=1.0).sum().backward()
    >>> x.grad   # d inside, sign(d) outside
    tensor([0.5000, 1.0000])
    """

    formula = "grad_x = grad_out * c * clip(x - t, -beta, beta) / beta;  grad_t = -grad_x"

    @staticmethod
    def forward(ctx, x, t, beta, c):
        d = x - t
        ctx.save_for_backward(x, t, d)
        a = np.abs(d)
        inside = np.asarray(a < beta, dtype=d.dtype)  # an array also when d is 0-d
        m = np.minimum(a, beta)  # = |d| inside; finite, so that 0 * quadratic is 0 outside
        quadratic = 0.5 * m
        quadratic *= m  # (0.5 |d|) |d| = (0.5 d) d: the composed form's rounding
        if c == 1:
            quadratic /= beta
        elif c != beta:
            quadratic *= c / beta
        linear = a - 0.5 * beta
        if c != 1:
            linear *= c
        # the piece by masks of 0 and 1 (x * 1 + 0 is x exactly; np.where is slower): linear is
        # finite where inside is 1, quadratic everywhere
        quadratic *= inside
        np.subtract(1, inside, out=inside)
        linear *= inside
        linear += quadratic
        return linear

    @staticmethod
    def backward(ctx, grad_output):
        x, t, d = ctx.saved_tensors
        beta, c = ctx.beta, ctx.c
        if is_grad_enabled():  # recorded: d as a function of x and t
            d = x - t
        g, d = operands(grad_output, d)
        grad = d.clamp(-beta, beta) if is_grad_enabled() else np.clip(d, -beta, beta)
        if c != beta:
            grad = grad / beta
            grad = grad * c if c != 1 else grad
        grad = g * grad
        return grad, (-grad if ctx.needs_input_grad[1] else None)


def smooth_l1_reference(x, t, beta, c):
    """The same loss composed from primitives (Sub, Abs, masked pieces): the test reference."""
    d = (x - t).abs()
    inside = d.array < beta
    quadratic = 0.5 * d * d / beta * c if c != beta else 0.5 * d * d
    linear = (d - 0.5 * beta) * c if c != 1 else d - 0.5 * beta
    return linear.masked_fill(inside, 0.0) + quadratic.masked_fill(~inside, 0.0)
