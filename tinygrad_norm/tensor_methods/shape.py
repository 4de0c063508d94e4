"""Indexing, shape and linear-algebra methods of Tensor: each a one-line call into the ops.

The maths lives in `ops/indexing.py` (gather, index_add, ...), `ops/scatter.py`,
`ops/rearrange.py` (flip, roll, unfold, diagonal, ...) and `ops/products.py` (bmm, mm, dot,
kron, ...), each op with its gradient derived from the primitives.
"""

from __future__ import annotations

from ..ops import indexing as I
from ..ops import products as P
from ..ops import rearrange as S
from ..ops import scatter as SC
from ..ops.composite import where


class ShapeMethods:
    """The indexing, shape and product methods of Tensor, with PyTorch's names and arguments."""

    __slots__ = ()

    # --- gather / scatter ------------------------------------------------------------------------
    def gather(self, dim, index, *, sparse_grad=False):
        return I.gather(self, dim, index)

    def take_along_dim(self, indices, dim=None):
        return I.take_along_dim(self, indices, dim)

    def take(self, index):
        return I.take(self, index)

    def index_select(self, dim, index):
        return I.index_select(self, dim, index)

    def masked_select(self, mask):
        return I.masked_select(self, mask)

    def nonzero(self, *, as_tuple=False):
        return I.nonzero(self, as_tuple=as_tuple)

    def argwhere(self):
        return I.argwhere(self)

    def where(self, condition, other):
        return where(condition, self, other)

    def scatter(self, dim, index, src=None, reduce=None, *, value=None):
        return SC.scatter(self, dim, index, src, reduce, value=value)

    def scatter_add(self, dim, index, src):
        return SC.scatter_add(self, dim, index, src)

    def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
        return SC.scatter_reduce(self, dim, index, src, reduce, include_self=include_self)

    def index_add(self, dim, index, source, *, alpha=1):
        return I.index_add(self, dim, index, source, alpha=alpha)

    def masked_scatter(self, mask, source):
        return I.masked_scatter(self, mask, source)

    def index_put(self, indices, values, accumulate=False):
        return I.index_put(self, indices, values, accumulate)

    # --- the same in place (recorded when it must be: see tensor_methods/inplace.py) ----------
    def scatter_(self, dim, index, src=None, reduce=None, *, value=None):
        def compute(t):
            return SC.scatter(t, dim, index, src, reduce, value=value)

        return self._change_in_place("scatter_", compute, src)

    def scatter_add_(self, dim, index, src):
        return self._change_in_place(
            "scatter_add_", lambda t: SC.scatter_add(t, dim, index, src), src
        )

    def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
        def compute(t):
            return SC.scatter_reduce(t, dim, index, src, reduce, include_self=include_self)

        return self._change_in_place("scatter_reduce_", compute, src)

    def index_add_(self, dim, index, source, *, alpha=1):
        def compute(t):
            return I.index_add(t, dim, index, source, alpha=alpha)

        return self._change_in_place("index_add_", compute, source)

    def masked_scatter_(self, mask, source):
        return self._change_in_place(
            "masked_scatter_", lambda t: I.masked_scatter(t, mask, source), source
        )

    def index_put_(self, indices, values, accumulate=False):
        def compute(t):
            return I.index_put(t, indices, values, accumulate)

        return self._change_in_place("index_put_", compute, values)

    # --- shape ---------------------------------------------------------------------------------
    def flip(self, *dims):
        return S.flip(self, dims[0] if len(dims) == 1 and not isinstance(dims[0], int) else dims)

    def fliplr(self):
        return S.fliplr(self)

    def flipud(self):
        return S.flipud(self)

    def roll(self, shifts, dims=None):
        return S.roll(self, shifts, dims)

    def rot90(self, k=1, dims=(0, 1)):
        return S.rot90(self, k, dims)

    def repeat_interleave(self, repeats, dim=None, *, output_size=None):
        return S.repeat_interleave(self, repeats, dim, output_size=output_size)

    def unfold(self, dimension, size, step):
        return S.unfold(self, dimension, size, step)

    def unflatten(self, dim, sizes):
        return S.unflatten(self, dim, sizes)

    def narrow(self, dim, start, length):
        return S.narrow(self, dim, start, length)

    def movedim(self, source, destination):
        return S.movedim(self, source, destination)

    moveaxis = movedim

    def diag(self, diagonal=0):
        return S.diag(self, diagonal)

    def diagonal(self, offset=0, dim1=0, dim2=1):
        return S.diagonal(self, offset, dim1, dim2)

    def diag_embed(self, offset=0, dim1=-2, dim2=-1):
        return S.diag_embed(self, offset, dim1, dim2)

    def trace(self):
        return S.trace(self)

    def broadcast_to(self, size):
        return S.broadcast_to(self, size)

    def view_as(self, other):
        return S.view_as(self, other)

    def reshape_as(self, other):
        return S.reshape_as(self, other)

    # --- products ------------------------------------------------------------------------------
    def mm(self, mat2):
        return P.mm(self, mat2)

    def bmm(self, mat2):
        return P.bmm(self, mat2)

    def mv(self, vec):
        return P.mv(self, vec)

    def dot(self, other):
        return P.dot(self, other)

    def inner(self, other):
        return P.inner(self, other)

    def outer(self, vec2):
        return P.outer(self, vec2)

    ger = outer

    def kron(self, other):
        return P.kron(self, other)

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        return P.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return P.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def addmv(self, mat, vec, *, beta=1, alpha=1):
        return P.addmv(self, mat, vec, beta=beta, alpha=alpha)
