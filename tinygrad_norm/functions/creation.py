"""Functions that make new tensors: zeros, ones, full, randn, arange, eye, ...

Sizes come as varargs or one tuple, as in PyTorch: `tg.zeros(2, 3)`, `tg.zeros((2, 3))`,
`tg.zeros(size=(2, 3))`. Floating results take the default dtype (float32) unless `dtype=`.
Every function takes `device=` ("cpu", the one device; see `devices.py`); the random ones
take `generator=` (a `tg.Generator`; the global generator when omitted).
"""

import numpy as np

from .. import dtypes
from ..broadcast import ShapeError
from ..convert import number_as
from ..devices import check as check_device
from ..ops.shape import integer_sizes
from ..random import resolve, transforms
from ..tensor import Tensor


def _shape(op: str, sizes: tuple, size) -> tuple:
    """`(2, 3)` from `zeros(2, 3)`, `zeros((2, 3))` or `zeros(size=(2, 3))`."""
    if size is not None:
        sizes = (size,)
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    if all(type(n) is int and n >= 0 for n in sizes):  # the common case, checked quickly
        return sizes
    shape = integer_sizes(op, sizes)
    if any(n < 0 for n in shape):
        raise ShapeError(f"{op}: size {shape} has a negative dimension; sizes must be >= 0")
    return shape


def _new(array: np.ndarray, dtype, requires_grad: bool) -> Tensor:
    t = Tensor._make(array if dtype is None else array.astype(dtype, copy=False))
    return t.requires_grad_(True) if requires_grad else t


def _float(dtype, op: str | None = None):
    """`dtype` as a NumPy dtype (the default dtype for None); `op` is named in the error for a
    dtype NumPy lacks (bfloat16)."""
    if dtype is None:
        return dtypes.get_default_dtype()
    return np.dtype(dtype) if op is None else dtypes.for_op(op, dtype)


def floating_dtype(op: str, dtype, kinds: str = "f") -> np.dtype:
    """`dtype` (default: the default float) for an op that makes real numbers; another kind is
    PyTorch's NotImplementedError (it has no such kernel), not values silently cast."""
    out = _float(dtype, op)
    if out.kind not in kinds:
        need = "a floating dtype" if kinds == "f" else "a number dtype, not bool"
        raise NotImplementedError(
            f"{op}: needs {need}, got {out} (PyTorch has no {out} kernel for it); make numbers "
            "and convert them, e.g. .long() or .bool()" + (", or use tg.randint" * (kinds == "f"))
        )
    return out


def tensor(data, requires_grad=False, dtype=None, name=None, *, device=None) -> Tensor:
    """The same as `Tensor(...)`: a new tensor holding a copy of `data`."""
    check_device("tensor", device)
    return Tensor(data, requires_grad=requires_grad, dtype=dtype, name=name)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """`data` as a Tensor, copying only when it must (PyTorch's `torch.as_tensor`): a Tensor is
    returned as it is (cast if `dtype` differs), a NumPy array shares its memory, anything else
    (numbers, lists) becomes a new tensor as `tg.tensor` makes it."""
    if isinstance(data, Tensor) and dtype is None and device is None:
        return data  # NOTE: the common case first, before any check (ops call this a lot)
    check_device("as_tensor", device)
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype == np.dtype(dtype) else data.to(dtype)
    if isinstance(data, np.ndarray) and data.dtype.kind in "biuf" and dtype is None:
        return Tensor._make(data)
    return Tensor(data, dtype=dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor that shares memory with `array`: writing one changes the other."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy: expected an np.ndarray, got {type(array).__name__}")
    return Tensor._make(array)


