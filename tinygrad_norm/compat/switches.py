"""PyTorch's switches that mean nothing on a NumPy CPU framework, accepted so course code runs:
`torch.compile` (returns the model), `set_float32_matmul_precision`,
`use_deterministic_algorithms`, the default device (the CPU), and the thread settings (NumPy's
BLAS threads, which do mean something).

>>> import tinygrad_norm as tg
>>> tg.get_default_device(), tg.are_deterministic_algorithms_enabled()
(device(type='cpu'), True)
"""

from __future__ import annotations

import sys

from .. import utils
from ..devices import CPU
from ..devices import check as check_device

_noted = set()


def _note_once(key: str, text: str) -> None:
    """Print a note to stderr, once per process."""
    if key not in _noted:
        _noted.add(key)
        print(f"tinygrad_norm: {text}", file=sys.stderr)


def set_num_threads(n: int) -> None:
    """Set the threads NumPy's BLAS uses for matrix products (see `tg.utils.blas_threads`)."""
    if int(n) < 1:
        raise RuntimeError(f"set_num_threads: expected a positive number of threads, got {n}")
    utils.blas_threads(int(n))


def get_num_threads() -> int:
    """The threads NumPy's BLAS uses for matrix products."""
    return utils.blas_threads()


def compile(model=None, **options):  # noqa: A001 - PyTorch's name
    """Returns `model` unchanged: tinygrad_norm runs every op eagerly, in NumPy, with nothing
    to compile (a note says so once). Works as `@tg.compile` and `@tg.compile(mode=...)` too."""
    _note_once("compile", "torch.compile does nothing here: the model runs as written, eagerly")
    if model is None:
        return lambda fn: fn
    return model


def set_default_device(device) -> None:
    """Accepts the CPU (the one device); any other device raises a clear error."""
    check_device("set_default_device", device)


def get_default_device():
    return CPU


def set_float32_matmul_precision(precision: str) -> None:
    """Accepted and ignored: NumPy's float32 matmul has one precision."""


def get_float32_matmul_precision() -> str:
    return "highest"


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Accepted and ignored: every op here is deterministic (given the generator's seed)."""


def are_deterministic_algorithms_enabled() -> bool:
    return True
