"""Counting and asking: `histogram`, `histc`, `bincount` count values; `is_tensor`, `numel`,
`is_floating_point` ask what a value is.

>>> import tinygrad_norm as tg
>>> tg.bincount(tg.tensor([0, 1, 1, 3]))
tensor([1, 2, 0, 1])
>>> tg.is_tensor(tg.ones(2)), tg.numel(tg.ones(2, 3))
(True, 6)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..ops.composite import require_floating
from ..tensor import Tensor
from .creation import as_tensor as _as_tensor


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def numel(input) -> int:  # noqa: A002 - PyTorch's name
    return _as_tensor(input).array.size


def is_floating_point(input) -> bool:  # noqa: A002
    return _as_tensor(input).array.dtype.kind == "f"


class histogram_result(NamedTuple):  # noqa: N801 - PyTorch's torch.return_types.histogram
    hist: Tensor
    bin_edges: Tensor


def histogram(input, bins=100, *, range=None, weight=None, density=False):  # noqa: A002
    """Counts of `input`'s values in `bins` equal bins over `range` (default: min to max), or
    between the edges of a 1-D tensor `bins`. Returns `(hist, bin_edges)`, both of input's
    floating dtype; the last bin includes its right edge, as NumPy and PyTorch."""
    x = _as_tensor(input).array
    require_floating("histogram", x, NotImplementedError, "tg.histogram(x.float(), bins)")
    edges = bins.array if isinstance(bins, Tensor) else bins
    w = None if weight is None else _as_tensor(weight).array
    hist, edges = np.histogram(x, edges, range=range, weights=w, density=density)
    return histogram_result(Tensor._make(hist.astype(x.dtype)), Tensor._make(edges.astype(x.dtype)))


def histc(input, bins=100, min=0, max=0) -> Tensor:  # noqa: A002 - PyTorch's names
    """Counts in `bins` equal bins between `min` and `max` (both 0: the data's min and max);
    values outside are ignored. Floating, input's dtype."""
    x = _as_tensor(input).array
    require_floating("histc", x, NotImplementedError, "tg.histc(x.float())")
    low, high = (min, max) if min != max or x.size == 0 else (x.min(), x.max())
    if low == high:  # all values equal: PyTorch widens the range by 1 on each side
        low, high = low - 1, high + 1
    hist, _ = np.histogram(x, bins, range=(float(low), float(high)))
    return Tensor._make(hist.astype(x.dtype))


def bincount(input, weights=None, minlength=0) -> Tensor:  # noqa: A002
    """How often each value 0, 1, ..., max occurs in a 1-D non-negative integer tensor
    (at least `minlength` bins); with `weights`, their sum per value."""
    x = _as_tensor(input).array
    if x.ndim != 1 or x.dtype.kind not in "iu" or (x.size and x.min() < 0):
        raise RuntimeError(
            f"bincount: only supports 1-d non-negative integral inputs, got shape "
            f"{x.shape} of {x.dtype}"
        )
    if weights is None:
        return Tensor._make(np.bincount(x, minlength=minlength).astype(np.int64))
    w = _as_tensor(weights).array
    counts = np.bincount(x, weights=w, minlength=minlength)
    return Tensor._make(counts.astype(w.dtype if w.dtype.kind == "f" else np.float64))
