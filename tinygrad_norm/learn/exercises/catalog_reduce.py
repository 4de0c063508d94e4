"""Exercises where a shape changes: sum over an axis, mean, matmul, linear.

A reduction's backward copies the gradient back along the axis forward removed; a matrix
product's backward is two more matrix products, each shaped like the input it belongs to.
"""

from __future__ import annotations

import numpy as np

from ...autograd.function import Function
from ...nn import functional as F
from .exercise import Exercise, normal


class Sum(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x_shape = x.shape
        return x.sum(axis=1)

    @staticmethod
    def backward(ctx, grad_output):
        g = np.expand_dims(grad_output.numpy(), 1)  # put back the summed axis, size 1
        return np.broadcast_to(g, ctx.x_shape).copy()


class Mean(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x_shape = x.shape
        return x.mean(axis=-1)

    @staticmethod
    def backward(ctx, grad_output):
        n = ctx.x_shape[-1]
        g = grad_output.numpy()[..., None] / n  # each of the n elements has weight 1/n
        return np.broadcast_to(g, ctx.x_shape).copy()


class Matmul(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.a, ctx.b = a, b
        return a @ b

    @staticmethod
    def backward(ctx, grad_output):
        g = grad_output.numpy()  # (n, m)
        return g @ ctx.b.T, ctx.a.T @ g  # (n, m) @ (m, k) = (n, k); (k, n) @ (n, m) = (k, m)


class Linear(Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.x, ctx.weight = x, weight
        return x @ weight.T + bias

    @staticmethod
    def backward(ctx, grad_output):
        g = grad_output.numpy()  # (n, out)
        grad_x = g @ ctx.weight  # (n, out) @ (out, in) = (n, in)
        grad_weight = g.T @ ctx.x  # (out, n) @ (n, in) = (out, in)
        grad_bias = g.sum(axis=0)  # bias was added to each of the n rows
        return grad_x, grad_weight, grad_bias


def _sum_cases(rng):
    return [
        ("x (3, 4)", (normal(rng, 3, 4),)),
        ("x (2, 3, 4)", (normal(rng, 2, 3, 4),)),
        ("x (2, 1)", (normal(rng, 2, 1),)),
    ]


def _mean_cases(rng):
    return [
        ("x (3, 4)", (normal(rng, 3, 4),)),
        ("x (2, 3, 5)", (normal(rng, 2, 3, 5),)),
        ("x (6,)", (normal(rng, 6),)),
    ]


def _matmul_cases(rng):
    return [
        ("a (2, 3), b (3, 4)", (normal(rng, 2, 3), normal(rng, 3, 4))),
        ("a (4, 2), b (2, 5)", (normal(rng, 4, 2), normal(rng, 2, 5))),
        ("a (1, 3), b (3, 1)", (normal(rng, 1, 3), normal(rng, 3, 1))),
    ]


def _layer(rng, n, n_in, n_out):
    """(x (n, in), weight (out, in), bias (out,))."""
    return normal(rng, n, n_in), normal(rng, n_out, n_in), normal(rng, n_out)


def _linear_cases(rng):
    return [
        ("x (4, 3), weight (2, 3), bias (2,)", _layer(rng, 4, 3, 2)),
        ("x (1, 5), weight (3, 5), bias (3,)", _layer(rng, 1, 5, 3)),
    ]


REDUCE = [
    Exercise(
        name="sum",
        statement="""y = x summed over axis 1: y[i, ...] = Σ_j x[i, j, ...].

    forward(ctx, x): x (n, m, ...) -> y (n, ...).   NumPy: x.sum(axis=1)""",
        hints=(
            "Every x[i, j] adds into y[i] with slope 1, so each gets y[i]'s gradient, whatever j.",
            "dL/dx[i, j, ...] = dL/dy[i, ...] for every j.",
            "x's shape (n, m, ...): put the summed axis back (np.expand_dims(g, 1)) and "
            "broadcast to x's shape.",
        ),
        solution=Sum,
        inputs=("x",),
        cases=_sum_cases,
        reference=lambda x: x.sum(dim=1),
    ),
    Exercise(
        name="mean",
        statement="""y = the mean of x over its last axis: y[...] = (1/n) Σ_j x[..., j].

    forward(ctx, x): x (..., n) -> y (...).   NumPy: x.mean(axis=-1)""",
        hints=(
            "A sum scaled by 1/n: every x[..., j] moves y by 1/n of its own change.",
            "dL/dx[..., j] = dL/dy[...] / n.",
            "x's shape (..., n): grad_output[..., None] / n, broadcast along the last axis.",
        ),
        solution=Mean,
        inputs=("x",),
        cases=_mean_cases,
        reference=lambda x: x.mean(dim=-1),
    ),
    Exercise(
        name="matmul",
        statement="""y = a @ b: y_ij = Σ_p a_ip b_pj.

    forward(ctx, a, b): a (n, k), b (k, m) -> y (n, m).   NumPy: a @ b""",
        hints=(
            "a_ip meets b_pj in every y_ij of row i: its gradient sums grad_output_ij b_pj over "
            "j. b_pj meets a_ip in every y_ij of column j.",
            "dL/da_ip = Σ_j grad_output_ij b_pj, which is (grad_output @ b.T)_ip.",
            "grad_a (n, k) = grad_output (n, m) @ b.T (m, k); grad_b (k, m) = a.T (k, n) @ "
            "grad_output (n, m). Let the shapes tell you where the transposes go.",
        ),
        solution=Matmul,
        inputs=("a", "b"),
        cases=_matmul_cases,
        reference=lambda a, b: a @ b,
    ),
    Exercise(
        name="linear",
        statement="""y = x W^T + b: a fully connected layer, y_ij = Σ_p x_ip W_jp + b_j.

    forward(ctx, x, weight, bias): x (n, in), weight (out, in), bias (out,) -> y (n, out).
    NumPy: x @ weight.T + bias""",
        hints=(
            "A matrix product (see matmul) plus a bias that broadcasts over the n rows (see add).",
            "dL/dx = grad_output @ W; dL/dW_jp = Σ_i grad_output_ij x_ip; "
            "dL/db_j = Σ_i grad_output_ij.",
            "grad_x (n, in) = g @ weight; grad_weight (out, in) = g.T @ x; grad_bias (out,) = "
            "g.sum(axis=0).",
        ),
        solution=Linear,
        inputs=("x", "weight", "bias"),
        cases=_linear_cases,
        reference=F.linear,
    ),
]
