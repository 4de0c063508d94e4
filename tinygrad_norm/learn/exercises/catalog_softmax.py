"""Exercises around softmax: softmax, log_softmax, cross_entropy, causal attention.

Every output of a softmax depends on every input of its row, so the Jacobian is a full matrix
per row, J = diag(s) - s sᵀ; the backward applies it without building it:
grad_x = s * (g - Σ_j g_j s_j).
"""

from __future__ import annotations

import numpy as np

from ...autograd.function import Function
from ...nn import functional as F
from ...tensor import Tensor
from .exercise import Exercise, normal


class Softmax(Function):
    @staticmethod
    def forward(ctx, x):
        e = np.exp(x - x.max(axis=-1, keepdims=True))  # shifted: exp cannot overflow
        y = e / e.sum(axis=-1, keepdims=True)
        ctx.y = y
        return y

    @staticmethod
    def backward(ctx, grad_output):
        g, y = grad_output.numpy(), ctx.y
        return y * (g - (g * y).sum(axis=-1, keepdims=True))


class LogSoftmax(Function):
    @staticmethod
    def forward(ctx, x):
        shifted = x - x.max(axis=-1, keepdims=True)
        y = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
        ctx.y = y
        return y

    @staticmethod
    def backward(ctx, grad_output):
        g = grad_output.numpy()
        return g - np.exp(ctx.y) * g.sum(axis=-1, keepdims=True)


class CrossEntropy(Function):
    @staticmethod
    def forward(ctx, logits, target):
        shifted = logits - logits.max(axis=-1, keepdims=True)
        log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
        n = logits.shape[0]
        ctx.p, ctx.target = np.exp(log_p), target
        return np.asarray(-log_p[np.arange(n), target].mean())

    @staticmethod
    def backward(ctx, grad_output):
        n = ctx.p.shape[0]
        one_hot = np.zeros_like(ctx.p)
        one_hot[np.arange(n), ctx.target] = 1.0
        return grad_output.numpy() * (ctx.p - one_hot) / n, None  # target needs no gradient


class Attention(Function):
    @staticmethod
    def forward(ctx, q, k, v):
        t, d = q.shape
        scores = q @ k.T / np.sqrt(d)  # (t, t): query i against key j
        future = np.triu(np.ones((t, t), dtype=bool), k=1)  # j > i: not yet seen
        scores = np.where(future, -np.inf, scores)
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        p = e / e.sum(axis=-1, keepdims=True)  # (t, t) attention weights, rows sum to 1
        ctx.q, ctx.k, ctx.v, ctx.p = q, k, v, p
        return p @ v  # (t, t) @ (t, dv) = (t, dv)

    @staticmethod
    def backward(ctx, grad_output):
        g, p = grad_output.numpy(), ctx.p  # (t, dv), (t, t)
        scale = 1.0 / np.sqrt(ctx.q.shape[1])
        grad_v = p.T @ g  # (t, t) @ (t, dv)
        grad_p = g @ ctx.v.T  # (t, dv) @ (dv, t)
        grad_scores = p * (grad_p - (grad_p * p).sum(axis=-1, keepdims=True))  # softmax's rule
        grad_q = grad_scores @ ctx.k * scale  # (t, t) @ (t, d)
        grad_k = grad_scores.T @ ctx.q * scale  # (t, t) @ (t, d)
        return grad_q, grad_k, grad_v


def _rows(rng):
    large = np.array([[1.0, 2.0, 3.0], [1000.0, 1001.0, 999.0]])  # exp(1000) overflows
    return [
        ("x (3, 4)", (normal(rng, 3, 4),)),
        ("x (2, 2, 5)", (normal(rng, 2, 2, 5, scale=3.0),)),
        ("x (2, 3): a row of large values", (large,)),
    ]


def _labelled(rng):
    return [
        ("logits (4, 3), target (4,)", (normal(rng, 4, 3), np.array([0, 2, 1, 2]))),
        ("logits (2, 5), target (2,)", (normal(rng, 2, 5, scale=3.0), np.array([4, 4]))),
    ]


def _heads(rng):
    return [
        ("q, k (4, 3), v (4, 2)", (normal(rng, 4, 3), normal(rng, 4, 3), normal(rng, 4, 2))),
        ("q, k, v (3, 2)", (normal(rng, 3, 2), normal(rng, 3, 2), normal(rng, 3, 2))),
    ]


