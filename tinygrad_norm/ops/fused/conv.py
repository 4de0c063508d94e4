"""Convolution as one node: the whole batch's windows as one matrix, one GEMM forward, two
backward (per group).

Composed (`conv_reference`: Unfold, a batched MatMul, a bias Add) a convolution is one small
product per image, and autograd derives a backward of one small product per image for the
weight gradient, summed afterwards. Here the columns of all N images sit side by side in one
(C·k, L·N) matrix, so each of the three products is a single GEMM over the whole batch.
"""

import math

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ..conv import Unfold, Windows, fold, window_view
from ..xp import operands, permute


class Conv(Function):
    """y = W @ cols + b: x (N, C, *S), weight (O, C/g, *K), bias (O,) or None -> (N, O, *O).

    cols = `columns(x)` (C·k, L·N), k = prod(K) kernel elements, L = prod(O) windows per image:
    column l·N + n holds window l of image n, channel by channel. With groups g, W is viewed
    as (g, O/g, C/g·k) and cols as (g, C/g·k, L·N): group i's output channels see only its
    input channels. Then, per group, with G = grad_out viewed as (g, O/g, L·N):

        y      = W @ cols                 (g, O/g, L·N)   one GEMM
        grad_W = G @ cols^T               (g, O/g, C/g·k) one GEMM: every image and window
                                                          summed by the product itself
        grad_x = image(W^T @ G)           (N, C, *S)      one GEMM, then col2im: each column
                                                          added back where its window was read
        grad_b = G summed over its L·N columns

    These are MatMul's two gradients and Unfold's (Fold), written out. The output is returned
    as (N, O, *O) with batch-last memory (a permuted view of the (O, *O, N) product): no copy,
    a gradient arriving in the same layout is viewed as G without one, and the next layer's
    columns are copied out in runs of (window row × N) elements.

    Forward keeps cols (only when the weight needs its gradient). Under `create_graph=True`
    the backward's lines run on Tensors (`xp.py`) and cols is recomputed from the input
    tensor by `columns`, so the gradients are differentiable again. What this node is worth
    on the course LeNet against the composed form: docs/speed.md.

    >>> import tinygrad_norm as tg
    >>> from tinygrad_norm.ops.conv import windows
    >>> g = windows("conv2d", (3, 3), (2, 2), (1, 1), (1, 1), ((0, 0), (0, 0)))
    >>> x = tg.ones(1, 1, 3, 3, requires_grad=True)
    >>> y = Conv.apply(x, tg.ones(1, 1, 2, 2), None, g, 1)
    >>> y.tolist(), y.grad_fn
    ([[[[4.0, 4.0], [4.0, 4.0]]]], <ConvBackward>)
    >>> y.sum().backward()
    >>> x.grad.tolist()   # how many windows read each pixel
    [[[[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]]]
    """

    formula = "grad_W = G @ cols^T;  grad_x = col2im(W^T @ G);  grad_b = sum(G)"

    @staticmethod
    def forward(ctx, x, weight, bias, geometry: Windows, groups: int):
        needs_x, needs_w = ctx.needs_input_grad[:2]
        cols = columns(x, geometry)  # (C·k, L·N)
        ctx.save_for_backward(x, weight if needs_x else None, cols if needs_w else None)
        n, o = x.shape[0], weight.shape[0]
        y = _weight_matrix(weight, groups) @ _by_group(cols, groups)  # (g, O/g, L·N)
        y = y.reshape((o,) + geometry.out + (n,))  # (O, *O, N)
        if bias is not None:
            y += bias.reshape((o,) + (1,) * (len(geometry.out) + 1))
        return permute(y, _batch_first(y.ndim))  # (N, O, *O), batch-last memory

    @staticmethod
    def backward(ctx, grad_output):
        x, weight, cols = ctx.saved_tensors
        geometry, groups = ctx.geometry, ctx.groups
        needs_x, needs_w, needs_b = ctx.needs_input_grad[:3]
        if is_grad_enabled() and needs_w:  # create_graph: cols as a function of x
            cols = columns(x, geometry)
        grad_output, weight, cols = operands(grad_output, weight, cols)
        x_shape, w_shape = ctx.input_shapes[:2]
        n, o = grad_output.shape[:2]
        length = math.prod(geometry.out) * n
        g = permute(grad_output, _batch_last(grad_output.ndim))  # (O, *O, N)
        g = _by_group(g.reshape(o, length), groups)  # (g, O/g, L·N)
        grad_b = g.sum(-1).reshape(o) if needs_b else None
        grad_w = None
        if needs_w:  # NOTE: as (cols @ G^T)^T, the order OpenBLAS is faster at for these shapes
            grad_w = (_by_group(cols, groups) @ g.swapaxes(-1, -2)).swapaxes(-1, -2)
            grad_w = grad_w.reshape(w_shape)  # (g, O/g, C/g·k) -> (O, C/g, *K)
        grad_x = None
        if needs_x:
            grad_cols = _weight_matrix(weight, groups).swapaxes(-1, -2) @ g  # (g, C/g·k, L·N)
            grad_x = image(grad_cols, geometry, x_shape)
        return grad_x, grad_w, grad_b


