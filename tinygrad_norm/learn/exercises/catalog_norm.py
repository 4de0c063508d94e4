"""Normalisation exercises: layer_norm (over the last axis), batch_norm (training, over the batch).

Both compute x̂ = (x - μ) / √(σ² + eps) over a group of N values and return γ x̂ + β. With
ĝ = g γ (the gradient reaching x̂), the mean and the variance each add a term:

    dL/dx = (1 / √(σ² + eps)) (ĝ - mean(ĝ) - x̂ mean(ĝ x̂)),   means over the same group.

γ and β are shared by the whole group's other axis, so their gradients are sums over it.
"""

from __future__ import annotations

import numpy as np

from ...autograd.function import Function
from ...nn import functional as F
from .exercise import Exercise, normal


class LayerNorm(Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        eps = 1e-5
        mean = x.mean(axis=-1, keepdims=True)
        rstd = 1.0 / np.sqrt(x.var(axis=-1, keepdims=True) + eps)  # biased variance
        x_hat = (x - mean) * rstd
        ctx.x_hat, ctx.rstd, ctx.weight = x_hat, rstd, weight
        return x_hat * weight + bias

    @staticmethod
    def backward(ctx, grad_output):
        g, x_hat = grad_output.numpy(), ctx.x_hat  # (n, d)
        grad_x_hat = g * ctx.weight
        grad_x = ctx.rstd * (
            grad_x_hat
            - grad_x_hat.mean(axis=-1, keepdims=True)  # through the mean
            - x_hat * (grad_x_hat * x_hat).mean(axis=-1, keepdims=True)  # through the variance
        )
        grad_weight = (g * x_hat).sum(axis=0)  # (d,): shared by the n rows
        grad_bias = g.sum(axis=0)
        return grad_x, grad_weight, grad_bias


class BatchNorm(Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        eps = 1e-5
        mean = x.mean(axis=0)  # (c,): the batch's statistics, as in training
        rstd = 1.0 / np.sqrt(x.var(axis=0) + eps)  # biased variance
        x_hat = (x - mean) * rstd
        ctx.x_hat, ctx.rstd, ctx.weight = x_hat, rstd, weight
        return x_hat * weight + bias

    @staticmethod
    def backward(ctx, grad_output):
        g, x_hat = grad_output.numpy(), ctx.x_hat  # (n, c)
        grad_x_hat = g * ctx.weight
        grad_x = ctx.rstd * (
            grad_x_hat
            - grad_x_hat.mean(axis=0)  # through the batch mean
            - x_hat * (grad_x_hat * x_hat).mean(axis=0)  # through the batch variance
        )
        grad_weight = (g * x_hat).sum(axis=0)  # (c,)
        grad_bias = g.sum(axis=0)
        return grad_x, grad_weight, grad_bias


def _with_scale(rng, n, d, scale=1.0):
    """(x (n, d), weight (d,), bias (d,))."""
    return normal(rng, n, d, scale=scale), normal(rng, d), normal(rng, d)


def _rows(rng):
    return [
        ("x (4, 5), weight (5,), bias (5,)", _with_scale(rng, 4, 5)),
        ("x (3, 2) of scale 10, weight (2,), bias (2,)", _with_scale(rng, 3, 2, 10.0)),
    ]


def _batches(rng):
    return [
        ("x (5, 3), weight (3,), bias (3,)", _with_scale(rng, 5, 3)),
        ("x (2, 4) of scale 10, weight (4,), bias (4,)", _with_scale(rng, 2, 4, 10.0)),
    ]


NORM = [
    Exercise(
        name="layer_norm",
        statement="""LayerNorm over the last axis (Ba et al., 2016): for each row,
μ = mean(x), σ² = mean((x - μ)²), x̂ = (x - μ) / √(σ² + eps), y = x̂ * weight + bias,
with eps = 1e-5.

    forward(ctx, x, weight, bias): x (n, d), weight (d,), bias (d,) -> y (n, d).
    NumPy: (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps) * weight
    + bias""",
        hints=(
            "x reaches y three ways: directly, through the row's mean and through the row's "
            "variance. weight and bias are shared by every row.",
            "With ĝ = g * weight: dL/dx = (ĝ - mean(ĝ) - x̂ mean(ĝ x̂)) / √(σ² + eps), means over "
            "the row (the last axis).",
            "Return (grad_x (n, d), grad_weight (d,), grad_bias (d,)); the last two are sums "
            "over the rows (axis 0).",
        ),
        solution=LayerNorm,
        inputs=("x", "weight", "bias"),
        cases=_rows,
        reference=lambda x, weight, bias: F.layer_norm(x, x.shape[-1:], weight, bias, eps=1e-5),
    ),
    Exercise(
        name="batch_norm",
        statement="""BatchNorm in training (Ioffe & Szegedy, 2015): for each channel (column),
μ = mean over the batch, σ² = the batch's biased variance, x̂ = (x - μ) / √(σ² + eps),
y = x̂ * weight + bias, with eps = 1e-5.

    forward(ctx, x, weight, bias): x (n, c), weight (c,), bias (c,) -> y (n, c).
    NumPy: (x - x.mean(0)) / np.sqrt(x.var(0) + eps) * weight + bias""",
        hints=(
            "LayerNorm turned on its side: the statistics are over the batch (axis 0), so each "
            "x reaches y directly and through its column's mean and variance.",
            "With ĝ = g * weight: dL/dx = (ĝ - mean(ĝ) - x̂ mean(ĝ x̂)) / √(σ² + eps), means over "
            "axis 0.",
            "Return (grad_x (n, c), grad_weight (c,), grad_bias (c,)); the last two are sums "
            "over axis 0.",
        ),
        solution=BatchNorm,
        inputs=("x", "weight", "bias"),
        cases=_batches,
        reference=lambda x, weight, bias: F.batch_norm(
            x, None, None, weight, bias, training=True, eps=1e-5
        ),
    ),
]
