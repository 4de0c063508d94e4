"""Dropout as a Module: active in training mode, the identity in evaluation mode."""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .module import Module


class Dropout(Module):
    """Inverted dropout (Srivastava et al., 2014): in training mode each element is zeroed
    with probability p and the survivors are scaled by 1 / (1 - p), so E[y] = x; in evaluation
    mode (`module.eval()`) y = x. The keep-mask is drawn from the global generator.

    Shapes: any; the output has the input's shape. Default p = 0.5. (`inplace` is accepted
    for PyTorch's signature; the result is always a new tensor.)

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> drop = Dropout(p=0.5)
    >>> drop(tg.ones(6))
    tensor([0., 0., 2., 0., 0., 0.])
    >>> drop.eval()(tg.ones(3))
    tensor([1., 1., 1.])
    """

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(
                f"Dropout: p is the probability of zeroing an element and must be in [0, 1], "
                f"got {p}"
            )
        self.p, self.inplace = p, inplace

    def forward(self, input) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.dropout(input, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(Dropout):
    """Channel dropout for (N, C, L) or (C, L) inputs: each channel is zeroed whole with
    probability p, the rest scaled by 1 / (1 - p) (Tompson et al., 2015); see F.dropout1d."""

    def forward(self, input) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.dropout1d(input, self.p, self.training)


class Dropout2d(Dropout):
    """Channel dropout for (N, C, H, W) or (C, H, W) inputs: each feature map is zeroed whole
    with probability p, the rest scaled by 1 / (1 - p); see F.dropout2d.

    >>> import tinygrad_norm as tg
    >>> Dropout2d(0.5).eval()(tg.ones(1, 2, 1, 1)).flatten().tolist()
    [1.0, 1.0]
    """

    def forward(self, input) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.dropout2d(input, self.p, self.training)


class AlphaDropout(Dropout):
    """Dropout for SELU networks: keeps mean 0 and variance 1 (Klambauer et al., 2017); see
    F.alpha_dropout."""

    def forward(self, input) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.alpha_dropout(input, self.p, self.training)
