"""softplus and logsigmoid as one node each: forward and backward in few passes, no mask selected
element by element (np.where is slow on an activation's sign pattern). Their composed references
(`*_reference`: `Where` between pieces, Log1p of exp) are the forms nn.functional had; the tests
compare both (values, gradients, second derivatives).

    softplus(x) = x where beta x > threshold, else log1p(z) / beta
        z = exp(min(beta x, threshold))
        d/dx = 1 where linear, else sigmoid(beta x) = z / (1 + z)
        grad_x = grad_out (z / (1 + z) [not linear] + [linear])
    logsigmoid(x) = -softplus(-x) = min(x, 0) - log1p(z),  z = exp(-|x|)
        d/dx = sigmoid(-x) = 1 - s for x < 0, s for x >= 0    (s = z / (1 + z) = sigmoid(-|x|))
        grad_x = grad_out ([x < 0] + s (1 - 2 [x < 0]))

The brackets are masks as numbers (a product with a 0/1 array, never 0 * inf: the factors are
finite). Each exponential sees a number <= 0 (or <= threshold), so nothing overflows. Under
`create_graph=True` the derivative is built from Tensor operations (recorded).
"""

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ..elementwise import Where
from ..special import Log1p
from . import fast_math

__all__ = [
    "LogSigmoid",
    "Softplus",
    "logsigmoid_reference",
    "softplus_reference",
]


def _as(mask: np.ndarray, dtype) -> np.ndarray:
    return mask.astype(dtype)


class Softplus(Function):
    """out = x where beta x > threshold, else log1p(exp(beta x)) / beta (module docstring).

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([0.0, 30.0], requires_grad=True)
    >>> Softplus.apply(x, 1.0, 20.0).sum().backward()
    >>> x.grad   # sigmoid(0), 1 (linear)
    tensor([0.5000, 1.0000])
    """

    formula = "grad_x = grad_out * (1 if beta*x > threshold else sigmoid(beta * x))"

    @staticmethod
    def forward(ctx, x, beta, threshold):
        bx = np.multiply(x, beta, out=np.empty_like(x))  # (an array also when x is 0-d)
        linear = bx > threshold
        np.minimum(bx, threshold, out=bx)
        z = np.exp(bx, out=bx)  # exp(min(beta x, threshold)), finite
        out = np.log1p(z)
        out /= beta
        out = fast_math.select(linear, x, out)
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(x, z, linear)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, z, linear = ctx.saved_tensors
        if is_grad_enabled():  # recorded: sigmoid(beta x) as a function of x
            s = (x * ctx.beta).sigmoid()
            return grad_output * Where.apply(linear.array, np.ones((), x.dtype), s)
        z, linear, g = z.array, linear.array, grad_output.array
        d = np.add(z, 1, out=np.empty(g.shape, np.result_type(z, g)))
        np.divide(z, d, out=d)  # sigmoid(beta x), in [0, 1)
        d *= _as(~linear, d.dtype)
        d += _as(linear, d.dtype)
        d *= g
        return d


class LogSigmoid(Function):
    """out = log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)) (module docstring).

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([0.0, -30.0], requires_grad=True)
    >>> LogSigmoid.apply(x).sum().backward()
    >>> x.grad   # sigmoid(0), sigmoid(30)
    tensor([0.5000, 1.0000])
    """

    formula = "grad_x = grad_out * sigmoid(-x)"

    @staticmethod
    def forward(ctx, x):
        z = np.abs(x, out=np.empty_like(x))
        np.negative(z, out=z)
        np.exp(z, out=z)  # exp(-|x|), in (0, 1]
        out = np.minimum(x, 0, out=np.empty_like(x))
        out -= np.log1p(z)
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(x, z)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, z = ctx.saved_tensors
        if is_grad_enabled():  # recorded: sigmoid(-x)
            return grad_output * (-x).sigmoid()
        x, z, g = x.array, z.array, grad_output.array
        s = np.add(z, 1, out=np.empty(g.shape, np.result_type(z, g)))
        np.divide(z, s, out=s)  # sigmoid(-|x|)
        negative = _as(x < 0, s.dtype)
        # [x < 0] (1 - s) + [x >= 0] s = [x < 0] + s (1 - 2 [x < 0])
        sign = np.multiply(negative, -2, out=np.empty_like(negative))
        sign += 1
        s *= sign
        s += negative
        s *= g
        return s


# --- the composed references (the forms nn.functional had) ---------------------------------------
def softplus_reference(x, beta=1.0, threshold=20.0):
    """softplus composed: Where(beta x > threshold, x, log1p(exp(beta x)) / beta)."""
    bx = x * beta
    linear = bx.array > threshold
    safe = Where.apply(linear, np.zeros((), x.dtype), bx)  # no exp of a large number
    return Where.apply(linear, x, Log1p.apply(safe.exp()) / beta)


def logsigmoid_reference(x):
    """logsigmoid composed: x - log1p(e^x) for x < 0, -log1p(e^-x) for x >= 0."""
    negative = x - Log1p.apply(x.clamp(max=0).exp())
    positive = -Log1p.apply((-x.clamp(min=0)).exp())
    return Where.apply(x.array < 0, negative, positive)
