"""Movement primitives: they move or copy elements without doing arithmetic on them.

Their gradients move the incoming gradient back the opposite way: reshape back, permute
back, send each sliced element's gradient to where it was taken from.
"""

import numpy as np

from ..autograd.function import Function
from ..autograd.node import GraphTensor
from .xp import add_at, operands, permute


class Reshape(Function):
    """out = a with a new shape (same elements, same order)."""

    formula = "grad_a = grad_out reshaped to a's shape"

    @staticmethod
    def forward(ctx, a, shape):
        return a.reshape(shape)

    @staticmethod
    def backward(ctx, grad_output):
        (g,) = operands(grad_output)
        return g.reshape(ctx.input_shape), None


class Permute(Function):
    """out = a with its axes reordered: out axis i is a's axis dims[i]."""

    formula = "grad_a = grad_out with the inverse permutation"

    @staticmethod
    def forward(ctx, a, dims):
        return a.transpose(dims)

    @staticmethod
    def backward(ctx, grad_output):
        (g,) = operands(grad_output)
        dims = ctx.dims
        inverse = tuple(sorted(range(len(dims)), key=dims.__getitem__))  # argsort(dims)
        return permute(g, inverse), None


class Roll(Function):
    """out = a with its elements shifted along `axes` by `shifts` places, wrapping around:
    out[(i + shift) % n] = a[i] (np.roll: two slice copies per axis, no index arrays)."""

    formula = "grad_a = grad_out rolled back (by -shifts)"

    @staticmethod
    def forward(ctx, a, shifts, axes):
        return np.roll(a, shifts, axes)

    @staticmethod
    def backward(ctx, grad_output):
        (g,) = operands(grad_output)
        back = tuple(-s for s in ctx.shifts)
        if isinstance(g, GraphTensor):  # recorded (create_graph)
            return Roll.apply(g, shifts=back, axes=ctx.axes), None, None
        return np.roll(g, back, ctx.axes), None, None


class Expand(Function):
    """out = a broadcast to `shape` (a view, no copy; as in PyTorch, a write into places of
    it that are one memory location each, e.g. `e[0] = ...`, reaches `a`).

    Its gradient is grad_out itself: the engine sums it back over the broadcast axes, in the
    one place where broadcasting is undone (`sum_to_shape`).
    """

    formula = "grad_a = grad_out summed over the expanded axes"

    @staticmethod
    def forward(ctx, a, shape):
        view = np.broadcast_to(a, shape)  # read-only: made writable like `a` (same strides)
        return np.lib.stride_tricks.as_strided(
            a, view.shape, view.strides, writeable=a.flags.writeable
        )

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None


def has_array_index(index: tuple) -> bool:
    """Does `index` use advanced (integer- or boolean-array) indexing?"""
    return any(isinstance(i, np.ndarray) for i in index)


class GetItem(Function):
    """out = a[index], for any NumPy index: ints, slices, None, ..., int or bool arrays.

    Each output element was copied from one place of `a`, so its gradient goes back there.
    An index array may name the same place twice; the gradients then add up (ScatterAdd).
    """

    formula = "grad_a = zeros like a, with grad_out added at [index]"

    @staticmethod
    def forward(ctx, a, index):
        out = a[index]
        # x[1, 2] is a NumPy scalar (a copy); x[1, 2, ...] the same element as a 0-d view,
        # which PyTorch's x[1, 2] is
        return out if isinstance(out, np.ndarray) else a[index + (Ellipsis,)]

    @staticmethod
    def backward(ctx, grad_output):
        (g,) = operands(grad_output)
        return scatter_add(g, ctx.index, ctx.input_shape)


class ScatterAdd(Function):
    """out = zeros(shape) with `values` added at [index] (repeated places add up).

    The backward of GetItem; its own backward reads the gradient back at [index].
    """

    formula = "grad_values = grad_out[index]"

    @staticmethod
    def forward(ctx, values, index, shape):
        return scatter_add(values, index, shape)

    @staticmethod
    def backward(ctx, grad_output):
        (g,) = operands(grad_output)
        index = ctx.index
        return GetItem.apply(g, index=index) if isinstance(g, GraphTensor) else g[index]


