"""Activation functions as Modules (no parameters): GELU, ReLU, Tanh, Sigmoid, Softmax,
LogSoftmax. Each `forward` is one call to `nn.functional` or to the Tensor method; the shape
of the output is the shape of the input."""

from __future__ import annotations

from ..creation import as_tensor
from ..tensor import Tensor
from . import functional as F
from .module import Module


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
