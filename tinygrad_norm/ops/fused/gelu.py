"""GELU, the Gaussian Error Linear Unit (Hendrycks & Gimpel, 2016, arXiv:1606.08415), as one
node with its analytic backward, exact or with GPT-2's tanh approximation."""

import math

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ..xp import erf, exp_, iadd, imul, isub, operands, tanh_

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

    The chain rule then gives grad_x = grad_out * dy/dx. Phi(x) (or tanh(u)) and dy/dx are
    written once, in `_phi_or_t` and `_dy_dx`, which run on arrays or on Tensors (see `xp.py`).
    When the node is recorded, forward computes dy/dx on arrays while Phi(x) (or tanh(u)) is at
    hand, and saves it: backward is then one multiplication. With `create_graph=True` backward
    runs the same two functions on the saved input x as a Tensor (Erf, Exp, Tanh nodes), so it
    is twice differentiable.

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
        # NOTE: x is viewed as 1-D because NumPy turns a 0-d result into a scalar, which cannot
        # be written into; integers are computed in float64, as by exp and the other ops.
        flat = x.reshape(-1) if x.dtype.kind in "fc" else x.reshape(-1).astype(np.float64)
        phi_or_t = _phi_or_t(flat, approximate)
        if approximate == "tanh":
            y = phi_or_t + 1
            y *= flat
            y *= 0.5  # x/2 (1 + tanh(u))
        else:
            y = flat * phi_or_t  # x Phi(x)
        if ctx.needs_input_grad[0] and is_grad_enabled():
            # NOTE: dy/dx now, in place, instead of a dozen Tensor ops in backward, whose
            # temporaries piled up at the start of backward (a lower peak of memory).
            ctx.save_for_backward(x, _dy_dx(flat, phi_or_t, approximate).reshape(x.shape))
        return y.reshape(x.shape)

    @staticmethod
    def backward(ctx, grad_output):
        x, dy_dx = ctx.saved_tensors
        if is_grad_enabled():  # create_graph: dy/dx as a function of x, for second order
            dy_dx = _dy_dx(x, _phi_or_t(x, ctx.approximate), ctx.approximate)
        grad_output, dy_dx = operands(grad_output, dy_dx)
        return grad_output * dy_dx


def _phi_or_t(x, approximate):
    """Phi(x) = (1 + erf(x / sqrt(2))) / 2, or for "tanh" t = tanh(u) with
    u = sqrt(2/pi) (x + 0.044715 x^3). x: an array (the result is a new array, computed in
    place) or a Tensor (recorded)."""
    if approximate == "tanh":
        u = x * x
        u = imul(u, TANH_CUBIC)
        u = imul(u, x)
        u = iadd(u, x)
        u = imul(u, SQRT_2_OVER_PI)  # u = sqrt(2/pi) (x + 0.044715 x^3)
        return tanh_(u)
    phi = erf(x * SQRT_HALF)
    phi = iadd(phi, 1)
    phi = imul(phi, 0.5)  # Phi(x) = (1 + erf(x / sqrt(2))) / 2
    return phi


def _dy_dx(x, phi_or_t, approximate):
    """dy/dx from x and Phi(x) (or t = tanh(u)), for arrays (in place: phi_or_t is used up) or
    Tensors (recorded):

        "none":  Phi(x) + x * phi(x),         phi(x) = exp(-x^2 / 2) / sqrt(2 pi)
        "tanh":  (1 + t) / 2 + x/2 * (1 - t^2) * du/dx,   du/dx = sqrt(2/pi) (1 + 3 * 0.044715 x^2)
                 = (1 + t) / 2 * (1 + x du/dx (1 - t))     (1 - t^2 = (1 - t)(1 + t))
    """
    if approximate == "tanh":  # (1 + t)/2 + x/2 (1 - t)(1 + t) du/dx, (1 + t)/2 factored out
        t = phi_or_t
        out = x * x
        out = imul(out, 3 * TANH_CUBIC)
        out = iadd(out, 1)
        out = imul(out, x)
        out = imul(out, SQRT_2_OVER_PI)  # x du/dx = sqrt(2/pi) x (1 + 3 * 0.044715 x^2)
        out = isub(out, out * t)  # x du/dx (1 - t)
        out = iadd(out, 1)
        t = iadd(t, 1)
        t = imul(t, 0.5)  # (1 + t) / 2
        out = imul(out, t)
        return out
    pdf = x * x
    pdf = imul(pdf, -0.5)
    pdf = exp_(pdf)
    pdf = imul(pdf, INV_SQRT_2PI)  # phi(x)
    pdf = imul(pdf, x)  # x * phi(x)
    pdf = iadd(pdf, phi_or_t)  # + Phi(x)
    return pdf


def gelu_reference(x, approximate="none"):
    """GELU composed from primitives (autograd derives its gradient): the test reference."""
    if approximate == "tanh":
        u = (x + TANH_CUBIC * x * x * x) * SQRT_2_OVER_PI
        return 0.5 * x * (1 + u.tanh())
    return x * 0.5 * (1 + (x * SQRT_HALF).erf())


def gelu(x, approximate="none"):
    """GELU as one fused node (see `Gelu`); `approximate` is "none" or "tanh"."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f'gelu: approximate must be "none" or "tanh", got {approximate!r}')
    return Gelu.apply(x, approximate)
