"""`torch._dynamo` (PyTorch's compiler front end), with nothing to compile: its `config` takes
any setting course code makes (`torch._dynamo.config.suppress_errors = True`), `reset()` does
nothing, and `disable` / `optimize` give back the function."""

from __future__ import annotations

import sys
import types

__all__ = ["config", "disable", "optimize", "reset"]
__path__ = []  # a package: `import torch._dynamo.config` finds config in sys.modules

config = types.ModuleType(f"{__name__}.config", "Compiler settings, accepted and unused here.")
sys.modules[config.__name__] = config  # importable: `import torch._dynamo.config`
config.suppress_errors = False
config.cache_size_limit = 8
config.verbose = False


def reset() -> None:
    """Does nothing: there are no compiled functions to forget."""


def disable(fn=None, recursive=True):
    return fn if fn is not None else (lambda f: f)


def optimize(*args, **kwargs):
    return lambda f: f
