"""Exercises that pick or slide: embedding (rows picked by index), max_pool2d, conv2d.

Their backward routes each output's gradient back to the inputs that made it, and adds where
an input was used more than once: a repeated index, overlapping convolution windows.
"""

from __future__ import annotations

import numpy as np

from ...autograd.function import Function
from ...nn import functional as F
from ...tensor import Tensor
from .exercise import Exercise, normal


class Embedding(Function):
    @staticmethod
    def forward(ctx, weight, indices):
        ctx.weight_shape, ctx.indices = weight.shape, indices
        return weight[indices]

    @staticmethod
    def backward(ctx, grad_output):
        grad_weight = np.zeros(ctx.weight_shape)
        np.add.at(grad_weight, ctx.indices, grad_output.numpy())  # adds for repeated indices
        return grad_weight, None


class MaxPool2d(Function):
    @staticmethod
    def forward(ctx, x):
        n, c, h, w = x.shape
        windows = x.reshape(n, c, h // 2, 2, w // 2, 2)  # (n, c, h/2, 2, w/2, 2)
        y = windows.max(axis=(3, 5))  # (n, c, h/2, w/2)
        ctx.x_shape = x.shape
        ctx.is_max = windows == y[:, :, :, None, :, None]  # where each window's max sits
        return y

    @staticmethod
    def backward(ctx, grad_output):
        g = grad_output.numpy()[:, :, :, None, :, None]  # (n, c, h/2, 1, w/2, 1)
        return (ctx.is_max * g).reshape(ctx.x_shape)  # only the max of each window gets it


class Conv2d(Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        kh, kw = weight.shape[2:]
        oh, ow = x.shape[2] - kh + 1, x.shape[3] - kw + 1  # stride 1, no padding
        y = np.zeros((x.shape[0], weight.shape[0], oh, ow))  # (n, out, oh, ow)
        for p in range(kh):
            for q in range(kw):  # the kernel's tap (p, q) meets the shifted x[.., p:, q:]
                patch = x[:, :, p : p + oh, q : q + ow]  # (n, in, oh, ow)
                y += np.einsum("nchw,oc->nohw", patch, weight[:, :, p, q])
        ctx.x, ctx.weight = x, weight
        return y + bias[:, None, None]

    @staticmethod
    def backward(ctx, grad_output):
        g, x, weight = grad_output.numpy(), ctx.x, ctx.weight  # g (n, out, oh, ow)
        kh, kw = weight.shape[2:]
        oh, ow = g.shape[2:]
        grad_x, grad_weight = np.zeros_like(x), np.zeros_like(weight)
        for p in range(kh):
            for q in range(kw):
                patch = x[:, :, p : p + oh, q : q + ow]
                grad_weight[:, :, p, q] = np.einsum("nohw,nchw->oc", g, patch)
                back = np.einsum("nohw,oc->nchw", g, weight[:, :, p, q])  # (n, in, oh, ow)
                grad_x[:, :, p : p + oh, q : q + ow] += back  # windows overlap: add
        grad_bias = g.sum(axis=(0, 2, 3))  # (out,)
        return grad_x, grad_weight, grad_bias


def _embedding_cases(rng):
    return [
        ("weight (5, 3), indices (4,) with a repeat", (normal(rng, 5, 3), np.array([1, 3, 1, 0]))),
        ("weight (4, 2), indices (2, 3)", (normal(rng, 4, 2), np.array([[0, 2, 3], [3, 3, 1]]))),
    ]


def _pool_cases(rng):
    return [
        ("x (1, 2, 4, 4)", (normal(rng, 1, 2, 4, 4),)),
        ("x (2, 1, 2, 6)", (normal(rng, 2, 1, 2, 6),)),
    ]


def _conv(rng, x_shape, weight_shape):
    """(x, weight, bias (out,))."""
    return normal(rng, *x_shape), normal(rng, *weight_shape), normal(rng, weight_shape[0])


def _conv_cases(rng):
    return [
        ("x (2, 2, 5, 5), weight (3, 2, 3, 3), bias (3,)", _conv(rng, (2, 2, 5, 5), (3, 2, 3, 3))),
        ("x (1, 1, 4, 3), weight (2, 1, 2, 2), bias (2,)", _conv(rng, (1, 1, 4, 3), (2, 1, 2, 2))),
    ]


def _embedding(weight, indices):
    return F.embedding(Tensor(indices), weight)


WINDOWS = [
    Exercise(
        name="embedding",
        statement="""y = weight[indices]: row indices[i] of the table for each index.

    forward(ctx, weight, indices): weight (V, D) floats, indices any shape of integers in
    [0, V) -> y (*indices.shape, D).   NumPy: weight[indices]
    indices is an integer array: it gets no gradient (return None for it).""",
        hints=(
            "Each output row is a copy of one row of weight; a row picked twice gets both "
            "copies' gradients, added.",
            "dL/dweight_v = Σ over the positions i with indices_i = v of grad_output_i.",
            "Return (grad_weight (V, D), None). `grad_weight[indices] += g` keeps only one of "
            "the repeats; np.add.at(grad_weight, indices, g) adds them all.",
        ),
        solution=Embedding,
        inputs=("weight", "indices"),
        cases=_embedding_cases,
        reference=_embedding,
    ),
    Exercise(
        name="max_pool2d",
        statement="""2x2 max pooling with stride 2: each output is the largest of a 2x2 window.

    forward(ctx, x): x (n, c, h, w), h and w even -> y (n, c, h/2, w/2).
    NumPy: x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))""",
        hints=(
            "The max is a pick: only the element that was largest in its window affects y; "
            "the other three have slope 0.",
            "dL/dx = grad_output of its window where x is the window's max, 0 elsewhere.",
            "x's shape (n, c, h, w): forward kept `is_max` in window layout "
            "(n, c, h/2, 2, w/2, 2); multiply by g broadcast to it, then reshape.",
        ),
        solution=MaxPool2d,
        inputs=("x",),
        cases=_pool_cases,
        reference=lambda x: F.max_pool2d(x, 2),
    ),
    Exercise(
        name="conv2d",
        statement="""2-D convolution (cross-correlation), stride 1, no padding:
y[n, o, i, j] = Σ_c Σ_p Σ_q x[n, c, i+p, j+q] weight[o, c, p, q] + bias[o].

    forward(ctx, x, weight, bias): x (n, in, h, w), weight (out, in, kh, kw), bias (out,)
    -> y (n, out, h-kh+1, w-kw+1).
    NumPy: for each tap (p, q) of the kernel, y += np.einsum("nchw,oc->nohw",
    x[:, :, p:p+oh, q:q+ow], weight[:, :, p, q]); then y + bias[:, None, None]""",
        hints=(
            "For each tap (p, q) forward is a matrix product between a shifted patch of x and "
            "weight[:, :, p, q]; the backward of each is two matrix products, and a pixel of x "
            "in several windows adds up their gradients.",
            "dL/dweight[o, c, p, q] = Σ_{n,i,j} g[n, o, i, j] x[n, c, i+p, j+q]; "
            "dL/dx[n, c, i+p, j+q] += Σ_o g[n, o, i, j] weight[o, c, p, q].",
            "Return (grad_x like x, grad_weight like weight, grad_bias (out,) = g summed over "
            "axes (0, 2, 3)); loop over (p, q) as forward does, with np.einsum.",
        ),
        solution=Conv2d,
        inputs=("x", "weight", "bias"),
        cases=_conv_cases,
        reference=F.conv2d,
    ),
]
