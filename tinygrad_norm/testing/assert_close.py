"""`torch.testing.assert_close`: are two tensors (or numbers, or lists / dicts of them) equal
to a tolerance that depends on their dtype? Course code checks a hand-written backward with it.

|actual - expected| <= atol + rtol * |expected|, elementwise, with PyTorch's defaults:

    float16  rtol 1e-3    atol 1e-5
    float32  rtol 1.3e-6  atol 1e-5
    float64  rtol 1e-7    atol 1e-7    (complex64, complex128: as float32, float64)
    integers and bool: equal

>>> import tinygrad_norm as tg
>>> assert_close(tg.tensor([1.0, 2.0]), tg.tensor([1.0, 2.0000001]))
"""

from __future__ import annotations

import numpy as np

DEFAULT_TOLERANCES = {  # dtype name: (rtol, atol), PyTorch's
    "float16": (1e-3, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
    "complex64": (1.3e-6, 1e-5),
    "complex128": (1e-7, 1e-7),
}


def _as_array(x) -> np.ndarray:
    return np.asarray(x.detach().numpy() if hasattr(x, "detach") else x)


def assert_close(
    actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
    check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None,
):  # fmt: skip
    """Raise AssertionError (naming the worst element) unless `actual` is close to `expected`."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or actual.keys() != expected.keys():
            raise AssertionError(msg or f"The keys differ: {list(actual)} != {list(expected)}")
        for key in expected:
            assert_close(actual[key], expected[key], rtol=rtol, atol=atol, equal_nan=equal_nan,
                         check_dtype=check_dtype, msg=msg)  # fmt: skip
        return
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
            raise AssertionError(msg or "The sequences have different lengths")
        for a, e in zip(actual, expected):
            assert_close(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan,
                         check_dtype=check_dtype, msg=msg)  # fmt: skip
        return
    if (rtol is None) != (atol is None):
        raise ValueError("assert_close: pass both rtol and atol, or neither (for the defaults)")
    a, e = _as_array(actual), _as_array(expected)
    if a.shape != e.shape:
        raise AssertionError(msg or f"The values for attribute 'shape' do not match: "
                             f"{a.shape} != {e.shape}.")  # fmt: skip
    if check_dtype and hasattr(expected, "dtype") and a.dtype != e.dtype:
        raise AssertionError(msg or f"The values for attribute 'dtype' do not match: "
                             f"{actual.dtype} != {expected.dtype}.")  # fmt: skip
    if rtol is None:
        rtol, atol = DEFAULT_TOLERANCES.get(np.result_type(a, e).name, (0.0, 0.0))
    close = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if close.all():
        return
    a64, e64 = a.astype(np.float64), e.astype(np.float64)
    difference = np.abs(a64 - e64)
    relative = difference / np.abs(e64)
    worst = np.unravel_index(np.argmax(np.where(close, -np.inf, difference)), a.shape)
    raise AssertionError(
        msg
        or f"Tensor-likes are not close!\n\nMismatched elements: {(~close).sum()} / {close.size} "
        f"({100 * (~close).mean():.1f}%)\nGreatest absolute difference: {difference.max()} at "
        f"index {tuple(int(i) for i in worst)} (up to {atol} allowed)\nGreatest relative "
        f"difference: {np.nanmax(relative)} (up to {rtol} allowed)"
    )
