"""Tensor methods that move data around: `x.reshape(2, 3)`, `x.permute(1, 0)`, `x.split(2)`, ...

Each is a one-line call into `ops/composite.py`. `Tensor` inherits these methods.
"""

from __future__ import annotations

from ..ops import shape as C


class MovementMethods:
    __slots__ = ()

    def reshape(self, *shape):
        return C.reshape(self, *shape)

    view = reshape

    def flatten(self, start_dim=0, end_dim=-1):
        return C.flatten(self, start_dim, end_dim)

    def permute(self, *dims):
        return C.permute(self, *dims)

    def transpose(self, dim0, dim1):
        return C.transpose(self, dim0, dim1)

    swapaxes = transpose

    def squeeze(self, dim=None):
        return C.squeeze(self, dim)

    def unsqueeze(self, dim):
        return C.unsqueeze(self, dim)

    def expand(self, *sizes):
        return C.expand(self, *sizes)

    def expand_as(self, other):
        return C.expand(self, other.shape)

    def repeat(self, *sizes):
        return C.repeat(self, *sizes)

    def split(self, split_size_or_sections, dim=0):
        return C.split(self, split_size_or_sections, dim)

    def chunk(self, chunks, dim=0):
        return C.chunk(self, chunks, dim)
