"""Activation functions as Modules (no parameters): GELU, ReLU, Tanh, Sigmoid, Softmax,
LogSoftmax. Each `forward` is one call to `nn.functional` or to the Tensor method; the shape
of the output is the shape of the input."""

from __future__ import annotations

import numpy as np

from ..dtypes import get_default_dtype
from ..functions.creation import as_tensor
from ..tensor import Tensor
from . import functional as F
from .module import Module
from .parameter import Parameter


class GELU(Module):
    """GELU(x) = x * Phi(x), Phi the standard normal CDF (Hendrycks & Gimpel, 2016).

    `approximate="none"` (default): Phi(x) = (1 + erf(x / sqrt(2))) / 2.
    `approximate="tanh"` (GPT-2's): x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x³))).

    >>> import tinygrad_norm as tg
    >>> GELU()(tg.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.1587,  0.0000,  0.8413])
    >>> GELU(approximate="tanh")(tg.tensor([1.0]))
    tensor([0.8412])
    """

    def __init__(self, approximate: str = "none"):
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f'GELU: approximate must be "none" or "tanh", got {approximate!r}')
        self.approximate = approximate

    def forward(self, input) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class ReLU(Module):
    """ReLU(x) = max(x, 0); the gradient at 0 is taken as 0. (`inplace` is accepted for
    PyTorch's signature; the result is always a new tensor.)

    >>> import tinygrad_norm as tg
    >>> ReLU()(tg.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.relu(input)


class Tanh(Module):
    """Tanh(x) = (e^x - e^-x) / (e^x + e^-x), in (-1, 1).

    >>> import tinygrad_norm as tg
    >>> Tanh()(tg.tensor([0.0, 1.0]))
    tensor([0.0000, 0.7616])
    """

    def forward(self, input) -> Tensor:  # noqa: A002 - PyTorch's name
        return as_tensor(input).tanh()


class Sigmoid(Module):
    """Sigmoid(x) = 1 / (1 + e^-x), in (0, 1).

    >>> import tinygrad_norm as tg
    >>> Sigmoid()(tg.tensor([0.0, 2.0]))
    tensor([0.5000, 0.8808])
    """

    def forward(self, input) -> Tensor:  # noqa: A002 - PyTorch's name
        return as_tensor(input).sigmoid()


class Softmax(Module):
    """Softmax(x)_i = exp(x_i) / sum_j exp(x_j) along `dim`: each slice along `dim` becomes a
    probability distribution. `dim` must be given (PyTorch's guess for a missing one is
    deprecated; here it is an error at the call).

    >>> import tinygrad_norm as tg
    >>> Softmax(dim=-1)(tg.tensor([[0.0, 0.0], [0.0, 1.0]]))
    tensor([[0.5000, 0.5000],
            [0.2689, 0.7311]])
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """LogSoftmax(x)_i = x_i - log(sum_j exp(x_j)) along `dim`: log-probabilities, computed
    without forming the softmax (stable for large logits).

    >>> import tinygrad_norm as tg
    >>> LogSoftmax(dim=0)(tg.tensor([0.0, 0.0]))
    tensor([-0.6931, -0.6931])
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.log_softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


# --- the other activations: thin Modules over nn.functional ---------------------------------
class _Elementwise(Module):
    """An activation without parameters: forward calls `F.<fn_name>(input, **arguments)`, each
    argument kept as an attribute of PyTorch's name (`LeakyReLU().negative_slope`)."""

    fn_name = ""

    def __init__(self, inplace: bool = False, **arguments):
        super().__init__()
        self.inplace = inplace
        self.argument_names = tuple(arguments)
        for name, value in arguments.items():
            setattr(self, name, value)

    def forward(self, input) -> Tensor:  # noqa: A002 - PyTorch's name
        arguments = {name: getattr(self, name) for name in self.argument_names}
        return getattr(F, self.fn_name)(input, **arguments)

    def extra_repr(self) -> str:
        return ", ".join(f"{name}={getattr(self, name)}" for name in self.argument_names)


class LeakyReLU(_Elementwise):
    """x for x > 0, negative_slope * x otherwise.

    >>> import tinygrad_norm as tg
    >>> LeakyReLU(0.1)(tg.tensor([-2.0, 3.0]))
    tensor([-0.2000,  3.0000])
    """

    fn_name = "leaky_relu"

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False):
        super().__init__(inplace, negative_slope=negative_slope)


class ELU(_Elementwise):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""

    fn_name = "elu"

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__(inplace, alpha=alpha)


class CELU(_Elementwise):
    """x for x > 0, alpha * (exp(x / alpha) - 1) otherwise."""

    fn_name = "celu"

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__(inplace, alpha=alpha)


class Hardtanh(_Elementwise):
    """x clipped to [min_val, max_val]."""

    fn_name = "hardtanh"

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
        super().__init__(inplace, min_val=min_val, max_val=max_val)


class Softplus(_Elementwise):
    """log(1 + exp(beta * x)) / beta, linear above `threshold`."""

    fn_name = "softplus"

    def __init__(self, beta: float = 1.0, threshold: float = 20.0):
        super().__init__(beta=beta, threshold=threshold)


class Softmin(_Elementwise):
    """softmax(-x) along `dim`."""

    fn_name = "softmin"

    def __init__(self, dim=None):
        super().__init__(dim=dim)


class GLU(_Elementwise):
    """a * sigmoid(b) for the two halves a, b of the input along `dim`."""

    fn_name = "glu"

    def __init__(self, dim: int = -1):
        super().__init__(dim=dim)


def _elementwise(name: str, fn_name: str, formula: str) -> type:
    """A parameterless activation class: `name()(x)` is `F.<fn_name>(x)`, `formula` its
    docstring. (`inplace` is accepted for PyTorch's signature; the result is a new tensor.)"""
    namespace = {"fn_name": fn_name, "__doc__": formula, "__module__": __name__}
    return type(name, (_Elementwise,), dict(namespace, __qualname__=name))


# name = _elementwise(name, the nn.functional function it calls, the formula)
SELU = _elementwise("SELU", "selu", "1.0507 * elu(x, alpha=1.6733): self-normalizing activations.")
SiLU = _elementwise("SiLU", "silu", "x * sigmoid(x) (swish).")
Mish = _elementwise("Mish", "mish", "x * tanh(softplus(x)).")
Hardsigmoid = _elementwise("Hardsigmoid", "hardsigmoid", "clip(x / 6 + 1/2, 0, 1).")
Hardswish = _elementwise("Hardswish", "hardswish", "x * hardsigmoid(x).")
ReLU6 = _elementwise("ReLU6", "relu6", "min(max(x, 0), 6).")
Softsign = _elementwise("Softsign", "softsign", "x / (1 + |x|).")
LogSigmoid = _elementwise("LogSigmoid", "logsigmoid", "log(sigmoid(x)), without overflow.")
Tanhshrink = _elementwise("Tanhshrink", "tanhshrink", "x - tanh(x).")


class PReLU(Module):
    """x for x > 0, weight * x otherwise, with a learned `weight` of `num_parameters` slopes
    (1, or one per channel of dim 1), each starting at `init`.

    >>> import tinygrad_norm as tg
    >>> PReLU()(tg.tensor([-2.0, 3.0]))
    tensor([-0.5000,  3.0000], grad_fn=<WhereBackward>)
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25):
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = Parameter(Tensor(np.full(num_parameters, init, dtype=get_default_dtype())))

    def forward(self, input) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"
