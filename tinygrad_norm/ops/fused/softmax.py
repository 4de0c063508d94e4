"""Softmax and LogSoftmax as single nodes, each with its analytic backward, their composed
references, and the masked ("safe") softmax of attention.

Composed from primitives (`softmax_reference` below) softmax is five nodes: a subtraction, an
Exp, a Sum, a Div, and autograd walks back through all of them. Here it is one node whose
backward is one line, derived below; the test suite checks that both give the same values and
gradients.
"""

import numpy as np

from ...autograd.function import Function
from ...autograd.node import GraphTensor
from ..composite import normalize_dims, require_floating
from ..xp import data, exp, exp_, masked_fill_, max_shifted, operands


def _axis(x: np.ndarray, dim) -> int | None:
    """The one axis softmax runs along (None for a 0-d array, which is its own only element)."""
    if x.ndim == 0:
        normalize_dims("softmax", dim, 0)  # still reject a dim that is out of range
        return None
    (axis,) = normalize_dims("softmax", dim, x.ndim)
    return axis


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
        y = exp_(max_shifted(x, axis))  # exp in place: one new array in all
        y /= np.add.reduce(y, axis=axis, keepdims=True)
        ctx.axis = axis
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y, grad_output = operands(*ctx.saved_tensors, grad_output)
        if isinstance(y, np.ndarray) and y.ndim:  # on arrays: one new array, in place after
            grad = grad_output * y
            dot = np.add.reduce(grad, axis=ctx.axis, keepdims=True)  # sum(g y)
            np.subtract(grad_output, dot, out=grad)
            grad *= y
            return grad
        return y * (grad_output - (grad_output * y).sum(ctx.axis, keepdims=True))


class LogSoftmax(Function):
    """y = log_softmax(x) along `dim`: y_i = x_i - log(sum_j exp(x_j)).

    Forward computes (x_i - m) - log(sum_j exp(x_j - m)) with m the maximum: no exp of a large
    number, and an entry of -inf stays exactly -inf (its probability is exactly 0).

    Backward: dy_i/dx_j = delta_ij - softmax(x)_j, the derivative of log(sum exp) being softmax.
    The chain rule gives

        grad_x_j = sum_i grad_out_i * (delta_ij - p_j) = grad_out_j - p_j * sum_i grad_out_i

    with p = softmax(x) = exp(y). Forward keeps p (e / s, from the exp it takes anyway) for a
    plain backward, which is then a product and a subtraction. It also saves its output y:
    under `create_graph=True`, p = exp(y) is rebuilt from a tensor joined to the graph, and the
    backward is twice differentiable.

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
        y, ctx.p = log_softmax_and_softmax(x, axis, ctx.needs_input_grad[0])
        ctx.axis = axis
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y, grad_output = operands(*ctx.saved_tensors, grad_output)
        if isinstance(y, GraphTensor) or ctx.p is None:  # recorded: p = exp(y), joined to y
            return grad_output - exp(y) * grad_output.sum(ctx.axis, keepdims=True)
        grad = ctx.p * np.add.reduce(grad_output, axis=ctx.axis, keepdims=True)
        return np.subtract(grad_output, grad, out=grad)  # forward's p: no exp here


def log_softmax_and_softmax(x: np.ndarray, axis, with_softmax=True) -> tuple:
    """(log_softmax(x), softmax(x)) of an array along `axis`, from one exp: with e = exp(x - m)
    and s = sum(e), log_softmax = (x - m) - log(s) and softmax = e / s, which LogSoftmax's
    backward needs (it would otherwise take exp of the output). softmax is None for a 0-d or
    empty x, or when `with_softmax` is False."""
    if not with_softmax or x.size == 0 or not x.ndim:
        return log_softmax_array(x, axis), None
    y = max_shifted(x, axis)
    p = np.exp(y)
    total = np.add.reduce(p, axis=axis, keepdims=True)  # holds its maximum's exp(0) = 1
    y -= np.log(total)
    p /= total
    return y, p


def log_softmax_array(x: np.ndarray, axis) -> np.ndarray:
    """log_softmax of an array along `axis`: (x - m) - log(sum exp(x - m)), m the maximum."""
    y = max_shifted(x, axis)
    if y.size == 0:  # (the sum of an empty slice is 0: no log of it)
        return y
    # NOTE: each sum holds its maximum's exp(0) = 1, so no log(0): no np.errstate needed
    y -= np.log(np.add.reduce(np.exp(y), axis=axis, keepdims=True))  # in place: one array fewer
    return y


def safe_softmax(scores, allowed=None):
    """softmax along the last axis over the keys a query is `allowed` to attend to, and all
    zeros for a query allowed no key (PyTorch's "safe softmax": plain softmax of a row of only
    -inf is 0/0 = NaN, and so is its gradient).

    scores (..., L, S): an array, which becomes the weights (in place), or a Tensor (the
    fused Softmax and masked fills, recorded: a masked score gets gradient 0). allowed: bool,
    broadcasting to scores, True where query i may attend to key j; None when the masked scores
    are already -inf (a row of only -inf is then a query allowed nothing).

    >>> safe_softmax(np.array([[0.0, 0.0], [5.0, 1.0]]), np.array([[True, True], [False, False]]))
    array([[0.5, 0.5],
           [0. , 0. ]])
    """
    if allowed is None:
        nowhere = np.all(data(scores) == -np.inf, axis=-1, keepdims=True)
    else:
        scores = masked_fill_(scores, ~allowed, -np.inf)
        nowhere = ~allowed.any(axis=-1, keepdims=True)  # (..., L, 1): queries with no key
    any_nowhere = nowhere.any()
    if any_nowhere:  # 0 instead of -inf, so that the maximum shift does not give NaN
        scores = masked_fill_(scores, nowhere, 0.0)
    if isinstance(scores, np.ndarray):
        weights = exp_(max_shifted(scores, -1, out=scores))
        weights /= weights.sum(-1, keepdims=True)
    else:
        weights = Softmax.apply(scores, dim=-1)
    return masked_fill_(weights, nowhere, 0.0) if any_nowhere else weights


# --- the references: the same maths composed from primitives, derived by autograd ---------------
def softmax_reference(x, dim):
    """softmax(x)_i = exp(x_i - m) / sum_j exp(x_j - m), m = max_j x_j, from primitives.

    Five nodes (Sub, Exp, Sum, Div and their gradients derived by autograd); the fused
    `Softmax` does the same in one node, and the tests check that both agree. The shift by the
    maximum is a constant (its gradient contributions cancel).
    """
    axis = _axis(x.array, dim)
    e = max_shifted(x, axis).exp()
    return e / e.sum(axis, keepdims=True)


def log_softmax_reference(x, dim):
    """log_softmax(x)_i = (x_i - m) - log(sum_j exp(x_j - m)), from primitives."""
    axis = _axis(x.array, dim)
    shifted = max_shifted(x, axis)
    return shifted - shifted.exp().sum(axis, keepdims=True).log()


def softmax(x, dim):
    """softmax along `dim`, as one fused node (see `Softmax`)."""
    require_floating("softmax", x, NotImplementedError)
    return Softmax.apply(x, dim=dim)


def log_softmax(x, dim):
    """log_softmax along `dim`, as one fused node (see `LogSoftmax`)."""
    require_floating("log_softmax", x, NotImplementedError)
    return LogSoftmax.apply(x, dim=dim)
