"""leaky_relu as one node: a slope array k, made once in forward, gives both the output and the
gradient. The composed form (`leaky_relu_reference`: a Mul node for s x and a `Where` node
between x and s x) makes a mask, a product, NumPy's `where` (a slow pass on a random mask) and,
in backward, two gradients that the engine then adds.

    k = 1 where x > 0, s elsewhere (NaN included)
    out = x k                     (x where x > 0, s x elsewhere: PyTorch's `x > 0 ? x : x * s`)
    grad_x = grad_out * k         (the slope at 0 is s, as in PyTorch)

k is (x > 0) as 0/1 in x's dtype, times (1 - s), plus s: three cheap passes, exact when
(1 - s) + s rounds to 1 in that dtype (true of the usual slopes; the others take `np.where`).
Under `create_graph=True` backward is `grad_out * k` on Tensors (k a constant), so the second
derivative is 0, as for the composed form.
"""

import numpy as np

from ...autograd.function import Function
from ..elementwise import Where
from ..xp import operands

__all__ = ["LeakyRelu", "leaky_relu", "leaky_relu_reference"]


class LeakyRelu(Function):
    """out = x where x > 0, else negative_slope * x (see the module docstring).

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([-2.0, 0.0, 3.0], requires_grad=True)
    >>> LeakyRelu.apply(x, 0.1).sum().backward()
    >>> x.grad
    tensor([0.1000, 0.1000, 1.0000])
    """

    formula = "grad_x = grad_out * (1 if x > 0 else negative_slope)"

    @staticmethod
    def forward(ctx, x, negative_slope):
        k = slopes(x, negative_slope)
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(k)
        return x * k

    @staticmethod
    def backward(ctx, grad_output):
        g, k = operands(grad_output, *ctx.saved_tensors)
        return g * k


def slopes(x: np.ndarray, negative_slope: float) -> np.ndarray:
    """k = 1 where x > 0, negative_slope elsewhere, in x's dtype (see the module docstring)."""
    one, s = x.dtype.type(1), x.dtype.type(negative_slope)
    positive = x > 0
    if one - s + s != one or not isinstance(positive, np.ndarray) or not positive.ndim:
        return np.where(positive, one, s)  # (1 - s) + s is not exactly 1, or a 0-d input
    k = positive.astype(x.dtype)
    k *= one - s
    k += s
    return k


def leaky_relu(x, negative_slope=0.01):
    """leaky_relu of a floating Tensor as one node (see `LeakyRelu`)."""
    return LeakyRelu.apply(x, negative_slope)


def leaky_relu_reference(x, negative_slope=0.01):
    """leaky_relu composed from primitives (Mul, Where): the test reference."""
    return Where.apply(x.array > 0, x, x * negative_slope)
