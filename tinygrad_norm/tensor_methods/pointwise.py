"""Tensor methods for elementwise maths: `x.exp()`, `x.clamp(0, 1)`, `x.matmul(w)`, ...

Each is a one-line call into the primitive (`ops/elementwise.py`) or the composed operation
(`ops/composite.py`) of the same name; where a method would only pass its arguments on, it is
that function itself (`tril = C.tril`: `x.tril(1)` calls `C.tril(x, 1)`). `Tensor` inherits
these methods.
"""

from __future__ import annotations

from ..ops import composite as C
from ..ops.elementwise import Abs, Erf, Exp, Log, Pow, Relu, Sigmoid, Sqrt, Tanh


class PointwiseMethods:
    __slots__ = ()

    def exp(self):
        return Exp.apply(self)

    def log(self):
        return Log.apply(self)

    def sqrt(self):
        return Sqrt.apply(self)

    def rsqrt(self):
        return 1 / Sqrt.apply(self)

    def pow(self, exponent):
        return self._binary(Pow, exponent)

    def tanh(self):
        return Tanh.apply(self)

    def sigmoid(self):
        return Sigmoid.apply(self)

    def relu(self):
        return Relu.apply(self)

    def erf(self):
        return Erf.apply(self)

    def abs(self):
        return Abs.apply(self)

    clamp = clip = C.clamp

    def maximum(self, other):
        return C.maximum(self, other)

    def minimum(self, other):
        return C.minimum(self, other)

    masked_fill, tril, triu = C.masked_fill, C.tril, C.triu

    def matmul(self, other):
        return C.matmul(self, other)
