"""One backward formula for arrays and Tensors (Chainer's `xp` idea), and the stable shift.

A backward (of a primitive in `ops/` or of a fused op in `ops/fused/`) is written once. When
nothing is recorded (a plain `backward()`), the formula runs on the NumPy arrays inside the
tensors: no Tensor op overhead (a `Function.apply`, a `Context` and a `Tensor` per
operation, which is most of the cost on small tensors), and in place where the arrays are
temporaries of ours. Under `create_graph=True` the same lines run on Tensors, so the backward
is recorded and can be differentiated again. The lines read the same for both because arrays
and Tensors share `+ - * / @`, `reshape`, `swapaxes`, `.T`, indexing, `sum(axis,
keepdims=)` and `mean`. The few calls that must differ are the small functions below (on an
array, or on a NumPy scalar, which is what arithmetic on a 0-d array gives): `broadcast_to`
and `permute` are spelled differently, and `iadd`, `isub` and `imul` are `a += b` (and so on)
on an array, a temporary of ours changed in place, but a new node `a + b` on a Tensor (an
in-place change of a Tensor would be recorded, copying it, and would change a tensor that an
earlier node may have saved for its backward).

>>> import numpy as np
>>> import tinygrad_norm as tg
>>> a = np.array([0.0, 1.0])
>>> exp_(a) is a, exp_(tg.tensor([0.0, 1.0], requires_grad=True)).grad_fn
(True, <ExpBackward>)
"""

import functools
import math

import numpy as np

from ..autograd.grad_mode import is_grad_enabled
from ..autograd.node import GraphTensor
from .erf_numpy import erf as erf_array


def operands(*tensors):
    """The arrays inside `tensors` when nothing is recorded (the fast path), else the Tensors
    themselves (create_graph: the backward is recorded, for higher derivatives). None stays
    None."""
    if is_grad_enabled():
        return tensors
    return tuple([None if t is None else t.array for t in tensors])


def iadd(a, b):
    """a += b on an array (in place), a + b on a Tensor (a new node)."""
    if not isinstance(a, GraphTensor):
        a += b
        return a
    return a + b


def isub(a, b):
    """a -= b on an array (in place), a - b on a Tensor (a new node)."""
    if not isinstance(a, GraphTensor):
        a -= b
        return a
    return a - b


def imul(a, b):
    """a *= b on an array (in place), a * b on a Tensor (a new node)."""
    if not isinstance(a, GraphTensor):
        a *= b
        return a
    return a * b


def data(a) -> np.ndarray:
    """The array of a Tensor, or the array itself."""
    return a.array if isinstance(a, GraphTensor) else a


def exp_(a):
    """exp(a): written into `a` when it is an array (a temporary of ours), a new node else."""
    if isinstance(a, GraphTensor):
        return a.exp()
    return np.exp(a, out=a if isinstance(a, np.ndarray) else None)  # (a NumPy scalar: new)


def tanh_(a):
    """tanh(a): written into `a` when it is an array (a temporary of ours), a new node else."""
    if isinstance(a, GraphTensor):
        return a.tanh()
    return np.tanh(a, out=a if isinstance(a, np.ndarray) else None)  # (a NumPy scalar: new)


def broadcast_to(a, shape):
    """a broadcast to `shape`: a read-only view of an array (a small one: a new array), or a
    node (`Tensor.expand`)."""
    if isinstance(a, GraphTensor):
        return a.expand(shape)
    if math.prod(shape) > 4096:
        return np.broadcast_to(a, shape)
    # NOTE: np.broadcast_to costs the same at any size (Python, an nditer); a small result is
    # cheaper written out (and takes no memory to speak of)
    out = np.empty(shape, a.dtype)
    out[...] = a
    return out


def permute(a, dims):
    """a with its axes in the order `dims`, a view of an array or a node (`Tensor.permute`)."""
    return a.permute(dims) if isinstance(a, GraphTensor) else a.transpose(dims)


def sigmoid(a):
    """1 / (1 + exp(-a)), a new array (four passes, in place) or a new node.

    NOTE: for a < -88 (float32) exp(-a) overflows to inf and 1 / (1 + inf) = 0, the limit, as
    PyTorch computes it (the overflow is not an error here). The former exp(-logaddexp(0, -a))
    took a logarithm and two exponentials per element.
    """
    if isinstance(a, GraphTensor):
        return a.sigmoid()
    out = np.negative(a)
    with np.errstate(over="ignore"):
        out = np.exp(out, out=out if isinstance(out, np.ndarray) else None)
    out += 1
    return np.reciprocal(out, out=out if isinstance(out, np.ndarray) else None)


def softplus(a):
    """log(1 + exp(a)), stable: np.logaddexp(0, a) on an array; on a Tensor the same maths
    recorded as max(a, 0) + log1p(exp(-|a|)) (log1p: for a << 0 the sum 1 + exp(a) would round
    to 1, and the result to 0 instead of exp(a))."""
    if isinstance(a, GraphTensor):
        return a.relu() + (-a.abs()).exp().log1p()
    return np.logaddexp(0, a)


@functools.lru_cache(maxsize=64)
def constant_array(value, shape: tuple, dtype) -> np.ndarray:
    """A read-only array of `shape` filled with `value`, made once per (value, shape, dtype) and
    shared: for the constants a formula multiplies by (a 1, a row of ones), which NumPy would
    otherwise convert or build at every call. Nobody may write to it (it is read-only)."""
    array = np.full(shape, value, dtype)
    array.flags.writeable = False
    return array


