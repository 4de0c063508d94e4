"""Shape, movement, indexing and linear-algebra methods of Tensor (`x.reshape(2, 3)`, `x.t()`,
`x.gather(1, i)`, `x.bmm(y)`): each a one-line call into the ops, or
the op's function itself where the method only passes its arguments on (`take = I.take` makes
`x.take(i)` the call `I.take(x, i)`).

The maths lives in `ops/indexing.py` (gather, index_add, ...), `ops/scatter.py`,
`ops/rearrange.py` (flip, roll, unfold, diagonal, ...) and `ops/products.py` (bmm, mm, dot,
kron, ...), each op with its gradient derived from the primitives.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..autograd.function import join_view, mark_one_of_many
from ..ops import indexing as I
from ..ops import movement as MVP
from ..ops import products as P
from ..ops import rearrange as S
from ..ops import scatter as SC
from ..ops import shape as MV
from ..ops.composite import where


class ShapeMethods:
    """The indexing, shape and product methods of Tensor, with PyTorch's names and arguments."""

    __slots__ = ()

    # --- gather / scatter ------------------------------------------------------------------------
    def gather(self, dim, index, *, sparse_grad=False):
        return I.gather(self, dim, index)

    take_along_dim, take, index_select = I.take_along_dim, I.take, I.index_select
    masked_select, nonzero, argwhere = I.masked_select, I.nonzero, I.argwhere

    def where(self, condition, other):
        return where(condition, self, other)

    scatter, scatter_add, scatter_reduce = SC.scatter, SC.scatter_add, SC.scatter_reduce
    index_add, masked_scatter, index_put = I.index_add, I.masked_scatter, I.index_put

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

    fliplr, flipud, roll = S.fliplr, S.flipud, S.roll
    rot90 = S.rot90

    def repeat_interleave(self, repeats, dim=None, *, output_size=None):
        return S.repeat_interleave(self, repeats, dim, output_size=output_size)

    unfold, unflatten, narrow = S.unfold, S.unflatten, S.narrow
    movedim = moveaxis = S.movedim
    diag, diagonal, diag_embed, trace = S.diag, S.diagonal, S.diag_embed, S.trace
    broadcast_to, view_as, reshape_as = S.broadcast_to, S.view_as, S.reshape_as

    # --- products ------------------------------------------------------------------------------
    mm, bmm, mv = P.mm, P.bmm, P.mv

    def dot(self, other):
        return P.dot(self, other)

    inner, kron = P.inner, P.kron
    outer = ger = P.outer
    addmm, baddbmm, addmv = P.addmm, P.baddbmm, P.addmv

    # --- movement: reshape, permute, expand, split, ... ----------------------------------------
    def reshape(self, *shape):
        return MV.reshape(self, *shape)

    def view(self, *shape):
        """The same memory with another shape (PyTorch's view): refused where the strides
        do not allow it (a transposed tensor); reshape() copies then. `view(dtype)` reads the
        same bytes as another dtype of the same size (not differentiable across dtypes)."""
        if len(shape) == 1 and isinstance(shape[0], (dtypes.dtype, np.dtype, type)):
            return _view_as_dtype(self, np.dtype(shape[0]))
        out = MV.reshape(self, *shape)
        if out.array.size > 1 and not np.shares_memory(out.array, self.array):
            raise RuntimeError(
                f"view: the shape {tuple(out.shape)} is not compatible with this tensor's "
                f"memory layout (shape {tuple(self.shape)}, not contiguous: a transpose, a "
                "step or an expand); use .reshape(...) (which copies when it must) or call "
                ".contiguous() first"
            )
        return out

    def as_strided(self, size, stride, storage_offset=None):
        """A view of this tensor's memory with the given sizes and strides (in elements) from
        `storage_offset` (default: where this tensor starts), as PyTorch's."""
        return MVP.AsStrided.apply(self, tuple(size), tuple(stride), storage_offset)

    def select(self, dim, index):
        """x.select(dim, i): the slice at index i along dim, that dim removed (a view)."""
        d = dim + self.ndim if dim < 0 else dim
        if not 0 <= d < self.ndim:
            raise IndexError(f"select: dim {dim} is out of range for shape {self.shape}")
        return self[(slice(None),) * d + (index,)]

    def tile(self, *dims):
        """Repeat the tensor dims[i] times along axis i; missing leading counts are 1 (a copy)."""
        dims = tuple(dims[0]) if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
        return MV.repeat(self, *((1,) * (self.ndim - len(dims)) + tuple(dims)))

    @property
    def real(self):
        """The real part: a real tensor itself (complex numbers are not supported)."""
        return self

    flatten = MV.flatten

    def permute(self, *dims):
        return MV.permute(self, *dims)

    transpose = MV.transpose
    swapaxes = swapdims = transpose
    squeeze = MV.squeeze
    unsqueeze = MV.unsqueeze

    def expand(self, *sizes):
        return MV.expand(self, *sizes)

    def expand_as(self, other):
        return MV.expand(self, other.shape)

    def repeat(self, *sizes):
        return MV.repeat(self, *sizes)

    split = MV.split
    chunk = MV.chunk

    # --- transposes ----------------------------------------------------------------------------
    def t(self):
        """The transpose of a matrix; a 0-d or 1-d tensor is returned as it is (PyTorch's t)."""
        if self.ndim > 2:
            raise RuntimeError(
                f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D "
                f"(shape {tuple(self.shape)}); use transpose(dim0, dim1) or .mT"
            )
        return self if self.ndim < 2 else self.transpose(0, 1)

    @property
    def mT(self):  # noqa: N802 - PyTorch's name
        """The last two dimensions swapped: a batch of matrices, each transposed."""
        if self.ndim < 2:
            raise RuntimeError(
                f"tensor.mT is only supported on matrices or batches of matrices, got a "
                f"{self.ndim}-D tensor"
            )
        return self.transpose(-2, -1)

    mH = mT  # the conjugate transpose: the same for real numbers

    def unbind(self, dim=0):
        """The slices along `dim`, as a tuple (each without that dimension)."""
        if self.ndim == 0:
            raise IndexError("unbind: a 0-d tensor has no dimension to unbind")
        dim = dim % self.ndim
        pieces = tuple(self[(slice(None),) * dim + (i,)] for i in range(self.shape[dim]))
        return mark_one_of_many(pieces, "unbind")

    def tensor_split(self, indices_or_sections, dim=0):
        """n pieces along `dim` (the first size % n one longer), or the pieces between the
        given indices (as NumPy's array_split)."""
        return MV.tensor_split(self, indices_or_sections, dim)


def _view_as_dtype(t, dtype: np.dtype):
    """t's memory read as `dtype` (PyTorch's view(dtype)), of the same element size here."""
    if dtype == t.array.dtype:
        return MV.reshape(t, t.shape)
    if dtype.itemsize != t.array.dtype.itemsize:
        raise RuntimeError(
            f"view: reading {t.dtype} as {dtypes.dtype(dtype, dtype.name)} needs the same element "
            "size here (PyTorch also changes the last dimension); use .to(dtype) to convert values"
        )
    out = t._make(t.array.view(dtype))
    join_view(out, (t,))
    return out
