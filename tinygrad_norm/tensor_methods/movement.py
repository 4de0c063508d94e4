"""Tensor methods that move data around: `x.reshape(2, 3)`, `x.permute(1, 0)`, `x.split(2)`, ...

Each is a one-line call into `ops/shape.py`, or that op's function itself where the method only
passes its arguments on (`squeeze = C.squeeze`: `x.squeeze(0)` calls `C.squeeze(x, 0)`).
`Tensor` inherits these methods.
"""

from __future__ import annotations

from ..ops import shape as C


class MovementMethods:
    __slots__ = ()

    def reshape(self, *shape):
        return C.reshape(self, *shape)

    view = reshape
    flatten = C.flatten

    def permute(self, *dims):
        return C.permute(self, *dims)

    transpose = C.transpose
    swapaxes = transpose
    squeeze = C.squeeze
    unsqueeze = C.unsqueeze

    def expand(self, *sizes):
        return C.expand(self, *sizes)

    def expand_as(self, other):
        return C.expand(self, other.shape)

    def repeat(self, *sizes):
        return C.repeat(self, *sizes)

    split = C.split
    chunk = C.chunk
