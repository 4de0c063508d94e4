"""Running one case on two libraries and comparing what came out: the adversarial probes of
PyTorch's semantics (tests/oracle/test_semantics_probe*.py) use these.

A case is `fn(lib)` with `lib` tinygrad_norm or torch. `outcome` turns its result into plain
values (tensors as dtype, shape and a NumPy array; containers item by item; an exception as the
names of its classes); `agrees` says whether ours is PyTorch's: equal integers and bools, floats
to 1e-5, and an exception whose classes include PyTorch's class.
"""

from __future__ import annotations

import warnings

import numpy as np


def _is_tensor(value) -> bool:
    return hasattr(value, "detach") and hasattr(value, "dtype") and hasattr(value, "shape")


def summary(value):
    """What is compared: tensors as ("tensor", dtype, shape, values), containers item by item."""
    if _is_tensor(value):
        array = value.detach().numpy()
        return ("tensor", str(value.dtype).replace("torch.", ""), tuple(value.shape), array)
    if isinstance(value, (tuple, list)):
        return tuple(summary(v) for v in value)
    return value


def outcome(fn, lib):
    """`summary(fn(lib))`, or ("error", [class names]) when it raises."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return summary(fn(lib))
    except Exception as error:  # noqa: BLE001 - the class is what is compared
        return ("error", [c.__name__ for c in type(error).__mro__])


def agrees(ours, theirs) -> bool:
    """Is our outcome PyTorch's (`theirs`)?"""
    if isinstance(theirs, tuple) and theirs and theirs[0] == "error":
        return isinstance(ours, tuple) and ours[:1] == ("error",) and theirs[1][0] in ours[1]
    if isinstance(theirs, tuple) and theirs and theirs[0] == "tensor":
        if not (isinstance(ours, tuple) and ours[:3] == theirs[:3]):
            return False
        a, b = ours[3], theirs[3]
        if a.dtype.kind in "biu":
            return np.array_equal(a, b)
        return np.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True)
    if isinstance(theirs, tuple):
        return (
            isinstance(ours, tuple)
            and len(ours) == len(theirs)
            and all(agrees(o, t) for o, t in zip(ours, theirs))
        )
    if isinstance(theirs, float) and isinstance(ours, float):
        return ours == theirs or (np.isnan(ours) and np.isnan(theirs))
    return ours == theirs
