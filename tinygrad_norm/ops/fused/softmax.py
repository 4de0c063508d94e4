"""Softmax and LogSoftmax as single nodes, each with its analytic backward.

Composed from primitives (`softmax_composed` in `ops/composite.py`) softmax is five nodes:
a subtraction, an Exp, a Sum, a Div, and autograd walks back through all of them. Here it is
one node whose backward is one line, derived below; the test suite checks that both give the
same values and gradients.
"""

import numpy as np

from ...autograd.engine import Function
from ..composite import normalize_dims


def _axis(x: np.ndarray, dim) -> int | None:
    """The one axis softmax runs along (None for a 0-d array, which is its own only element)."""
    if x.ndim == 0:
        normalize_dims("softmax", dim, 0)  # still reject a dim that is out of range
        return None
    (axis,) = normalize_dims("softmax", dim, x.ndim)
    return axis


def _shifted(x: np.ndarray, axis) -> np.ndarray:
    """x - max(x) along `axis`: the largest entry becomes 0, so exp never overflows.

    NOTE: a slice whose entries are all -inf has no distribution (its mass would be nowhere);
    it gives NaN, as in PyTorch. An empty x has nothing to shift (and np.max of nothing raises).
    """
    if x.size == 0:
        return x.copy()
    return x - np.max(x, axis=axis, keepdims=True)


class Softmax(Function):
    """y = softmax(x) along `dim`: y_i = exp(x_i) / sum_j exp(x_j).

    Forward shifts x by its maximum first (exp(x_i - m) / sum_j exp(x_j - m) is the same
    number, m cancels) so that exp never overflows, even for logits of 1e4.

    Backward, step by step. Take one slice along `dim`. The Jacobian of softmax is

        dy_i/dx_j = y_i * (delta_ij - y_j)

    (quotient rule: d exp(x_i)/dx_j = delta_ij exp(x_i), d sum/dx_j = exp(x_j)). The chain rule
    sends grad_x_j = sum_i grad_out_i * dy_i/dx_j, so

        grad_x_j = sum_i grad_out_i * y_i * (delta_ij - y_j)
                 = y_j * grad_out_j - y_j * sum_i grad_out_i * y_i
                 = y_j * (grad_out_j - sum_i grad_out_i * y_i).

    The full C x C Jacobian is never built: one product, one sum, one subtraction. The formula
    needs only the OUTPUT y, which forward saves; the engine hands it back joined to the graph
    (as this node's own output), so the backward is itself differentiable and second
    derivatives (`create_graph=True`) come out right.

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([0.0, 0.0], requires_grad=True)
    >>> y = Softmax.apply(x, dim=0)
    >>> y
    tensor([0.5000, 0.5000], grad_fn=<SoftmaxBackward>)
    >>> (y * tg.tensor([1.0, 0.0])).sum().backward()
    >>> x.grad
    tensor([ 0.2500, -0.2500])
    """

    formula = "grad_x = y * (grad_out - sum(grad_out * y, dim))     (y = softmax(x))"

    @staticmethod
    def forward(ctx, x, dim):
        axis = _axis(x, dim)
        y = np.exp(_shifted(x, axis))
        y /= y.sum(axis=axis, keepdims=True)  # in place: one array fewer
        ctx.axis = axis
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return y * (grad_output - (grad_output * y).sum(dim=ctx.axis, keepdim=True))


class LogSoftmax(Function):
    """y = log_softmax(x) along `dim`: y_i = x_i - log(sum_j exp(x_j)).

    Forward computes (x_i - m) - log(sum_j exp(x_j - m)) with m the maximum: no exp of a large
    number, and an entry of -inf stays exactly -inf (its probability is exactly 0).

    Backward: dy_i/dx_j = delta_ij - softmax(x)_j, the derivative of log(sum exp) being softmax.
    The chain rule gives

        grad_x_j = sum_i grad_out_i * (delta_ij - p_j) = grad_out_j - p_j * sum_i grad_out_i

    with p = softmax(x) = exp(y). Forward saves its output y, so p = exp(y) is rebuilt from a
    tensor joined to the graph, and the backward is twice differentiable.

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([0.0, 0.0], requires_grad=True)
    >>> y = LogSoftmax.apply(x, dim=0)
    >>> y[0].backward()
    >>> x.grad
    tensor([ 0.5000, -0.5000])
    """

    formula = "grad_x = grad_out - exp(y) * sum(grad_out, dim)     (y = log_softmax(x))"

    @staticmethod
    def forward(ctx, x, dim):
        axis = _axis(x, dim)
        y = _shifted(x, axis)
        with np.errstate(divide="ignore"):  # log(0) = -inf only when the whole slice is -inf
            y -= np.log(np.exp(y).sum(axis=axis, keepdims=True))  # in place: one array fewer
        ctx.axis = axis
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output - y.exp() * grad_output.sum(dim=ctx.axis, keepdim=True)


def softmax(x, dim):
    """softmax along `dim`, as one fused node (see `Softmax`)."""
    return Softmax.apply(x, dim)


def log_softmax(x, dim):
    """log_softmax along `dim`, as one fused node (see `LogSoftmax`)."""
    return LogSoftmax.apply(x, dim)