def zeros(*sizes, size=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    check_device("zeros", device)
    return _new(np.zeros(_shape("zeros", sizes, size), _float(dtype)), None, requires_grad)


def ones(*sizes, size=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    check_device("ones", device)
    return _new(np.ones(_shape("ones", sizes, size), _float(dtype)), None, requires_grad)


def empty(*sizes, size=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Uninitialised (here: zero-filled) memory of the given size, to be filled in place."""
    return zeros(*sizes, size=size, dtype=dtype, device=device, requires_grad=requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad=False) -> Tensor:
    check_device("full", device)
    if dtype is None:
        dtype = _float(None) if isinstance(fill_value, float) else np.asarray(fill_value).dtype
        dtype = np.int64 if np.dtype(dtype).kind in "iuO" else dtype  # O: an int beyond int64
    if not isinstance(fill_value, (bool, int, float, complex, np.number, np.bool_, Tensor)):
        raise TypeError(
            f"full: fill_value must be a number (or a 0-d tensor), got "
            f"{type(fill_value).__name__} {fill_value!r}"
        )
    if not isinstance(fill_value, Tensor):  # -1 in uint8 is 255, 300 an error, as PyTorch
        fill_value = number_as("full", fill_value, np.dtype(dtype))
    return _new(np.full(_shape("full", (size,), None), fill_value, dtype), None, requires_grad)


def zeros_like(t, dtype=None, requires_grad=False, *, device=None, memory_format=None) -> Tensor:
    check_device("zeros_like", device)
    return _new(np.zeros_like(np.asarray(t)), dtype, requires_grad)


def ones_like(t, dtype=None, requires_grad=False, *, device=None, memory_format=None) -> Tensor:
    check_device("ones_like", device)
    return _new(np.ones_like(np.asarray(t)), dtype, requires_grad)


def full_like(
    t, fill_value, dtype=None, requires_grad=False, *, device=None, memory_format=None
) -> Tensor:
    """A tensor of t's shape and dtype (or `dtype`) filled with `fill_value`, which is
    converted as PyTorch does: `tg.full_like(uint8_tensor, -1)` holds 255."""
    check_device("full_like", device)
    like = np.asarray(t)
    dtype = like.dtype if dtype is None else np.dtype(dtype)
    if not isinstance(fill_value, Tensor):
        fill_value = number_as("full_like", fill_value, dtype)
    return _new(np.full(like.shape, fill_value, dtype), None, requires_grad)


def empty_like(t, dtype=None, requires_grad=False, *, device=None, memory_format=None) -> Tensor:
    return zeros_like(t, dtype, requires_grad, device=device)


def randn(*sizes, size=None, dtype=None, device=None, requires_grad=False, generator=None):
    """Samples of the standard normal distribution N(0, 1), from `generator` (or the global
    one)."""
    check_device("randn", device)
    gen, shape = resolve(generator, "randn"), _shape("randn", sizes, size)
    return _new(transforms.normal(gen, shape, floating_dtype("randn", dtype)), None, requires_grad)


def rand(*sizes, size=None, dtype=None, device=None, requires_grad=False, generator=None):
    """Samples of the uniform distribution on [0, 1), from `generator` (or the global one)."""
    check_device("rand", device)
    gen, shape = resolve(generator, "rand"), _shape("rand", sizes, size)
    return _new(transforms.uniform(gen, shape, floating_dtype("rand", dtype)), None, requires_grad)


def randint(
    low=0, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False
) -> Tensor:
    """Random integers in [low, high), int64 unless `dtype=`: `randint(high, size)` or
    `randint(low, high, size)`, as PyTorch.

    >>> import tinygrad_norm as tg
    >>> tg.randint(10, (2, 3)).shape, tg.randint(5, 10, size=(4,)).dtype
    (torch.Size([2, 3]), torch.int64)
    """
    check_device("randint", device)
    dtype = None if dtype is None else dtypes.for_op("randint", dtype)
    if size is None and isinstance(high, (tuple, list)):  # randint(high, size)
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if size is None:
        raise TypeError(
            "randint: give the size, e.g. tg.randint(10, (2, 3)) or tg.randint(0, 10, (2, 3))"
        )
    if int(low) >= int(high):
        raise RuntimeError(
            f"randint: expected low < high to draw from [low, high), got low={low}, high={high}"
        )
    shape = _shape("randint", (size,), None)
    values = transforms.integers(resolve(generator, "randint"), int(low), int(high), shape)
    return _new(values, dtype, requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Numbers from `start` up to (not including) `end`, `step` apart."""
    check_device("arange", device)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError(
            f"arange: step must be nonzero, got step={step} (from {start} to {end}); "
            "give a positive step to count up or a negative one to count down"
        )
    if (end - start) * step < 0:
        raise RuntimeError(
            f"arange: upper bound and larger bound inconsistent with step sign: from {start} to "
            f"{end} with step {step} never arrives; swap the bounds, or give step="
            f"{-step} to count {'down' if step > 0 else 'up'}"
        )
    values = np.arange(start, end, step)
    if dtype is not None:
        floating_dtype("arange", dtype, kinds="uif")  # bool: PyTorch's NotImplementedError
    if dtype is None:
        dtype = np.int64 if values.dtype.kind in "iu" else dtypes.get_default_dtype()
    return _new(values, dtype, requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    check_device("linspace", device)
    if int(steps) < 0:
        raise RuntimeError(f"linspace: number of steps must be non-negative, got steps={steps}")
    dtype = floating_dtype("linspace", dtype, kinds="uif")  # bool: PyTorch's NotImplementedError
    return _new(np.linspace(start, end, int(steps)), dtype, requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    check_device("eye", device)
    if n < 0 or m is not None and m < 0:
        raise RuntimeError(f"eye: n and m must be >= 0, got n={n}, m={m}")
    return _new(np.eye(n, m), _float(dtype), requires_grad)


# giagrad's style, `Tensor.empty(2, 3).uniform()`: the same functions, reached from the class.
Tensor.empty, Tensor.zeros = staticmethod(empty), staticmethod(zeros)
Tensor.ones, Tensor.randn = staticmethod(ones), staticmethod(randn)
