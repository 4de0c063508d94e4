"""`torch.jit` with nothing to compile: tinygrad_norm runs Python operations one by one, so
`torch.jit.script(model)` and `torch.jit.trace(fn, example_inputs)` give back the module or
function itself (PyTorch would return a compiled copy that computes the same numbers), and the
decorators (`@torch.jit.ignore`, `@torch.jit.unused`, `@torch.jit.export`) leave functions as
they are. Saving a compiled program (`torch.jit.save`) has no meaning here and is not offered.
"""

from __future__ import annotations

__all__ = ["export", "ignore", "is_scripting", "is_tracing", "script", "trace", "unused"]


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """The module or function itself: there is nothing to compile."""
    return obj


def trace(func, example_inputs=None, *args, **kwargs):
    """The module or function itself: nothing is recorded or compiled."""
    return func


def _as_is(fn=None, **options):
    if fn is None:  # used as @torch.jit.ignore(drop=True)
        return lambda f: f
    return fn


ignore = unused = export = _as_is


def is_scripting() -> bool:
    return False


def is_tracing() -> bool:
    return False
