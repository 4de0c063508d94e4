"""Module-level shape, indexing and product functions, PyTorch style: `tg.gather(x, 1, idx)`,
`tg.flip(x, [0])`, `tg.einsum("ij,jk->ik", a, b)`.

Each accepts Tensors or NumPy arrays (an array becomes a constant Tensor, as in
`functions/arguments.py`) and calls the same code as the Tensor method of the same name.
"""

import numpy as np

from ..ops import composite as C
from ..ops import indexing as I
from ..ops import products as P
from ..ops import rearrange as R
from ..ops import scatter as SC
from ..ops import shape as S
from ..ops.einsum import einsum as _einsum
from ..tensor import Tensor
from .arguments import _on_tensor, _t, _tensor_argument

# --- joining, splitting, reshaping ----------------------------------------------------------------


def cat(tensors, dim=0):
    return S.cat([_tensor_argument("cat", t, "tensors") for t in tensors], dim)


def stack(tensors, dim=0):
    return S.stack([_tensor_argument("stack", t, "tensors") for t in tensors], dim)


def reshape(x, *shape):
    return _t(x).reshape(*shape)


def flatten(x, start_dim=0, end_dim=-1):
    return _t(x).flatten(start_dim, end_dim)


def permute(x, *dims):
    return _t(x).permute(*dims)


def transpose(x, dim0, dim1):
    return _t(x).transpose(dim0, dim1)


def squeeze(x, dim=None):
    return _t(x).squeeze(dim)


def unsqueeze(x, dim):
    return _t(x).unsqueeze(dim)


def split(x, split_size_or_sections, dim=0):
    return _t(x).split(split_size_or_sections, dim)


def chunk(x, chunks, dim=0):
    return _t(x).chunk(chunks, dim)


def tril(x, diagonal=0):
    return C.tril(_t(x), diagonal)


def triu(x, diagonal=0):
    return C.triu(_t(x), diagonal)


def _nonempty(op: str, tensors) -> list:
    """The tensors to join, as Tensors; none at all is PyTorch's RuntimeError."""
    if not tensors:
        raise RuntimeError(f"{op}: expected a non-empty list of tensors, got an empty one")
    return [_tensor_argument(op, t, "tensors") for t in tensors]


def hstack(tensors):
    """Concatenate along dim 1 (along dim 0 for 1-d tensors), as NumPy's hstack."""
    tensors = atleast_1d(_nonempty("hstack", tensors))
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors):
    """Stack rows: 1-d tensors become rows of a matrix, others concatenate along dim 0."""
    return cat(atleast_2d(_nonempty("vstack", tensors)), 0)


row_stack = vstack


def _at_least(op: str, shaped, tensors):
    """`shaped(t)` for one Tensor; a tuple of them for several (or for one list)."""
    many = len(tensors) != 1 or isinstance(tensors[0], (list, tuple))
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    out = tuple(shaped(_tensor_argument(op, t)) for t in tensors)
    return out if many else out[0]


def atleast_1d(*tensors):
    """Each tensor with at least one dimension: a 0-d tensor becomes shape (1,) (a view)."""
    return _at_least("atleast_1d", lambda t: t if t.ndim else t.reshape(1), tensors)


def atleast_2d(*tensors):
    """Each tensor with at least two dimensions: () -> (1, 1), (n,) -> (1, n) (views)."""
    return _at_least("atleast_2d", _two_dims, tensors)


def _two_dims(t):
    return t if t.ndim >= 2 else t.reshape((1,) * (2 - t.ndim) + t.shape)


def atleast_3d(*tensors):
    """At least three dimensions, as PyTorch: () -> (1, 1, 1), (n,) -> (1, n, 1),
    (m, n) -> (m, n, 1) (views)."""
    return _at_least("atleast_3d", _three_dims, tensors)


def _three_dims(t):
    if t.ndim == 0:
        return t.reshape(1, 1, 1)
    if t.ndim == 1:
        return t.reshape(1, -1, 1)
    return t.unsqueeze(-1) if t.ndim == 2 else t


def unbind(input, dim=0):  # noqa: A002
    """The slices along `dim`, as a tuple (each without that dimension)."""
    return _t(input).unbind(dim)


# --- indexing -------------------------------------------------------------------------------------
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


# --- rearranging ----------------------------------------------------------------------------------
flip = _on_tensor(R.flip)
fliplr = _on_tensor(R.fliplr)
flipud = _on_tensor(R.flipud)
roll = _on_tensor(R.roll)
rot90 = _on_tensor(R.rot90)
repeat_interleave = _on_tensor(R.repeat_interleave)
unflatten = _on_tensor(R.unflatten)
narrow = _on_tensor(R.narrow)
movedim = _on_tensor(R.movedim)
diag = _on_tensor(R.diag)
diagonal = _on_tensor(R.diagonal)
diag_embed = _on_tensor(R.diag_embed)
trace = _on_tensor(R.trace)
broadcast_to = _on_tensor(R.broadcast_to)
moveaxis = movedim


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


# --- products -------------------------------------------------------------------------------------
def einsum(*args):
    if len(args) == 2 and isinstance(args[0], str) and isinstance(args[1], (list, tuple)):
        args = (args[0], *args[1])  # einsum("ij,jk", [a, b])
    return _einsum(*(_t(a) if isinstance(a, np.ndarray) else a for a in args))


einsum.__doc__ = _einsum.__doc__
mm = _on_tensor(P.mm)
bmm = _on_tensor(P.bmm)
mv = _on_tensor(P.mv)
dot = _on_tensor(P.dot)
inner = _on_tensor(P.inner)
outer = _on_tensor(P.outer)
kron = _on_tensor(P.kron)
tensordot = _on_tensor(P.tensordot)
baddbmm = _on_tensor(P.baddbmm)
addmv = _on_tensor(P.addmv)
vdot, ger = dot, outer  # PyTorch's other names


def matmul(a, b):
    return C.matmul(_t(a), _t(b))


def addmm(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002
    return C.addmm(_t(input), _t(mat1), _t(mat2), beta=beta, alpha=alpha)
