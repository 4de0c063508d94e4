"""Binary cross-entropy from logits as one node (PyTorch's `binary_cross_entropy_with_logits`).

Composed from primitives it is about ten nodes (1 - t, a product, the stable softplus's
relu, abs, exp, log and sums, the reduction); a small classifier's step has few more.
"""

import math

from ...autograd.function import Function
from ..xp import operands, sigmoid, softplus


class BCEWithLogits(Function):
    """loss = (1 - t) x + c · softplus(-x), c = 1 + (pos_weight - 1) t, times `weight`, then
    the reduction ("mean", "sum" or "none"). x are logits, t targets in [0, 1].

    Where it comes from. With p = sigmoid(x), the binary cross-entropy is
    -t log p - (1 - t) log(1 - p). Since -log p = softplus(-x) = log(1 + e^-x) and
    -log(1 - p) = x + softplus(-x), it is (1 - t) x + softplus(-x); pos_weight scales the t
    term: -c' t log p - (1 - t) log(1 - p) with c' = pos_weight, which regroups as above.
    softplus(-x) = max(-x, 0) + log(1 + e^-|x|) never overflows.

    Backward, per element (d softplus(-x)/dx = -sigmoid(-x)):

        d loss/dx = (1 - t) - c · sigmoid(-x)          (= sigmoid(x) - t when c = 1)
        d loss/dt = -x + (pos_weight - 1) · softplus(-x)

    each times `weight`, and grad_out divided by the number of elements for "mean".

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([0.0, 2.0], requires_grad=True)
    >>> loss = BCEWithLogits.apply(x, tg.tensor([1.0, 0.0]), pos_weight=None, weight=None,
    ...                            reduction="sum")
    >>> round(float(loss), 4), x.grad is None
    (2.8201, True)
    >>> loss.backward(); x.grad                      # sigmoid(x) - t
    tensor([-0.5000,  0.8808])
    """

    formula = "grad_x = (1 - t) - c * sigmoid(-x);  grad_t = -x + (pos_weight - 1) softplus(-x)"

    @staticmethod
    def forward(ctx, x, t, *, pos_weight, weight, reduction):
        ctx.save_for_backward(x, t)
        loss = softplus(-x)  # -log(sigmoid(x)), a new array
        if pos_weight is not None:
            loss = loss * (1 + (pos_weight - 1) * t)
        loss += (1 - t) * x
        if weight is not None:
            loss = loss * weight
        if reduction == "none":
            return loss
        return loss.sum() if reduction == "sum" else loss.mean()

    @staticmethod
    def backward(ctx, grad_output):
        # NOTE: the formulas read the same for arrays and Tensors (see `xp.py`).
        g, x, t = operands(grad_output, *ctx.saved_tensors)
        pos_weight, weight = ctx.pos_weight, ctx.weight
        if ctx.reduction == "mean":
            g = g / math.prod(ctx.input_shape)
        if weight is not None:
            g = g * weight
        grad_x = grad_t = None
        if ctx.needs_input_grad[0]:
            c = 1 if pos_weight is None else 1 + (pos_weight - 1) * t
            grad_x = g * ((1 - t) - c * sigmoid(-x))
        if ctx.needs_input_grad[1]:
            dt = -x if pos_weight is None else (pos_weight - 1) * softplus(-x) - x
            grad_t = g * dt
        return grad_x, grad_t


def bce_with_logits(x, t, pos_weight=None, weight=None, reduction="mean"):
    """The fused binary cross-entropy of logits x against targets t (same shape, nonempty);
    pos_weight and weight are arrays (constants) or None."""
    return BCEWithLogits.apply(x, t, pos_weight=pos_weight, weight=weight, reduction=reduction)


def bce_with_logits_reference(x, t, pos_weight=None, weight=None, reduction="mean"):
    """The same loss composed from primitives (the test reference of `BCEWithLogits`; autograd
    derives the gradient); `softplus` of a Tensor is composed: relu(z) + log1p(exp(-|z|))."""
    softplus_neg = softplus(-x)
    if pos_weight is None:
        loss = (1 - t) * x + softplus_neg
    else:
        loss = (1 - t) * x + (1 + (pos_weight - 1) * t) * softplus_neg
    if weight is not None:
        loss = loss * weight
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()