def _cross_entropy(logits, target):
    return F.cross_entropy(logits, Tensor(target))


SOFTMAX = [
    Exercise(
        name="softmax",
        statement="""y = softmax(x) over the last axis: y_i = exp(x_i) / Σ_j exp(x_j), per row.

    forward(ctx, x): x (..., n) -> y (..., n).
    NumPy: e = np.exp(x - x.max(-1, keepdims=True)); e / e.sum(-1, keepdims=True)""",
        hints=(
            "Each y_i depends on every x_j of its row (through the sum), not only on x_i: "
            "the Jacobian of a row is a full matrix, not a diagonal.",
            "dy_i/dx_j = y_i (δ_ij - y_j), so dL/dx_j = Σ_i g_i y_i (δ_ij - y_j) = "
            "y_j (g_j - Σ_i g_i y_i).",
            "x's shape (..., n): y * (g - (g * y).sum(axis=-1, keepdims=True)).",
        ),
        solution=Softmax,
        inputs=("x",),
        cases=_rows,
        reference=lambda x: F.softmax(x, dim=-1),
    ),
    Exercise(
        name="log_softmax",
        statement="""y = log(softmax(x)) over the last axis: y_i = x_i - log Σ_j exp(x_j).

    forward(ctx, x): x (..., n) -> y (..., n).   NumPy: x - log(exp(x).sum(-1, keepdims=True)),
    computed on x - max so that exp cannot overflow.""",
        hints=(
            "y_i = x_i minus a term shared by the whole row, and that term's derivative with "
            "respect to x_j is softmax(x)_j.",
            "dy_i/dx_j = δ_ij - softmax_j, so dL/dx_j = g_j - softmax_j Σ_i g_i.",
            "x's shape: g - np.exp(y) * g.sum(axis=-1, keepdims=True).",
        ),
        solution=LogSoftmax,
        inputs=("x",),
        cases=_rows,
        reference=lambda x: F.log_softmax(x, dim=-1),
    ),
    Exercise(
        name="cross_entropy",
        statement="""L = mean over the batch of -log softmax(logits)[target]: the classification
loss, L = -(1/n) Σ_i log p_i,target_i with p = softmax over each row.

    forward(ctx, logits, target): logits (n, c) floats, target (n,) integer classes -> L ().
    NumPy: -log_softmax(logits)[np.arange(n), target].mean()
    target is an integer array: it gets no gradient (return None for it).""",
        hints=(
            "-log softmax_t = -x_t + log Σ_j exp(x_j): its derivative is softmax minus the one-hot "
            "vector of the target; the mean divides each row's share by n.",
            "dL/dlogits_ij = grad_output * (p_ij - [j == target_i]) / n.",
            "Return (grad_logits of shape (n, c), None); grad_output is a 0-d array here.",
        ),
        solution=CrossEntropy,
        inputs=("logits", "target"),
        cases=_labelled,
        reference=_cross_entropy,
    ),
    Exercise(
        name="attention",
        statement="""Causal attention, one head: y = softmax(q kᵀ / √d + mask) v, where the
mask is -inf above the diagonal (query i sees keys 0..i only) and the softmax runs over each
row (over the keys).

    forward(ctx, q, k, v): q (t, d), k (t, d), v (t, dv) -> y (t, dv).
    NumPy: softmax(np.where(future, -np.inf, q @ k.T / np.sqrt(d))) @ v,
    with future = np.triu(np.ones((t, t), dtype=bool), k=1)""",
        hints=(
            "Backward through the steps in reverse: y = p @ v (matmul), p = softmax(scores) "
            "(softmax's rule, per row), scores = q @ kᵀ / √d (matmul, times the scale). The "
            "mask needs nothing: p is 0 there, so its gradient is 0 there too.",
            "grad_v = pᵀ g; grad_p = g vᵀ; grad_scores = p * (grad_p - Σ_j grad_p p); then "
            "grad_q = grad_scores k / √d.",
            "Return (grad_q (t, d), grad_k (t, d), grad_v (t, dv)); grad_k = grad_scoresᵀ q / √d.",
        ),
        solution=Attention,
        inputs=("q", "k", "v"),
        cases=_heads,
        reference=lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
    ),
]
