"""Reductions: many input elements give one output element.

`dim` arrives here already normalised to a tuple of non-negative axes (or None for all).
"""

from ..autograd.function import Function
from .xp import broadcast_to, operands


def kept_shape(shape: tuple, dims) -> tuple:
    """The shape a reduction over `dims` has with keepdim=True: reduced axes become 1."""
    if dims is None:
        return (1,) * len(shape)
    return tuple([1 if i in dims else n for i, n in enumerate(shape)])


def reduced_shape(shape: tuple, dims) -> tuple:
    """The shape a reduction over `dims` has with keepdim=False: reduced axes disappear."""
    return () if dims is None else tuple(n for i, n in enumerate(shape) if i not in dims)


class Sum(Function):
    """out = sum of a over `dims`.

    Every input element contributes with weight 1 to the sum it lands in, so each receives
    the gradient of that sum: grad_out, reshaped to keep the reduced axes, then broadcast back.
    """

    formula = "grad_a = grad_out broadcast back over the summed axes"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        return a.sum(axis=dims, keepdims=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        (g,) = operands(grad_output)
        shape, dims = ctx.input_shape, ctx.dims
        return broadcast_to(g.reshape(kept_shape(shape, dims)), shape), None, None


class Max(Function):
    """out = the largest element of a over `dims` (`amax`).

    Only the maximum moves the output, so the gradient goes there. NOTE: when several elements
    tie for the maximum, the gradient is shared equally between them (as PyTorch's amax); the
    function has a kink there, which gradcheck reports as such.
    """

    formula = "grad_a = grad_out * (a == max) / (number of maxima)"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        out = a.max(axis=dims, keepdims=True)
        is_max = a == out
        ctx.save_for_backward(is_max / is_max.sum(axis=dims, keepdims=True).astype(a.dtype))
        ctx.kept = out.shape
        return out if keepdim else out.reshape(reduced_shape(a.shape, dims))

    @staticmethod
    def backward(ctx, grad_output):
        g, share = operands(grad_output, *ctx.saved_tensors)
        return g.reshape(ctx.kept) * share, None, None
