"""Rearranging elements: flip, roll, rot90, repeat_interleave, unfold, unflatten, narrow, movedim,
diag, diagonal, diag_embed, meshgrid, broadcast_to, view_as. Composed from the movement
primitives; autograd derives every gradient (`shape.py` holds reshape, permute, cat, ...).

`roll` is the Roll primitive (np.roll forward, rolled back in backward). `flip` (then copied,
as PyTorch's) and `repeat_interleave` read elements with one GetItem (basic slices or an index
array), so their gradient sends each element's gradient back to where
it was read (and adds up where one element was read twice); `unfold` and `diagonal` are views
(the Unfold and Diagonal primitives), as PyTorch's. `diag_embed` writes with ScatterAdd
into zeros. `movedim`, `rot90` and `unflatten` are Permute and Reshape.
"""

from __future__ import annotations

import math

import numpy as np

from ..broadcast import broadcast_shape
from .indexing import constant, index_array, one_dim
from .movement import Clone, Diagonal, GetItem, Roll, ScatterAdd, Unfold
from .shape import integer_sizes


def _dims(op: str, dims, ndim: int) -> tuple[int, ...]:
    """`dims` (an int or a sequence, negative allowed) as axes >= 0 in the order given."""
    dims = (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims)
    out = tuple(one_dim(op, d, ndim) for d in dims)
    if len(set(out)) != len(out):
        raise RuntimeError(f"{op}: dim {dims} names the same axis twice")
    return out


def flip(input, dims):  # noqa: A002 - PyTorch's names
    """Reverse the order of the elements along each axis in `dims`."""
    x = input
    axes = _dims("flip", dims, x.ndim)
    if x.ndim == 0:
        return Clone.apply(x)
    reversed_view = GetItem.apply(
        x, index=tuple(slice(None, None, -1 if d in axes else 1) for d in range(x.ndim))
    )
    return Clone.apply(reversed_view)  # a copy, as PyTorch's (which has no negative strides)


def fliplr(input):  # noqa: A002
    """Flip the columns (dim 1) of a tensor with at least 2 dimensions."""
    x = input
    _require_ndim("fliplr", x, 2)
    return flip(x, 1)


def flipud(input):  # noqa: A002
    """Flip the rows (dim 0) of a tensor with at least 1 dimension."""
    x = input
    _require_ndim("flipud", x, 1)
    return flip(x, 0)


def _require_ndim(op: str, x, ndim: int) -> None:
    if x.ndim < ndim:
        raise RuntimeError(f"{op}: needs a tensor with at least {ndim} dimensions, got {x.shape}")


def roll(input, shifts, dims=None):  # noqa: A002
    """Shift the elements along `dims` by `shifts` places, wrapping around the end; without
    dims, of the flattened tensor (then reshaped back). out[(i + shift) % n] = x[i]."""
    x = input
    shifts = (shifts,) if isinstance(shifts, (int, np.integer)) else tuple(shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"roll: without dims give one shift, got shifts={shifts}")
        return roll(x.reshape(-1), shifts, 0).reshape(x.shape)
    axes = (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims)
    if len(shifts) != len(axes):
        raise RuntimeError(
            f"roll: shifts and dims must have the same length, got shifts={shifts}, dims={axes}"
        )
    if x.ndim == 0:
        raise IndexError(f"roll: dims {axes} name a dimension, but the tensor is 0-d (no dims)")
    axes = tuple(one_dim("roll", d, x.ndim) for d in axes)
    shifts = tuple(int(s) for s in shifts)
    return Roll.apply(x, shifts=shifts, axes=axes)


