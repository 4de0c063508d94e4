"""Utilities: `tg.utils.data` (datasets and the DataLoader, as torch.utils.data), and
process-wide settings that make training faster, each one asked for explicitly.

`tune_malloc()`: keep large freed buffers in the process instead of returning them to the OS.
`blas_threads(n)`: how many threads NumPy's matrix products use.

Why it matters. A training step allocates the same large arrays (activations, gradients) again
and again, and frees them at the end of the step. glibc's malloc serves an allocation above
its mmap threshold (128 KiB at start) with a fresh `mmap` and gives it back with `munmap` when
freed; smaller ones come from the heap, whose free top is trimmed back to the OS once it
exceeds the trim threshold. Either way the next step asks the kernel for the same memory again
and touches every page of it for the first time: a page fault (and zeroing) per 4 KiB, a large
share of a NumPy training loop's step (docs/speed.md). Raising both thresholds keeps the
freed memory in the heap for reuse, so a step after the first page-faults almost never.

Why it is a function and not done at import: it changes how the whole process allocates
memory, for every library in it (PyTorch included), and the process then keeps its largest
step's memory until it exits. That is the right trade for a training script, and a surprise in
someone else's program, so `import tinygrad_norm` leaves malloc alone and the training loop or
benchmark calls `tg.utils.tune_malloc()` (the `bench` command applies it to every system it
compares alike, and reports both ways). Environment variables do the same without code:
`MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=1073741824 python train.py`.
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

from . import data

M_TRIM_THRESHOLD = -1  # glibc's mallopt parameter numbers (malloc.h)
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD_MAX = 32 * 1024 * 1024  # glibc refuses more on 64-bit (HEAP_MAX_SIZE / 2)


def tune_malloc(mmap_threshold: int = MMAP_THRESHOLD_MAX, trim_threshold: int = 1024**3) -> bool:
    """Raise glibc's mmap and trim thresholds, so large freed buffers are reused, not unmapped.

    `mmap_threshold`: allocations up to this size come from the heap (at most 32 MiB).
    `trim_threshold`: free memory at the top of the heap up to this size stays in the process.
    Returns True if malloc was tuned; False where there is no glibc (macOS, Windows, musl):
    nothing changes there. (The example is skipped by the doctests: it would change malloc for
    the whole test run.)

    >>> import tinygrad_norm as tg
    >>> tg.utils.tune_malloc()  # doctest: +SKIP
    True
    """
    mallopt = _glibc_mallopt()
    if mallopt is None:
        return False
    ok = mallopt(M_MMAP_THRESHOLD, min(int(mmap_threshold), MMAP_THRESHOLD_MAX)) == 1
    return mallopt(M_TRIM_THRESHOLD, int(trim_threshold)) == 1 and ok


def _glibc_mallopt():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc
        return None
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return mallopt


def _openblas_call(name: str, *args) -> int | None:
    """Call `openblas_<name>` in NumPy's OpenBLAS (None if NumPy uses another BLAS)."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return None
    for lib in {line.split()[-1] for line in maps.splitlines() if "openblas" in line.lower()}:
        handle = ctypes.CDLL(lib)
        # NumPy's wheels name it scipy_openblas_<name>64_; a system OpenBLAS openblas_<name>
        for symbol in (f"scipy_openblas_{name}64_", f"scipy_openblas_{name}", f"openblas_{name}"):
            if hasattr(handle, symbol):
                return getattr(handle, symbol)(*args)
    return None


def blas_threads(set_to: int | None = None) -> int:
    """The threads NumPy's OpenBLAS uses for matrix products, after setting them to `set_to`.

    Why one thread is often the better choice for a small model: OpenBLAS threads wait for each
    other at every product, spinning on a core. When another program holds that core, every
    product waits for the scheduler. Measured on a shared 2-core machine: the default `train`
    run took 152 s with 2 threads and 13.5 s with 1; on the same machine idle, 11.7 s and
    12.6 s. Returns the number in use (the CPU count where NumPy's BLAS is not OpenBLAS, which
    this cannot change: set OMP_NUM_THREADS / MKL_NUM_THREADS before starting Python then).
    """
    if set_to:
        _openblas_call("set_num_threads", int(set_to))
    threads = _openblas_call("get_num_threads")
    return int(threads) if threads is not None else (os.cpu_count() or 1)
