"""Batch normalization in training mode as one node (Ioffe & Szegedy, 2015, arXiv:1502.03167):
each channel normalized with its batch statistics, then scaled and shifted."""

import math

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ..xp import constant_array, iadd, imul, operands


class BatchNorm(Function):
    """y = (x - mean) / sqrt(var + eps) * weight + bias, per channel: x (N, C, *S), mean and
    var (biased) over every axis but the channel axis 1, weight and bias (C,) or None.

    Backward: LayerNorm's derivation (`layer_norm.py`) with the roles of the axes swapped:
    there the statistics are taken over the last axes of each row, here over the batch and
    spatial axes of each channel. With r = 1 / sqrt(var + eps), x̂ = (x - mean) * r and
    g_x̂ = grad_out * w, the means below over the axes (0, 2, ...):

        grad_x = r * (g_x̂ - mean(g_x̂) - x̂ * mean(g_x̂ * x̂)),
        grad_w = sum(grad_out * x̂),   grad_b = sum(grad_out).

    w is the same for every value of a channel, so mean(g_x̂) = w * grad_b / n and
    mean(g_x̂ * x̂) = w * grad_w / n: the two sums the weight and bias need anyway give both
    means, and grad_x = (r w) * (grad_out - (grad_b + x̂ * grad_w) / n), five passes over
    (N, C, *S), not nine.

    Composed (`batch_norm_reference`, or the permute + LayerNorm + permute + affine that
    `F.batch_norm` used) it is seven nodes; here one (what that was worth on the course's
    makemore MLP: docs/speed.md).
    Forward keeps x - mean, r and r * w (not x̂: y = (x - mean) * (r w) + b needs one pass
    over (N, C, *S) fewer), and backward reads sum(grad_out * x̂) as r * sum(grad_out *
    (x - mean)). The per-channel sums are `channel_sum`, a (1, N) @ (N, C) product for an
    (N, C) input.
    Under `create_graph=True` backward recomputes the statistics from the saved x as Tensors,
    by the same `_center`, so the gradient is differentiable again.

    `running=(running_mean, running_var, momentum)` (arrays (C,), or None for either) also
    moves the running statistics towards this batch's, in place, as PyTorch's kernel does:
    running = (1 - momentum) * running + momentum * batch value, with the unbiased variance
    var * n / (n - 1). Taken from the statistics forward computes anyway: no extra passes
    (np.mean, np.var) over the input.

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([[1.0], [3.0]], requires_grad=True)      # N 2, C 1
    >>> BatchNorm.apply(x, None, None, eps=0.0)
    tensor([[-1.],
            [ 1.]], grad_fn=<BatchNormBackward>)
    """

    formula = (
        "grad_x = rstd * (g_xhat - mean(g_xhat) - xhat * mean(g_xhat * xhat)), g_xhat = "
        "grad_out * weight;  grad_weight = sum(grad_out * xhat);  grad_bias = sum(grad_out)"
    )

    @staticmethod
    def forward(ctx, x, weight, bias, *, eps, running=None):
        centered, rstd, scale = _center(x, weight, eps, running)  # scale = r * w (1, C, 1, ...)
        y = centered * scale  # = x̂ * w
        if bias is not None:
            y += bias.reshape(rstd.shape)
        ctx.save_for_backward(x, weight)
        # NOTE: our own arrays, kept as attributes: no Tensor, no version to check
        ctx.centered, ctx.rstd, ctx.scale = centered, rstd, scale
        return y

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        if is_grad_enabled():  # create_graph: the statistics as functions of x, for second order
            centered, rstd, scale = _center(x, weight, ctx.eps)
        else:
            centered, rstd, scale = ctx.centered, ctx.rstd, ctx.scale
        (grad_output,) = operands(grad_output)
        needs_x, needs_w, needs_b = ctx.needs_input_grad[:3]
        per_channel = _layout(centered)[2]  # 1 / n
        # The two sums over each channel, kept as (1, C, 1, ...): sum(grad_out) = grad_b, and
        # sum(grad_out * x̂) = r * sum(grad_out * (x - mean)) = grad_w (x̂ itself is never
        # formed); grad_x needs both, whatever needs a gradient.
        sum_g = channel_sum(grad_output) if needs_x or needs_b else None
        sum_gx = channel_sum(grad_output * centered) * rstd if needs_x or needs_w else None
        grad_x = None
        if needs_x:
            # grad_x = (r w) * (grad_out - (sum_g + x̂ * sum_gx) / n) (see the docstring),
            # with x̂ * sum_gx = (x - mean) * (r * sum_gx)
            means = iadd(centered * (sum_gx * rstd * per_channel), sum_g * per_channel)
            grad_x = imul(grad_output - means, scale)
        grad_w = sum_gx.reshape(-1) if needs_w else None
        grad_b = sum_g.reshape(-1) if needs_b else None
        return grad_x, grad_w, grad_b


