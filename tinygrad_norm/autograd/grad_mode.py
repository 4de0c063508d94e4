"""Whether operations are recorded for backward: `no_grad`, `enable_grad`, per thread.

Inside `with tg.no_grad():` operations run on plain arrays and build no graph: no node is
made, nothing is saved for backward, and results never require grad. This is what an
optimizer step, an evaluation loop or a backward without `create_graph` wants.

The flag lives in a `threading.local`, so one thread evaluating under `no_grad` never
switches recording off for another thread that is training.
"""

import functools
import threading


class _State(threading.local):
    enabled = True  # each thread starts recording (a class default: no getattr fallback)


_state = _State()


def is_grad_enabled() -> bool:
    """True when operations on tensors that require grad are recorded (the default)."""
    return _state.enabled


def _set_enabled(enabled: bool) -> None:
    _state.enabled = enabled


class set_grad_enabled:
    """Turn recording on or off inside a `with` block (or a decorated function).

    >>> import tinygrad_norm as tg
    >>> x = tg.ones(2, requires_grad=True)
    >>> with tg.set_grad_enabled(False):
    ...     (x * 2).requires_grad
    False
    """

    def __init__(self, mode: bool = True):
        self.mode = bool(mode)

    def __enter__(self):
        self._previous = is_grad_enabled()
        _set_enabled(self.mode)
        return self

    def __exit__(self, *exc_info):
        _set_enabled(self._previous)
        return False

    def __call__(self, fn):
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)

        return wrapper


class no_grad(set_grad_enabled):
    """Run without recording: `with tg.no_grad(): ...` or `@tg.no_grad()` on a function."""

    def __init__(self):
        super().__init__(False)


class enable_grad(set_grad_enabled):
    """Record again inside a `no_grad` block: `with tg.enable_grad(): ...`."""

    def __init__(self):
        super().__init__(True)


class inference_mode(set_grad_enabled):
    """PyTorch's faster `no_grad` for evaluation: `with tg.inference_mode():` or
    `@tg.inference_mode()`. Here it is `no_grad` (`inference_mode(False)` records as usual)."""

    def __new__(cls, mode=True):
        if callable(mode):  # `@tg.inference_mode` without parentheses, as PyTorch allows
            return cls(True)(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True):
        super().__init__(not mode)
