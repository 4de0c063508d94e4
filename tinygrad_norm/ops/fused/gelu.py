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

    The chain rule then gives grad_x = grad_out * dy/dx. When the node is recorded, forward
    computes dy/dx as an array while Phi(x) (or tanh(u)) is at hand, and saves it: backward
    is then one multiplication. With `create_graph=True` backward recomputes dy/dx from the
    saved input x with Tensor operations (Erf, Exp, Tanh), by the same `_dy_dx`, so it is
    twice differentiable.

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
        # NOTE: in place, through the one array that becomes tanh(u) (or Phi(x)). x is viewed
        # as 1-D because NumPy turns a 0-d result into a scalar, which cannot be written into;
        # integers are computed in float64, as by exp and the other elementwise ops.
        flat = x.reshape(-1) if x.dtype.kind in "fc" else x.reshape(-1).astype(np.float64)
        if approximate == "tanh":
            phi_or_t = flat * flat
            phi_or_t *= TANH_CUBIC
            phi_or_t *= flat
            phi_or_t += flat
            phi_or_t *= SQRT_2_OVER_PI  # u = sqrt(2/pi) (x + 0.044715 x^3)
            np.tanh(phi_or_t, out=phi_or_t)  # tanh(u)
            y = phi_or_t + 1
            y *= flat
            y *= 0.5  # x/2 (1 + tanh(u))
        else:
            phi_or_t = erf(flat * SQRT_HALF)
            phi_or_t += 1
            phi_or_t *= 0.5  # Phi(x)
            y = flat * phi_or_t
        if ctx.needs_input_grad[0] and is_grad_enabled():
            # NOTE: dy/dx now, in NumPy and in place, instead of a dozen Tensor ops in
            # backward, whose temporaries piled up at the start of backward: the benchmark's
            # medium GPT step went from 128 to 112 MB at its peak, and 3% faster.
            ctx.save_for_backward(x, _dy_dx_array(flat, phi_or_t, approximate).reshape(x.shape))
        return y.reshape(x.shape)

    @staticmethod
    def backward(ctx, grad_output):
        x, dy_dx = ctx.saved_tensors
        if is_grad_enabled():  # create_graph: dy/dx as a function of x, for second order
            if ctx.approximate == "tanh":
                phi_or_t = ((x + TANH_CUBIC * x * x * x) * SQRT_2_OVER_PI).tanh()
            else:
                phi_or_t = ((x * SQRT_HALF).erf() + 1) * 0.5
            dy_dx = _dy_dx(x, phi_or_t, ctx.approximate)
        return grad_output * dy_dx


def _dy_dx_array(x: np.ndarray, phi_or_t: np.ndarray, approximate) -> np.ndarray:
    """`_dy_dx` on arrays, in place (phi_or_t is used up)."""
    if approximate == "tanh":
        t = phi_or_t
        out = x * x  # x/2 * (1 - t^2) * du/dx, du/dx = sqrt(2/pi) (1 + 3 * 0.044715 x^2)
        out *= 3 * TANH_CUBIC
        out += 1
        out *= x
        out *= 0.5 * SQRT_2_OVER_PI
        one_minus_t2 = np.multiply(t, t)
        np.subtract(1, one_minus_t2, out=one_minus_t2)
        out *= one_minus_t2
        t += 1
        t *= 0.5
        out += t  # + (1 + t) / 2
        return out
    pdf = x * x
    pdf *= -0.5
    np.exp(pdf, out=pdf)
    pdf *= INV_SQRT_2PI
    pdf *= x
    pdf += phi_or_t  # Phi(x) + x * phi(x)
    return pdf


def _dy_dx(x, phi_or_t, approximate):
    """dy/dx from x and Phi(x) (or tanh(u)): NumPy arrays, or Tensors (recorded)."""
    if approximate == "tanh":
        t = phi_or_t
        du_dx = (1 + 3 * TANH_CUBIC * x * x) * SQRT_2_OVER_PI
        return (1 + t) * 0.5 + x * 0.5 * (1 - t * t) * du_dx
    minus_half_x2 = x * x * -0.5
    pdf = (
        np.exp(minus_half_x2) if isinstance(x, np.ndarray) else minus_half_x2.exp()
    ) * INV_SQRT_2PI
    return phi_or_t + x * pdf


def gelu(x, approximate="none"):
    """GELU as one fused node (see `Gelu`); `approximate` is "none" or "tanh"."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f'gelu: approximate must be "none" or "tanh", got {approximate!r}')
    return Gelu.apply(x, approximate)