def scatter_add(values, index: tuple, shape: tuple):
    """zeros(shape) with `values` added at [index]: an array, or a node (ScatterAdd) when
    `values` is a Tensor (a backward being recorded)."""
    if isinstance(values, GraphTensor):
        return ScatterAdd.apply(values, index=index, shape=shape)
    if has_array_index(index):
        return add_at(values, index, shape)  # bincount of positions, not np.add.at
    out = np.zeros(shape, dtype=values.dtype)
    out[index] = values  # basic indexing never names one place twice
    return out


class Cat(Function):
    """out = the inputs joined along axis `dim`; each input gets its own slice of grad_out."""

    formula = "grad_input_i = grad_out[..., start_i:end_i, ...] along dim"

    @staticmethod
    def forward(ctx, *arrays, dim):
        return np.concatenate(arrays, axis=dim)

    @staticmethod
    def backward(ctx, grad_output):
        (g,) = operands(grad_output)
        dim = ctx.dim
        grads, start = [], 0
        for needs, shape in zip(ctx.needs_input_grad, ctx.input_shapes):
            stop = start + shape[dim]
            index = (slice(None),) * dim + (slice(start, stop),)
            grads.append(g[index] if needs else None)
            start = stop
        return tuple(grads)


class Clone(Function):
    """out = a copy of a, in its own memory."""

    formula = "grad_a = grad_out"

    @staticmethod
    def forward(ctx, a):
        return a.copy()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


class IndexPut(Function):
    """out = a copy of `a` with `values` written at [index]: `x[index] = values`, recorded.

    PyTorch's order for an index that mixes integers with index arrays is kept by indexing in
    two steps, `[ints]` then `[rest]` (see `indexing.ints_first`). Each written place takes its
    value from `values`, so its gradient goes there; `a` keeps the gradient everywhere else.
    """

    formula = "grad_a = grad_out with zeros at [index];  grad_values = grad_out[index]"

    @staticmethod
    def forward(ctx, a, values, ints, rest):
        out = a.copy()
        (out[ints] if ints else out)[rest] = values
        return out

    @staticmethod
    def backward(ctx, grad_output):
        ints, rest = ctx.ints, ctx.rest
        grad_a = grad_v = None
        if ctx.needs_input_grad[0]:
            zero = np.zeros((), dtype=grad_output.dtype)
            grad_a = IndexPut.apply(grad_output, zero, ints=ints, rest=rest)
        if ctx.needs_input_grad[1]:
            picked = GetItem.apply(grad_output, index=ints) if ints else grad_output
            grad_v = GetItem.apply(picked, index=rest)
        return grad_a, grad_v


class Diagonal(Function):
    """out = the diagonal a[..., i, i + offset] of the planes (dim1, dim2), as a new last axis:
    a VIEW of a (as PyTorch's), so writing into it writes the diagonal of a.

    Its gradient puts grad_out back on that diagonal of zeros.
    """

    formula = "grad_a = zeros like a, with grad_out on the diagonal"

    @staticmethod
    def forward(ctx, a, offset, dim1, dim2):
        moved = np.moveaxis(a, (dim1, dim2), (-2, -1))  # (..., rows, cols), a view
        corner = moved[..., max(-offset, 0) :, max(offset, 0) :]
        length = max(0, min(corner.shape[-2], corner.shape[-1]))
        step = corner.strides[-2] + corner.strides[-1]  # one row down and one column right
        shape, strides = moved.shape[:-2] + (length,), moved.strides[:-2] + (step,)
        return np.lib.stride_tricks.as_strided(corner, shape, strides, writeable=a.flags.writeable)

    @staticmethod
    def backward(ctx, grad_output):
        (g,) = operands(grad_output)
        offset, dim1, dim2 = ctx.offset, ctx.dim1, ctx.dim2
        order = [d for d in range(len(ctx.input_shape)) if d not in (dim1, dim2)] + [dim1, dim2]
        moved_shape = tuple(ctx.input_shape[d] for d in order)
        i = np.arange(g.shape[-1])
        index = (Ellipsis, i + max(-offset, 0), i + max(offset, 0))
        moved = scatter_add(g, index, moved_shape)
        inverse = tuple(sorted(range(len(order)), key=order.__getitem__))
        return permute(moved, inverse)


