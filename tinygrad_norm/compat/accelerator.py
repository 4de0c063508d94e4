"""`torch.accelerator`, on a framework with none: `is_available()` is False, so the course
habit `torch.accelerator.current_accelerator() if torch.accelerator.is_available() else "cpu"`
picks the CPU; asking for a device raises PyTorch's RuntimeError."""

from __future__ import annotations

__all__ = [
    "current_accelerator",
    "current_device_index",
    "device_count",
    "empty_cache",
    "is_available",
    "memory_allocated",
    "set_device_index",
    "synchronize",
]

NONE_AVAILABLE = (
    "Cannot access accelerator device when none is available. (tinygrad_norm computes on the "
    "CPU: use device='cpu')"
)


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def current_accelerator(check_available: bool = False):
    """None: there is no accelerator (as PyTorch on a machine without one)."""
    return None


def _none(*args, **kwargs):
    raise RuntimeError(NONE_AVAILABLE)


current_device_index = current_device_idx = set_device_index = set_device_idx = _none
synchronize = current_stream = set_stream = get_device_capability = get_memory_info = _none


def empty_cache() -> None:
    """Does nothing: no accelerator memory is cached."""


def memory_allocated(device_index=None) -> int:
    return 0
