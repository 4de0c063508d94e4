"""`tg.detect_anomaly()`: find the op whose backward produced a NaN or an infinity.

A NaN in a gradient spreads to everything computed from it, so by the time a learner sees it
in `.grad` its origin is lost. Inside `with tg.detect_anomaly():` two things happen:

1. forward: every node remembers the line of the learner's code that created it;
2. backward: every gradient a node sends is checked, and the first non-finite one stops the
   pass with an error naming the node and that line.

Both cost time, so they are off unless asked for.

>>> import numpy as np
>>> import tinygrad_norm as tg
>>> x = tg.tensor([0.0, 1.0], requires_grad=True)
>>> with tg.detect_anomaly(), np.errstate(divide="ignore"):  # NumPy would warn of the 1 / 0
...     y = x.sqrt().sum()       # d sqrt(x)/dx = 1 / (2 sqrt(x)) is infinite at 0
...     y.backward()             # doctest: +ELLIPSIS
Traceback (most recent call last):
  ...
RuntimeError: detect_anomaly: SqrtBackward returned inf in its gradient for input 0 ...
"""

from __future__ import annotations

import functools
import os
import threading
import traceback

import numpy as np


class _State(threading.local):
    # NOTE: a class default, so a thread that never switched anomaly mode reads False
    # directly; getattr(local, "enabled", False) pays for a caught AttributeError each time.
    enabled = False
    check_nan = True
    check_inf = True


_state = _State()
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def is_anomaly_enabled() -> bool:
    return _state.enabled


class detect_anomaly:  # noqa: N801 (PyTorch's name: used as `with` and as a decorator)
    """Record where each op was created and stop at the first NaN or inf made in backward
    (`check_nan=False`: record only). A context manager and a decorator."""

    catches_inf = True  # tg.detect_anomaly: an infinity too; PyTorch's stops at NaN only

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan

    def __enter__(self):
        self.previous = _switch(True, self.check_nan, self.catches_inf)
        return self

    def __exit__(self, *exc_info) -> None:
        _switch(*self.previous)

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with type(self)(self.check_nan):
                return fn(*args, **kwargs)

        return wrapper


class torch_detect_anomaly(detect_anomaly):  # noqa: N801
    """`torch.autograd.detect_anomaly`: as PyTorch's, it stops at a NaN (an infinity passes)."""

    catches_inf = False


class set_detect_anomaly:  # noqa: N801 (PyTorch's name)
    """`torch.autograd.set_detect_anomaly(True)` turns anomaly mode on now (a function call);
    used with `with`, the previous mode comes back at the end. Stops at NaN, as PyTorch's."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self.previous = _switch(bool(mode), check_nan, False)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        _switch(*self.previous)


def _switch(enabled: bool, check_nan: bool, check_inf: bool) -> tuple:
    """Set the mode; return the one it replaces."""
    previous = (_state.enabled, _state.check_nan, _state.check_inf)
    _state.enabled, _state.check_nan, _state.check_inf = enabled, check_nan, check_inf
    return previous


def is_anomaly_check_nan_enabled() -> bool:
    return _state.check_nan


def creation_site() -> str:
    """The innermost line of the stack outside tinygrad_norm: where the learner called the op."""
    for frame in reversed(traceback.extract_stack()[:-1]):
        if not os.path.abspath(frame.filename).startswith(_PACKAGE_DIR):
            return (
                f'File "{frame.filename}", line {frame.lineno}, in {frame.name}\n    {frame.line}'
            )
    return "(created inside tinygrad_norm)"


def check_gradients(node, grad_inputs) -> None:
    """Raise if any gradient `node` just sent contains a NaN or an infinity."""
    if not _state.check_nan:
        return
    for i, grad in enumerate(grad_inputs):
        if grad is None or grad.array.dtype.kind not in "fc" or np.isfinite(grad.array).all():
            continue
        bad = "nan" if np.isnan(grad.array).any() else "inf"
        if bad == "inf" and not _state.check_inf:
            continue
        raise RuntimeError(
            f"detect_anomaly: {node.name} returned {bad} in its gradient for input {i} "
            f"(shape {grad.array.shape}). The op was created here in the forward pass:\n"
            f"  {getattr(node, 'creation_site', '(unknown: created outside detect_anomaly)')}\n"
            f"Its rule: {node.formula or '(no formula)'}"
        )
