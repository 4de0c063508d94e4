"""Movement operations composed from the primitives: reshape/view, permute, transpose, expand,
squeeze, unsqueeze, flatten, repeat, cat, stack, split, chunk. Each checks its arguments the way
PyTorch does, then calls `Reshape`, `Permute`, `Expand`, `GetItem` or `Cat` (ops/movement.py),
whose backward undoes the move.
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from ..autograd.function import mark_one_of_many
from ..broadcast import ShapeError, broadcasts_to
from .composite import _require_int_dim, as_tensor, normalize_dims, promote
from .movement import Cat, Expand, Permute, Reshape


def reshape(x, *shape):
    """The same elements in a new shape; one size may be -1 to be inferred."""
    target = _resolve_shape("reshape", x.array.shape, _sizes(shape))
    return Reshape.apply(x, target)  # also for the same shape: a new view, as PyTorch's


def _resolve_shape(op: str, shape: tuple, sizes: tuple) -> tuple:
    """`sizes` with a -1 replaced by what makes the element count match `shape`'s."""
    # NOTE: math.prod and tuple methods on these short tuples of ints: no NumPy call, no
    # generator (reshape is everywhere)
    count = math.prod(shape)
    if sizes.count(-1) == 1:
        i = sizes.index(-1)
        known = math.prod(sizes[:i] + sizes[i + 1 :])
        if known and count % known == 0:
            sizes = sizes[:i] + (count // known,) + sizes[i + 1 :]
    if min(sizes, default=0) < 0 or math.prod(sizes) != count:  # (a -1 left: an error too)
        raise ShapeError(
            f"{op}: cannot view a tensor of shape {shape} ({count} elements) as "
            f"shape {sizes}; the number of elements must stay the same (one size "
            "may be -1 to infer it)"
        )
    return sizes


def _sizes(sizes, op="reshape") -> tuple:
    """Sizes given as varargs `(2, 3)` or as one tuple/list `((2, 3),)`."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    return integer_sizes(op, sizes)


def integer_sizes(op: str, sizes) -> tuple:
    """`sizes` as Python ints. A float such as 2.5 (or 6 / 2) is an error, never truncated."""
    out = []
    for s in sizes:
        if isinstance(s, (bool, np.bool_)):  # True is an int to Python, not a size to PyTorch
            raise TypeError(
                f"{op}: expected integer sizes, got the bool {s!r} in {tuple(sizes)}; give a "
                "size such as 2 (for a tensor holding True, use tg.tensor(True))"
            )
        try:
            out.append(operator.index(s))
        except TypeError:
            raise TypeError(
                f"{op}: expected integers, got {s!r} in {tuple(sizes)}; use integer "
                "division (n // 2) or int(...)"
            ) from None
    return tuple(out)


def permute(x, *dims):
    dims = _sizes(dims, "permute")
    if sorted(d % builtins.max(x.ndim, 1) for d in dims) != list(range(x.ndim)):
        raise ShapeError(
            f"permute: dims {dims} must name each of the {x.ndim} axes of shape "
            f"{x.shape} exactly once"
        )
    return Permute.apply(x, tuple(d % x.ndim for d in dims))


def transpose(x, dim0, dim1):
    """Swap two axes."""
    if x.ndim == 0:  # dims 0 and -1 name a 0-d tensor's only "axis", as in PyTorch
        for d in (dim0, dim1):
            normalize_dims("transpose", d, 0)  # raises for any other dim
        return x
    d0, d1 = (
        normalize_dims("transpose", dim0, x.ndim)[0],
        normalize_dims("transpose", dim1, x.ndim)[0],
    )
    dims = list(range(x.ndim))
    dims[d0], dims[d1] = dims[d1], dims[d0]
    return Permute.apply(x, tuple(dims))


def expand(x, *sizes):
    """Broadcast to `sizes` without copying; -1 keeps a size; new axes go in front."""
    sizes = _sizes(sizes, "expand")
    lead = len(sizes) - x.ndim
    if lead < 0:
        raise ShapeError(f"expand: cannot expand shape {x.shape} to fewer dimensions {sizes}")
    shape = tuple(x.shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(sizes))
    if any(s < 0 for s in shape):  # -1 keeps a size, but a new axis in front has none to keep
        raise ShapeError(
            f"expand: cannot expand shape {x.shape} to {sizes}: -1 is only allowed for an "
            f"existing axis (the last {x.ndim}); give the size of each new leading axis"
        )
    if not broadcasts_to(x.shape, shape):
        raise ShapeError(
            f"expand: cannot expand shape {x.shape} to {sizes}: a size can only grow where it is 1"
        )
    return Expand.apply(x, shape)  # also for the same shape: a new view, as PyTorch's


def squeeze(x, dim=None):
    """Drop axes of size 1 (all of them, or only those in `dim` that have size 1)."""
    dims = normalize_dims("squeeze", dim, x.ndim)
    drop = [i for i, n in enumerate(x.shape) if n == 1 and (dims is None or i in dims)]
    return x.reshape(tuple(n for i, n in enumerate(x.shape) if i not in drop))


def unsqueeze(x, dim):
    """Insert an axis of size 1 at `dim` (negative counts from the end of the result)."""
    _require_int_dim("unsqueeze", dim)
    if not -x.ndim - 1 <= dim <= x.ndim:
        raise IndexError(
            f"unsqueeze: dim {dim} is out of range for a tensor with {x.ndim} "
            f"dimensions; use a dim from {-x.ndim - 1} to {x.ndim}"
        )
    dim = dim % (x.ndim + 1)
    return x.reshape(x.shape[:dim] + (1,) + x.shape[dim:])


def flatten(x, start_dim=0, end_dim=-1):
    if x.ndim == 0:
        for d in (start_dim, end_dim):
            normalize_dims("flatten", d, 0)  # 0 and -1 only, as in PyTorch
        return x.reshape(1)
    start, end = (normalize_dims("flatten", d, x.ndim)[0] for d in (start_dim, end_dim))
    if start > end:  # PyTorch's RuntimeError (the shape would silently grow a dimension)
        raise RuntimeError(
            f"flatten: start_dim ({start_dim}) comes after end_dim ({end_dim}) for a tensor of "
            f"shape {x.shape}; give start_dim <= end_dim"
        )
    if start == end:  # nothing to merge: the tensor itself, as PyTorch's
        return x
    # the size, not -1: an empty tensor's -1 would be ambiguous ((0, 3, 4) -> (0, 12))
    merged = math.prod(x.shape[start : end + 1])
    return x.reshape(x.shape[:start] + (merged,) + x.shape[end + 1 :])


def repeat(x, *sizes):
    """Tile the tensor `sizes[i]` times along axis i (like np.tile): expand, then reshape."""
    sizes = _sizes(sizes, "repeat")
    if len(sizes) < x.ndim:
        raise ShapeError(f"repeat: give at least one count per dimension ({x.ndim}), got {sizes}")
    if any(r < 0 for r in sizes):
        raise ShapeError(f"repeat: counts must be >= 0, got {sizes}")
    shape = (1,) * (len(sizes) - x.ndim) + x.shape
    interleaved = tuple(v for n in shape for v in (1, n))  # (1, n0, 1, n1, ...)
    expanded = tuple(v for r, n in zip(sizes, shape) for v in (r, n))  # (r0, n0, r1, n1, ...)
    out = x.reshape(interleaved).expand(expanded)
    out = out.reshape(tuple(r * n for r, n in zip(sizes, shape)))
    # always a copy of its own, as PyTorch's: a reshape may still be a view (repeat(1, 1))
    return out.clone() if np.may_share_memory(out.array, x.array) else out


def cat(tensors, dim=0):
    """Join tensors along an existing axis; all other sizes must match."""
    if not tensors:  # PyTorch's ValueError (stack and the *stack functions: RuntimeError)
        raise ValueError("cat: expected a non-empty list of tensors, got an empty one")
    tensors = [as_tensor(t, tensors[0]) for t in tensors]
    if any(t.array.dtype != tensors[0].array.dtype for t in tensors):
        tensors = promote(*tensors)  # int64 with float32 is float32, as PyTorch
    _require_axis("cat", tensors[0], "use stack to join 0-d tensors into a vector")
    (axis,) = normalize_dims("cat", dim, tensors[0].ndim)
    first = tensors[0].shape
    rest = first[:axis] + first[axis + 1 :]
    for i, t in enumerate(tensors):
        if t.ndim != len(first) or t.shape[:axis] + t.shape[axis + 1 :] != rest:
            raise ShapeError(
                f"cat: tensor {i} has shape {t.shape} but tensor 0 has shape {first}; "
                f"all sizes except along dim {dim} must match"
            )
    return Cat.apply(*tensors, dim=axis)


def stack(tensors, dim=0):
    """Join tensors of one shape along a new axis `dim`."""
    if not tensors:
        raise ShapeError("stack: expected a non-empty list of tensors")
    tensors = [as_tensor(t, tensors[0]) for t in tensors]
    shapes = {t.array.shape for t in tensors}
    if len(shapes) != 1:
        raise ShapeError(f"stack: all tensors must have the same shape, got {sorted(shapes)}")
    return cat([t.unsqueeze(dim) for t in tensors], dim)


def split(x, split_size_or_sections, dim=0):
    """Cut along `dim` into pieces of one size (the last may be smaller) or of given sizes."""
    _require_axis("split", x, "a 0-d tensor has nothing to cut")
    (axis,) = normalize_dims("split", dim, x.ndim)
    length = x.shape[axis]
    if isinstance(split_size_or_sections, (int, np.integer)):
        size = int(split_size_or_sections)
        if size <= 0:
            raise ShapeError(f"split: the split size must be positive, got {size}")
        sizes = [builtins.min(size, length - start) for start in range(0, length, size)] or [0]
    elif not isinstance(split_size_or_sections, (tuple, list)):
        raise TypeError(
            f"split: give a split size (int) or a list of sizes, got {split_size_or_sections!r}"
        )
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if builtins.sum(sizes) != length:
            raise ShapeError(
                f"split: sizes {sizes} add up to {builtins.sum(sizes)}, but dim "
                f"{dim} of shape {x.shape} has size {length}"
            )
    pieces, start = [], 0
    for size in sizes:
        pieces.append(x[(slice(None),) * axis + (slice(start, start + size),)])
        start += size
    return mark_one_of_many(tuple(pieces), "split")


def tensor_split(x, indices_or_sections, dim=0):
    """n pieces of sizes differing by at most one (the longer first), or the pieces between
    the given indices along `dim`."""
    _require_axis("tensor_split", x, "a 0-d tensor has nothing to cut")
    (axis,) = normalize_dims("tensor_split", dim, x.ndim)
    length = x.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        n = int(indices_or_sections)
        if n <= 0:
            raise RuntimeError(f"tensor_split: number of sections must be positive, got {n}")
        sizes = [length // n + (k < length % n) for k in range(n)]
        edges = [builtins.sum(sizes[:k]) for k in range(n + 1)]
    else:
        bounds = [builtins.min(builtins.max(int(i), 0), length) for i in indices_or_sections]
        edges = [0, *bounds, length]
    # plain slices, not marked as one of many views: PyTorch lets each be changed in place
    cuts = [slice(a, builtins.max(a, b)) for a, b in zip(edges, edges[1:])]
    return tuple(x[(slice(None),) * axis + (c,)] for c in cuts)


def chunk(x, chunks, dim=0):
    """Split into `chunks` pieces of equal size (the last may be smaller)."""
    _require_axis("chunk", x, "a 0-d tensor has nothing to cut")
    (axis,) = normalize_dims("chunk", dim, x.ndim)
    if not isinstance(chunks, (int, np.integer)) or chunks <= 0:
        raise ShapeError(f"chunk: chunks must be a positive integer, got {chunks!r}")
    if x.shape[axis] == 0:  # `chunks` empty pieces, as in PyTorch
        return split(x, [0] * chunks, dim)
    return split(x, -(-x.shape[axis] // chunks), dim)


def _require_axis(op: str, x, hint: str) -> None:
    if x.ndim == 0:
        raise ShapeError(f"{op}: needs a tensor with at least 1 dimension, got a 0-d one; {hint}")
