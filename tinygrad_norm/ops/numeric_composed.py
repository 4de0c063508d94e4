"""fmax, fmin and diff, composed from the primitives (autograd derives their gradients).

fmax(a, b) is maximum(a, b) except where one side is NaN: then the other side (NumPy's fmax,
PyTorch's too). diff(x, n, dim) is the n-th forward difference x[i + 1] - x[i] along dim.
"""

from __future__ import annotations

import numpy as np

from .composite import maximum, minimum, promote, where
from .shape import cat


def fmax(input, other):  # noqa: A002 - PyTorch's names
    """Elementwise maximum that ignores a NaN on one side (NaN only where both are NaN)."""
    a, b = promote(input, other)
    both = maximum(a, b)
    return where(np.isnan(a.array), b, where(np.isnan(b.array), a, both))


def fmin(input, other):  # noqa: A002
    """Elementwise minimum that ignores a NaN on one side."""
    a, b = promote(input, other)
    both = minimum(a, b)
    return where(np.isnan(a.array), b, where(np.isnan(b.array), a, both))


def diff(input, n=1, dim=-1, prepend=None, append=None):  # noqa: A002
    """out[i] = x[i + 1] - x[i] along dim, n times; prepend/append are joined on first."""
    x = input
    if x.ndim == 0:
        raise RuntimeError("diff: expected at least a 1-dimensional tensor, got a 0-d one")
    d = dim + x.ndim if dim < 0 else dim
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = cat(parts, d)
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        x = x.narrow(d, 1, length - 1) - x.narrow(d, 0, length - 1)
    return x