def rot90(input, k=1, dims=(0, 1)):  # noqa: A002
    """Rotate by 90 degrees k times in the plane of `dims`, from the first axis towards the
    second: a flip and a transpose."""
    x = input
    if len(dims) != 2:
        raise RuntimeError(f"rot90: dims must name two axes, got {dims}")
    _require_ndim("rot90", x, 2)
    d0, d1 = _dims("rot90", dims, x.ndim)
    k %= 4
    if k == 1:
        return flip(x, d1).transpose(d0, d1)
    if k == 2:
        return flip(x, (d0, d1))
    if k == 3:
        return flip(x, d0).transpose(d0, d1)
    return Clone.apply(x)  # a copy, as PyTorch's


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):  # noqa: A002
    """Repeat each element (or each slice along `dim`) `repeats` times in place:
    [a, b] -> [a, a, b, b]. `repeats` is an int or one count per element; without dim the
    tensor is flattened first. `repeat_interleave(counts)` alone repeats the indices 0, 1, ...
    """
    if repeats is None:  # torch.repeat_interleave(repeats): the indices, each counts[i] times
        counts = index_array("repeat_interleave", input)
        return repeat_interleave(constant(np.arange(len(counts)), input), counts)
    x = input
    if dim is None:
        x, dim = x.reshape(-1), 0
    elif x.ndim == 0:
        raise IndexError(f"repeat_interleave: dim {dim} is out of range for a 0-d tensor")
    d = one_dim("repeat_interleave", dim, x.ndim)
    counts = index_array("repeat_interleave", repeats).reshape(-1)
    if (counts < 0).any():
        raise RuntimeError(f"repeat_interleave: repeats must be non-negative, got {counts}")
    if counts.size not in (1, x.shape[d]):
        raise RuntimeError(
            f"repeat_interleave: give one repeat count, or one per slice along dim {d} "
            f"({x.shape[d]}), got {counts.size}"
        )
    index = np.repeat(np.arange(x.shape[d]), counts if counts.size > 1 else int(counts[0]))
    if output_size is not None and output_size != len(index):
        raise RuntimeError(f"repeat_interleave: output_size {output_size} != {len(index)}")
    return GetItem.apply(x, index=(slice(None),) * d + (index,))


def unfold(input, dimension, size, step):  # noqa: A002
    """All windows of `size` elements along `dimension`, `step` apart (Tensor.unfold):
    that dimension becomes the number of windows, (n - size) // step + 1, and a new last
    dimension of `size` holds each window. Overlapping windows read an element more than
    once, so its gradient adds up."""
    x = input
    d = one_dim("unfold", dimension, x.ndim)
    x1 = x.reshape(1) if x.ndim == 0 else x
    n = x1.shape[d]
    if size > n or size < 0:
        raise RuntimeError(f"unfold: size {size} is larger than dimension {d} of size {n}")
    if step <= 0:
        raise RuntimeError(f"unfold: step must be positive, got {step}")
    out = Unfold.apply(x1, dim=d, size=int(size), step=int(step))  # a view, as PyTorch's
    return out.reshape((size,)) if x.ndim == 0 else out


