"""Layer normalization as one node with its analytic backward (Ba, Kiros & Hinton, 2016,
"Layer Normalization", arXiv:1607.06450)."""

import math

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ..xp import imul, isub, multiply, operands, row_dot


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

    The formulas are written once, `_normalize` for x̂ and r and `_grads` for the three
    gradients, and run on arrays or on Tensors (see `xp.py`). Forward saves x̂ and r as arrays,
    and backward uses them directly (the fast path). When the backward itself is recorded
    (`create_graph=True`), x̂ and r must be functions of x for the second derivative, so
    backward recomputes them from the saved input tensor x, by the same `_normalize`.

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
        xhat, rstd = _normalize(x, n_axes, eps)
        ctx.n_axes, ctx.eps = n_axes, eps
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
        if is_grad_enabled():  # create_graph: x̂ and r as functions of x, for second order
            xhat, rstd = _normalize(x, ctx.n_axes, ctx.eps)
        grad_output, weight, xhat, rstd = operands(grad_output, weight, xhat, rstd)
        return _grads(grad_output, weight, xhat, rstd, ctx.needs_input_grad[:3], ctx.n_axes)


def _normalize(x, n_axes: int, eps: float):
    """x̂ = (x - mean) * r and r = 1 / sqrt(var + eps) over the last `n_axes` axes (kept), for
    an array (x̂ computed in place) or a Tensor (recorded)."""
    axes = tuple(range(x.ndim - n_axes, x.ndim))
    xhat = x - x.mean(axes, keepdims=True)  # centered, then scaled in place
    if n_axes == 1 and isinstance(xhat, np.ndarray):  # sum of squares without an x^2 array
        rstd = (row_dot(xhat, xhat) / xhat.shape[-1] + eps) ** -0.5
    else:
        rstd = ((xhat * xhat).mean(axes, keepdims=True) + eps) ** -0.5
    xhat = imul(xhat, rstd)
    return xhat, rstd


def _grads(grad_out, weight, xhat, rstd, needs: tuple, n_axes: int):
    """grad_x, grad_w, grad_b of `LayerNorm` on 2-D views, for arrays or Tensors.

    View every array as (N, D), D the number of normalized elements, and w as (D,). Then a
    mean over a row of a product with w is a matrix-vector product: mean(g_x̂) =
    (grad_out @ w) / D and mean(g_x̂ * x̂) = ((grad_out * x̂) @ w) / D, where grad_out * x̂ is
    also what grad_w sums. On arrays, two (N, D) temporaries in all.
    """
    lead, norm_shape = xhat.shape[: xhat.ndim - n_axes], xhat.shape[xhat.ndim - n_axes :]
    N, D = math.prod(lead), math.prod(norm_shape)
    go, xh = grad_out.reshape(N, D), xhat.reshape(N, D)
    grad_x = grad_w = grad_b = None
    if needs[2]:
        grad_b = go.sum(0).reshape(norm_shape)
    if not (needs[0] or needs[1]):
        return grad_x, grad_w, grad_b
    go_xhat = go * xh  # (N, D)
    if needs[1]:
        grad_w = go_xhat.sum(0).reshape(norm_shape)
    if needs[0]:
        if weight is None:
            mean_g, mean_gx = go.mean(1), go_xhat.mean(1)  # (N,)
            grad_x = go - mean_g.reshape(N, 1)  # g_x̂ - mean(g_x̂)
        else:
            if weight.shape != norm_shape:  # a weight that broadcasts to the normalized shape
                weight = weight * np.ones(norm_shape, weight.dtype)
            w = weight.reshape(D)
            mean_g, mean_gx = go @ w / D, go_xhat @ w / D  # (N,)
            grad_x = go * w  # g_x̂
            grad_x = isub(grad_x, mean_g.reshape(N, 1))
        x_mean_gx = multiply(xh, mean_gx.reshape(N, 1), out=go_xhat)  # go_xhat is used up
        grad_x = isub(grad_x, x_mean_gx)  # - x̂ mean(g_x̂ x̂)
        grad_x = imul(grad_x, rstd.reshape(N, 1))
        grad_x = grad_x.reshape(xhat.shape)
    return grad_x, grad_w, grad_b


def layer_norm_reference(x, weight=None, bias=None, n_axes=1, eps=1e-5):
    """Layer normalization composed from primitives (mean, var, sqrt, ...: autograd derives the
    gradient): the test reference of `LayerNorm`."""
    dims = tuple(range(x.ndim - n_axes, x.ndim))
    mean = x.mean(dim=dims, keepdim=True)
    var = x.var(dim=dims, unbiased=False, keepdim=True)
    y = (x - mean) / (var + eps).sqrt()
    y = y if weight is None else y * weight
    return y if bias is None else y + bias


def layer_norm(x, weight=None, bias=None, n_axes=1, eps=1e-5):
    """Layer normalization over the last `n_axes` axes, as one fused node (see `LayerNorm`)."""
    return LayerNorm.apply(x, weight, bias, n_axes, eps)
