"""PyTorch's legacy tensor types: `torch.FloatTensor`, `torch.LongTensor`, ... Old course code
builds tensors with them and tests with them:

    torch.LongTensor([1, 2, 3])          # tensor([1, 2, 3]) of int64
    torch.FloatTensor(2, 3)              # a (2, 3) float32 tensor (zeros here; PyTorch leaves
                                         #  it uninitialised)
    isinstance(x, torch.LongTensor)      # True when x is an int64 tensor
    x.type(torch.FloatTensor)            # x as float32

Each is a class whose call builds a Tensor of its dtype and whose isinstance check compares
the dtype; no tensor is ever an instance of the class itself.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..functions.creation import tensor, zeros
from ..tensor import Tensor


class _LegacyType(type):
    def __instancecheck__(cls, value) -> bool:
        return isinstance(value, Tensor) and value.dtype == cls.dtype

    def __call__(cls, *args):
        if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
            data = args[0]
            if isinstance(data, Tensor):
                return data.to(cls.dtype)
            return tensor(data, dtype=cls.dtype)
        return zeros(*args, dtype=cls.dtype)  # sizes (or none: an empty tensor)

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"


def _legacy(name: str, dtype) -> type:
    return _LegacyType(name, (), {"dtype": dtype, "__doc__": f"A {dtype} tensor (legacy name)."})


FloatTensor = _legacy("FloatTensor", dtypes.float32)
DoubleTensor = _legacy("DoubleTensor", dtypes.float64)
HalfTensor = _legacy("HalfTensor", dtypes.float16)
LongTensor = _legacy("LongTensor", dtypes.int64)
IntTensor = _legacy("IntTensor", dtypes.int32)
ShortTensor = _legacy("ShortTensor", dtypes.int16)
CharTensor = _legacy("CharTensor", dtypes.int8)
ByteTensor = _legacy("ByteTensor", dtypes.uint8)
BoolTensor = _legacy("BoolTensor", dtypes.bool)
