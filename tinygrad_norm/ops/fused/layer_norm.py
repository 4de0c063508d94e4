"""Layer normalization as one node with its analytic backward (Ba, Kiros & Hinton, 2016,
"Layer Normalization", arXiv:1607.06450)."""

import math

import numpy as np

from ...autograd.engine import Function
from ...autograd.grad_mode import is_grad_enabled


class LayerNorm(Function):
    """y = (x - mean) / sqrt(var + eps) * weight + bias over the last `n_axes` axes of x.

    mean and var (biased: divided by D, the number of normalized elements) are taken over the
    normalized axes, separately for each position of the leading axes. `weight` and `bias`
    (None or arrays that broadcast to the normalized shape) scale and shift the result.

    Backward, step by step. Write r = 1 / sqrt(var + eps) and x̂ = (x - mean) * r, so the
    forward is x -> (mean, var) -> x̂ -> y = x̂ * w + b. Go back in reverse order:

    1. y = x̂ * w + b:   grad_b = sum of grad_out over the leading axes,
                        grad_w = sum of grad_out * x̂ over the leading axes,
                        g_x̂ = grad_out * w.
    2. x̂ -> x. Every x_j moves x̂_j directly, but also moves mean and var, which every x̂_i
       uses: that is why mean terms appear. With d mean/dx_j = 1/D and
       d var/dx_j = 2 (x_j - mean) / D (the path through the mean drops out, as
       sum_i (x_i - mean) = 0), so d r/dx_j = -r^3 (x_j - mean) / D = -r^2 x̂_j / D:

           dx̂_i/dx_j = r (delta_ij - 1/D) + (x_i - mean) dr/dx_j
                     = r (delta_ij - 1/D - x̂_i x̂_j / D)

       and the chain rule, grad_x_j = sum_i g_x̂_i dx̂_i/dx_j, gives

           grad_x = r * (g_x̂ - mean(g_x̂) - x̂ * mean(g_x̂ * x̂)).

       The first mean removes the part of g_x̂ that would shift every x̂ alike (x̂ always has
       mean 0); the second removes the part that would stretch x̂ (x̂ always has variance 1).

    Forward saves x̂ and r as arrays, and backward uses them directly (the fast path). When
    the backward itself is recorded (`create_graph=True`), x̂ and r must be functions of x for
    the second derivative, so backward recomputes them from the saved input tensor x with
    Tensor operations; the formula is the same.

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([[1.0, 3.0]], requires_grad=True)
    >>> y = LayerNorm.apply(x, None, None, 1, 0.0)
    >>> y
    tensor([[-1.,  1.]], grad_fn=<LayerNormBackward>)
    >>> (y * tg.tensor([[1.0, 0.0]])).sum().backward()
    >>> x.grad   # moving x_0 or x_1 only rescales (-1, 1): nothing flows back
    tensor([[0., 0.]])
    """

    formula = (
        "grad_x = rstd * (g_xhat - mean(g_xhat) - xhat * mean(g_xhat * xhat)), g_xhat = grad_out "
        "* weight;  grad_weight = sum(grad_out * xhat);  grad_bias = sum(grad_out)"
    )

    @staticmethod
    def forward(ctx, x, weight, bias, n_axes, eps):
        axes = tuple(range(x.ndim - n_axes, x.ndim))
        centered = x - x.mean(axis=axes, keepdims=True)
        square = np.multiply(centered, centered)
        rstd = 1 / np.sqrt(square.mean(axis=axes, keepdims=True) + eps)
        del square
        xhat = np.multiply(centered, rstd, out=centered)  # in place: centered is ours
        ctx.axes, ctx.lead, ctx.eps = axes, tuple(range(x.ndim - n_axes)), eps
        ctx.save_for_backward(x, weight, xhat, rstd)
        if weight is None:
            return xhat if bias is None else xhat + bias  # xhat is saved: a new array
        y = xhat * weight
        if bias is not None:
            y = np.add(y, bias, out=y if np.result_type(y, bias) == y.dtype else None)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        x, weight, xhat, rstd = ctx.saved_tensors
        needs_x, needs_w, needs_b = ctx.needs_input_grad[:3]
        axes, lead = ctx.axes, ctx.lead
        if is_grad_enabled():  # create_graph: x̂ and r as functions of x, for second order
            centered = x - x.mean(axes, keepdims=True)
            rstd = ((centered * centered).mean(axes, keepdims=True) + ctx.eps).rsqrt()
            xhat = centered * rstd
        else:
            # NOTE: nothing is recorded: NumPy calls instead of a dozen Tensor ops, each with
            # its node overhead, and in place where the arrays are ours.
            arrays = _arrays(grad_output, weight, xhat, rstd)
            return _backward_arrays(*arrays, ctx.needs_input_grad[:3], len(axes))
        grad_x = grad_w = grad_b = None
        if needs_x:
            g_xhat = grad_output if weight is None else grad_output * weight
            grad_x = rstd * (
                g_xhat
                - g_xhat.mean(axes, keepdims=True)
                - xhat * (g_xhat * xhat).mean(axes, keepdims=True)
            )
        if needs_w:
            grad_w = _sum_leading(grad_output * xhat, lead)
        if needs_b:
            grad_b = _sum_leading(grad_output, lead)
        return grad_x, grad_w, grad_b