def times_mask(a, mask):
    """a * mask for a bool `mask`: zero where the mask is False. On arrays the mask is made a's
    dtype first: NumPy multiplies float by bool element by element with a cast, slower than
    the cast and a float by float product together."""
    if isinstance(a, GraphTensor):
        return a * mask
    return a * mask.astype(a.dtype)


def exp(a):
    """exp(a), a new array or a new node."""
    return a.exp() if isinstance(a, GraphTensor) else np.exp(a)


def erf(a):
    """erf(a), a new array (`ops/erf_numpy.py`) or a new node."""
    return a.erf() if isinstance(a, GraphTensor) else erf_array(a)


def masked_fill_(a, mask: np.ndarray, value: float):
    """`value` where `mask` (bool, broadcasting to a): written into `a` when it is an array (a
    temporary of ours), a new node (`Tensor.masked_fill`) else."""
    if isinstance(a, GraphTensor):
        return a.masked_fill(mask, value)
    if not isinstance(a, np.ndarray):  # a NumPy scalar (0-d arithmetic gives one): no place
        return np.where(mask, value, a)
    np.copyto(a, value, where=mask)
    return a


def matmul(a, b, out=None):
    """a @ b; for arrays written into `out` when given (a view into a larger array)."""
    return a @ b if isinstance(a, GraphTensor) else np.matmul(a, b, out=out)


def multiply(a, b, out=None):
    """a * b; for arrays written into `out` when given (a temporary of ours, used up)."""
    return a * b if isinstance(a, GraphTensor) else np.multiply(a, b, out=out)


def row_dot(a, b):
    """sum(a * b) over the last axis, kept: (..., n) and (..., n) -> (..., 1). On arrays one
    einsum, without the (..., n) product as a temporary."""
    if not isinstance(a, GraphTensor):
        return np.einsum("...i,...i->...", a, b)[..., None]
    return (a * b).sum(-1, keepdims=True)


def exp_shift(array, axis, finite=False):
    """The shift m = max(array) along `axis` (kept) that makes exp(x - m) safe: the largest
    term becomes exp(0) = 1 and none overflows. The one place where that maximum is taken.

    `initial` is the maximum of an empty slice (np.max of nothing raises); NumPy 2.4 also
    reduces faster with it.
    A slice of all -inf has no maximum to shift by; `finite=True` shifts it by 0 (as it does a
    slice whose maximum is inf or NaN), so that a log-sum-exp of it is log(0) = -inf, not NaN
    (softmax keeps the NaN, as PyTorch does).

    >>> exp_shift(np.array([[1.0, 3.0], [-np.inf, -np.inf]]), 1, finite=True)
    array([[3.],
           [0.]])
    """
    lowest = -np.inf if array.dtype.kind == "f" else np.iinfo(array.dtype).min
    m = np.maximum.reduce(array, axis=axis, keepdims=True, initial=lowest)
    if finite:
        m = np.where(np.isfinite(m), m, 0).astype(array.dtype, copy=False)
    return m


def max_shifted(x, axis, out=None):
    """x - max(x) along `axis` (None: all of a 0-d x): the largest entry becomes 0, so a
    following exp never overflows. softmax(x) and log_softmax(x) are unchanged by the shift
    (it cancels), so the maximum is taken as a constant, from the data, also for a Tensor x.

    `out=x` shifts an array in place. NOTE: a slice whose entries are all -inf has no
    maximum to shift by: it becomes NaN, as in PyTorch (see `safe_softmax` for attention).

    >>> max_shifted(np.array([1000.0, 999.0]), 0)
    array([ 0., -1.])
    """
    m = exp_shift(data(x), axis)
    return x - m if isinstance(x, GraphTensor) else np.subtract(x, m, out=out)


def add_at(values: np.ndarray, index: tuple, shape: tuple) -> np.ndarray:
    """zeros(shape) with `values` added at [index], repeated places adding up: the result of
    `add_at_reference` (np.add.at), for the backward of indexing with index arrays.

    np.add.at is unbuffered, one element at a time, several times slower. Here the index
    picks the flat positions (`arange(size).reshape(shape)[index]`, the same index on
    position numbers) and
    `np.bincount` adds the values up per position in float64, then cast back (for float32
    a little more accurate than np.add.at, which adds in float32). Only for real float values
    and a target not much larger than the values: the position and float64 arrays have the
    target's size (indexing a few rows of GPT-2's token table would make 300 MB of them).
    """
    size = math.prod(shape)
    if values.dtype.kind != "f" or size > 4 * values.size + 65536:
        return add_at_reference(values, index, shape)
    positions = np.arange(size).reshape(shape)[index]
    weights = np.broadcast_to(values, positions.shape).ravel()
    sums = np.bincount(positions.ravel(), weights=weights, minlength=size)
    return sums.reshape(shape).astype(values.dtype, copy=False)


def add_at_reference(values: np.ndarray, index: tuple, shape: tuple) -> np.ndarray:
    """zeros(shape) with `values` added at [index] by np.add.at: the reference of `add_at`."""
    out = np.zeros(shape, dtype=values.dtype)
    np.add.at(out, index, values)
    return out
