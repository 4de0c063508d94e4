"""tg.linalg: vector and matrix norms with PyTorch's `torch.linalg` names and arguments.

- `vector_norm(x, ord=2, dim=None)`: (sum_i |x_i|^ord)^(1/ord) over `dim` (all elements by
  default); ord inf / -inf is the largest / smallest |x_i|, ord 0 the number of non-zeros.
- `matrix_norm(A, ord="fro", dim=(-2, -1))`: "fro" sqrt(sum a_ij^2); "nuc" the sum of the
  singular values; 2 / -2 the largest / smallest singular value; 1 / -1 the largest /
  smallest column sum of |a_ij|; inf / -inf the largest / smallest row sum.
- `norm(A, ord=None, dim=None)`: a vector norm or a matrix norm depending on `dim` and `ord`.

Gradients come from the compositions (Sum, Abs, Pow, Max) and, for the spectral norms, from
`SingularValues` and its gradient `SingularValuesGrad` (ops/svd.py): first and second order,
at matrices with distinct singular values.

>>> import tinygrad_norm as tg
>>> tg.linalg.vector_norm(tg.tensor([3.0, 4.0])).item()
5.0
>>> tg.linalg.matrix_norm(tg.tensor([[1.0, -2.0], [3.0, 4.0]]), ord=1).item()
6.0
"""

from __future__ import annotations

import math

import numpy as np

from .functions.creation import as_tensor
from .ops import composite as C
from .ops.linalg import Det
from .ops.rearrange import movedim
from .ops.svd import SingularValues

__all__ = ["det", "matrix_norm", "norm", "vector_norm"]

INF = math.inf


def _floating(op: str, x, dtype):
    x = as_tensor(x)
    if dtype is not None:
        x = x.to(dtype)
    if x.dtype.kind not in "fc":
        raise RuntimeError(
            f"linalg.{op}: expected a floating point tensor, got {x.dtype}; convert it with "
            ".float() or pass dtype=tg.float32"
        )
    return x


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """The ord-norm of the elements over `dim` (a vector of all elements when dim is None)."""
    x = _floating("vector_norm", x, dtype)
    dims = C.normalize_dims("linalg.vector_norm", dim, x.ndim)
    if ord in (INF, -INF):
        axes = range(x.ndim) if dims is None else dims
        if any(x.shape[d] == 0 for d in axes) or (x.ndim and x.numel() == 0 and dims is None):
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {ord} norm of an empty tensor "
                f"(shape {x.shape}): the maximum of nothing is undefined"
            )
    if ord == 0:  # the number of non-zero elements: piecewise constant, no gradient
        count = (x.array != 0).sum(axis=dims, keepdims=keepdim)
        return x._make(np.asarray(count, dtype=x.dtype))
    if dims is None and keepdim:
        return C.norm(x, ord, tuple(range(x.ndim)), True)
    return C.norm(x, ord, dims, keepdim)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """The ord-norm of the matrices in the plane `dim` (two axes) of A."""
    A = _floating("matrix_norm", A, dtype)
    if A.ndim < 2:
        raise RuntimeError(
            f"linalg.matrix_norm: the input must have at least 2 dimensions, got {A.shape}"
        )
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must name two axes, got {dim}")
    d0, d1 = (C.normalize_dims("linalg.matrix_norm", d, A.ndim)[0] for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different, got {dim}")
    if ord in ("fro", "nuc", 2, -2):
        if ord == "fro":
            result = C.norm(A, 2, (d0, d1), True)
        else:
            values = SingularValues.apply(movedim(A, (d0, d1), (-2, -1)))  # (..., k)
            if ord == "nuc":
                values = values.sum(-1)
            else:
                values = _largest(values, -1, False) if ord == 2 else values.amin(-1)
            result = values.reshape(_kept(A.shape, d0, d1))
    elif ord in (1, -1, INF, -INF):
        summed, reduced = (d0, d1) if ord in (1, -1) else (d1, d0)  # columns or rows
        sums = A.abs().sum(summed, keepdim=True)
        result = _largest(sums, reduced, True) if ord > 0 else sums.amin(reduced, keepdim=True)
    else:
        raise RuntimeError(
            f"linalg.matrix_norm: order {ord!r} is not supported; use 'fro', 'nuc', "
            "inf, -inf, 1, -1, 2 or -2"
        )
    return result if keepdim else result.squeeze((d0, d1))


def _largest(values, dim: int, keepdim: bool):
    """The largest of non-negative values along dim; a constant 0 when there are none, as
    PyTorch (whose result then does not require grad)."""
    if values.shape[dim] == 0:
        shape = list(values.shape)
        shape[dim : (dim + 1) or None] = [1] if keepdim else []
        return values._make(np.zeros(shape, values.dtype))
    return values.amax(dim, keepdim=keepdim)


def _kept(shape: tuple, d0: int, d1: int) -> tuple:
    return tuple(1 if i in (d0, d1) else n for i, n in enumerate(shape))


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """A vector norm (dim an int, or A 1-D) or a matrix norm (dim two axes, or A 2-D with an
    ord); with neither ord nor dim, the 2-norm of all elements."""
    A = _floating("norm", A, dtype)
    if dim is not None:
        dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
        if len(dims) == 1:
            return vector_norm(A, 2 if ord is None else ord, dims, keepdim)
        if len(dims) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim)
        raise RuntimeError(f"linalg.norm: dim must have length 1 or 2, got {dim}")
    if ord is None:
        return vector_norm(A, 2, None, keepdim)
    if A.ndim == 1 and not isinstance(ord, str):
        return vector_norm(A, ord, None, keepdim)
    if A.ndim == 2 or isinstance(ord, str):
        return matrix_norm(A, ord, (-2, -1), keepdim)
    raise RuntimeError(
        f"linalg.norm: with ord and no dim the input must be 1-D or 2-D, got {A.shape}; give dim"
    )


def det(A, *, out=None):  # noqa: N803 - PyTorch's name for the matrix
    """The determinant of a square matrix, or of each matrix of a batch (..., n, n)."""
    return Det.apply(as_tensor(A))
