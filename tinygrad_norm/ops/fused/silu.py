"""SiLU (swish), y = x sigmoid(x), as one node: the composed form (`silu_reference`: a Sigmoid
node and a Mul node) keeps two arrays and makes five temporaries in backward.

    s = sigmoid(x),  y = x s
    dy/dx = s + x s (1 - s) = s (1 + x (1 - s))        (sigmoid' = s (1 - s))
    grad_x = grad_out * s (1 + x (1 - s))

Forward keeps x and s; backward is five in-place passes over one temporary. Under
`create_graph=True` the same formula runs on Tensors (s recomputed as a Sigmoid node of x), so
it is twice differentiable.
"""

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ..xp import iadd, imul, operands, sigmoid

__all__ = ["Silu", "silu", "silu_reference"]


class Silu(Function):
    """y = x * sigmoid(x) (see the module docstring).

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([0.0, 2.0], requires_grad=True)
    >>> Silu.apply(x).sum().backward()
    >>> x.grad   # s (1 + x (1 - s)): 0.5 at 0
    tensor([0.5000, 1.0908])
    """

    formula = "grad_x = grad_out * s * (1 + x * (1 - s))     (s = sigmoid(x))"

    @staticmethod
    def forward(ctx, x):
        s = sigmoid(x)
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(x, s)
        return x * s

    @staticmethod
    def backward(ctx, grad_output):
        x, s = ctx.saved_tensors
        if is_grad_enabled():  # recorded: s as a function of x, for second derivatives
            s = x.sigmoid()
        g, x, s = operands(grad_output, x, s)
        grad = imul(1 - s, x)  # x (1 - s)
        grad = iadd(grad, 1)
        grad = imul(grad, s)
        return imul(grad, g)


def silu(x):
    """x * sigmoid(x) as one node (see `Silu`)."""
    return Silu.apply(x)


def silu_reference(x):
    """SiLU composed from primitives (Sigmoid, Mul): the test reference."""
    return x * x.sigmoid()
