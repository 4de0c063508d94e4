"""How NumPy meets a Tensor: `np.asarray(t)`, DLPack, and NumPy ufuncs called on Tensors.

One rule for a ufunc such as `np.exp(t)`, `np.maximum(t, 0)` or `array + t`:

1. If Tensor has the operation (`np.exp` is `Tensor.exp`, `np.add` is `+`, `np.maximum` is
   `Tensor.maximum`), the ufunc calls it: the result is a Tensor, recorded for backward exactly
   as the method's would be.
2. Otherwise, if an input requires grad (and grad mode is on), a TypeError: NumPy would return
   a bare array, cut from the graph. The message names the ufunc and what to do instead.
3. Otherwise NumPy computes it on the arrays, and the result comes back as a Tensor.

NumPy functions that are not ufuncs (`np.sum(t)`, `np.concatenate([t, u])`, `np.where(...)`)
follow the same rule where it can: NumPy computes on the arrays, a result array comes back as
a Tensor, and a floating result from a tensor that requires grad is a TypeError (it would be
cut from the graph) that names the function; a bool or integer result (`np.allclose`,
`np.argmax`, `np.shape`) carries no gradient and is simply returned.

`out=` writes NumPy's result into arrays in place (`np.multiply(a, t, out=a)`); a Tensor in
`out` that requires grad is refused while grad mode is on, as any in-place change of it is.

>>> import numpy as np
>>> import tinygrad_norm as tg
>>> x = tg.tensor([1.0, -2.0], requires_grad=True)
>>> np.maximum(x, 0)
tensor([1., 0.], grad_fn=<MaximumBackward>)
>>> np.cbrt(x)  # doctest: +ELLIPSIS
Traceback (most recent call last):
  ...
TypeError: np.cbrt on a tensor that requires grad would return an array cut from the graph; ...
"""

from __future__ import annotations

import operator

import numpy as np

from ..autograd.grad_mode import is_grad_enabled
from ..autograd.node import GraphTensor
from ..ops import composite as C

# The ufuncs whose Tensor operation has another name; the rest match by name (np.exp: exp).
_TENSOR_OP = {
    "add": operator.add,
    "subtract": operator.sub,
    "multiply": operator.mul,
    "true_divide": operator.truediv,
    "divide": operator.truediv,
    "power": operator.pow,
    "matmul": operator.matmul,
    "negative": operator.neg,
    "absolute": operator.abs,
    "less": operator.lt,
    "less_equal": operator.le,
    "greater": operator.gt,
    "greater_equal": operator.ge,
    "equal": operator.eq,
    "not_equal": operator.ne,
    "invert": operator.invert,
    "bitwise_and": operator.and_,
    "bitwise_or": operator.or_,
}


class NumpyInterop:
    __slots__ = ()

    def numpy(self) -> np.ndarray:
        """The array itself (shared memory, no copy)."""
        return self.array

    def __array__(self, dtype=None, copy=None):
        return self.array if dtype is None else self.array.astype(dtype, copy=False)

    def __dlpack__(self, *args, **kwargs):
        return self.array.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        tensors = [x for x in inputs if isinstance(x, GraphTensor)]
        op = _TENSOR_OP.get(ufunc.__name__) or getattr(type(self), ufunc.__name__, None)
        if method == "__call__" and out is None and not kwargs and op is not None:
            return op(*(C.as_tensor(x, tensors[0]) for x in inputs))
        name = f"np.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
        recording = is_grad_enabled()
        outs = out if out is not None else ()
        if recording and any(isinstance(o, GraphTensor) and o.requires_grad for o in outs):
            raise RuntimeError(
                f"{name}(out=...): writing into a tensor that requires grad is not recorded; "
                "write inside `with tg.no_grad():`"
            )
        if recording and any(t.requires_grad for t in tensors):
            missing = "" if op else f"tinygrad_norm has no Tensor.{ufunc.__name__}: "
            raise TypeError(
                f"{name} on a tensor that requires grad would return an array cut from the "
                f"graph; {missing}compute it with Tensor operations, or use "
                f"{name}(x.detach()) for a constant"
            )
        if out is not None:
            kwargs["out"] = _arrays_in(out)
        result = getattr(ufunc, method)(*_arrays_in(inputs), **kwargs)
        if out is not None:
            for o in out:
                if isinstance(o, GraphTensor):
                    o._bump_version()  # an in-place change, as any other
            return out[0] if len(out) == 1 else out
        wrap = tensors[0]._make
        if isinstance(result, tuple):
            return tuple(wrap(np.asarray(r)) for r in result)
        return None if result is None else wrap(np.asarray(result))

    def __array_function__(self, func, types, args, kwargs):
        result = func(*_arrays_in(args), **_arrays_in(kwargs))
        name = f"np.{func.__name__}"
        if is_grad_enabled() and _floating(result) and _requires_grad(args, kwargs):
            raise TypeError(
                f"{name} on a tensor that requires grad would return an array cut from the "
                "graph; use the tinygrad_norm function or Tensor method (tg.cat for "
                "np.concatenate, x.sum(dim=...) for np.sum, ...), or "
                f"{name}(x.detach()) for a constant"
            )
        if isinstance(result, np.ndarray):
            return self._make(result)
        return result


def _arrays_in(value):
    """`value` with every Tensor inside lists, tuples and dicts replaced by its array."""
    if isinstance(value, GraphTensor):
        return value.array
    if isinstance(value, (list, tuple)):
        return type(value)(_arrays_in(v) for v in value)
    if isinstance(value, dict):
        return {k: _arrays_in(v) for k, v in value.items()}
    return value


def _requires_grad(*values) -> bool:
    for value in values:
        if isinstance(value, GraphTensor) and value.requires_grad:
            return True
        if isinstance(value, (list, tuple)) and _requires_grad(*value):
            return True
        if isinstance(value, dict) and _requires_grad(*value.values()):
            return True
    return False


def _floating(result) -> bool:
    if isinstance(result, (list, tuple)):
        return any(_floating(r) for r in result)
    number = isinstance(result, (np.ndarray, np.generic, float, complex))
    return number and np.asarray(result).dtype.kind in "fc"
