"""Python data to NumPy arrays, with PyTorch's dtype rules: what `tg.tensor(data)` holds.

Python floats (and lists of them) become the default dtype (float32); Python ints become int64;
bools stay bool; NumPy arrays and Tensors keep their dtype; `dtype=` overrides all of this.
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .autograd.engine import GraphTensor


def to_array(data, dtype) -> np.ndarray:
    """The array a new Tensor holds, following the dtype rules (copied, never shared)."""
    if isinstance(data, GraphTensor):
        array = np.array(data.data)
    elif isinstance(data, np.ndarray):
        array = np.array(data)
    else:
        try:
            array = np.array(_unwrap(data))
        except ValueError:  # NumPy refuses ragged lists such as [[1, 2], [3]]
            raise _bad_data(data) from None
        if array.dtype == np.float64 and dtype is None and not _has_typed_leaf(data):
            array = array.astype(dtypes.get_default_dtype())  # not when dtype= says otherwise
        elif array.dtype.kind in "iuO" and not _has_typed_leaf(data):
            array = _as_int64(data, array)
    if array.dtype.kind not in "biufc":  # objects, strings, dates
        raise _bad_data(data, array.dtype)
    return array if dtype is None else array.astype(numeric_dtype(dtype))


def _as_int64(data, array: np.ndarray) -> np.ndarray:
    """Python integers as int64; one that does not fit is an error, never a wrapped number."""
    big = array.dtype == np.uint64 and (array > np.iinfo(np.int64).max).any()
    if big or array.dtype == object and all(isinstance(v, int) for v in array.flat):
        raise ValueError(
            f"Tensor: overflow: {data!r} holds an integer outside int64's range "
            f"[{np.iinfo(np.int64).min}, {np.iinfo(np.int64).max}] (PyTorch: 'Overflow when "
            "unpacking long long'); use a float (dtype=tg.float64) for numbers this large"
        )
    return array if array.dtype == object else array.astype(np.int64)


def numeric_dtype(dtype) -> np.dtype:
    """`dtype=` as a NumPy dtype of numbers (a string or object dtype is refused)."""
    try:
        numeric = np.dtype(dtype)
    except TypeError:
        if isinstance(dtype, dtypes.dtype):  # bfloat16: its own message says why
            raise
        numeric = None
    if numeric is None or numeric.kind not in "biufc":
        raise TypeError(
            f"Tensor: dtype must be a numeric data type such as tg.float32, tg.float64, "
            f"tg.int64 or tg.bool, got {getattr(dtype, '__name__', dtype)!r}"
        )
    return numeric


def _bad_data(data, dtype=None) -> TypeError:
    of = "" if dtype is None else f" of dtype {dtype}"
    return TypeError(
        f"Tensor: cannot make a tensor from {type(data).__name__} data{of}; give a "
        "number, a nested list of numbers of equal lengths, or an np.ndarray of numbers"
    )


def _unwrap(data):
    """Nested lists may hold Tensors (e.g. `tg.tensor([t0, t1])`): use their arrays."""
    if isinstance(data, GraphTensor):
        return data.data
    if isinstance(data, (list, tuple)):
        return [_unwrap(d) for d in data]
    return data


def _has_typed_leaf(data) -> bool:
    """Does nested `data` start with a Tensor or NumPy value (whose dtype should be kept)?"""
    while isinstance(data, (list, tuple)) and data:
        data = data[0]
    return isinstance(data, (GraphTensor, np.ndarray, np.generic))
