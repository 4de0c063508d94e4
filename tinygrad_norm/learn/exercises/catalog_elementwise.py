"""Elementwise exercises: mul, add (with broadcasting), tanh, exp, log, relu, gelu.

Each output element depends on one element of each input, so the Jacobian is diagonal and the
backward is grad_output times the local derivative, elementwise. `add` is the one where a
shape changes: b was stretched to a's shape, so its gradient is summed back.
"""

from __future__ import annotations

import math

import numpy as np

from ...autograd.function import Function
from ...nn import functional as F
from .exercise import Exercise, normal, positive


class Mul(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.a, ctx.b = a, b
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        g = grad_output.numpy()
        return g * ctx.b, g * ctx.a


class Add(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.b_shape = b.shape
        return a + b

    @staticmethod
    def backward(ctx, grad_output):
        g = grad_output.numpy()  # a's shape: b was stretched to it
        grad_b = g.sum(axis=tuple(range(g.ndim - len(ctx.b_shape))))  # the axes b lacks
        stretched = tuple(k for k, n in enumerate(ctx.b_shape) if n == 1)
        grad_b = grad_b.sum(axis=stretched, keepdims=True)  # b's axes of size 1
        return g, grad_b


class Tanh(Function):
    @staticmethod
    def forward(ctx, x):
        y = np.tanh(x)
        ctx.y = y
        return y

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.numpy() * (1.0 - ctx.y**2)


class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        y = np.exp(x)
        ctx.y = y
        return y

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.numpy() * ctx.y


class Log(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return np.log(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.numpy() / ctx.x


class Relu(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return np.maximum(x, 0.0)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.numpy() * (ctx.x > 0)  # NOTE: 0 at x = 0, as PyTorch


class Gelu(Function):
    @staticmethod
    def forward(ctx, x):
        erf = np.vectorize(math.erf)
        cdf = 0.5 * (1.0 + erf(x / math.sqrt(2.0)))  # Φ(x), the normal distribution's CDF
        ctx.x, ctx.cdf = x, cdf
        return x * cdf

    @staticmethod
    def backward(ctx, grad_output):
        pdf = np.exp(-0.5 * ctx.x**2) / math.sqrt(2.0 * math.pi)  # φ(x) = Φ'(x)
        return grad_output.numpy() * (ctx.cdf + ctx.x * pdf)


def _two_same(rng):
    return [
        ("a (3, 4), b (3, 4)", (normal(rng, 3, 4), normal(rng, 3, 4))),
        ("a (2, 3, 2), b (2, 3, 2) with zeros", (normal(rng, 2, 3, 2), _with_zeros(rng, 2, 3, 2))),
    ]


def _with_zeros(rng, *shape):
    x = normal(rng, *shape)
    x.flat[:: max(1, x.size // 3)] = 0.0
    return x


def _broadcast_pairs(rng):
    return [
        ("a (3, 4), b (4,)", (normal(rng, 3, 4), normal(rng, 4))),
        ("a (2, 3, 4), b (3, 1)", (normal(rng, 2, 3, 4), normal(rng, 3, 1))),
        ("a (2, 3), b (2, 3)", (normal(rng, 2, 3), normal(rng, 2, 3))),
    ]


def _one_input(rng):
    edges = np.array([[-20.0, -1e-3, 0.0, 1e-3, 20.0]])
    return [
        ("x (3, 4)", (normal(rng, 3, 4),)),
        ("x (2, 2, 3)", (normal(rng, 2, 2, 3, scale=2.0),)),
        ("x (1, 5): -20, -0.001, 0, 0.001, 20", (edges,)),
    ]


def _smooth_input(rng):
    return [("x (3, 4)", (normal(rng, 3, 4),)), ("x (2, 2, 3)", (normal(rng, 2, 2, 3),))]


def _positive_input(rng):
    return [
        ("x (3, 4) in [0.1, 3)", (positive(rng, 3, 4),)),
        ("x (1, 4): 0.01, 0.5, 1, 40", (np.array([[0.01, 0.5, 1.0, 40.0]]),)),
    ]


def _relu_input(rng):
    return [("x (3, 4) with zeros", (_with_zeros(rng, 3, 4),)), *_one_input(rng)[1:]]


ELEMENTWISE = [
    Exercise(
        name="mul",
        statement="""y = a * b, elementwise: y_ij = a_ij b_ij.

    forward(ctx, a, b): a (n, m), b (n, m) -> y (n, m).   NumPy: a * b""",
        hints=(
            "Each y_ij depends on a_ij only, with slope b_ij; the chain rule multiplies the "
            "incoming gradient by that slope.",
            "dL/da_ij = dL/dy_ij * dy_ij/da_ij = grad_output_ij * b_ij.",
            "Return (grad_a, grad_b), both (n, m): grad_output * b and grad_output * a.",
        ),
        solution=Mul,
        inputs=("a", "b"),
        cases=_two_same,
        reference=lambda a, b: a * b,
    ),
    Exercise(
        name="add",
        statement="""y = a + b, where b broadcasts against a (NumPy's rules: b's shape, aligned
on the right, has a's sizes or 1; missing leading axes count as 1).

    forward(ctx, a, b): a (..., m), b e.g. (m,) or (k, 1) -> y of a's shape.   NumPy: a + b""",
        hints=(
            "Each element of a is used once, with slope 1. Each element of b is used many times "
            "(once per copy broadcasting made), and the contributions of every use add up.",
            "dL/db_j = sum over the copies i of b_j of dL/dy_ij: sum grad_output over the axes "
            "that broadcasting added or stretched.",
            "grad_a has a's shape (grad_output itself); grad_b has b's shape: sum over the "
            "leading axes b lacks, then over b's axes of size 1 with keepdims=True.",
        ),
        solution=Add,
        inputs=("a", "b"),
        cases=_broadcast_pairs,
        reference=lambda a, b: a + b,
    ),
    Exercise(
        name="tanh",
        statement="""y = tanh(x), elementwise.

    forward(ctx, x): x any shape -> y of x's shape.   NumPy: np.tanh(x)""",
        hints=(
            "tanh' is 1 - tanh², and forward already kept y = tanh(x).",
            "dL/dx = dL/dy * (1 - y²).",
            "One array of x's shape: grad_output * (1 - y**2).",
        ),
        solution=Tanh,
        inputs=("x",),
        cases=_one_input,
        reference=lambda x: x.tanh(),
    ),
    Exercise(
        name="exp",
        statement="""y = exp(x), elementwise.

    forward(ctx, x): x any shape -> y of x's shape.   NumPy: np.exp(x)""",
        hints=(
            "exp is its own derivative, and forward already kept y = exp(x).",
            "dL/dx = dL/dy * exp(x) = grad_output * y.",
            "One array of x's shape.",
        ),
        solution=Exp,
        inputs=("x",),
        cases=_smooth_input,
        reference=lambda x: x.exp(),
    ),
    Exercise(
        name="log",
        statement="""y = log(x), elementwise, for x > 0.

    forward(ctx, x): x any shape, positive -> y of x's shape.   NumPy: np.log(x)""",
        hints=(
            "The derivative of log x is 1 / x: where x is small, log is steep.",
            "dL/dx = dL/dy / x.",
            "One array of x's shape: grad_output / x.",
        ),
        solution=Log,
        inputs=("x",),
        cases=_positive_input,
        reference=lambda x: x.log(),
    ),
    Exercise(
        name="relu",
        statement="""y = max(x, 0), elementwise.

    forward(ctx, x): x any shape -> y of x's shape.   NumPy: np.maximum(x, 0)""",
        hints=(
            "Where x > 0, y = x (slope 1); elsewhere y = 0 (slope 0). At x = 0 take slope 0, "
            "as PyTorch does.",
            "dL/dx = dL/dy * (x > 0).",
            "One array of x's shape: the gradient passes where x > 0 and is 0 elsewhere.",
        ),
        solution=Relu,
        inputs=("x",),
        cases=_relu_input,
        reference=F.relu,
    ),
    Exercise(
        name="gelu",
        statement="""y = x Φ(x), elementwise: GELU (Hendrycks & Gimpel, 2016), where
Φ(x) = (1 + erf(x / √2)) / 2 is the standard normal distribution's CDF.

    forward(ctx, x): x any shape -> y of x's shape.
    NumPy: x * 0.5 * (1 + erf(x / np.sqrt(2))), with erf = np.vectorize(math.erf)""",
        hints=(
            "A product x Φ(x): the product rule, and Φ' is the normal density "
            "φ(x) = exp(-x²/2) / √(2π).",
            "dy/dx = Φ(x) + x φ(x); dL/dx = grad_output * (Φ(x) + x φ(x)).",
            "One array of x's shape; forward kept Φ(x) as ctx.cdf.",
        ),
        solution=Gelu,
        inputs=("x",),
        cases=_one_input,
        reference=F.gelu,
    ),
]
