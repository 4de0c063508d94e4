"""`torch.cuda` on a framework without a GPU: `is_available()` is False, so course code that
asks `"cuda" if torch.cuda.is_available() else "cpu"` runs on the CPU. The seeding functions
do nothing (there is no CUDA generator), as in PyTorch without CUDA; asking for a device's
name or properties raises a clear error.
"""

from __future__ import annotations

from ... import devices
from . import amp


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def manual_seed(seed) -> None:
    """Does nothing: there is no CUDA generator (seed the CPU one with tg.manual_seed)."""


def manual_seed_all(seed) -> None:
    """Does nothing: there is no CUDA generator (seed the CPU one with tg.manual_seed)."""


def seed() -> None:
    pass


def seed_all() -> None:
    pass


def synchronize(device=None) -> None:
    pass


def empty_cache() -> None:
    pass


def memory_allocated(device=None) -> int:
    return 0


def max_memory_allocated(device=None) -> int:
    return 0


def memory_reserved(device=None) -> int:
    return 0


def reset_peak_memory_stats(device=None) -> None:
    pass


def _no_gpu(op: str):
    devices.check(f"torch.cuda.{op}", "cuda")


def current_device() -> int:
    _no_gpu("current_device")


def set_device(device) -> None:
    _no_gpu("set_device")


def get_device_name(device=None) -> str:
    _no_gpu("get_device_name")


def get_device_properties(device=None):
    _no_gpu("get_device_properties")


__all__ = ["amp", "is_available", "device_count", "manual_seed", "manual_seed_all"]


def get_device_capability(device=None):
    _no_gpu("get_device_capability")


def mem_get_info(device=None):
    _no_gpu("mem_get_info")


def current_stream(device=None):
    _no_gpu("current_stream")


class Event:
    """A CUDA event: there is no GPU to record on (PyTorch without CUDA also refuses)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        _no_gpu("Event")


class Stream:
    """A CUDA stream: there is no GPU to run one on."""

    def __init__(self, device=None, priority=0, **kwargs):
        _no_gpu("Stream")


class StreamContext:
    """`with torch.cuda.stream(None):` runs its body as it is (PyTorch does so for None)."""

    def __init__(self, stream):
        if stream is not None:
            _no_gpu("stream")

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False


def stream(stream) -> StreamContext:
    return StreamContext(stream)
