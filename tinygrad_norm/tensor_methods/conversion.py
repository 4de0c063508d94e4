"""What a tensor is and what it becomes: its device (`.cpu()`, `.device`), its type (`type()`,
`.int()`, `.half()`), its size in memory (`nelement()`, `element_size()`, `stride()`), how it
formats (`f"{t:.4f}"`) and new tensors like it (`new_zeros`, `new_full`, ...).

None of these changes the maths. `ConversionMethods` is mixed into `Tensor`, so every method
here is an ordinary Tensor method.

>>> import tinygrad_norm as tg
>>> t = tg.tensor(3.14159)
>>> f"{t:.2f}", t.device, t.type()
('3.14', device(type='cpu'), 'torch.FloatTensor')
"""

from __future__ import annotations

import numpy as np

from .. import devices, dtypes

# `t.type()`: PyTorch's legacy tensor-type names.
TYPE_NAMES = {
    "float32": "FloatTensor",
    "float64": "DoubleTensor",
    "float16": "HalfTensor",
    "int64": "LongTensor",
    "int32": "IntTensor",
    "int16": "ShortTensor",
    "int8": "CharTensor",
    "uint8": "ByteTensor",
    "bool": "BoolTensor",
}
_DTYPE_OF_TYPE = {f"torch.{name}": dtype for dtype, name in TYPE_NAMES.items()}


class ConversionMethods:
    __slots__ = ()

    is_cuda = False
    is_cpu = True
    is_sparse = False
    is_quantized = False

    # --- where it lives ------------------------------------------------------------------------
    @property
    def device(self) -> devices.device:
        """Always `device(type='cpu')`: tinygrad_norm's arrays live in NumPy, in main memory."""
        return devices.CPU

    def cpu(self, memory_format=None):
        return self

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        """Raises: tinygrad_norm runs on the CPU. (`"cuda" if torch.cuda.is_available()
        else "cpu"` picks the CPU here.)"""
        devices.check("cuda", "cuda" if device is None else devices.device("cuda", device))

    def get_device(self) -> int:
        return -1  # PyTorch's answer for a CPU tensor

    def pin_memory(self):
        return self

    def is_pinned(self) -> bool:
        return False

    def is_contiguous(self, memory_format=None) -> bool:
        """Are the elements in row-major order in memory (a transpose or a step is not)?"""
        return bool(self.array.flags.c_contiguous)

    # --- what it is ----------------------------------------------------------------------------
    def nelement(self) -> int:
        """The number of elements (the same as `numel()`)."""
        return self.array.size

    def element_size(self) -> int:
        """Bytes per element: 4 for float32, 8 for float64 and int64, 1 for bool."""
        return self.array.dtype.itemsize

    def is_floating_point(self) -> bool:
        return self.array.dtype.kind == "f"

    def is_complex(self) -> bool:
        return self.array.dtype.kind == "c"

    def type(self, dtype=None, non_blocking=False):  # noqa: A003 - PyTorch's name
        """Without an argument, the legacy type name ('torch.FloatTensor'); with a dtype or a
        type name ('torch.DoubleTensor'), the tensor converted to it."""
        if dtype is None:
            name = self.array.dtype.name
            return f"torch.{TYPE_NAMES.get(name, name)}"
        if isinstance(dtype, str):
            if dtype not in _DTYPE_OF_TYPE:
                raise ValueError(
                    f"type: invalid type {dtype!r}; use a dtype such as tg.float64 or one of "
                    f"{', '.join(sorted(_DTYPE_OF_TYPE))}"
                )
            dtype = _DTYPE_OF_TYPE[dtype]
        if isinstance(dtype, type) and hasattr(dtype, "dtype"):  # torch.FloatTensor, ...
            dtype = dtype.dtype
        return self.to(dtype)

    def __format__(self, spec: str) -> str:
        """A 0-d tensor formats as its number (`f"{loss:.4f}"`), as in PyTorch; a tensor with
        dimensions only without a format spec (its repr)."""
        if self.array.ndim == 0:
            return format(self.array.item(), spec)
        if spec:
            raise TypeError(
                f"unsupported format string passed to Tensor.__format__: only a 0-d tensor takes "
                f"{spec!r}, this one has shape {tuple(self.array.shape)}; format t.item() or the "
                "elements of t.tolist()"
            )
        return repr(self)

    # --- new tensors of the same dtype ---------------------------------------------------------
    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        devices.check("new_tensor", device)
        return type(self)(data, dtype=self.array.dtype if dtype is None else dtype).requires_grad_(
            requires_grad
        )

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
        devices.check("new_full", device)
        dtype = self.array.dtype if dtype is None else np.dtype(dtype)
        shape = tuple(size) if isinstance(size, (tuple, list)) else (size,)
        return type(self)._make(np.full(shape, fill_value, dtype)).requires_grad_(requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        return self.new_full(
            _sizes(size), 0, dtype=dtype, device=device, requires_grad=requires_grad
        )

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        return self.new_full(
            _sizes(size), 1, dtype=dtype, device=device, requires_grad=requires_grad
        )

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
        return self.new_zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)

    # --- dtype shorthands (as .float(), .double(), .long(), .bool()) ----------------------------
    def int(self):
        return self.to(dtypes.int32)

    def short(self):
        return self.to(dtypes.int16)

    def byte(self):
        return self.to(dtypes.uint8)

    def char(self):
        return self.to(dtypes.int8)

    def half(self):
        return self.to(dtypes.float16)

    # --- memory layout ------------------------------------------------------------------------
    def stride(self, dim=None):
        """Steps in elements (not bytes) between neighbours along each dimension."""
        steps = tuple(s // self.array.itemsize for s in self.array.strides)
        return steps if dim is None else steps[dim]


def _sizes(size: tuple) -> tuple:
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size


def to_arguments(tensor, args: tuple, kwargs: dict):
    """The dtype that `tensor.to(...)` asks for (None: keep), from any of PyTorch's forms:
    `to(dtype)`, `to(device)`, `to(device, dtype)`, `to(other_tensor)`, keywords `dtype=`,
    `device=`, `non_blocking=`, `copy=`. A device other than the CPU raises."""
    dtype, copy = kwargs.pop("dtype", None), kwargs.pop("copy", False)
    devices.check("to", kwargs.pop("device", None))
    kwargs.pop("non_blocking", None), kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to: unexpected keyword argument(s) {', '.join(kwargs)}")
    for arg in args:
        if isinstance(arg, ConversionMethods):
            dtype = arg.array.dtype
        elif devices.is_device(arg) or isinstance(arg, int) and not isinstance(arg, bool):
            devices.check("to", arg)
        elif arg is not None and not isinstance(arg, bool):
            dtype = arg
    return dtype, bool(copy)
