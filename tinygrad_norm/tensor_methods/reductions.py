"""Tensor methods that reduce: `x.sum(dim)`, `x.mean()`, `x.var(dim, unbiased)`, `x.max(dim)`, ...

`dim` takes an int, a tuple or a list; `keepdims` is accepted as PyTorch's alias of `keepdim`.
Each is a one-line call into `ops/composite.py` (or the fused softmax), or that function itself
where the method only passes its arguments on (`argmax = C.argmax`). `Tensor` inherits them.
"""

from __future__ import annotations

from ..ops import composite as C
from ..ops.fused.softmax import log_softmax as fused_log_softmax
from ..ops.fused.softmax import softmax as fused_softmax


class ReductionMethods:
    __slots__ = ()

    def sum(self, dim=None, keepdim=False, *, dtype=None, keepdims=None, axis=None):
        return C.sum(self, _dim(dim, axis), _keep(keepdim, keepdims), dtype=dtype)

    def mean(self, dim=None, keepdim=False, *, dtype=None, keepdims=None, axis=None):
        x = self if dtype is None else self.to(dtype)  # PyTorch casts first, then averages
        return C.mean(x, _dim(dim, axis), _keep(keepdim, keepdims))

    def var(
        self, dim=None, unbiased=True, keepdim=False, *, correction=None, keepdims=None, axis=None
    ):
        dim, keepdim = _dim(dim, axis), _keep(keepdim, keepdims)
        return C.var(self, dim, unbiased, keepdim, correction=correction)

    def std(
        self, dim=None, unbiased=True, keepdim=False, *, correction=None, keepdims=None, axis=None
    ):
        dim, keepdim = _dim(dim, axis), _keep(keepdim, keepdims)
        return C.std(self, dim, unbiased, keepdim, correction=correction)

    def max(self, dim=None, keepdim=False, *, keepdims=None, axis=None):
        return C.max(self, _dim(dim, axis), _keep(keepdim, keepdims))

    def min(self, dim=None, keepdim=False, *, keepdims=None, axis=None):
        return C.min(self, _dim(dim, axis), _keep(keepdim, keepdims))

    def amax(self, dim=None, keepdim=False, *, keepdims=None, axis=None):
        return C.amax(self, _dim(dim, axis), _keep(keepdim, keepdims))

    def amin(self, dim=None, keepdim=False, *, keepdims=None, axis=None):
        return C.amin(self, _dim(dim, axis), _keep(keepdim, keepdims))

    argmax = C.argmax
    argmin = C.argmin
    norm = C.norm

    def softmax(self, dim, dtype=None):
        return fused_softmax(self if dtype is None else self.to(dtype), dim)

    def log_softmax(self, dim, dtype=None):
        return fused_log_softmax(self if dtype is None else self.to(dtype), dim)


def _dim(dim, axis):
    """`axis=` is PyTorch's (NumPy-style) alias of `dim=`."""
    return dim if axis is None else axis


def _keep(keepdim, keepdims) -> bool:
    return keepdim if keepdims is None else keepdims
