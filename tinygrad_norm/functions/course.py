"""Module-level functions course code reaches for: `torch.finfo(x.dtype).min` (a mask value),
`torch.iinfo`, `torch.clamp_min`, `torch.addcmul` / `addcdiv` (hand-written optimizers),
`torch.hstack` / `vstack`, `torch.unbind`. Each is a line or two on existing ops.

>>> import tinygrad_norm as tg
>>> tg.finfo(tg.float32).eps, tg.iinfo(tg.int8).max
(1.1920928955078125e-07, 127)
>>> tg.vstack([tg.ones(2), tg.zeros(2)]).shape
torch.Size([2, 2])
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..convert import numeric_dtype
from .basic import _t, cat


class finfo:  # noqa: N801 - PyTorch's name
    """The limits of a floating dtype (default: the default dtype), as NumPy's finfo with
    PyTorch's attribute names: bits, eps, max, min, tiny (= smallest_normal), resolution."""

    def __init__(self, type=None):  # noqa: A002 - PyTorch's name
        numpy_dtype = numeric_dtype(dtypes.get_default_dtype() if type is None else type)
        if numpy_dtype.kind != "f":
            raise TypeError(f"torch.finfo() requires a floating point dtype, got {numpy_dtype}")
        info = np.finfo(numpy_dtype)
        self.bits, self.dtype = info.bits, numpy_dtype.name
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0**-info.precision

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution}, min={self.min:e}, max={self.max:e}, "
            f"eps={self.eps}, smallest_normal={self.tiny}, tiny={self.tiny}, dtype={self.dtype})"
        )


class iinfo:  # noqa: N801 - PyTorch's name
    """The limits of an integer dtype: bits, max, min."""

    def __init__(self, type):  # noqa: A002 - PyTorch's name
        numpy_dtype = numeric_dtype(type)
        if numpy_dtype.kind not in "iub":
            raise TypeError(f"torch.iinfo() requires an integer dtype, got {numpy_dtype}")
        info = np.iinfo(np.uint8 if numpy_dtype.kind == "b" else numpy_dtype)
        self.bits, self.max, self.min, self.dtype = (
            info.bits,
            int(info.max),
            int(info.min),
            info.dtype.name,
        )

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


def clamp_min(input, min):  # noqa: A002 - PyTorch's names
    return _t(input).clamp(min=min)


def clamp_max(input, max):  # noqa: A002 - PyTorch's names
    return _t(input).clamp(max=max)


def addcmul(input, tensor1, tensor2, *, value=1):  # noqa: A002
    """input + value * tensor1 * tensor2."""
    return _t(input).addcmul(tensor1, tensor2, value=value)


def addcdiv(input, tensor1, tensor2, *, value=1):  # noqa: A002
    """input + value * tensor1 / tensor2."""
    return _t(input).addcdiv(tensor1, tensor2, value=value)


def hstack(tensors):
    """Concatenate along dim 1 (along dim 0 for 1-d tensors), as NumPy's hstack."""
    tensors = [_t(t) for t in tensors]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors):
    """Stack rows: 1-d tensors become rows of a matrix, others concatenate along dim 0."""
    tensors = [_t(t) for t in tensors]
    return cat([t.reshape(1, -1) if t.ndim < 2 else t for t in tensors], 0)


row_stack = vstack


def unbind(input, dim=0):  # noqa: A002
    """The slices along `dim`, as a tuple (each without that dimension)."""
    return _t(input).unbind(dim)


__all__ = ["finfo", "iinfo", "clamp_min", "clamp_max", "addcmul", "addcdiv", "hstack", "vstack",
           "row_stack", "unbind"]  # fmt: skip