class Unfold(Function):
    """out = the windows of `size` elements, `step` apart, along axis `dim` (Tensor.unfold):
    axis `dim` becomes the window count and a new last axis of `size` holds each window. A
    VIEW of a, as PyTorch's; overlapping windows read an element twice, so gradients add up.
    """

    formula = "grad_a = each window's grad_out added back where the window was read"

    @staticmethod
    def forward(ctx, a, dim, size, step):
        windows = (a.shape[dim] - size) // step + 1
        shape = a.shape[:dim] + (windows,) + a.shape[dim + 1 :] + (size,)
        strides = a.strides[:dim] + (a.strides[dim] * step,) + a.strides[dim + 1 :]
        strides += (a.strides[dim],)
        return np.lib.stride_tricks.as_strided(a, shape, strides, writeable=a.flags.writeable)

    @staticmethod
    def backward(ctx, grad_output):
        (g,) = operands(grad_output)
        dim, size, step = ctx.dim, ctx.size, ctx.step
        ndim = len(ctx.input_shape)
        order = tuple(range(dim + 1)) + (ndim,) + tuple(range(dim + 1, ndim))
        g = permute(g, order)  # (..., windows, size, ...): the window axis beside its start
        starts = np.arange(g.shape[dim]) * step
        index = (slice(None),) * dim + (starts[:, None] + np.arange(size),)
        return scatter_add(g, index, ctx.input_shape)


class AsStrided(Function):
    """out = the elements of a's memory (its storage: the array that owns it) at
    `storage_offset + sum_k i_k * stride[k]` for out's index (i_0, i_1, ...), strides in
    elements, as PyTorch's as_strided: a VIEW, which may read one element several times.

    Its gradient adds each output element's gradient to the storage element it read, then
    reads a's own elements back from that storage.
    """

    formula = "grad_a[j] = sum of grad_out over the output elements that read a's element j"

    @staticmethod
    def forward(ctx, a, size, stride, storage_offset):
        storage, here = _storage(a)
        offset = here if storage_offset is None else int(storage_offset)
        reach = offset + sum((n - 1) * s for n, s in zip(size, stride))
        if len(size) != len(stride) or offset < 0 or min(stride, default=0) < 0:
            raise RuntimeError(
                f"as_strided: give one stride (>= 0) per size and an offset >= 0, got size "
                f"{tuple(size)}, stride {tuple(stride)}, storage_offset {offset}"
            )
        if 0 not in size and reach >= storage.size:
            raise RuntimeError(
                f"as_strided: size {tuple(size)} with stride {tuple(stride)} and offset {offset} "
                f"reads element {reach}, out of bounds for a storage of {storage.size} elements"
            )
        item = a.itemsize
        out = np.lib.stride_tricks.as_strided(
            storage[offset:] if storage.size else storage,
            tuple(size),
            tuple(s * item for s in stride),
            writeable=a.flags.writeable,
        )
        ctx.save_for_backward(
            _positions(size, stride, offset), _positions(a.shape, _element_strides(a), here)
        )
        ctx.storage_size = storage.size
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (g,) = operands(grad_output)
        read, own = ctx.saved_tensors
        storage = scatter_add(g, (_array(read),), (ctx.storage_size,))
        return storage[_array(own)], None, None, None


def _array(t):
    return t.array if isinstance(t, GraphTensor) else t


def _storage(a: np.ndarray) -> tuple[np.ndarray, int]:
    """The owner of a's memory as a flat array, and where a's first element is in it."""
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    if not (root.flags.c_contiguous or root.flags.f_contiguous):
        raise RuntimeError("as_strided: the tensor's storage is not one block; clone() it first")
    flat = np.lib.stride_tricks.as_strided(root, (root.size,), (root.itemsize,))
    start = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return flat, start // a.itemsize


def _element_strides(a: np.ndarray) -> tuple:
    return tuple(s // a.itemsize for s in a.strides)


def _positions(size, stride, offset: int) -> np.ndarray:
    """The storage position of every element of a view of `size` and `stride` (in elements)."""
    out = np.full(tuple(size), offset, dtype=np.int64)
    for axis, (n, s) in enumerate(zip(size, stride)):
        out += (np.arange(n, dtype=np.int64) * s).reshape((-1,) + (1,) * (len(size) - axis - 1))
    return out