def unflatten(input, dim, sizes):  # noqa: A002
    """Split dimension `dim` into `sizes` (one may be -1): the inverse of flatten."""
    x = input
    d = one_dim("unflatten", dim, x.ndim)
    sizes = integer_sizes("unflatten", sizes)
    known = math.prod(s for s in sizes if s != -1)
    if sizes.count(-1) == 1 and known:
        sizes = tuple(x.shape[d] // known if s == -1 else s for s in sizes)
    if math.prod(sizes) != x.shape[d] or not sizes:
        raise RuntimeError(
            f"unflatten: sizes {sizes} do not multiply up to the size of dim {d} "
            f"({x.shape[d]}) of the input {x.shape}"
        )
    return x.reshape(x.shape[:d] + tuple(sizes) + x.shape[d + 1 :])


def narrow(input, dim, start, length):  # noqa: A002
    """The slice start:start+length along `dim` (start may be negative)."""
    x = input
    d = one_dim("narrow", dim, x.ndim)
    n = x.shape[d] if x.ndim else 1
    start = int(start)
    if not -n <= start <= n:
        raise IndexError(f"narrow: start {start} is out of range for dim {d} of size {n}")
    start %= n if n else 1
    if length < 0 or start + length > n:
        raise RuntimeError(
            f"narrow: start ({start}) + length ({length}) exceeds dimension {d} of size {n}"
        )
    return x[(slice(None),) * d + (slice(start, start + length),)]


def movedim(input, source, destination):  # noqa: A002
    """Move the axes `source` to the positions `destination`; the others keep their order."""
    x = input
    source = _dims("movedim", source, x.ndim)
    destination = _dims("movedim", destination, x.ndim)
    if len(source) != len(destination):
        raise RuntimeError(
            f"movedim: source {source} and destination {destination} must have the same length"
        )
    if x.ndim == 0:
        return x
    order = [d for d in range(x.ndim) if d not in source]
    for dst, src in sorted(zip(destination, source)):
        order.insert(dst, src)
    return x.permute(order)


def diagonal(input, offset=0, dim1=0, dim2=1):  # noqa: A002
    """The diagonal of the matrices in the plane (dim1, dim2), x[i, i + offset], as a new last
    dimension; the other dimensions stay in order."""
    x = input
    _require_ndim("diagonal", x, 2)
    d1, d2 = one_dim("diagonal", dim1, x.ndim), one_dim("diagonal", dim2, x.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal: dim1 and dim2 must differ, got {dim1} and {dim2}")
    return Diagonal.apply(x, offset=int(offset), dim1=d1, dim2=d2)  # a view, as PyTorch's


def trace(input):  # noqa: A002
    """The sum of the main diagonal of a matrix: sum_i x[i, i] (a 0-d tensor)."""
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix (2-D), got shape {input.shape}")
    if input.dtype.kind == "b":
        raise NotImplementedError(
            "trace: not implemented for bool tensors (as in PyTorch); convert first, "
            "e.g. x.long().trace()"
        )
    return diagonal(input).sum()  # int64 for any integer dtype, as PyTorch (see sum)


_diagonal = diagonal  # diag's argument is called `diagonal` too (PyTorch's name)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002
    """Put the last dimension of `input` on the diagonal (with `offset`) of new matrices in the
    plane (dim1, dim2) of the result, zeros elsewhere."""
    x = input
    _require_ndim("diag_embed", x, 1)
    n = x.shape[-1]
    size = n + abs(offset)
    i = np.arange(n)
    rows, cols = i - min(offset, 0), i + max(offset, 0)
    out = ScatterAdd.apply(x, index=(Ellipsis, rows, cols), shape=x.shape[:-1] + (size, size))
    d1, d2 = one_dim("diag_embed", dim1, x.ndim + 1), one_dim("diag_embed", dim2, x.ndim + 1)
    if d1 == d2:
        raise RuntimeError(f"diag_embed: dim1 and dim2 must differ, got {dim1} and {dim2}")
    return movedim(out, (-2, -1), (d1, d2))


def diag(input, diagonal=0):  # noqa: A002
    """A vector becomes a square matrix with it on the `diagonal`; a matrix gives its diagonal."""
    x = input
    if x.ndim == 1:
        return diag_embed(x, diagonal)
    if x.ndim == 2:
        return Clone.apply(_diagonal(x, diagonal))  # a copy, as PyTorch's diag (diagonal: a view)
    raise RuntimeError(f"diag: supports 1-D or 2-D tensors, got shape {x.shape}")


def meshgrid(*tensors, indexing=None):
    """Coordinate grids: from vectors of sizes n0, n1, ..., tensors of shape (n0, n1, ...)
    holding the first, second, ... coordinate. indexing="xy" swaps the first two axes
    (Cartesian, as NumPy's default); PyTorch's default, and ours, is "ij"."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    indexing = indexing or "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}")
    vectors = list(tensors)
    for v in vectors:
        if v.ndim > 1:
            raise RuntimeError(f"meshgrid: expected 0-D or 1-D tensors, got shape {v.shape}")
    vectors = [v.reshape(-1) for v in vectors]
    swap = indexing == "xy" and len(vectors) >= 2
    if swap:
        vectors[0], vectors[1] = vectors[1], vectors[0]
    shape = tuple(v.shape[0] for v in vectors)
    grids = []
    for i, v in enumerate(vectors):
        view = [1] * len(vectors)
        view[i] = shape[i]
        grids.append(v.reshape(view).expand(shape))
    if swap:  # back to the order of the arguments
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def broadcast_to(input, size):  # noqa: A002
    """`input` expanded to `size` (-1 keeps a size), as `expand` does."""
    return input.expand(tuple(size))


def broadcast_tensors(*tensors):
    """All tensors expanded to their common broadcast shape."""
    shape = broadcast_shape("broadcast_tensors", *(t.shape for t in tensors))
    return tuple(t.expand(shape) for t in tensors)


def view_as(input, other):  # noqa: A002
    """`input` reshaped to `other`'s shape."""
    return input.reshape(other.shape)


reshape_as = view_as
