"""Operations composed from the primitives: no backward of their own, autograd derives it.

`x.mean()` is a Sum and a Div; `x.var()` a few more. Each inherits correct (and twice
differentiable) gradients from its parts. `tg.mean(x)` and the method `x.mean()` are the same
function. (Softmax composed, the reference of the fused one, is in `ops/fused/softmax.py`.)
"""

from __future__ import annotations

import builtins
import warnings
from typing import NamedTuple

import numpy as np

from ..autograd.node import GraphTensor
from ..broadcast import ShapeError, broadcast_shape
from ..convert import number_as, to_array
from ..dtypes import DtypeError, get_default_dtype, refuse_bool, require_same_dtype, result_type
from .elementwise import MaskedFill, Maximum, Minimum, Where
from .linalg import MatMul
from .movement import GetItem
from .reduce import Max, Sum


def as_tensor(x, like):
    """`x` as a Tensor beside the Tensor `like`: Tensors pass through, a Python number takes
    `like`'s dtype (numbers never change a dtype), other data becomes a constant Tensor.

    The public functions (`tg.cat`, `F.linear`, ...) turn NumPy arrays into Tensors before
    they call in here, so every function of this module has a Tensor to be `like`.
    """
    if isinstance(x, GraphTensor):
        return x
    if isinstance(x, (bool, int, float)):
        dtype = scalar_dtype(x, like.array.dtype)
        try:
            return like._make(np.asarray(x, dtype=dtype))
        except OverflowError:  # an int beyond an integer dtype: -1 beside uint8 is 255, as
            # PyTorch's u - 1; 300 is an error naming the range (PyTorch's result is undefined)
            return like._make(number_as("a number beside a tensor", x, dtype))
    return like._make(to_array(x, None))


def promote(*values) -> tuple:
    """`values` (Tensors, arrays, Python numbers; at least one Tensor) as Tensors of the one
    dtype PyTorch gives their result (`dtypes.result_type`): what every op with several
    inputs does first (binary operators, where, clamp, cat, stack, lerp, maximum, ...)."""
    like = next(v for v in values if isinstance(v, GraphTensor))
    values = tuple(
        v if isinstance(v, (GraphTensor, bool, int, float)) else like._make(to_array(v, None))
        for v in values
    )
    return as_dtype(values, result_type(*values), like)


def as_dtype(values, dtype: np.dtype, like) -> tuple:
    """Each of `values` (Tensors or Python numbers) as a Tensor of `dtype`."""
    out = []
    for v in values:
        if isinstance(v, GraphTensor):
            out.append(v if v.array.dtype == dtype else v.to(dtype))
        else:
            try:
                out.append(like._make(np.asarray(v, dtype=dtype)))
            except OverflowError:  # -1 beside uint8 is 255, as PyTorch; 300 is an error
                out.append(like._make(number_as("a number beside a tensor", v, dtype)))
    return tuple(out)


def scalar_dtype(x, dtype: np.dtype) -> np.dtype:
    """The dtype a Python number takes beside a tensor of `dtype` (as PyTorch decides)."""
    if isinstance(x, float) and dtype.kind not in "fc":
        return get_default_dtype()
    if isinstance(x, int) and not isinstance(x, bool) and dtype.kind == "b":
        return np.dtype(np.int64)
    return dtype


def normalize_dims(op: str, dim, ndim: int) -> tuple[int, ...] | None:
    """`dim` (None, an int, or a tuple/list of ints, negative allowed) as sorted axes >= 0."""
    if dim is None:
        return None
    if type(dim) is int and -ndim <= dim < ndim:  # NOTE: the common case first: one int dim
        return (dim % ndim,)
    dims = (dim,) if not isinstance(dim, (tuple, list)) else tuple(dim)
    out = []
    rank = builtins.max(ndim, 1)  # a 0-d tensor accepts dim 0 and -1, as in PyTorch
    for d in dims:
        _require_int_dim(op, d)
        if not -rank <= d < rank:
            raise IndexError(
                f"{op}: dim {d} is out of range for a tensor with {ndim} dimensions; "
                f"use a dim from {-rank} to {rank - 1}"
            )
        out.append(int(d) % rank)
    if len(set(out)) != len(out):
        raise RuntimeError(f"{op}: dim {dim} names the same axis twice; give each dim once")
    return tuple(sorted(out)) if ndim else None


def reduction_dims(op: str, dim, ndim: int) -> tuple[int, ...] | None:
    """The axes a reduction (sum, mean, var, amax, ...) runs over: as `normalize_dims`, and, as
    in PyTorch, an empty `dim` ([] or ()) means every axis."""
    empty = isinstance(dim, (tuple, list)) and len(dim) == 0
    return None if empty else normalize_dims(op, dim, ndim)


