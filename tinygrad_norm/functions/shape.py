"""Module-level indexing, shape and product functions, PyTorch style: `tg.gather(x, 1, idx)`,
`tg.flip(x, [0])`, `tg.einsum("ij,jk->ik", a, b)`.

Each accepts Tensors or NumPy arrays (an array becomes a constant Tensor, as in
`functions.py`) and calls the same code as the Tensor method of the same name.
"""

import functools

import numpy as np

from ..ops import indexing as I
from ..ops import products as P
from ..ops import rearrange as R
from ..ops import scatter as SC
from ..ops.einsum import einsum as _einsum
from ..tensor import Tensor
from .basic import _t
from .basic import where as _where


def _on_tensor(fn):
    """`fn` with its first argument (the input) made a Tensor if it is a NumPy array."""

    @functools.wraps(fn)
    def call(input, *args, **kwargs):  # noqa: A002 - PyTorch's name
        return fn(_t(input), *args, **kwargs)

    return call


def _define_on_tensor(module, names: str) -> None:
    """Defines each of `names` here as `name = _on_tensor(module.name)`: the tables below."""
    for name in names.split():
        globals()[name] = _on_tensor(getattr(module, name))


# --- indexing -----------------------------------------------------------------------------------
_define_on_tensor(
    I,
    "gather take_along_dim take index_select masked_select nonzero argwhere index_add "
    "masked_scatter index_put",
)
_define_on_tensor(SC, "scatter scatter_add scatter_reduce")


def where(condition, input=None, other=None):  # noqa: A002 - PyTorch's names
    """`where(cond, input, other)` picks elementwise; `where(cond)` alone is
    `nonzero(cond, as_tuple=True)`, as in PyTorch."""
    if input is None and other is None:
        return I.nonzero(_t(condition), as_tuple=True)
    if input is None or other is None:
        raise TypeError("where: give both input and other, or neither (for the indices)")
    return _where(condition, input, other)


# --- rearranging --------------------------------------------------------------------------------
_define_on_tensor(
    R,
    "flip fliplr flipud roll rot90 repeat_interleave unflatten narrow movedim diag diagonal "
    "diag_embed trace broadcast_to",
)
moveaxis = movedim  # noqa: F821 - defined by the line above


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
_define_on_tensor(P, "mm bmm mv dot inner outer kron tensordot baddbmm addmv")
vdot, ger = dot, outer  # noqa: F821 - PyTorch's other names, for the functions defined above
