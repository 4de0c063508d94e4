"""logaddexp(a, b) = log(exp(a) + exp(b)) as one node; its reference is the composed
`pointwise_composed.logaddexp_reference` (a maximum, an abs, exp, Log1p: six nodes and their
temporaries, and a Where for equal infinities).

    d = a - b,  z = exp(-|d|) in (0, 1]
    out = max(a, b) + log1p(z)
    d out/da = exp(a - out) = sigmoid(d) = w,   w = 1 / (1 + z) for d >= 0, z / (1 + z) else
    d out/db = sigmoid(-d) = 1 - w
    grad_a = grad_out w,  grad_b = grad_out (1 - w)          (summed to each input's shape)

1 - w is taken as z / (1 + z) or 1 / (1 + z), never as a difference (which cancels).

At a == b both get 1/2. Where a and b are the same infinity, d is NaN: the output is that
infinity and its gradient goes to a (as the reference's Where). Under `create_graph=True` the
gradients are grad_out exp(a - out) and grad_out exp(b - out) on Tensors (recorded).
"""

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled

__all__ = ["LogAddExp"]


class LogAddExp(Function):
    """out = log(exp(a) + exp(b)) of two float tensors of one dtype (see the module docstring).

    >>> import tinygrad_norm as tg
    >>> a = tg.tensor([0.0, 1.0], requires_grad=True)
    >>> LogAddExp.apply(a, tg.tensor([0.0, -1.0])).sum().backward()
    >>> a.grad   # 1/2 at a == b, sigmoid(2)
    tensor([0.5000, 0.8808])
    """

    formula = "grad_a = grad_out * sigmoid(a - b);  grad_b = grad_out * sigmoid(b - a)"

    @staticmethod
    def forward(ctx, a, b):
        shape = np.broadcast_shapes(a.shape, b.shape)
        with np.errstate(invalid="ignore"):
            d = np.subtract(a, b, out=np.empty(shape, np.result_type(a, b)))  # (...) broadcast
        same_infinity = np.isinf(a) & (a == b)
        ahead = d >= 0  # sigmoid(d) = 1 / (1 + z) here (NaN: neither, and NaN anyway)
        z = np.abs(d, out=d)
        np.negative(z, out=z)
        np.exp(z, out=z)
        out = np.log1p(z)
        out += np.maximum(a, b)
        if same_infinity.any():
            out = np.where(same_infinity, a, out)
        if any(ctx.needs_input_grad):
            ctx.save_for_backward(a, b, out, z, ahead, same_infinity)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        a, b, out, z, ahead, same_infinity = ctx.saved_tensors
        if is_grad_enabled():  # recorded: exp(a - out), exp(b - out) as functions of a, b
            return grad_output * (a - out).exp(), grad_output * (b - out).exp()
        g, z, ahead, same = grad_output.array, z.array, ahead.array, same_infinity.array
        dtype = np.result_type(z, g)
        big = np.add(z, 1, out=np.empty(g.shape, dtype))
        np.reciprocal(big, out=big)  # 1 / (1 + z) = sigmoid(|d|)
        # z / (1 + z) = sigmoid(-|d|), not 1 - big (which cancels)
        small = np.multiply(z, big, out=np.empty_like(big))
        front, back = ahead.astype(dtype), (~ahead).astype(dtype)  # (finite factors: no 0 * inf)
        w_a = np.multiply(big, front, out=np.empty_like(big))
        w_a += np.multiply(small, back)  # sigmoid(d)
        w_b = np.multiply(big, back, out=big)
        w_b += np.multiply(small, front, out=small)  # sigmoid(-d)
        if same.any():
            np.copyto(w_a, 1, where=np.broadcast_to(same, w_a.shape))
            np.copyto(w_b, 0, where=np.broadcast_to(same, w_b.shape))
        w_a *= g
        w_b *= g
        return w_a, w_b
