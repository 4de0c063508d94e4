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


class Expand(Function):
    """out = a broadcast to `shape` (a read-only view, no copy).

    Its gradient is grad_out itself: the engine sums it back over the broadcast axes, in the
    one place where broadcasting is undone (`sum_to_shape`).
    """

    formula = "grad_a = grad_out summed over the expanded axes"

    @staticmethod
    def forward(ctx, a, shape):
        return np.broadcast_to(a, shape)

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
        return a[index]

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
