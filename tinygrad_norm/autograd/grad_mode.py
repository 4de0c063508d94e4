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


class _GradMode:
    """Recording on (`mode=True`) or off inside a `with` block or a decorated function."""

    def __init__(self, mode: bool = True):
        self.mode = bool(mode)

    def __enter__(self):
        # NOTE: written out, not via the helpers: the backward loop enters one per node
        self._previous, _state.enabled = _state.enabled, self.mode
        return self

    def __exit__(self, exc_type, exc, traceback):
        _state.enabled = self._previous
        return False

    def __call__(self, fn):
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with _GradMode(mode):
                return fn(*args, **kwargs)

        return wrapper


class set_grad_enabled(_GradMode):
    """Turn recording on or off: from now on, or inside a `with` block, or a decorated function.

    As in PyTorch, the call itself sets the mode, so `tg.set_grad_enabled(False)` on its own
    line switches recording off until `tg.set_grad_enabled(True)`; `with` restores the mode
    it found at the end of the block, and as a decorator it changes nothing until called.

    >>> import tinygrad_norm as tg
    >>> x = tg.ones(2, requires_grad=True)
    >>> with tg.set_grad_enabled(False):
    ...     (x * 2).requires_grad
    False
    >>> _ = tg.set_grad_enabled(False)
    >>> (x * 2).requires_grad, tg.set_grad_enabled(True) and (x * 2).requires_grad
    (False, True)
    """

    def __init__(self, mode: bool = True):
        # NOTE: written out, not via super() and the helpers: the backward loop makes one of
        # these per node
        self.mode = bool(mode)
        self._previous, _state.enabled = _state.enabled, self.mode

    def __enter__(self):
        return self  # the mode is already set; __exit__ restores self._previous

    def __call__(self, fn):
        _set_enabled(self._previous)  # as a decorator: leave the mode as it was
        return super().__call__(fn)


class no_grad(_GradMode):
    """Run without recording: `with tg.no_grad(): ...` or `@tg.no_grad()` on a function."""

    def __init__(self):
        super().__init__(False)


class enable_grad(_GradMode):
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
