"""Scans along one dim: cumsum, cumprod, logcumsumexp, cummax, cummin.

One new primitive, `Cumsum`. The others are composed, so autograd derives their gradients,
to any order and exactly also where an input is 0 (cumprod) or -inf (logcumsumexp):

- cumprod and logcumsumexp are scans of * and logaddexp in log2(n) doubling steps
  (Hillis & Steele, 1986): after the step with shift s, element i combines the s elements
  ending at i with the s before them, so after shifts 1, 2, 4, ... it holds the whole prefix.
- cummax and cummin find the running winner's index with NumPy and read the values with an
  index, so each value's gradient goes to the element that won (as PyTorch).
"""

from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.node import GraphTensor
from .composite import ValuesIndices
from .movement import GetItem
from .pointwise_composed import logaddexp, to_float
from .shape import cat
from .sort import axis_of, constant, take_along


def _along(axis: int, ndim: int, index) -> tuple:
    """An index that applies `index` (a slice) along `axis` and takes everything elsewhere."""
    return (slice(None),) * axis + (index,) + (slice(None),) * (ndim - axis - 1)


class Cumsum(Function):
    """out_i = a_0 + a_1 + ... + a_i along `dim`.

    a_j appears in every out_i with i >= j, so grad_a_j = sum over i >= j of grad_out_i: a
    cumulative sum run from the end (reverse, cumsum, reverse back).
    """

    formula = "grad_a = reverse(cumsum(reverse(grad_out)))  along dim"

    @staticmethod
    def forward(ctx, a, dim):
        if a.dtype.kind in "bui" and a.dtype != np.uint64:
            return running_sum(a, dim, np.int64)  # integers add up in int64 (PyTorch)
        return running_sum(a, dim)

    @staticmethod
    def backward(ctx, grad_output):
        dim = ctx.dim
        if not is_grad_enabled():  # nothing recorded: one cumsum over reversed views
            g = grad_output.array
            grad = np.empty(g.shape, g.dtype)  # written through a reversed view: no copy after
            running_sum(np.flip(g, dim), dim, out=np.flip(grad, dim))
            return grad, None
        backwards = _along(dim, grad_output.ndim, slice(None, None, -1))
        return _reverse(Cumsum.apply(_reverse(grad_output, backwards), dim), backwards), None


LOOP_SLICE = 256  # running_sum loops over the axis when each slice has at least this many


def running_sum(a: np.ndarray, axis: int, dtype=None, out=None) -> np.ndarray:
    """np.cumsum(a, axis, dtype), the same numbers (the same additions in the same order:
    out[i] = out[i-1] + a[i]). Along any axis but the last, NumPy's cumsum walks each column
    with a stride, one element at a time; here, when a slice across the axis holds at least
    LOOP_SLICE elements, a Python loop over the axis adds whole slices instead (one
    vectorized addition per step). The reference is `running_sum_reference`. `out`: an array
    (or a view) of a's shape to write into, as np.cumsum's."""
    n = a.shape[axis] if a.ndim else 1
    if axis in (-1, a.ndim - 1) or a.ndim == 0 or n < 2 or a.size // n < LOOP_SLICE:
        return running_sum_reference(a, axis, dtype, out)
    if out is None:
        out = np.array(a, dtype=dtype, order="C", copy=True)
    else:
        np.copyto(out, a)
    steps = np.moveaxis(out, axis, 0)
    for i in range(1, n):
        np.add(steps[i], steps[i - 1], out=steps[i])
    return out


def running_sum_reference(a: np.ndarray, axis: int, dtype=None, out=None) -> np.ndarray:
    """NumPy's cumsum: the reference of `running_sum`."""
    return np.cumsum(a, axis=axis, dtype=dtype, out=out)


def _reverse(g, backwards: tuple):
    """g[backwards] (a negative step, which Tensor indexing refuses as PyTorch does): a view of
    an array, or a recorded GetItem of a Tensor."""
    return GetItem.apply(g, index=backwards) if isinstance(g, GraphTensor) else g[backwards]


def _prepare(op: str, input, dim, dtype):  # noqa: A002
    x = input
    if dtype is not None:
        x = x.to(dtype)
    return x, axis_of(op, x, dim)


def cumsum(input, dim, *, dtype=None):  # noqa: A002 - PyTorch's names
    """Running sums along `dim` (integers and bools add up in int64, as PyTorch)."""
    x, axis = _prepare("cumsum", input, dim, dtype)
    if axis is None:  # a 0-d tensor is its own running sum
        return Cumsum.apply(x.reshape(1), 0).reshape(())
    return Cumsum.apply(x, axis)


def _scan(x, axis: int, combine, identity):
    """Inclusive scan of `combine` along `axis` in log2(n) doubling steps (see the docstring)."""
    n, shift = x.shape[axis], 1
    while shift < n:
        pad_shape = x.shape[:axis] + (shift,) + x.shape[axis + 1 :]
        pad = constant(np.full(pad_shape, identity, dtype=x.dtype), x)
        earlier = cat([pad, x[_along(axis, x.ndim, slice(0, n - shift))]], axis)  # x shifted
        x = combine(x, earlier)
        shift *= 2
    return x


def cumprod(input, dim, *, dtype=None):  # noqa: A002
    """Running products along `dim`; the gradient is exact also where elements are 0."""
    x, axis = _prepare("cumprod", input, dim, dtype)
    if x.dtype.kind in "bui":  # no gradient: NumPy's product, in int64 as PyTorch
        return constant(np.cumprod(x.array, axis=axis, dtype=np.int64), x)
    if axis is None:
        return x * 1
    return _scan(x, axis, lambda a, b: a * b, 1)


def logcumsumexp(input, dim):  # noqa: A002
    """log(exp(x_0) + ... + exp(x_i)) along `dim`, without overflow (a scan of logaddexp)."""
    x, axis = _prepare("logcumsumexp", input, dim, None)
    x = to_float(x)
    if axis is None:
        return x * 1
    return _scan(x, axis, logaddexp, -np.inf)


def _running_winner(op: str, input, dim, accumulate) -> ValuesIndices:  # noqa: A002
    """Values and indices of the running maximum (minimum) along `dim`. At ties the later
    element is the winner; a NaN wins over everything after it (as PyTorch)."""
    x, axis = _prepare(op, input, dim, None)
    if axis is None:
        return ValuesIndices(
            x * 1 if x.dtype.kind == "f" else x, constant(np.zeros((), np.int64), x)
        )
    a = x.array
    best = accumulate(a, axis=axis)
    won = a == best
    if a.dtype.kind == "f":
        won |= np.isnan(a)
    shape = [1] * a.ndim
    shape[axis] = a.shape[axis]
    positions = np.arange(a.shape[axis]).reshape(shape)
    indices = np.maximum.accumulate(np.where(won, positions, 0), axis=axis).astype(np.int64)
    return ValuesIndices(take_along(x, indices, axis), constant(indices, x))


def cummax(input, dim):  # noqa: A002
    """(values, indices) of the running maximum along `dim`."""
    return _running_winner("cummax", input, dim, np.maximum.accumulate)


def cummin(input, dim):  # noqa: A002
    """(values, indices) of the running minimum along `dim`."""
    return _running_winner("cummin", input, dim, np.minimum.accumulate)
