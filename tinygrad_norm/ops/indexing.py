"""Gather and index ops, composed from three index primitives: GetItem, ScatterAdd, IndexPut.

Reading: `gather`, `take_along_dim`, `take`, `index_select` and `masked_select` build one NumPy
index and read with GetItem, whose gradient is a ScatterAdd: an element read twice gets both
gradients added. Writing: `index_add` and `index_put(accumulate=True)` add with ScatterAdd
(gradient: read back with GetItem); `index_put` and `masked_scatter` overwrite with IndexPut
(the primitive behind `x[idx] = v`), so the old tensor's gradient is zero exactly where it
was overwritten. The scatter family (scatter, scatter_add, scatter_reduce) is in
`scatter.py`, built on the helpers here.

Index arguments are integer tensors (or lists / arrays); they are never differentiated. The
input is a Tensor (the public `tg.X` functions convert NumPy arrays before calling in here).
"""

from __future__ import annotations

import numpy as np

from ..autograd.node import GraphTensor
from ..broadcast import broadcast_shape
from .composite import as_tensor, normalize_dims
from .movement import GetItem, IndexPut, ScatterAdd


def constant(array, like) -> GraphTensor:
    """A NumPy array (or number) as a Tensor that is not part of any graph."""
    return like._make(np.asarray(array))


def index_array(op: str, index) -> np.ndarray:
    """`index` (a Tensor, list or array of integers) as an int64 array; floats are refused."""
    array = np.asarray(index.array if isinstance(index, GraphTensor) else index)
    if array.dtype.kind not in "iu" and not (array.size == 0 and array.dtype.kind == "f"):
        raise RuntimeError(
            f"{op}: the index must hold integers (int64), got {array.dtype}; convert it "
            "with .long(), or build it with tg.arange / tg.tensor([...]) of ints"
        )
    return array.astype(np.int64)


def one_dim(op: str, dim, ndim: int) -> int:
    """`dim` as an axis >= 0 (a 0-d tensor takes dim 0 or -1 and counts as one axis)."""
    dims = normalize_dims(op, dim, ndim)
    return dims[0] if dims else 0


def check_range(op: str, index: np.ndarray, size: int, dim: int, negative=False) -> np.ndarray:
    """RuntimeError (as PyTorch) for an index outside [0, size); with `negative`, -size too."""
    low = -size if negative else 0
    bad = index[(index < low) | (index >= size)]
    if bad.size:
        allowed = f"{low} to {size - 1}" if size else "none (the dimension is empty)"
        raise RuntimeError(
            f"{op}: index {bad.flat[0]} is out of bounds for dimension {dim} with size {size}; "
            f"the indices allowed there are {allowed}"
        )
    return index % size if negative and size else index


def grid(shape: tuple, dim: int, index: np.ndarray) -> tuple:
    """The NumPy index that pairs every position of `index` with its place in another tensor:
    `index` itself along `dim`, the position's own coordinate along every other axis."""
    grid = list(np.indices(shape, sparse=True)) if shape else []
    grid[dim] = index
    return tuple(grid)


def as_1d(x, index: np.ndarray):
    """A 0-d tensor and index act as one-element vectors (PyTorch's rule for gather/scatter)."""
    return x.reshape(1) if x.ndim == 0 else x, index.reshape(1) if index.ndim == 0 else index


def check_index_shape(op: str, x, index: np.ndarray, dim: int, src=None) -> None:
    if index.ndim != x.ndim:
        raise RuntimeError(
            f"{op}: the index must have as many dimensions as the input: index {index.shape}, "
            f"input {x.shape}; unsqueeze the index (e.g. index.unsqueeze(-1))"
        )
    for d, n in enumerate(index.shape):
        if (d != dim and n > x.shape[d]) or (src is not None and n > src.shape[d]):
            other = f", src {src.shape}" if src is not None else ""
            raise RuntimeError(
                f"{op}: index of shape {index.shape} is larger than input {x.shape}{other} "
                f"at dimension {d}; the index may not be larger except along dim {dim} "
                "(and never larger than src)"
            )