def _backward_arrays(grad_out, weight, xhat, rstd, needs: tuple, n_axes: int):
    """`LayerNorm.backward` in NumPy: the same formulas on 2-D views.

    View every array as (N, D), D the number of normalized elements, and w as (D,). Then a
    mean over a row of a product with w is a matrix-vector product: mean(g_x̂) =
    (grad_out @ w) / D and mean(g_x̂ * x̂) = ((grad_out * x̂) @ w) / D, where grad_out * x̂ is
    also what grad_w sums. Two (N, D) temporaries in all.
    """
    lead, norm_shape = xhat.shape[: xhat.ndim - n_axes], xhat.shape[xhat.ndim - n_axes :]
    N, D = math.prod(lead), math.prod(norm_shape)
    go, xh = grad_out.reshape(N, D), xhat.reshape(N, D)
    w = None
    if weight is not None:
        full = weight if weight.shape == norm_shape else np.broadcast_to(weight, norm_shape)
        w = full.reshape(D)
    grad_x = grad_w = grad_b = None
    if needs[2]:
        grad_b = go.sum(0).reshape(norm_shape)
    if not (needs[0] or needs[1]):
        return grad_x, grad_w, grad_b
    go_xhat = go * xh  # (N, D)
    if needs[1]:
        grad_w = go_xhat.sum(0).reshape(norm_shape)
    if needs[0]:
        if w is None:
            mean_g, mean_gx = go.mean(1), go_xhat.mean(1)  # (N,)
            grad_x = go - mean_g[:, None]
        else:
            mean_g, mean_gx = go @ w / D, go_xhat @ w / D  # (N,)
            grad_x = go * w
            grad_x -= mean_g[:, None]
        grad_x -= np.multiply(xh, mean_gx[:, None], out=go_xhat)  # go_xhat is used up
        grad_x *= rstd.reshape(N, 1)
        grad_x = grad_x.reshape(xhat.shape)
    return grad_x, grad_w, grad_b


def _sum_leading(t, lead: tuple):
    """Sum over the leading (not normalized) axes: weight and bias were shared along them."""
    return t.sum(lead) if lead else t


def _arrays(*tensors):
    """The arrays inside Tensors (None stays None): for a backward that records nothing."""
    return tuple(None if t is None else t.data for t in tensors)


def layer_norm(x, weight=None, bias=None, n_axes=1, eps=1e-5):
    """Layer normalization over the last `n_axes` axes, as one fused node (see `LayerNorm`)."""
    return LayerNorm.apply(x, weight, bias, n_axes, eps)
