"""Python data to NumPy arrays, with PyTorch's dtype rules: what `tg.tensor(data)` holds.

Python floats (and lists of them) become the default dtype (float32); Python ints become int64;
bools stay bool; NumPy arrays and Tensors keep their dtype; `dtype=` overrides all of this.
"""

from __future__ import annotations

import math

import numpy as np

from . import dtypes
from .autograd.node import GraphTensor


def to_array(data, dtype) -> np.ndarray:
    """The array a new Tensor holds, following the dtype rules (copied, never shared)."""
    if isinstance(data, GraphTensor):
        array = np.array(data.array)
    elif isinstance(data, np.ndarray):
        array = np.array(data)
    else:
        values = _unwrap(data)
        try:
            array = np.array(values)
        except ValueError:  # NumPy refuses ragged lists such as [[1, 2], [3]]
            raise RaggedError(
                f"Tensor: cannot make a tensor from list data {str(data)[:60]}: its nested lists "
                "have different lengths; give a nested list of numbers of equal lengths (every "
                "row as long as the others)"
            ) from None
        if _may_hold_big_ints(array) and _int_beyond_int64(values):
            if dtype is None or np.dtype(dtype).kind not in "fc":
                raise ValueError(
                    f"Tensor: overflow: {data!r:.60} holds an integer outside int64's range "
                    f"[{np.iinfo(np.int64).min}, {np.iinfo(np.int64).max}] (PyTorch: 'Overflow "
                    "when unpacking long long'); give dtype=tg.float64 for numbers this large"
                )
            array = np.array(values, dtype=np.float64)
        typed = _has_typed_leaf(data)
        if typed and dtype is None and isinstance(data, (list, tuple)):
            array = array.astype(_inferred_dtype(data))  # [tensor(1), 2.5] is float32
        elif array.dtype == np.float64 and dtype is None and not typed:
            array = array.astype(dtypes.get_default_dtype())  # not when dtype= says otherwise
        elif array.dtype.kind in "iu" and not typed:
            array = array.astype(np.int64)
        target = None if dtype is None else dtypes.numeric_dtype(dtype)
        if target is not None and target.kind in "iu" and array.size and array.dtype.kind in "iuf":
            for extreme in (array.min(), array.max()):  # 300 into uint8: PyTorch's RuntimeError
                number_as("tensor", extreme.item(), target)
    if array.dtype.kind not in "biufc":  # objects, strings, dates
        raise _bad_data(data, array.dtype)
    return array if dtype is None else array.astype(dtypes.numeric_dtype(dtype))


class RaggedError(TypeError, ValueError):
    """Nested lists of unequal lengths: a ValueError, as PyTorch's (and a TypeError)."""


def _int_beyond_int64(values) -> bool:
    """Does nested Python data hold an int that int64 cannot (which NumPy would wrap, or turn
    into a float or an object)?"""
    if isinstance(values, (list, tuple)):
        return any(_int_beyond_int64(v) for v in values)
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    return isinstance(values, int) and not isinstance(values, bool) and not lo <= values <= hi


def _may_hold_big_ints(array: np.ndarray) -> bool:
    """What NumPy makes of an int beyond int64: uint64, an object array, or float64."""
    if array.dtype.kind in "uO":
        return True
    return array.dtype.kind == "f" and array.size > 0 and np.abs(array).max() >= 2.0**63


def _bad_data(data, dtype=None) -> TypeError:
    of = "" if dtype is None else f" of dtype {dtype}"
    return TypeError(
        f"Tensor: cannot make a tensor from {type(data).__name__} data{of}; give a "
        "number, a nested list of numbers of equal lengths, or an np.ndarray of numbers"
    )


def _unwrap(data):
    """Nested lists may hold Tensors (e.g. `tg.tensor([t0, t1])`): use their arrays."""
    if isinstance(data, GraphTensor):
        return data.array
    if isinstance(data, (list, tuple)):
        return [_unwrap(d) for d in data]
    return data


def _inferred_dtype(data) -> np.dtype:
    """The dtype PyTorch infers for nested data holding Tensors: every element's dtype (a
    Tensor's or NumPy value's own, int64 for an int, the default for a float) promoted
    together, as `torch.tensor` does."""
    if isinstance(data, (list, tuple)):
        found = [_inferred_dtype(d) for d in data]
        out = found[0] if found else np.dtype(dtypes.get_default_dtype())
        for d in found[1:]:
            out = dtypes.promote_types(out, d)
        return out
    if isinstance(data, (GraphTensor, np.ndarray, np.generic)):
        return np.asarray(getattr(data, "array", data)).dtype
    if isinstance(data, bool):
        return np.dtype(np.bool_)
    if isinstance(data, int):
        return np.dtype(np.int64)
    return np.dtype(dtypes.get_default_dtype())


def _has_typed_leaf(data) -> bool:
    """Does nested `data` start with a Tensor or NumPy value (whose dtype should be kept)?"""
    while isinstance(data, (list, tuple)) and data:
        data = data[0]
    return isinstance(data, (GraphTensor, np.ndarray, np.generic))


_FLOAT_MAX = {np.dtype(t): float(np.finfo(t).max) for t in (np.float16, np.float32, np.float64)}


def number_as(op: str, value, dtype: np.dtype) -> np.ndarray:
    """A Python number as a 0-d array of `dtype`, checked as PyTorch converts a fill value
    (`full`, `full_like`, `fill_`, `masked_fill`): a float is truncated toward zero for an
    integer dtype, a negative int wraps into an unsigned dtype (-1 is 255 in uint8, down to
    -255), and a value out of range is an error, never a silent wrap or inf.

    >>> number_as("full", -1, np.dtype(np.uint8)), number_as("full", 2.7, np.dtype(np.int64))
    (array(255, dtype=uint8), array(2))
    """
    if not isinstance(value, (bool, int, float, complex, np.number, np.bool_)):
        raise TypeError(f"{op}: the value must be a number, got {type(value).__name__} {value!r}")
    if dtype.kind in "iu" and not isinstance(value, (bool, np.bool_)):
        info = np.iinfo(dtype)
        if isinstance(value, (float, np.floating)):
            fits = info.min <= value <= info.max  # NaN and inf fit nowhere
            value = int(value) if fits else value
        else:
            value = int(value)
            fits = info.min <= value <= info.max
            if not fits and info.min == 0 and -info.max <= value < 0:
                value, fits = value % (info.max + 1), True  # two's complement, as PyTorch
        if not fits:
            raise _overflow(op, value, dtype, f"[{info.min}, {info.max}]")
    elif dtype.kind == "f" and isinstance(value, (int, float, np.number)):
        biggest = _FLOAT_MAX.get(dtype, math.inf)
        if biggest < abs(float(value)) < math.inf:  # inf and NaN go in as they are
            raise _overflow(op, value, dtype, f"[{-biggest:.6g}, {biggest:.6g}] and +-inf")
    return np.asarray(value, dtype=dtype)


def _overflow(op: str, value, dtype: np.dtype, limits: str) -> RuntimeError:
    return RuntimeError(
        f"{op}: value {value!r} cannot be converted to {dtype} without overflow: {dtype} holds "
        f"{limits}; use a value in that range, or a wider dtype"
    )
