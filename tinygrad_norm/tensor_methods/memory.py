"""Tensor methods about the memory behind a tensor, as PyTorch code asks for it:
`x.data_ptr()` (the address of its first element), `x.storage_offset()` (how many elements
after the start of the memory it shares with its base), `x.storage()` (that memory, flat),
`x.ravel()` (flat, a view when it can be), `x.resize_(*sizes)` and the device probes that have
one answer on a CPU (`is_xpu`, `record_stream`).

Here a tensor's memory is its NumPy array's buffer: two tensors share memory exactly when
their arrays do, so `a.data_ptr() == b.data_ptr()` and `a.storage().data_ptr()` answer the
question PyTorch code asks with them (is this a view or a copy?).
"""

from __future__ import annotations

import numpy as np


def _root(array: np.ndarray) -> np.ndarray:
    """The array that owns the memory an array (perhaps a view of a view) looks into."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def _address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


class Storage:
    """The flat memory behind a tensor (`x.storage()`): its elements in memory order, its
    size, its address. Read-only here: a learner inspects it; writing goes through tensors."""

    def __init__(self, array: np.ndarray):
        self.array = _root(array)

    def data_ptr(self) -> int:
        return _address(self.array)

    def size(self) -> int:
        return self.array.size

    __len__ = size

    def nbytes(self) -> int:
        return self.array.nbytes

    def element_size(self) -> int:
        return self.array.itemsize

    def tolist(self) -> list:
        return self.array.reshape(-1, order="A").tolist()

    def __getitem__(self, index):
        return self.array.reshape(-1, order="A")[index]

    def __repr__(self) -> str:
        return f"Storage of {self.size()} {self.array.dtype} elements: {self.tolist()}"


class MemoryMethods:
    __slots__ = ()

    def data_ptr(self) -> int:
        """The memory address of the first element (0 for an empty tensor, as in PyTorch)."""
        return 0 if self.array.size == 0 else _address(self.array)

    def storage_offset(self) -> int:
        """Elements between the start of the shared memory and this tensor's first element."""
        if self.array.size == 0:
            return 0
        return (_address(self.array) - _address(_root(self.array))) // self.array.itemsize

    def storage(self) -> Storage:
        return Storage(self.array)

    untyped_storage = storage

    def ravel(self):
        """The elements as one axis: a view when they lie evenly in memory, else a copy."""
        return self.reshape(-1)

    def resize_(self, *sizes):
        """Give the tensor a new shape in place, keeping its first elements in order; new
        elements (when it grows) are zeros (PyTorch leaves them uninitialised)."""
        if self.requires_grad:
            raise RuntimeError(
                "resize_: cannot resize a tensor that requires grad (as PyTorch); resize "
                "x.detach() or build a new tensor"
            )
        shape = tuple(sizes[0]) if len(sizes) == 1 and not isinstance(sizes[0], int) else sizes
        flat = self.array.reshape(-1)
        count = int(np.prod(shape, dtype=np.int64))
        new = np.zeros(count, dtype=self.array.dtype)
        new[: min(count, flat.size)] = flat[:count]
        self.array = new.reshape(shape)
        self._bump_version()
        return self

    def record_stream(self, stream) -> None:
        """PyTorch's CPU answer: there are no CUDA streams on the CPU (`torch.cuda.Stream()`
        raises), so whatever `stream` is, it is not one."""
        raise RuntimeError(
            f"record_stream: unknown parameter type {type(stream).__name__} (a CUDA stream is "
            "expected, and tinygrad_norm runs on the CPU: there are none)"
        )

    @property
    def is_xpu(self) -> bool:
        return False
