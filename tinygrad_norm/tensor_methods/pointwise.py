"""Tensor methods for elementwise maths: `x.exp()`, `x.clamp(0, 1)`, `x.matmul(w)`, ...

Each is one line on the primitive (`ops/elementwise.py`; `exp = method_of(Exp)`: `x.exp()` is
`Exp.apply(x)`) or the composed operation (`ops/composite.py`) of the same name; where a method
would only pass its arguments on, it is that function itself (`tril = C.tril`: `x.tril(1)` calls
`C.tril(x, 1)`). `Tensor` inherits these methods.
"""

from __future__ import annotations

from ..ops import composite as C
from ..ops.elementwise import Abs, Erf, Exp, Log, Relu, Sigmoid, Sqrt, Tanh


def method_of(fn):
    """The Tensor method that applies the one-input primitive `fn`: with `exp = method_of(Exp)`,
    `x.exp()` is `Exp.apply(x)`. The method takes fn's name (lower case) and docstring."""

    def method(self):
        return fn.apply(self)

    method.__name__ = fn.__name__.lower()
    method.__qualname__, method.__doc__ = f"Tensor.{method.__name__}", fn.__doc__
    return method


class PointwiseMethods:
    __slots__ = ()

    exp, log, sqrt = method_of(Exp), method_of(Log), method_of(Sqrt)

    def rsqrt(self):
        return 1 / Sqrt.apply(self)

    def pow(self, exponent):
        return self**exponent  # Tensor.__pow__ (which refuses int ** negative int)

    tanh, sigmoid, relu = method_of(Tanh), method_of(Sigmoid), method_of(Relu)
    erf, abs = method_of(Erf), method_of(Abs)
    clamp = clip = C.clamp

    def maximum(self, other):
        return C.maximum(self, other)

    def minimum(self, other):
        return C.minimum(self, other)

    masked_fill, tril, triu = C.masked_fill, C.tril, C.triu

    def matmul(self, other):
        return C.matmul(self, other)