def _layout(x) -> tuple[tuple, tuple, float]:
    """For x (N, C, *S): the axes of the statistics (0, 2, ...), the shape (1, C, 1, ...) of a
    per-channel value, and 1 / n, n the number of values per channel (0 for an empty batch):
    a mean is a sum times it."""
    shape = tuple(x.shape)
    n = shape[0] * math.prod(shape[2:])
    spatial = len(shape) - 2
    return (0, *range(2, 2 + spatial)), (1, shape[1]) + (1,) * spatial, 1 / n if n else 0.0


def channel_sum(a, times: float = 1.0):
    """`times` the sum of each channel of a (N, C, *S) (an array or a Tensor), kept as
    (1, C, 1, ...): with times = 1 / n, the mean.

    The fast kernel of this file: for an (N, C) float32 or float64 array, the product
    (times, ..., times) @ a, a (1, N) row that NumPy hands to BLAS, faster on small arrays
    than `a.sum(0, keepdims=True) * times` (a BatchNorm1d forward + backward takes four such
    sums). Its composed reference is that line, below, which every other case takes.
    """
    if type(a) is np.ndarray and a.ndim == 2 and a.dtype.char in "fd":  # BLAS's types
        # (a row of up to 4096 is kept, shared: building a short one costs what the product
        # saves, a long one little beside the product)
        n, dtype = a.shape[0], a.dtype
        row = constant_array(times, (1, n), dtype) if n <= 4096 else np.full((1, n), times, dtype)
        return row @ a
    total = a.sum(_layout(a)[0], keepdims=True)
    return total if times == 1.0 else total * times


def _center(x, weight, eps: float, running=None):
    """x - mean, r = 1 / sqrt(var + eps) and scale = r * w (r and scale kept as
    (1, C, 1, ...)) per channel, for an array or a Tensor (recorded); `running` (arrays only):
    see `BatchNorm`."""
    per_channel = _layout(x)[2]
    mean = channel_sum(x, per_channel)
    centered = x - mean
    var = channel_sum(centered * centered, per_channel)
    if running is not None:
        _update_running(running, mean.reshape(-1), var.reshape(-1), per_channel)
    rstd = (var + eps) ** -0.5
    return centered, rstd, rstd if weight is None else rstd * weight.reshape(rstd.shape)


def _update_running(running, mean, var, per_channel: float) -> None:
    """running = (1 - momentum) * running + momentum * batch value, in place (unbiased var:
    var * n / (n - 1), n = 1 / per_channel)."""
    running_mean, running_var, momentum = running
    if running_mean is not None:
        running_mean *= 1 - momentum
        running_mean += momentum * mean
    if running_var is not None:
        unbiased = 1 / (1 - per_channel) if per_channel != 1 else math.inf  # n / (n - 1)
        running_var *= 1 - momentum
        running_var += (momentum * unbiased) * var


def batch_norm_reference(x, weight=None, bias=None, eps=1e-5):
    """Batch normalization with batch statistics composed from primitives (autograd derives
    the gradient): the test reference of `BatchNorm`."""
    dims, shape, _ = _layout(x)
    mean = x.mean(dim=dims, keepdim=True)
    var = x.var(dim=dims, unbiased=False, keepdim=True)
    y = (x - mean) / (var + eps).sqrt()
    y = y if weight is None else y * weight.reshape(shape)
    return y if bias is None else y + bias.reshape(shape)


def batch_norm(x, weight=None, bias=None, eps=1e-5, running=None):
    """Training-mode batch normalization of x (N, C, *S) as one node (see `BatchNorm`)."""
    # NOTE: eps and running by keyword: the positional arguments are the three that get a
    # gradient, the engine's common case (one gradient per positional argument)
    return BatchNorm.apply(x, weight, bias, eps=eps, running=running)
