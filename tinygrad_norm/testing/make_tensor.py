"""`torch.testing.make_tensor`: a tensor of a given shape and dtype filled with random values,
drawn as PyTorch draws them (so the same seed gives PyTorch's tensor).

Values lie in [low, high): by default [-9, 9) for floating dtypes, [-9, 10) for signed
integers, [0, 10) for uint8, 0 or 1 for bool. `exclude_zero=True` replaces zeros by the
smallest positive value (1 for integers, the dtype's `tiny` for floats).

>>> import tinygrad_norm as tg
>>> t = make_tensor(2, 3, dtype=tg.float64, low=-1, high=1)
>>> t.shape, bool((t.abs() <= 1).all())
(torch.Size([2, 3]), True)
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..functions.creation import empty, randint


def make_tensor(
    *shape, dtype, device=None, low=None, high=None, requires_grad=False, noncontiguous=False,
    exclude_zero=False, memory_format=None,
):  # fmt: skip
    """A random tensor of `shape` and `dtype` with values in [low, high)."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    kind = dtypes.numeric_dtype(dtype).kind
    if kind == "b":
        result = randint(0, 2, shape, dtype=dtype)
    elif kind in "iu":
        low, high = _range(low, high, 0 if kind == "u" else -9, 10)
        result = randint(int(np.ceil(low)), int(np.ceil(high)), shape, dtype=dtype)
    elif kind in "fc":
        low, high = _range(low, high, -9, 9)
        result = empty(*shape, dtype=dtype)
        if low == high:
            result.fill_(low)
        else:
            result.uniform_(low, high)
    else:
        raise TypeError(f"make_tensor: the dtype {dtype} is not supported")
    if exclude_zero:
        tiny = 1 if kind in "iub" else float(np.finfo(result.array.dtype).tiny)
        result.array[result.array == 0] = tiny
    if requires_grad:
        result.requires_grad_(True)
    return result


def _range(low, high, default_low, default_high) -> tuple:
    low = default_low if low is None else low
    high = default_high if high is None else high
    if np.isnan(low) or np.isnan(high):
        raise ValueError(f"make_tensor: low and high must not be NaN, got low={low}, high={high}")
    if low > high:
        raise ValueError(f"make_tensor: low must be at most high, got low={low}, high={high}")
    return low, high
