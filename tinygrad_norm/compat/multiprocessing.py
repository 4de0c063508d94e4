"""`torch.multiprocessing`: Python's `multiprocessing`, with "spawn" as its start method.

Tensors here are Python objects around NumPy arrays, so they travel between processes by
pickling (no shared memory as in PyTorch). A spawned process starts a fresh interpreter that
imports the script again; for its `import torch` to find tinygrad_norm as well, the parent puts
`compat/torch_shim/` (a `torch` package that installs tinygrad_norm) first on `sys.path`, which
the children inherit. `spawn(fn, args, nprocs)` runs fn(i, *args) in nprocs processes, as
PyTorch's.
"""

from __future__ import annotations

import multiprocessing
import os
import sys

__all__ = [
    "Pool",
    "Process",
    "Queue",
    "cpu_count",
    "get_context",
    "get_start_method",
    "set_start_method",
    "spawn",
]

SHIM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_shim")
cpu_count = multiprocessing.cpu_count


def _children_import_tinygrad_norm() -> None:
    if SHIM not in sys.path:
        sys.path.insert(0, SHIM)


def get_context(method: str | None = "spawn"):
    _children_import_tinygrad_norm()
    return multiprocessing.get_context(method or "spawn")


def get_start_method(allow_none: bool = False) -> str:
    return "spawn"


def set_start_method(method, force: bool = False) -> None:
    """Accepted; processes start with "spawn" (a fresh interpreter) whatever is asked."""


def Process(*args, **kwargs):  # noqa: N802 - PyTorch's (and Python's) name
    return get_context().Process(*args, **kwargs)


def Pool(*args, **kwargs):  # noqa: N802
    return get_context().Pool(*args, **kwargs)


def Queue(*args, **kwargs):  # noqa: N802
    return get_context().Queue(*args, **kwargs)


def spawn(
    fn, args=(), nprocs: int = 1, join: bool = True, daemon: bool = False, start_method="spawn"
):
    """Run fn(i, *args) for i in range(nprocs), each in its own process; wait for them."""
    processes = [Process(target=fn, args=(i, *args), daemon=daemon) for i in range(nprocs)]
    for p in processes:
        p.start()
    if not join:
        return processes
    for i, p in enumerate(processes):
        p.join()
        if p.exitcode != 0:
            raise RuntimeError(
                f"torch.multiprocessing.spawn: process {i} exited with code {p.exitcode}"
            )
    return None
