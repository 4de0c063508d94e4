"""Module-level indexing, shape and product functions, PyTorch style: `tg.gather(x, 1, idx)`,
`tg.flip(x, [0])`, `tg.einsum("ij,jk->ik", a, b)`.

Each accepts Tensors or NumPy arrays (an array becomes a constant Tensor, as in
`functions.py`) and calls the same code as the Tensor method of the same name.
"""

import functools

import numpy as np

from .functions import _t
from .functions import where as _where
from .ops import indexing as I
from .ops import products as P
from .ops import rearrange as R
from .ops import scatter as SC
from .ops.einsum import einsum as _einsum
from .tensor import Tensor


def _on_tensor(fn):
    """`fn` with its first argument (the input) made a Tensor if it is a NumPy array."""

    @functools.wraps(fn)
    def call(input, *args, **kwargs):  # noqa: A002 - PyTorch's name
        return fn(_t(input), *args, **kwargs)

    return call


# --- indexing -----------------------------------------------------------------------------------
gather = _on_tensor(I.gather)
take_along_dim = _on_tensor(I.take_along_dim)
take = _on_tensor(I.take)
index_select = _on_tensor(I.index_select)
masked_select = _on_tensor(I.masked_select)
nonzero = _on_tensor(I.nonzero)
argwhere = _on_tensor(I.argwhere)
index_add = _on_tensor(I.index_add)
masked_scatter = _on_tensor(I.masked_scatter)
index_put = _on_tensor(I.index_put)
scatter = _on_tensor(SC.scatter)
scatter_add = _on_tensor(SC.scatter_add)
scatter_reduce = _on_tensor(SC.scatter_reduce)


def where(condition, input=None, other=None):  # noqa: A002 - PyTorch's names
    """`where(cond, input, other)` picks elementwise; `where(cond)` alone is
    `nonzero(cond, as_tuple=True)`, as in PyTorch."""
    if input is None and other is None:
        return I.nonzero(_t(condition), as_tuple=True)
    if input is None or other is None:
        raise TypeError("where: give both input and other, or neither (for the indices)")
    return _where(condition, input, other)


# --- rearranging --------------------------------------------------------------------------------
flip = _on_tensor(R.flip)
fliplr = _on_tensor(R.fliplr)
flipud = _on_tensor(R.flipud)
roll = _on_tensor(R.roll)
rot90 = _on_tensor(R.rot90)
repeat_interleave = _on_tensor(R.repeat_interleave)
unflatten = _on_tensor(R.unflatten)
narrow = _on_tensor(R.narrow)
movedim = moveaxis = _on_tensor(R.movedim)
diag = _on_tensor(R.diag)
diagonal = _on_tensor(R.diagonal)
diag_embed = _on_tensor(R.diag_embed)
trace = _on_tensor(R.trace)
broadcast_to = _on_tensor(R.broadcast_to)


def meshgrid(*tensors, indexing=None):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return R.meshgrid(*(_t(t) for t in tensors), indexing=indexing)


meshgrid.__doc__ = R.meshgrid.__doc__


def broadcast_tensors(*tensors):
    """All tensors expanded to their common broadcast shape."""
    return R.broadcast_tensors(*(_t(t) for t in tensors))


def tril_indices(row, col, offset=0, *, dtype=None, device=None):
    """The indices of the lower triangle (on and below diagonal `offset`), row by row: (2, N)
    int64, rows first."""
    return _triangle("tril_indices", np.tril, row, col, offset, dtype)


def triu_indices(row, col, offset=0, *, dtype=None, device=None):
    """The indices of the upper triangle (on and above diagonal `offset`), row by row: (2, N)."""
    return _triangle("triu_indices", np.triu, row, col, offset, dtype)


def _triangle(op: str, keep, row: int, col: int, offset: int, dtype) -> Tensor:
    if row < 0 or col < 0:
        raise RuntimeError(f"{op}: row and col must be non-negative, got {row} and {col}")
    rows, cols = np.nonzero(keep(np.ones((row, col), dtype=bool), offset))
    return Tensor(np.stack([rows, cols]), dtype=dtype or np.int64)


# --- products -----------------------------------------------------------------------------------
def einsum(*args):
    if len(args) == 2 and isinstance(args[0], str) and isinstance(args[1], (list, tuple)):
        args = (args[0], *args[1])  # einsum("ij,jk", [a, b])
    return _einsum(*(_t(a) if isinstance(a, np.ndarray) else a for a in args))


einsum.__doc__ = _einsum.__doc__
mm = _on_tensor(P.mm)
bmm = _on_tensor(P.bmm)
mv = _on_tensor(P.mv)
dot = vdot = _on_tensor(P.dot)
inner = _on_tensor(P.inner)
outer = ger = _on_tensor(P.outer)
kron = _on_tensor(P.kron)
tensordot = _on_tensor(P.tensordot)
baddbmm = _on_tensor(P.baddbmm)
addmv = _on_tensor(P.addmv)
