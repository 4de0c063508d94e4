"""Products of vectors and matrices with PyTorch's names: mm, bmm, mv, dot, inner, outer, kron,
tensordot and the fused-looking `addmm` / `baddbmm` / `addmv` (beta * input + alpha * product).

Each checks the shapes PyTorch requires (so a learner's mistake is named) and then calls
MatMul, Einsum or broadcasting Mul; their gradients come from those.
"""

from __future__ import annotations

import numpy as np

from ..broadcast import broadcast_shape
from .composite import as_tensor, matmul
from .einsum import LETTERS, einsum

_KINDS = {1: "a vector", 2: "a matrix", 3: "a batch of matrices"}


def _require(op: str, name: str, x, ndim: int) -> None:
    if x.ndim != ndim:
        raise RuntimeError(f"{op}: {name} must be {_KINDS[ndim]} ({ndim}-D), got shape {x.shape}")


def _same_dtype(op: str, a, b) -> None:
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"{op}: expected both tensors to have the same dtype, got {a.dtype} and {b.dtype}; "
            "convert one with .to(...)"
        )


def _operands(op: str, input, other, names: tuple, ndims: tuple):  # noqa: A002
    """(input, other as a Tensor), after the checks PyTorch makes for mm, bmm and mv: each has
    its ndim (named `names` in the message), both have one dtype (no promotion), and they can
    be multiplied as they are: input's last size is other's inner size (its rows, or its
    length for a vector) and, for bmm, the batch sizes are equal (no broadcasting)."""
    a, b = input, as_tensor(other, input)
    _require(op, names[0], a, ndims[0])
    _require(op, names[1], b, ndims[1])
    _same_dtype(op, a, b)
    inner_axis = 0 if b.ndim == 1 else b.ndim - 2  # (k,), (k, m) or (B, k, m): k
    if a.shape[-1] != b.shape[inner_axis] or a.shape[:-2] != b.shape[:-2]:
        batch = " and the same batch size (dim 0)" if a.ndim == 3 else ""
        raise RuntimeError(
            f"{op}: {names[0]} {a.shape} and {names[1]} {b.shape} cannot be multiplied: they need "
            f"the same inner size (dim {a.ndim - 1} of {names[0]}, dim {inner_axis} of "
            f"{names[1]}){batch}"
        )
    return a, b


def mm(input, mat2):  # noqa: A002 - PyTorch's names
    """(n, k) @ (k, m) -> (n, m), matrices only (matmul also takes vectors and batches)."""
    return matmul(*_operands("mm", input, mat2, ("self", "mat2"), (2, 2)))


def bmm(input, mat2):  # noqa: A002
    """(B, n, k) @ (B, k, m) -> (B, n, m): one matrix product per batch element, no broadcasting."""
    return matmul(*_operands("bmm", input, mat2, ("batch1", "batch2"), (3, 3)))


def mv(input, vec):  # noqa: A002
    """(n, m) @ (m,) -> (n,)."""
    return matmul(*_operands("mv", input, vec, ("mat", "vec"), (2, 1)))


def dot(input, tensor):  # noqa: A002
    """sum_i a_i b_i of two vectors of one length, a 0-d tensor."""
    a, b = input, as_tensor(tensor, input)
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"dot: 1D tensors expected, but got shapes {a.shape} and {b.shape}")
    _same_dtype("dot", a, b)
    if a.shape != b.shape:
        raise RuntimeError(
            f"dot: the vectors must have the same length, got {a.shape} and {b.shape}"
        )
    return matmul(a, b)


vdot = dot  # the same for real numbers


def inner(input, other):  # noqa: A002
    """The sum of products over the last axis of both: (..., k) and (..., k) -> (a..., b...)."""
    a, b = input, as_tensor(other, input)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"inner: the last sizes must match, got {a.shape} and {b.shape}")
    return tensordot(a, b, ([-1], [-1]))


def outer(input, vec2):  # noqa: A002
    """out[i, j] = a[i] * b[j]: (n,) and (m,) -> (n, m)."""
    a, b = input, as_tensor(vec2, input)
    _require("outer", "self", a, 1)
    _require("outer", "vec2", b, 1)
    return a.reshape(-1, 1) * b  # (n, 1) * (m,) -> (n, m)


ger = outer


def kron(input, other):  # noqa: A002
    """The Kronecker product: every element a[i] times the whole of b, tiled in a's layout;
    shapes multiply ((2, 3) and (4, 5) -> (8, 15)). Computed as a broadcast product of
    a reshaped to (a0, 1, a1, 1, ...) and b to (1, b0, 1, b1, ...), then merged."""
    a, b = input, as_tensor(other, input)
    ndim = max(a.ndim, b.ndim)
    sa, sb = (1,) * (ndim - a.ndim) + a.shape, (1,) * (ndim - b.ndim) + b.shape
    wide = a.reshape(tuple(v for n in sa for v in (n, 1))) * b.reshape(
        tuple(v for n in sb for v in (1, n))
    )  # (a0, b0, a1, b1, ...)
    return wide.reshape(tuple(m * n for m, n in zip(sa, sb)))


def tensordot(a, b, dims=2):
    """Sum of products over `dims` axes: the last `dims` of a with the first `dims` of b (an
    int), or the axes listed in `dims = (axes_a, axes_b)`. The other axes of a, then of b,
    make the result."""
    b = as_tensor(b, a)
    if isinstance(dims, (int, np.integer)):
        if dims < 0 or dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot: dims {dims} is out of range for {a.shape}, {b.shape}")
        axes_a, axes_b = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        axes_a, axes_b = ([d] if isinstance(d, (int, np.integer)) else list(d) for d in dims)
    if len(axes_a) != len(axes_b):
        raise RuntimeError(f"tensordot: both sides need the same number of dims, got {dims}")
    axes_a = [d % max(a.ndim, 1) for d in axes_a]
    axes_b = [d % max(b.ndim, 1) for d in axes_b]
    labels_a = list(LETTERS[: a.ndim])
    labels_b = list(LETTERS[a.ndim : a.ndim + b.ndim])
    for da, db in zip(axes_a, axes_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(
                f"tensordot: contracted dimensions need the same size, got {a.shape[da]} "
                f"(dim {da} of {a.shape}) and {b.shape[db]} (dim {db} of {b.shape})"
            )
        labels_b[db] = labels_a[da]
    kept = [c for i, c in enumerate(labels_a) if i not in axes_a]
    kept += [c for i, c in enumerate(labels_b) if i not in axes_b]
    equation = "".join(labels_a) + "," + "".join(labels_b) + "->" + "".join(kept)
    return einsum(equation, a, b)


def _scaled_sum(op: str, input, product, beta, alpha):  # noqa: A002
    """beta * input + alpha * product; with beta == 0 input is ignored (its NaNs too)."""
    if alpha != 1:
        product = product * alpha
    if beta == 0:  # only input's shape matters: product broadcast to it
        shape = broadcast_shape(op, product.shape, as_tensor(input, product).shape)
        return product.expand(shape)
    x = as_tensor(input, product)
    return product + (x if beta == 1 else x * beta)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002
    """beta * input + alpha * (mat1 @ mat2), input broadcast to (n, m)."""
    return _scaled_sum("addmm", input, mm(mat1, mat2), beta, alpha)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    """beta * input + alpha * bmm(batch1, batch2), input broadcast to (B, n, m)."""
    return _scaled_sum("baddbmm", input, bmm(batch1, batch2), beta, alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):  # noqa: A002
    """beta * input + alpha * (mat @ vec)."""
    return _scaled_sum("addmv", input, mv(mat, vec), beta, alpha)