def _require_int_dim(op: str, d) -> None:
    if not isinstance(d, (int, np.integer)):
        raise TypeError(f"{op}: dim must be an int or a tuple of ints, got {d!r}")


def _require_nonempty(op: str, x, dims) -> None:
    """max, min and argmax of no elements have no value: a clear error, as in PyTorch."""
    if x.array.size:
        return
    axes = range(x.ndim) if dims is None else dims
    empty = [d for d in axes if x.shape[d] == 0]
    if empty:
        raise IndexError(
            f"{op}: the input of shape {x.shape} has no elements along dim {empty[0]}, so "
            "there is nothing to take the maximum or minimum of; reduce over a non-empty "
            "dim, or check how the input became empty"
        )


def _count(shape: tuple, dims) -> int:
    return int(np.prod(shape)) if dims is None else int(np.prod([shape[d] for d in dims]))


# --- reductions ---------------------------------------------------------------------------------


def sum(x, dim=None, keepdim=False, *, dtype=None):  # noqa: A001 - PyTorch's name
    """The sum over `dim` (every axis when None). As in PyTorch, the sum of any integer or
    bool dtype is int64 (NumPy's own sum of uint8 is uint64), and float16 sums in float32;
    `dtype=` converts the input first and gives the sum in that dtype."""
    if dtype is not None:
        return in_dtype(sum, x, dtype, dim, keepdim)
    if x.array.dtype == np.float16:
        return _in_float32(sum, x, dim, keepdim)
    if x.array.dtype.kind == "u":
        x = x.to(np.int64)
    return Sum.apply(x, reduction_dims("sum", dim, x.ndim), keepdim)


def mean(x, dim=None, keepdim=False):
    require_floating("mean", x)
    if x.array.dtype == np.float16:
        return _in_float32(mean, x, dim, keepdim)
    dims = reduction_dims("mean", dim, x.ndim)
    return Sum.apply(x, dims, keepdim) / _count(x.shape, dims)


def in_dtype(reduction, x, dtype, *args):
    """`reduction(x, *args)` with x converted to `dtype` first, and the result in `dtype` too:
    PyTorch's `dtype=` of sum and prod (an int32 product stays int32, not int64)."""
    x = x.to(dtype)
    out = reduction(x, *args)
    return out if out.dtype == x.dtype else out.to(x.dtype)


def _in_float32(reduction, x, *args, **kwargs):
    """A float16 reduction, accumulated in float32 as PyTorch does (the float16 mean of 1000
    values of 100.0 is 100, not the inf of a float16 running sum), then rounded to float16."""
    return reduction(x.to(np.float32), *args, **kwargs).to(np.float16)


def require_floating(op: str, x, error=RuntimeError, fix=None, name="input") -> None:
    """An integer or bool input of an op that needs floats: PyTorch's `error`, which says how to
    convert (mean: RuntimeError; softmax: NotImplementedError, itself a RuntimeError). `fix`
    shows the converted call (x.float().op() unless given), `name` is the argument x is. A
    dtype test: no pass over x."""
    if x.dtype.kind not in "fc":
        raise error(
            f"{op}: the {name} is {x.dtype} of shape {x.shape}, and {op} needs a floating-point "
            "input; convert it first, e.g. "
            f"{fix or f'x.float().{op}()'}"
        )


def var(x, dim=None, unbiased=True, keepdim=False, *, correction=None):
    """Variance: sum((x - mean)^2) / (N - correction); `unbiased=True` means correction 1.

    With correction 1 (Bessel's) it estimates the population variance from a sample;
    LayerNorm and BatchNorm's batch statistics use correction 0, the plain mean of squares.
    """
    return _var("var", x, dim, unbiased, keepdim, correction)


