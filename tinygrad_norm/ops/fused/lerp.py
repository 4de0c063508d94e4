"""lerp(start, end, weight) with a tensor weight as one node; its reference is the composed
`pointwise_composed.lerp_reference` (a Where between two affine forms: eight nodes).

    diff = end - start
    out = start + weight diff          where |weight| < 1/2
    out = end - diff (1 - weight)      elsewhere (exactly end at weight 1; PyTorch's formula)
    grad_start = grad_out (1 - weight),  grad_end = grad_out weight,  grad_weight = grad_out diff
    (each summed to its input's shape)

Both forms are computed and one is taken per element by `fast_math.select` (np.where is slow
on a mask with no pattern). Under `create_graph=True` the gradients are the same products on
Tensors (recorded).
"""

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from . import fast_math

__all__ = ["Lerp"]


class Lerp(Function):
    """out = start + weight (end - start), three tensors of one float dtype (module docstring).

    >>> import tinygrad_norm as tg
    >>> w = tg.tensor([0.25, 1.0], requires_grad=True)
    >>> out = Lerp.apply(tg.tensor([0.0, 0.0]), tg.tensor([4.0, 4.0]), w)
    >>> out.sum().backward()
    >>> out, w.grad
    (tensor([1., 4.], grad_fn=<LerpBackward>), tensor([4., 4.]))
    """

    formula = "grad_start = grad_out*(1-w);  grad_end = grad_out*w;  grad_w = grad_out*(end-start)"

    @staticmethod
    def forward(ctx, start, end, weight):
        shape = np.broadcast_shapes(start.shape, end.shape, weight.shape)
        dtype = np.result_type(start, end, weight)
        diff = np.subtract(end, start, dtype=dtype)  # (end and start's shape)
        near = np.multiply(weight, diff, out=np.empty(shape, dtype))
        near += start  # start + w diff
        far = np.subtract(1, weight, out=np.empty(shape, dtype))
        far *= diff
        np.subtract(end, far, out=far)  # end - diff (1 - w)
        small = np.broadcast_to(np.abs(weight) < 0.5, shape)
        out = fast_math.select(small, near, far) if shape else np.where(small, near, far)
        if any(ctx.needs_input_grad):
            ctx.save_for_backward(start, end, weight)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        start, end, weight = ctx.saved_tensors
        if is_grad_enabled():  # recorded: the products as functions of the inputs
            g = grad_output
            return g * (1 - weight), g * weight, g * (end - start)
        g, w = grad_output.array, weight.array
        grad_end = np.multiply(g, w) if ctx.needs_input_grad[1] else None
        grad_start = None
        if ctx.needs_input_grad[0]:  # g (1 - w), not g - g w (which cancels near w = 1)
            grad_start = np.subtract(1, w, out=np.empty(g.shape, np.result_type(w, g)))
            grad_start *= g
        grad_weight = None
        if ctx.needs_input_grad[2]:
            grad_weight = np.subtract(end.array, start.array, out=np.empty(g.shape, g.dtype))
            grad_weight *= g
        return grad_start, grad_end, grad_weight
