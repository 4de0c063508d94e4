"""clamp(x, min, max) with number bounds as one node: NumPy's clip forward, and a backward
that multiplies by one mask, where the composed form (two `Where` nodes) makes two masks, two
nodes and two gradient passes.

    out = min(max(x, lo), hi)
    grad_x = grad_out * inside,   inside = not (x < lo) and not (x > hi)

The boundaries are inside (as PyTorch: the gradient passes at x == lo and x == hi), and so is
NaN, as in the composed form `clamp_reference` (composite.clamp), which the tests compare
with. Tensor bounds take the composed form.
"""

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ..composite import clamp as clamp_reference
from ..elementwise import Where
from ..xp import operands, times_mask

__all__ = ["Clamp", "Hardtanh", "clamp", "clamp_reference", "hardtanh_reference"]


class Clamp(Function):
    """out = x limited to [lo, hi] (either may be None); see the module docstring.

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([-2.0, 0.0, 3.0], requires_grad=True)
    >>> Clamp.apply(x, -1.0, 1.0).sum().backward()
    >>> x.grad
    tensor([0., 1., 0.])
    """

    formula = "grad_x = grad_out * (lo <= x <= hi)"

    @staticmethod
    def forward(ctx, x, lo, hi):
        out = np.maximum(x, lo) if lo is not None else np.minimum(x, hi)
        if lo is not None and hi is not None:
            if isinstance(out, np.ndarray) and out.ndim:
                np.minimum(out, hi, out=out)
            else:  # a 0-d input gives a NumPy scalar, which cannot be written into
                out = np.minimum(out, hi)
        if ctx.needs_input_grad[0]:
            # NOTE: "not outside" rather than "inside": NaN counts as inside, as in the
            # composed form
            outside = x < lo if lo is not None else x > hi
            if lo is not None and hi is not None:
                outside = outside | (x > hi)
            ctx.save_for_backward(np.logical_not(outside))
        return out

    @staticmethod
    def backward(ctx, grad_output):
        g, inside = operands(grad_output, *ctx.saved_tensors)
        if is_grad_enabled():
            return g * inside
        return times_mask(g, inside)


def clamp(x, min=None, max=None):  # noqa: A002 - PyTorch's names
    """x limited to [min, max]: one `Clamp` node for number bounds on a float tensor, else the
    composed form."""
    numbers = all(b is None or type(b) in (int, float) for b in (min, max))
    if numbers and (min is not None or max is not None) and x.array.dtype.kind == "f":
        return Clamp.apply(x, min, max)
    return clamp_reference(x, min, max)


class Hardtanh(Function):
    """hardtanh: out = clip(x, lo, hi), with the gradient 1 strictly inside (lo < x < hi) and
    0 at the ends, outside and at NaN (PyTorch's hardtanh and relu6), unlike `Clamp`.

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([-2.0, 0.0, 1.0], requires_grad=True)
    >>> Hardtanh.apply(x, -1.0, 1.0).sum().backward()
    >>> x.grad
    tensor([0., 1., 0.])
    """

    formula = "grad_x = grad_out * (lo < x < hi)"

    @staticmethod
    def forward(ctx, x, lo, hi):
        if ctx.needs_input_grad[0]:
            inside = x > lo
            inside &= x < hi
            ctx.save_for_backward(inside)
        return np.clip(x, lo, hi)

    @staticmethod
    def backward(ctx, grad_output):
        g, inside = operands(grad_output, *ctx.saved_tensors)
        if is_grad_enabled():
            return g * inside
        return times_mask(g, inside)


def hardtanh_reference(x, lo, hi):
    """hardtanh composed (a Where of x and the clipped constant): the test reference."""
    inside = (x.array > lo) & (x.array < hi)
    return Where.apply(inside, x, x._make(np.clip(x.array, lo, hi)))
