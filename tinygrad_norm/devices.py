"""Devices, as PyTorch names them: tinygrad_norm has one, the CPU.

`tg.device("cpu")` prints `device(type='cpu')`; every tensor's `.device` is that device, and
`device=` is accepted wherever PyTorch takes it. A CUDA (or MPS) device can be named, as in
PyTorch on a machine without a GPU, but putting a tensor there raises a clear error: the
arrays live in NumPy, in main memory. Course code that asks
`"cuda" if torch.cuda.is_available() else "cpu"` picks the CPU, since `is_available()` is False.

>>> import tinygrad_norm as tg
>>> tg.ones(2).device
device(type='cpu')
>>> tg.ones(2, device="cpu").to("cpu").device == tg.device("cpu")
True
"""

from __future__ import annotations


class device:  # noqa: N801 - PyTorch's name, as tg.device
    """A device name: `device("cpu")`, `device("cuda", 0)`, `device("cuda:1")`."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):  # noqa: A002 - PyTorch's name
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        if isinstance(type, int) and not isinstance(type, bool):  # device(0): PyTorch's cuda:0
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(f"device: expected a string such as 'cpu', got {type!r}")
        name, _, number = type.partition(":")
        if number:
            if index is not None:
                raise RuntimeError(f"device: {type!r} already names an index; do not pass one")
            if not number.isdigit():
                raise RuntimeError(f"device: invalid device string {type!r}; e.g. 'cpu', 'cuda:0'")
            index = int(number)
        if name not in KNOWN_TYPES:
            raise RuntimeError(
                f"device: expected one of {', '.join(KNOWN_TYPES)} device types at the start of "
                f"the device string, got {type!r}"
            )
        self.type, self.index = name, index

    def __repr__(self) -> str:
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        if not isinstance(other, device):
            return NotImplemented
        return (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))


class NoDeviceError(RuntimeError, AssertionError):
    """Putting a tensor on a GPU. PyTorch without CUDA raises AssertionError ("Torch not
    compiled with CUDA enabled") or RuntimeError, so this is both: code catching either works."""


KNOWN_TYPES = ("cpu", "cuda", "mps", "xpu", "meta", "hip", "xla", "mkldnn", "vulkan", "ipu")
CPU = device("cpu")


def check(op: str, where) -> None:
    """Accept `device=None`, "cpu", "cpu:0" or tg.device("cpu"); anything else raises."""
    if where is None:
        return
    if not isinstance(where, (str, device, int)) or isinstance(where, bool):
        raise TypeError(
            f"{op}: device must be a string such as 'cpu' or a tg.device, got {where!r}"
        )
    where = device(where)
    if where.type != "cpu":
        raise NoDeviceError(
            f"{op}: tinygrad_norm runs on the CPU (its tensors are NumPy arrays), so there is no "
            f"{str(where)!r} device here; use device='cpu', or pick it the way course code does: "
            "device = 'cuda' if torch.cuda.is_available() else 'cpu' (is_available() is False)"
        )


def is_device(value) -> bool:
    """Is `value` a device argument (a device, or a string naming one) rather than a dtype?"""
    if isinstance(value, device):
        return True
    return isinstance(value, str) and value.partition(":")[0] in KNOWN_TYPES