def _weight_matrix(w, groups: int):
    """(O, C/g, *K) -> (g, O/g, C/g·k)."""
    return w.reshape(groups, w.shape[0] // groups, math.prod(w.shape[1:]))


def _by_group(a, groups: int):
    """(rows, columns) -> (g, rows/g, columns): rows are grouped channel-major."""
    return a.reshape(groups, a.shape[0] // groups, a.shape[1])


def _batch_last(ndim: int) -> tuple:
    """The axis order (N, C, ...) -> (C, ..., N)."""
    return (*range(1, ndim), 0)


def _batch_first(ndim: int) -> tuple:
    """The axis order (C, ..., N) -> (N, C, ...): the inverse of `_batch_last`."""
    return (ndim - 1, *range(ndim - 1))


def columns(x, geometry: Windows):
    """im2col for the whole batch: x (N, C, *S) -> (C·k, L·N): column l·N + n holds window l
    of image n, channel by channel. On an array, x is first laid out batch-last, (C, *S, N)
    (no copy when it is already, as the output of `Conv` and of pooling on it are), so the
    one copy out of the strided windows (`window_view`) moves runs of (window row × N)
    contiguous elements, not rows of one image. On a Tensor: Unfold and a permute, recorded.
    """
    n, c = x.shape[:2]
    n_space = len(geometry.size)
    shape = (c * math.prod(geometry.kernel), math.prod(geometry.out) * n)
    if isinstance(x, np.ndarray):
        x = np.ascontiguousarray(x.transpose(_batch_last(x.ndim)))  # (C, *S, N)
        x = x.transpose(_batch_first(x.ndim))  # (N, C, *S), batch-last memory
        cols = window_view(x, geometry).transpose(_batch_last(2 + 2 * n_space))
        return np.ascontiguousarray(cols).reshape(shape)  # (C, *K, *O, N) as a matrix
    return Unfold.apply(x, geometry).permute(*_batch_last(2 + 2 * n_space)).reshape(shape)


def image(cols, geometry: Windows, x_shape: tuple):
    """col2im, the adjoint of `columns`: (C·k, L·N) (or grouped (g, C/g·k, L·N)) added back
    into (N, C, *S), where windows overlap their values add up (`fold`)."""
    n, c = x_shape[:2]
    cols = cols.reshape((c,) + geometry.kernel + geometry.out + (n,))  # (C, *K, *O, N)
    cols = permute(cols, _batch_first(cols.ndim))  # (N, C, *K, *O)
    return fold(cols, geometry)


def conv(x, weight, bias, geometry: Windows, groups: int):
    """A convolution as one node (`Conv`); `conv_reference` is the same maths composed."""
    return Conv.apply(x, weight, bias, geometry, groups)


def conv_reference(x, weight, bias, geometry: Windows, groups: int):
    """y = W @ unfold(x) (+ bias), composed from primitives, one matrix product per image and
    group (autograd derives the gradients): the test reference of `Conv`.

    x (N, C, *S), weight (O, C/groups, *K), bias (O,) or None -> y (N, O, *windows).
    """
    n, c = x.shape[:2]
    o = weight.shape[0]
    k = math.prod(geometry.kernel)
    length = math.prod(geometry.out)
    cols = Unfold.apply(x, geometry)  # (N, C, *K, *O)
    cols = cols.reshape(n, groups, c // groups * k, length)  # (N, g, C/g·k, L)
    w = weight.reshape(groups, o // groups, c // groups * k)  # (g, O/g, C/g·k)
    y = (w @ cols).reshape((n, o) + geometry.out)  # (N, g, O/g, L) -> (N, O, *O)
    if bias is not None:
        y = y + bias.reshape((o,) + (1,) * len(geometry.out))
    return y
