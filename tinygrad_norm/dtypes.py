"""Data types: NumPy's own dtypes under PyTorch's names, and the default floating dtype."""

import numpy as np

float16 = np.dtype(np.float16)
float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
bool = np.dtype(np.bool_)  # noqa: A001 - PyTorch's name, as tg.bool
half, float, double, long = float16, float32, float64, int64  # noqa: A001

_default = {"float": float32}


def set_default_dtype(dtype) -> None:
    """Make Python floats become `dtype` (float32 or float64) when a tensor is created."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"set_default_dtype: the default dtype must be floating, got {dtype}")
    _default["float"] = dtype


def get_default_dtype() -> np.dtype:
    """The dtype Python floats become: float32 unless `set_default_dtype` changed it."""
    return _default["float"]


def is_floating(dtype) -> bool:
    return np.dtype(dtype).kind == "f"