# --- reading ------------------------------------------------------------------------------------
def gather(input, dim, index, *, sparse_grad=False):  # noqa: A002 - PyTorch's names
    """out[i][j][k] = input[index[i][j][k]][j][k] along `dim` (here dim 0); out has index's shape.

    The gradient is a scatter-add of grad_out into zeros like input at the same places, so
    an element gathered twice receives the sum of both gradients.

    >>> import tinygrad_norm as tg
    >>> tg.tensor([[1, 2], [3, 4]]).gather(1, tg.tensor([[0, 0], [1, 0]])).tolist()
    [[1, 1], [4, 3]]
    """
    x = input
    index = index_array("gather", index)
    d = one_dim("gather", dim, x.ndim)
    shape = index.shape
    x1, index = as_1d(x, index)
    check_index_shape("gather", x1, index, d)
    index = check_range("gather", index, x1.shape[d], d)
    return GetItem.apply(x1, index=grid(index.shape, d, index)).reshape(shape)


def take_along_dim(input, indices, dim=None):  # noqa: A002
    """Gather along `dim` after broadcasting input and indices over the other axes; with
    `dim=None`, of the flattened input. Negative indices count from the end."""
    x = input
    index = index_array("take_along_dim", indices)
    if dim is None:
        x, index = x.reshape(-1), index.reshape(-1)
        dim = 0
    d = one_dim("take_along_dim", dim, x.ndim)
    if index.ndim != x.ndim:
        raise RuntimeError(
            f"take_along_dim: input {x.shape} and indices {index.shape} must have the same "
            "number of dimensions"
        )
    other = broadcast_shape(
        "take_along_dim",
        x.shape[:d] + (1,) + x.shape[d + 1 :],
        index.shape[:d] + (1,) + index.shape[d + 1 :],
    )
    x = x.expand(other[:d] + (x.shape[d],) + other[d + 1 :])
    index = np.broadcast_to(index, other[:d] + (index.shape[d],) + other[d + 1 :])
    index = check_range("take_along_dim", index, x.shape[d], d, negative=True)
    return gather(x, d, index)


def take(input, index):  # noqa: A002
    """input.flatten()[index], shaped like index; negative indices count from the end."""
    x = input
    index = index_array("take", index)
    bad = index[(index < -x.numel()) | (index >= x.numel())]
    if bad.size:
        raise IndexError(
            f"take: index {bad.flat[0]} is out of range for a tensor of {x.numel()} elements "
            f"(shape {x.shape}); take indexes the flattened tensor"
        )
    return GetItem.apply(x.reshape(-1), index=(index,))


def index_select(input, dim, index):  # noqa: A002
    """The slices of `input` at positions `index` (a vector) along `dim`.

    NOTE: an index out of range raises IndexError, as PyTorch does along dim 0 (along other
    dims PyTorch 2.13 raises RuntimeError; one class for one mistake here)."""
    x = input
    index = index_array("index_select", index)
    if index.ndim > 1:
        raise IndexError(
            f"index_select: the index must be a vector (1-D), got shape {index.shape}; "
            "flatten it, or use gather / take for other shapes"
        )
    d = one_dim("index_select", dim, x.ndim)
    size = x.shape[d] if x.ndim else 1
    bad = index[(index < 0) | (index >= size)]
    if bad.size:
        raise IndexError(
            f"index_select: index {bad.flat[0]} is out of range for dimension {d} with size "
            f"{size}; the indices allowed there are 0 to {size - 1}"
        )
    if x.ndim == 0:
        if index.size != 1:
            raise RuntimeError(
                f"index_select: a 0-d tensor takes an index of one value, got {index.size}"
            )
        return x
    return GetItem.apply(x, index=(slice(None),) * d + (index.reshape(-1),))


def masked_select(input, mask):  # noqa: A002
    """The elements of `input` where `mask` (bool, broadcast with input) is True, as a 1-D tensor
    in row-major order."""
    x = input
    mask = _bool_mask("masked_select", mask)
    shape = broadcast_shape("masked_select", x.shape, mask.shape, names=("input", "mask"))
    return GetItem.apply(x.expand(shape), index=(np.broadcast_to(mask, shape),))