def _var(op, x, dim, unbiased, keepdim, correction):
    require_floating(op, x)
    if x.dtype == np.float16:
        return _in_float32(lambda t: _var(op, t, dim, unbiased, keepdim, correction), x)
    dims = reduction_dims(op, dim, x.ndim)
    correction = (1 if unbiased else 0) if correction is None else correction
    count = _count(x.shape, dims)
    centered = x - Sum.apply(x, dims, True) / count
    squares = Sum.apply(centered * centered, dims, keepdim)
    if count - correction > 0:
        return squares / (count - correction)
    # NOTE: as PyTorch: no degrees of freedom left divides by 0 (nan for one element, inf
    # otherwise; never a negative variance), with a warning.
    warnings.warn(
        f"{op}: {count} element(s) per result with correction={correction} leave no degrees "
        "of freedom (N - correction <= 0), so the result is nan or inf, as in PyTorch; for one "
        "sample use unbiased=False (correction=0), which gives 0",
        stacklevel=4,
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        return squares / 0.0


def std(x, dim=None, unbiased=True, keepdim=False, *, correction=None):
    return _root(_var("std", x, dim, unbiased, keepdim, correction), 2)  # slope 0 at std 0


def amax(x, dim=None, keepdim=False):
    dims = reduction_dims("amax", dim, x.ndim)
    _require_nonempty("amax", x, dims)
    return Max.apply(x, dims, keepdim)


def amin(x, dim=None, keepdim=False):
    dims = reduction_dims("amin", dim, x.ndim)
    _require_nonempty("amin", x, dims)
    if x.dtype.kind != "f":
        # NOTE: no gradient to carry, and -x is wrong here: -(-2**63) overflows back to itself,
        # unsigned integers wrap around and bools have no negative.
        return x._make(np.asarray(np.min(x.array, axis=dims, keepdims=keepdim)))
    return -Max.apply(-x, dims, keepdim)


class ValuesIndices(NamedTuple):
    """What `max(dim)` / `min(dim)` return, as in PyTorch: `values, indices = x.max(dim=1)`."""

    values: object
    indices: object


def _select_along(x, dim: int, keepdim: bool, pick) -> ValuesIndices:
    """The element that `pick` (np.argmax or np.argmin) chooses along `dim`, and its index.

    The values are read with an index (GetItem), so the gradient goes to exactly that element.
    """
    op = "max" if pick is np.argmax else "min"
    dims = normalize_dims(op, dim, x.ndim)
    _require_nonempty(op, x, dims)
    (axis,) = dims or (0,)
    indices = pick(x.array, axis=axis)
    grids = list(np.ix_(*[np.arange(n) for i, n in enumerate(x.shape) if i != axis]))
    grids.insert(axis, indices)
    values = GetItem.apply(x, index=tuple(grids)) if x.ndim else x
    if keepdim and x.ndim:  # a 0-d tensor stays 0-d, as in PyTorch
        values, indices = values.unsqueeze(axis), np.expand_dims(indices, axis)
    return ValuesIndices(values, x._make(np.asarray(indices, dtype=np.int64)))


def max(x, dim=None, keepdim=False):  # noqa: A001 - PyTorch's name
    """The largest element (0-d), or with `dim` a `(values, indices)` pair, or with a tensor
    as second argument the elementwise `maximum`."""
    if dim is None:
        return amax(x)
    if isinstance(dim, (GraphTensor, np.ndarray)):
        return maximum(x, dim)
    return _select_along(x, dim, keepdim, np.argmax)


def min(x, dim=None, keepdim=False):  # noqa: A001 - PyTorch's name
    if dim is None:
        return amin(x)
    if isinstance(dim, (GraphTensor, np.ndarray)):
        return minimum(x, dim)
    return _select_along(x, dim, keepdim, np.argmin)


def argmax(x, dim=None, keepdim=False):
    """Index of the largest element (of the flattened tensor when `dim` is None); no grad."""
    return _arg("argmax", np.argmax, x, dim, keepdim)


def argmin(x, dim=None, keepdim=False):
    """Index of the smallest element (of the flattened tensor when `dim` is None); no grad."""
    return _arg("argmin", np.argmin, x, dim, keepdim)


def _arg(op: str, pick, x, dim, keepdim: bool):
    """`pick` (np.argmax or np.argmin) over `dim`, or over all elements, as an int64 tensor."""
    refuse_bool(f"{op}()", x, error=RuntimeError, fix="e.g. x.long()." + op + "()")
    dims = None if dim is None else normalize_dims(op, dim, x.ndim)
    _require_nonempty(op, x, dims)
    if dims is None:  # all elements (a 0-d tensor's only one is at index 0)
        out = pick(x.array)
        if keepdim:
            out = np.reshape(out, (1,) * x.ndim)
        return x._make(np.asarray(out, dtype=np.int64))
    (axis,) = dims
    return x._make(np.asarray(pick(x.array, axis=axis, keepdims=keepdim), dtype=np.int64))


def norm(x, p=2, dim=None, keepdim=False):
    """The p-norm over `dim`: (sum |x|^p)^(1/p); p may be 'fro' (= 2), inf or -inf."""
    dims = normalize_dims("norm", dim, x.ndim)
    if p in ("fro", 2):
        return _root(Sum.apply(x * x, dims, keepdim), 2)
    if p in (float("inf"), float("-inf")):
        _require_nonempty("norm", x, dims)
    if p == float("inf"):
        return Max.apply(x.abs(), dims, keepdim)
    if p == float("-inf"):
        return -Max.apply(-x.abs(), dims, keepdim)
    if p == 1:
        return Sum.apply(x.abs(), dims, keepdim)
    if p == 0:  # the number of nonzero elements: flat, so its gradient is 0 (x * 0 keeps the path)
        count = np.count_nonzero(x.array, axis=dims, keepdims=keepdim).astype(x.dtype)
        return Sum.apply(x * 0, dims, keepdim) + count
    powered = x.abs() ** p
    zero = x.array == 0
    if p < 1 and zero.any():
        # NOTE: |x|^p is infinitely steep (p < 1) or infinite (p < 0) at x = 0; PyTorch sends 0
        # there. Compute it where |x| is 1 instead, and put the value back with a Where.
        safe = Where.apply(zero, np.ones((), x.dtype), x.abs()) ** p
        powered = Where.apply(zero, np.asarray(0.0 if p > 0 else np.inf, x.dtype), safe)
    return _root(Sum.apply(powered, dims, keepdim), p)


def _root(total, p):
    """total ** (1/p), whose gradient is 0 where total is 0, as PyTorch's norm at the zero
    vector (the chain rule alone gives 0 * inf = nan there: the root is infinitely steep)."""
    zero = total.array == 0
    if not zero.any():
        return total.sqrt() if p == 2 else total ** (1.0 / p)
    safe = Where.apply(zero, np.ones((), total.dtype), total)  # 1 where 0: a finite slope
    root = safe.sqrt() if p == 2 else safe ** (1.0 / p)
    return Where.apply(zero, np.zeros((), total.dtype), root)


# --- selection ----------------------------------------------------------------------------------
def where(condition, input, other):  # noqa: A002 - PyTorch's name
    """`input` where `condition` is True, else `other`; both may be tensors or numbers."""
    # a copy: kept for backward, while the tensor it came from may change in place later
    condition = np.array(condition.array if isinstance(condition, GraphTensor) else condition)
    _require_bool("where", "condition", condition, "True takes input, False takes other")
    a, b = promote(input, other)
    names = ("condition", "input", "other")
    broadcast_shape("where", condition.shape, a.shape, b.shape, names=names)
    return Where.apply(condition, a, b)


def _require_bool(op: str, name: str, array: np.ndarray, meaning: str) -> None:
    """PyTorch's rule: a condition or mask is bool; a float or int one is not guessed at."""
    if array.dtype != np.bool_:
        raise DtypeError(
            f"{op}: {name} must be a bool tensor ({meaning}), got {array.dtype}; build it "
            "with a comparison such as x > 0 or m == 0, or convert it with .bool()"
        )


def masked_fill(x, mask, value):
    """`value` where `mask` is True, `x` elsewhere (e.g. -inf above a causal mask).

    As in PyTorch, `value` (a number or a 0-d tensor) takes x's dtype: the result has x's
    dtype (a bool tensor stays bool, an int64 one filled with 2.7 gets 2), so the in-place
    `masked_fill_` works on every dtype. A tensor `value` receives the gradient of the places
    it fills.
    """
    mask = np.array(mask.array if isinstance(mask, GraphTensor) else mask)  # a copy, as in where
    _require_bool("masked_fill", "mask", mask, "True where value goes")
    broadcast_shape("masked_fill", mask.shape, x.shape, names=("mask", "tensor"))
    if isinstance(value, np.ndarray):
        value = x._make(np.array(value))
    if isinstance(value, GraphTensor):
        if value.ndim:
            raise RuntimeError(
                f"masked_fill only supports a 0-dimensional value tensor, but got one of shape "
                f"{tuple(value.shape)}; for a value per element use tg.where(mask, value, x)"
            )
        value = value if value.dtype == x.dtype else value.to(x.dtype)
    else:
        value = x._make(number_as("masked_fill", value, x.array.dtype))
        shape = x.array.shape
        if shape and x.array.dtype.kind == "f" and np.broadcast_shapes(mask.shape, shape) == shape:
            return MaskedFill.apply(x, mask, value.array)  # the fast path of the Where below
    return Where.apply(mask, value, x)


def maximum(a, b):
    """Elementwise max, NaN if either side is NaN; at ties the gradient is split 0.5 / 0.5
    (a kink: gradcheck calls it one), as PyTorch."""
    a, b = _pair(a, b)
    broadcast_shape("maximum", a.shape, b.shape)
    return Maximum.apply(*promote_pair(a, b))


def minimum(a, b):
    """Elementwise min, NaN if either side is NaN; 0.5 / 0.5 at ties, as PyTorch."""
    a, b = _pair(a, b)
    broadcast_shape("minimum", a.shape, b.shape)
    return Minimum.apply(*promote_pair(a, b))


def promote_pair(a, b):
    """Both sides in the dtype PyTorch gives the result (`promote`)."""
    if a.dtype == b.dtype:
        return a, b
    return promote(a, b)


def _pair(a, b):
    like = a if isinstance(a, GraphTensor) else b
    return as_tensor(a, like), as_tensor(b, like)


def clamp(x, min=None, max=None):  # noqa: A002 - PyTorch's names
    """Limit x to [min, max]; the gradient passes where x is inside (boundaries included)."""
    if min is None and max is None:
        raise RuntimeError("clamp: give at least one of min and max (as PyTorch requires)")
    bounds = [b for b in (min, max) if b is not None]
    if len(bounds) == 2 or not isinstance(bounds[0], GraphTensor):  # (a bool bound tensor: max)
        refuse_bool("clamp", x, *bounds, fix="e.g. x.long(), or logical_and / logical_or")
    x, *bounds = promote(x, *bounds)  # int64 clamped to float bounds is float32, as PyTorch
    low = bounds.pop(0) if min is not None else None
    high = bounds.pop(0) if max is not None else None
    if low is not None:
        x = where(x.array < low.array, low, x)
    if high is not None:
        x = where(x.array > high.array, high, x)
    return x


def tril(x, diagonal=0):
    """Keep the lower triangle of the last two axes (on and below `diagonal`), zero the rest."""
    _require_matrix("tril", x)
    keep = np.tril(np.ones(x.shape[-2:], dtype=bool), diagonal)
    return Where.apply(keep, x, np.zeros((), dtype=x.dtype))


def triu(x, diagonal=0):
    """Keep the upper triangle of the last two axes (on and above `diagonal`), zero the rest."""
    _require_matrix("triu", x)
    keep = np.triu(np.ones(x.shape[-2:], dtype=bool), diagonal)
    return Where.apply(keep, x, np.zeros((), dtype=x.dtype))


def _require_matrix(op: str, x) -> None:
    # NOTE: np.tril of a vector makes a square matrix; PyTorch refuses, and so do we.
    if x.ndim < 2:  # PyTorch's RuntimeError
        raise ShapeError(
            f"{op}: needs a matrix (or a batch of them), got a tensor of shape {x.shape}; "
            "reshape it to 2 dimensions first"
        )


# --- linear algebra -----------------------------------------------------------------------------
def matmul(a, b):
    """Matrix product with NumPy's rules: (n,k)@(k,m), batches broadcast, vectors promoted."""
    a, b = _pair(a, b)
    require_same_dtype("matmul", a, b)
    refuse_bool("matmul", a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError(
            f"matmul: both arguments need at least 1 dimension, got shapes "
            f"{a.shape} and {b.shape}; use * to multiply by a scalar"
        )
    if a.array.shape[-1] != b.array.shape[-2 if b.ndim > 1 else 0]:  # (arrays': no Size made)
        raise ShapeError(
            f"matmul: cannot multiply shapes {a.shape} and {b.shape}: the last size "
            f"of the first ({a.shape[-1]}) must equal the "
            f"{'second-to-last' if b.ndim > 1 else 'only'} size of the second "
            f"({b.shape[-2 if b.ndim > 1 else 0]}); check the order of the operands, or "
            "transpose one of them (e.g. b.T or b.transpose(-2, -1))"
        )
    vector_a, vector_b = a.ndim == 1, b.ndim == 1
    if vector_a:
        a = a.reshape(1, -1)  # (1, k)
    if vector_b:
        b = b.reshape(-1, 1)  # (k, 1)
    try:
        out = MatMul.apply(a, b)
    except ValueError:
        raise ShapeError(  # only reached with two matrices or batches: no vector was promoted
            f"matmul: cannot multiply shapes {a.shape} and {b.shape}: their batch shapes "
            f"{a.shape[:-2]} and {b.shape[:-2]} cannot be broadcast together (aligned from "
            "the right, each pair of batch sizes must be equal or one of them 1)"
        ) from None
    if vector_a:
        out = out.squeeze(-2)
    if vector_b:
        out = out.squeeze(-1)
    return out


def addmm(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002 - PyTorch's name
    """beta * input + alpha * (mat1 @ mat2): a linear layer's bias plus product."""
    product = matmul(mat1, mat2)
    if alpha != 1:
        product = product * alpha
    return product + (as_tensor(input, product) * beta if beta != 1 else as_tensor(input, product))
