"""Module-level functions and constants PyTorch code names: comparisons by name (`torch.eq`,
`torch.lt`, `torch.equal`, ...), shifts, the gamma family (lgamma, digamma, polygamma), det,
`torch.range`, the constants `torch.inf`, `torch.nan`, `torch.pi`, `torch.e`, and the memory
formats (`torch.preserve_format`, ...).
"""

from __future__ import annotations

import math

import numpy as np

from ..dtypes import get_default_dtype
from ..ops import comparison as K
from ..ops.gamma import Lgamma, Polygamma
from ..ops.linalg import Det
from .arguments import _t
from .creation import _new, check_device

inf, nan, pi, e = math.inf, math.nan, math.pi, math.e

eq, ne, lt, le, gt, ge = K.eq, K.ne, K.lt, K.le, K.gt, K.ge
greater, greater_equal, less, less_equal, not_equal = K.gt, K.ge, K.lt, K.le, K.ne
equal, isposinf, isneginf = K.equal, K.isposinf, K.isneginf
bitwise_left_shift, bitwise_right_shift = K.bitwise_left_shift, K.bitwise_right_shift


def lgamma(input):  # noqa: A002 - PyTorch's argument name
    """log |Γ(x)|, elementwise; its derivative is digamma."""
    return Lgamma.apply(_t(input))


def digamma(input):  # noqa: A002
    """ψ(x) = d/dx log Γ(x), elementwise; its derivative is polygamma(1, x)."""
    return Polygamma.apply(_t(input), n=0)


def polygamma(n, input):  # noqa: A002
    """ψ⁽ⁿ⁾(x), the n-th derivative of digamma, elementwise."""
    return Polygamma.apply(_t(input), n=int(n))


def det(A):  # noqa: N803 - the matrix's name in PyTorch's documentation
    """The determinant of a square matrix (or of each of a batch (..., n, n))."""
    return Det.apply(_t(A))


def range(start, end, step=1, *, dtype=None, device=None, requires_grad=False):  # noqa: A001
    """Numbers from start to end, both included, step apart (PyTorch's deprecated form of
    arange; default float dtype): torch.range(1, 4) is tensor([1., 2., 3., 4.])."""
    check_device("range", device)
    if step == 0 or (end - start) * step < 0:
        raise RuntimeError(
            f"range: upper bound and lower bound inconsistent with step sign (start={start}, "
            f"end={end}, step={step})"
        )
    count = math.floor((end - start) / step) + 1
    values = start + step * np.arange(count, dtype=np.float64)
    return _new(values, dtype or get_default_dtype(), requires_grad)


class memory_format:  # noqa: N801 - PyTorch's name
    """A memory layout name (`torch.preserve_format`, `torch.contiguous_format`, ...): accepted
    where PyTorch takes `memory_format=`; NumPy arrays here are laid out as NumPy chooses."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


preserve_format = memory_format("preserve_format")
contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
