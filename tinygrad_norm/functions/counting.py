"""Small PyTorch functions course code calls: `is_tensor`, `numel`,
the counting functions `histogram`, `histc`, `bincount`, the thread settings, and the
switches that mean nothing on a NumPy CPU framework (`compile`, `set_float32_matmul_precision`,
`use_deterministic_algorithms`), accepted so the code runs.

>>> import tinygrad_norm as tg
>>> tg.bincount(tg.tensor([0, 1, 1, 3]))
tensor([1, 2, 0, 1])
>>> tg.is_tensor(tg.ones(2)), tg.numel(tg.ones(2, 3))
(True, 6)
"""

from __future__ import annotations

import sys
from typing import NamedTuple

import numpy as np

from .. import utils
from ..devices import CPU
from ..devices import check as check_device
from ..ops.composite import require_floating
from ..tensor import Tensor
from .creation import as_tensor as _as_tensor

_noted = set()


def _note_once(key: str, text: str) -> None:
    """Print a note to stderr, once per process."""
    if key not in _noted:
        _noted.add(key)
        print(f"tinygrad_norm: {text}", file=sys.stderr)


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


def set_num_threads(n: int) -> None:
    """Set the threads NumPy's BLAS uses for matrix products (see `tg.utils.blas_threads`)."""
    if int(n) < 1:
        raise RuntimeError(f"set_num_threads: expected a positive number of threads, got {n}")
    utils.blas_threads(int(n))


def get_num_threads() -> int:
    """The threads NumPy's BLAS uses for matrix products."""
    return utils.blas_threads()


def compile(model=None, **options):  # noqa: A001 - PyTorch's name
    """Returns `model` unchanged: tinygrad_norm runs every op eagerly, in NumPy, with nothing
    to compile (a note says so once). Works as `@tg.compile` and `@tg.compile(mode=...)` too."""
    _note_once("compile", "torch.compile does nothing here: the model runs as written, eagerly")
    if model is None:
        return lambda fn: fn
    return model


def set_default_device(device) -> None:
    """Accepts the CPU (the one device); any other device raises a clear error."""
    check_device("set_default_device", device)


def get_default_device():
    return CPU


def set_float32_matmul_precision(precision: str) -> None:
    """Accepted and ignored: NumPy's float32 matmul has one precision."""


def get_float32_matmul_precision() -> str:
    return "highest"


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Accepted and ignored: every op here is deterministic (given the generator's seed)."""


def are_deterministic_algorithms_enabled() -> bool:
    return True
