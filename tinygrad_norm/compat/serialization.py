"""`torch.serialization`: `save` and `load` (tinygrad_norm.io's), and the list of classes and
functions a file may rebuild when it is loaded (`add_safe_globals`, `safe_globals`,
`get_safe_globals`, `clear_safe_globals`), kept as PyTorch keeps it.

The list itself is `tinygrad_norm.io.object_reader.SAFE_GLOBALS` (the loader reads it there).
Unlike PyTorch, it is the only way to rebuild a class of your own: `weights_only=False` does
not let a file name anything else (tinygrad_norm never imports or calls what a file names).

>>> import tinygrad_norm as tg
>>> class Net(tg.nn.Module):
...     pass
>>> with safe_globals([Net]):
...     Net in get_safe_globals()
True
>>> Net in get_safe_globals()
False
"""

from __future__ import annotations

from ..io import load, save
from ..io.object_reader import SAFE_GLOBALS

__all__ = [
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "load",
    "safe_globals",
    "save",
]


def add_safe_globals(safe_globals: list) -> None:
    """Allow these classes or functions (or `(object, "module.name")` pairs) to be rebuilt
    when a file is loaded."""
    SAFE_GLOBALS.extend(g for g in safe_globals if g not in SAFE_GLOBALS)


def get_safe_globals() -> list:
    return list(SAFE_GLOBALS)


def clear_safe_globals() -> None:
    SAFE_GLOBALS.clear()


class safe_globals:  # noqa: N801 - PyTorch's name
    """`with torch.serialization.safe_globals([MyModel]):` allows them inside the block only."""

    def __init__(self, safe_globals: list):
        self.safe_globals = list(safe_globals)

    def __enter__(self):
        self._before = list(SAFE_GLOBALS)
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc_info):
        SAFE_GLOBALS[:] = self._before
        return False