def nonzero(input, *, as_tuple=False):  # noqa: A002
    """The indices of the non-zero elements: an int64 tensor (n, ndim), one row per element in
    row-major order; `as_tuple=True` gives one index vector per dimension instead."""
    data = input.array
    if as_tuple:
        return tuple(constant(i.astype(np.int64), input) for i in np.nonzero(np.atleast_1d(data)))
    return constant(np.argwhere(data).astype(np.int64), input)


def argwhere(input):  # noqa: A002
    """The same as nonzero(input): (n, ndim) int64."""
    return nonzero(input)


def _bool_mask(op: str, mask) -> np.ndarray:
    mask = np.asarray(mask.array if isinstance(mask, GraphTensor) else mask)
    if mask.dtype != np.bool_:
        raise RuntimeError(
            f"{op}: expected a bool mask, got {mask.dtype}; build it with a comparison "
            "(x > 0) or convert it with .bool()"
        )
    return mask


# --- writing ------------------------------------------------------------------------------------
def index_add(input, dim, index, source, *, alpha=1):  # noqa: A002
    """input with alpha * source[..., i, ...] added to the slice index[i] along `dim`;
    repeated indices add up. grad_input = grad_out, grad_source = alpha * grad_out[index]."""
    x = input
    source = as_tensor(source, x)
    index = index_array("index_add", index).reshape(-1)
    d = one_dim("index_add", dim, x.ndim)
    x1 = x.reshape(1) if x.ndim == 0 else x
    expected = x1.shape[:d] + (len(index),) + x1.shape[d + 1 :]
    if source.numel() != int(np.prod(expected)) or source.ndim > x1.ndim:
        raise RuntimeError(
            f"index_add: source must have shape {expected} (input {x.shape} with {len(index)} "
            f"slices along dim {d}), got {source.shape}"
        )
    index = check_range("index_add", index, x1.shape[d], d)
    if alpha != 1:
        source = source * alpha
    added = ScatterAdd.apply(
        source.reshape(expected), index=(slice(None),) * d + (index,), shape=x1.shape
    )
    return (x1 + added).reshape(x.shape)


def masked_scatter(input, mask, source):  # noqa: A002
    """input with its elements where `mask` is True replaced, in row-major order, by the first
    elements of `source`. grad_source is grad_out at the mask (then zeros), grad_input is
    grad_out where the mask is False."""
    x = input
    source = as_tensor(source, x)
    mask = _bool_mask("masked_scatter", mask)
    shape = broadcast_shape("masked_scatter", x.shape, mask.shape, names=("input", "mask"))
    if shape != x.shape:
        raise RuntimeError(f"masked_scatter: mask {mask.shape} must broadcast to input {x.shape}")
    mask = np.broadcast_to(mask, shape)
    count = int(mask.sum())
    if source.numel() < count:
        raise RuntimeError(
            f"masked_scatter: the mask selects {count} elements but source has only "
            f"{source.numel()}; source needs at least one element per True"
        )
    return IndexPut.apply(x, source.reshape(-1)[:count], ints=(), rest=(mask,))


def index_put(input, indices, values, accumulate=False):  # noqa: A002
    """input with input[indices] = values (or += values with accumulate, where repeated
    indices add up). `indices` is a tuple of index tensors, one per leading dimension."""
    x = input
    values = as_tensor(values, x)
    index = tuple(np.asarray(i.array if isinstance(i, GraphTensor) else i) for i in tuple(indices))
    index = tuple(i if i.dtype == np.bool_ else index_array("index_put", i) for i in index)
    try:
        selected = np.empty(x.shape, bool)[index].shape
    except IndexError as error:
        raise IndexError(f"index_put: {error} (input of shape {x.shape})") from None
    broadcast_shape("index_put", values.shape, selected, names=("values", "input[indices]"))
    if accumulate:
        return x + ScatterAdd.apply(values.expand(selected), index=index, shape=x.shape)
    return IndexPut.apply(x, values, ints=(), rest=index)
