"""Padding layers, as `torch.nn`: ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d,
CircularPad1d/2d/3d, ConstantPad1d/2d/3d and ZeroPad3d. Each holds its `padding` (an int for
every side, or (left, right[, top, bottom[, front, back]]), the last axis first as F.pad
takes it) and calls `F.pad` with its mode.

    ReflectionPad1d(2)([1, 2, 3, 4])   ->  3 2 | 1 2 3 4 | 3 2     (mirror, edge not repeated)
    ReplicationPad1d(2)([1, 2, 3, 4])  ->  1 1 | 1 2 3 4 | 4 4     (repeat the edge)
    CircularPad1d(2)([1, 2, 3, 4])     ->  3 4 | 1 2 3 4 | 1 2     (wrap around)
"""

from __future__ import annotations

from . import functional as F
from .module import Module


class _Pad(Module):
    mode = "constant"
    n_pairs = 1

    def __init__(self, padding, value: float = 0.0):
        super().__init__()
        n = 2 * self.n_pairs
        self.padding = (padding,) * n if isinstance(padding, int) else tuple(padding)
        if len(self.padding) != n:
            raise ValueError(f"{type(self).__name__}: padding must be an int or {n} ints")
        self.value = value

    def forward(self, input):  # noqa: A002 - PyTorch's name
        if self.mode == "constant":
            return F.pad(input, self.padding, mode="constant", value=self.value)
        return F.pad(input, self.padding, mode=self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}" + (f", value={self.value}" if self.mode == "constant" else "")


def _padding_layer(name: str, mode: str, n_pairs: int) -> type:
    doc = f"`{mode}` padding of the last {n_pairs} axes, as `torch.nn.{name}`."
    return type(name, (_Pad,), {"mode": mode, "n_pairs": n_pairs, "__doc__": doc})


ReflectionPad1d = _padding_layer("ReflectionPad1d", "reflect", 1)
ReflectionPad2d = _padding_layer("ReflectionPad2d", "reflect", 2)
ReflectionPad3d = _padding_layer("ReflectionPad3d", "reflect", 3)
ReplicationPad1d = _padding_layer("ReplicationPad1d", "replicate", 1)
ReplicationPad2d = _padding_layer("ReplicationPad2d", "replicate", 2)
ReplicationPad3d = _padding_layer("ReplicationPad3d", "replicate", 3)
CircularPad1d = _padding_layer("CircularPad1d", "circular", 1)
CircularPad2d = _padding_layer("CircularPad2d", "circular", 2)
CircularPad3d = _padding_layer("CircularPad3d", "circular", 3)
ConstantPad1d = _padding_layer("ConstantPad1d", "constant", 1)
ConstantPad2d = _padding_layer("ConstantPad2d", "constant", 2)
ConstantPad3d = _padding_layer("ConstantPad3d", "constant", 3)
ZeroPad3d = _padding_layer("ZeroPad3d", "constant", 3)
for _cls in (ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d,
             ReplicationPad2d, ReplicationPad3d, CircularPad1d, CircularPad2d, CircularPad3d,
             ConstantPad1d, ConstantPad2d, ConstantPad3d, ZeroPad3d):  # fmt: skip
    _cls.__module__ = __name__
