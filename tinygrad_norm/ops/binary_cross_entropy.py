"""Binary cross-entropy on probabilities, with PyTorch's clamps: its own node, so that a
saturated probability (p exactly 0 or 1, a sigmoid that rounded) gives PyTorch's finite
gradient instead of 0 · inf = NaN.

    loss = -(t · max(log p, -100) + (1 - t) · max(log(1 - p), -100))
    d loss / d p = (p - t) / max(p (1 - p), 1e-12)
    d loss / d t = log(1 - p) - log(p)
"""

from __future__ import annotations

import numpy as np

from ..autograd.function import Function

EPSILON = 1e-12  # PyTorch's floor for p (1 - p) in the gradient


class BinaryCrossEntropy(Function):
    """Elementwise binary cross-entropy of probabilities `p` against targets `t`."""

    formula = "grad_p = grad_out (p - t) / max(p (1 - p), 1e-12);  grad_t = grad_out log((1-p)/p)"

    @staticmethod
    def forward(ctx, p, t):
        ctx.save_for_backward(p, t)
        with np.errstate(divide="ignore"):
            log_p = np.maximum(np.log(p), -100)
            log_q = np.maximum(np.log1p(-p), -100)
        return -(t * log_p + (1 - t) * log_q)

    @staticmethod
    def backward(ctx, grad_output):
        p, t = ctx.saved_tensors
        grad_p = grad_t = None
        if ctx.needs_input_grad[0]:
            grad_p = grad_output * (p - t) / (p * (1 - p)).clamp(min=EPSILON)
        if ctx.needs_input_grad[1]:
            with np.errstate(divide="ignore"):
                grad_t = grad_output * ((-p).log1p() - p.log())
        return grad_p, grad_t


def binary_cross_entropy(p, t):
    """The elementwise loss as a node (p, t: Tensors of one dtype and shape)."""
    return BinaryCrossEntropy.apply(p, t)
