"""`torch.serialization`: `save` and `load` (tinygrad_norm.io's), and the list of classes a
file may rebuild when it is loaded (`add_safe_globals`, `safe_globals`, `get_safe_globals`,
`clear_safe_globals`), kept as PyTorch keeps it."""

from __future__ import annotations

from ..io import load, save

__all__ = [
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "load",
    "safe_globals",
    "save",
]

_SAFE = []


def add_safe_globals(safe_globals: list) -> None:
    """Allow these classes (or functions) to be rebuilt when a file is loaded."""
    _SAFE.extend(g for g in safe_globals if g not in _SAFE)


def get_safe_globals() -> list:
    return list(_SAFE)


def clear_safe_globals() -> None:
    _SAFE.clear()


class safe_globals:  # noqa: N801 - PyTorch's name
    """`with torch.serialization.safe_globals([MyModel]):` allows them inside the block only."""

    def __init__(self, safe_globals: list):
        self.safe_globals = list(safe_globals)

    def __enter__(self):
        self._before = list(_SAFE)
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc_info):
        _SAFE[:] = self._before
        return False
