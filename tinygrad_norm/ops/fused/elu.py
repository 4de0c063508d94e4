"""The ELU family (elu, selu, celu) and hardswish, each one node: the composed forms
(`elu_reference`, `hardswish_reference`: a Where, an Expm1 or products, and the masks that
keep exp and inf * 0 out of unused pieces) make several nodes and a temporary per node.

ELU with a scale s and an input scale c (elu: s = c = 1; selu: PyTorch's alpha and scale,
c = 1; celu: s = 1, c = 1/alpha):

    y = s x                          for x > 0
    y = s alpha (exp(c x) - 1)       otherwise (NaN included: its output and gradient are NaN)
    dy/dx = s                        for x > 0
    dy/dx = s alpha c exp(c x)       otherwise (from x: c (y + s alpha) would cancel where
                                     y is near -s alpha, x very negative)

Hardswish (MobileNetV3): y = 0 for x <= -3, x for x >= 3, x (x + 3) / 6 between;
dy/dx = 0, 1, and x/3 + 1/2 between, the outer piece's slope at the kinks (as PyTorch).

Backward runs on arrays, in place on one temporary, when nothing is recorded; under
`create_graph=True` the same maths runs on Tensors (through the references' masks), so it is
twice differentiable.
"""

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ..elementwise import Where
from ..special import Expm1
from ..xp import operands

__all__ = [
    "Elu",
    "Hardswish",
    "elu",
    "elu_reference",
    "hardswish",
    "hardswish_reference",
]


def _nonpositive(x):
    """x where x <= 0 or NaN, else 0 (a Tensor): the input of the exp piece."""
    return Where.apply(~(x.array > 0), x, np.zeros((), x.dtype))


class Elu(Function):
    """y = s x for x > 0, s alpha (exp(c x) - 1) otherwise (see the module docstring).

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([-1.0, 2.0], requires_grad=True)
    >>> Elu.apply(x, alpha=1.0, scale=1.0, input_scale=1.0).sum().backward()
    >>> x.grad   # exp(-1), 1
    tensor([0.3679, 1.0000])
    """

    formula = "grad_x = grad_out * (s if x > 0 else s * alpha * c * exp(c * x))"

    @staticmethod
    def forward(ctx, x, alpha, scale, input_scale):
        e = np.minimum(x, 0, out=np.empty_like(x))  # NaN stays NaN; an array also when 0-d
        if input_scale != 1:
            e *= input_scale
        np.expm1(e, out=e)
        e *= alpha * scale
        # s max(x, 0) + e: each piece is 0 where the other applies (e = expm1(0) = 0 for x > 0),
        # so no mask and no np.where (slower); -inf gives 0 + e, not -inf * 0
        out = np.maximum(x, 0, out=np.empty_like(x))
        if scale != 1:
            out *= scale
        out += e
        ctx.save_for_backward(x)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        alpha, scale, c = ctx.alpha, ctx.scale, ctx.input_scale
        if is_grad_enabled():  # recorded: the slope as a function of x
            slope = Expm1.apply(_nonpositive(x) * c) * (alpha * scale * c) + alpha * scale * c
            return grad_output * Where.apply(x.array > 0, np.asarray(scale, x.dtype), slope)
        g, x = operands(grad_output, x)
        d = np.minimum(x, 0, out=np.empty_like(x))
        if c != 1:
            d *= c
        np.exp(d, out=d)
        d *= scale * alpha * c
        positive = np.asarray(x > 0, dtype=d.dtype)
        d *= 1 - positive  # exact 0 or d: d is finite or NaN (then x is NaN, not positive)
        positive *= scale
        d += positive
        d *= g
        return d


def elu(x, alpha, scale=1.0, input_scale=1.0):
    """The ELU family as one node (see `Elu`)."""
    return Elu.apply(x, alpha=alpha, scale=scale, input_scale=input_scale)


def elu_reference(x, alpha, scale=1.0, input_scale=1.0):
    """The same composed from primitives (Where, Expm1, Mul): the test reference."""
    y = Where.apply(x.array > 0, x, Expm1.apply(_nonpositive(x) * input_scale) * alpha)
    return y * scale


class Hardswish(Function):
    """y = x relu6(x + 3) / 6 (see the module docstring).

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([-4.0, 1.0, 3.0], requires_grad=True)
    >>> Hardswish.apply(x).sum().backward()
    >>> x.grad   # 0, 1/3 + 1/2, 1
    tensor([0.0000, 0.8333, 1.0000])
    """

    formula = "grad_x = grad_out * (0 if x <= -3 else 1 if x >= 3 else x / 3 + 1 / 2)"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        low = np.maximum(x, -3, out=np.empty_like(x))  # finite below: no -inf * 0
        out = np.add(low, 3, out=np.empty_like(low))
        np.clip(out, 0, 6, out=out)
        out *= low
        out /= 6
        out += 0.0  # 0, not -0, below -3
        return np.where(x >= 3, x, out)  # exactly x above 3 (x * 6 / 6 may round)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        if is_grad_enabled():  # recorded
            low, high = x.array <= -3, x.array >= 3
            inside = Where.apply(low | high, np.zeros((), x.dtype), x)
            slope = Where.apply(high, np.ones((), x.dtype), inside / 3 + 0.5)
            return grad_output * Where.apply(low, np.zeros((), x.dtype), slope)
        g, x = operands(grad_output, x)
        d = np.maximum(x, -3, out=np.empty_like(x))  # finite below: no -inf * 0
        d /= 3
        d += 0.5
        d *= (x > -3).astype(d.dtype)  # 0 at and below -3 (NaN stays NaN)
        d = np.where(x >= 3, np.ones((), d.dtype), d)
        d *= g
        d += 0.0  # 0, not -0, below -3 (PyTorch's backward writes 0 there)
        return d


def hardswish(x):
    """Hardswish as one node (see `Hardswish`)."""
    return Hardswish.apply(x)


def hardswish_reference(x):
    """The same composed from primitives (Where, Mul, Add, Div): the test reference.
    At the kinks the slope is the outer piece's, as PyTorch's backward."""
    inside = ~((x.array <= -3) | (x.array >= 3))
    x_inside = Where.apply(inside, x, np.zeros((), x.dtype))  # no inf * 0 in the unused piece
    middle = x_inside * (x_inside + 3) / 6
    return Where.apply(x.array <= -3, np.zeros((), x.dtype), Where.apply(inside, middle, x))
