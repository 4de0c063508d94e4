"""x ** p for a number p, with the exponents courses write (2, 3, 1/2, -1, ...) as
multiplications or a square root: NumPy's general `power` takes a logarithm and an exponential
per element, many times the cost of x * x * x (minGPT's GELU writes `torch.pow(x, 3.0)`).

    forward:   p = 2: x x    p = 3: (x x) x    p = 4: (x x)(x x)    p = 1/2: sqrt(x)
               p = -1: 1 / x    p = -2: 1 / (x x)    p = -1/2: 1 / sqrt(x)    else: power(x, p)
    backward:  d x^p / dx = p x^(p-1), from what forward kept:
               p = 2: 2 x    p = 3: 3 (x x)    p = 1/2: (1/2) / sqrt(x)    p = -1: -(1/x)^2
               else p x^(p-1) by the same table (p - 1 is again a fast exponent, or power).

`pow_scalar_reference` is the same maths through the general primitive (`Pow`, whose backward
is b a^(b-1)); the tests compare the two, edge values included (0, -0, inf, nan, negative x
under a square root).
"""

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ..elementwise import Pow
from ..xp import operands

FAST_EXPONENTS = frozenset((2, 3, 4, 0.5, -1, -2, -0.5))


def power_array(x: np.ndarray, p) -> np.ndarray:
    """x ** p on an array: multiplications or sqrt for the fast exponents (a new array)."""
    if p == 2:
        return x * x
    if p == 3:
        out = x * x
        out *= x
        return out
    if p == 4:
        out = x * x
        out *= out
        return out
    if p == 0.5:
        return np.sqrt(x)
    if p == -1:
        return np.reciprocal(x)
    if p == -2:
        out = x * x
        return np.reciprocal(out, out=_writable(out))
    if p == -0.5:
        out = np.sqrt(x)
        return np.reciprocal(out, out=_writable(out))
    return np.power(x, p)


def _writable(out):
    """`out` for an in-place ufunc when it is an array; None for the NumPy scalar a 0-d input
    gives (a new one is made)."""
    return out if isinstance(out, np.ndarray) else None


class PowScalar(Function):
    """out = x ** p, p a Python number (see the module docstring for the derivation).

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([2.0, 4.0], requires_grad=True)
    >>> (x ** 0.5).sum().backward()
    >>> x.grad   # 1 / (2 sqrt(x))
    tensor([0.3536, 0.2500])
    """

    formula = "grad_x = grad_out * p * x**(p-1)"

    @staticmethod
    def forward(ctx, x, p):
        out = power_array(x, p)
        if ctx.needs_input_grad[0]:
            # NOTE: the output too for p = 1/2 (sqrt(x)) and p = -1 (1/x): backward divides
            # or multiplies by it instead of taking a power; x x for p = 3 is recomputed
            # (keeping it would hold one more array per node until backward)
            ctx.save_for_backward(x, out if p in (0.5, -1) else None)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        p = ctx.p
        if is_grad_enabled():  # create_graph: recorded, twice differentiable
            x = ctx.saved_tensors[0]
            return grad_output * (x * 2 if p == 2 else x ** (p - 1) * p)
        g, x, out = operands(grad_output, *ctx.saved_tensors)
        if p == 2:
            grad = x * g
            grad *= 2
        elif p == 3:
            grad = x * x
            grad *= g
            grad *= 3
        elif p == 0.5:
            grad = g / out  # p x^(-1/2) = 0.5 / sqrt(x)
            grad *= 0.5
        elif p == -1:
            grad = out * out  # -x^(-2) = -(1/x)^2
            grad *= g
            grad = np.negative(grad, out=_writable(grad))
        else:
            grad = power_array(x, p - 1)
            grad *= g
            grad *= p
        return grad


def pow_scalar(x, p):
    """x ** p as one node (see `PowScalar`); p a number, x a float Tensor."""
    return PowScalar.apply(x, p)


def pow_scalar_reference(x, p):
    """x ** p through the general primitive `Pow` (b a^(b-1) in backward): the test reference."""
    return Pow.apply(x, x.__class__._make(np.asarray(p, dtype=x.array.dtype)))
