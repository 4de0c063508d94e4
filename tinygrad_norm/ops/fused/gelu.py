"""GELU, the Gaussian Error Linear Unit (Hendrycks & Gimpel, 2016, arXiv:1606.08415), as one
node with its analytic backward, exact or with GPT-2's tanh approximation."""

import math

import numpy as np

from ...autograd.engine import Function
from ...autograd.grad_mode import is_grad_enabled
from ..erf_numpy import erf

SQRT_HALF = 1 / math.sqrt(2)
INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
TANH_CUBIC = 0.044715  # the cubic coefficient of the tanh approximation


class Gelu(Function):
    """y = x * Phi(x), Phi the standard normal CDF: x is kept with the probability that a
    standard normal variable falls below it.

    approximate="none":  Phi(x) = (1 + erf(x / sqrt(2))) / 2.
        Product rule: dy/dx = Phi(x) + x * phi(x), with phi(x) = exp(-x^2 / 2) / sqrt(2 pi)
        the normal density (Phi' = phi).

    approximate="tanh" (GPT-2, BERT): y = x/2 * (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3).
        Product rule and tanh' = 1 - tanh^2:
        dy/dx = (1 + tanh(u)) / 2 + x/2 * (1 - tanh(u)^2) * du/dx,
        du/dx = sqrt(2/pi) (1 + 3 * 0.044715 x^2).

    The chain rule then gives grad_x = grad_out * dy/dx. Forward saves Phi(x) (or tanh(u)) as
    an array for the fast path; with `create_graph=True` backward recomputes dy/dx from the
    saved input x with Tensor operations (Erf, Exp, Tanh), so it is twice differentiable.

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([0.0, 1.0], requires_grad=True)
    >>> Gelu.apply(x, "none").sum().backward()
    >>> x.grad   # Phi(0) = 0.5; Phi(1) + phi(1) = 0.8413 + 0.2420
    tensor([0.5000, 1.0833])
    """

    formula = (
        "grad_x = grad_out * (Phi(x) + x * phi(x))   (tanh: grad_out * ((1 + t)/2 + "
        "x/2 * (1 - t**2) * sqrt(2/pi) * (1 + 3*0.044715*x**2)), t = tanh(u))"
    )

    @staticmethod
    def forward(ctx, x, approximate):
        ctx.approximate = approximate
        if approximate == "tanh":
            t = np.tanh(SQRT_2_OVER_PI * (x + TANH_CUBIC * x * x * x))
            ctx.save_for_backward(x, t)
            return 0.5 * x * (1 + t)
        cdf = 0.5 * (1 + erf(x * SQRT_HALF))
        ctx.save_for_backward(x, cdf)
        return x * cdf

    @staticmethod
    def backward(ctx, grad_output):
        x, saved = ctx.saved_tensors  # saved: Phi(x), or tanh(u) for approximate="tanh"
        if ctx.approximate == "tanh":
            t = saved
            if is_grad_enabled():
                t = ((x + TANH_CUBIC * x * x * x) * SQRT_2_OVER_PI).tanh()
            du_dx = (1 + 3 * TANH_CUBIC * x * x) * SQRT_2_OVER_PI
            dy_dx = (1 + t) * 0.5 + x * 0.5 * (1 - t * t) * du_dx
        else:
            cdf = saved
            if is_grad_enabled():
                cdf = ((x * SQRT_HALF).erf() + 1) * 0.5
            pdf = (x * x * -0.5).exp() * INV_SQRT_2PI
            dy_dx = cdf + x * pdf
        return grad_output * dy_dx


def gelu(x, approximate="none"):
    """GELU as one fused node (see `Gelu`); `approximate` is "none" or "tanh"."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f'gelu: approximate must be "none" or "tanh", got {approximate!r}')
    return Gelu.apply(x, approximate)
