"""Tensor methods for comparisons and shifts by name: `pred.eq(target).sum()`, `x.lt(0)`,
`x.equal(y)`, `x.isposinf()`, `x << 2`, `x >> 1` (the operators `==`, `<` ... are in
`tensor.py`). None is differentiable: the results are bool or integer tensors.

>>> import tinygrad_norm as tg
>>> tg.tensor([1, 2, 3]).eq(tg.tensor([1, 0, 3])).sum()
tensor(2)
"""

from __future__ import annotations

from ..ops import comparison as K


class ComparisonMethods:
    __slots__ = ()

    eq, ne, lt, le, gt, ge = K.eq, K.ne, K.lt, K.le, K.gt, K.ge
    greater, greater_equal, less, less_equal, not_equal = K.gt, K.ge, K.lt, K.le, K.ne
    equal, isposinf, isneginf = K.equal, K.isposinf, K.isneginf
    bitwise_left_shift, bitwise_right_shift = K.bitwise_left_shift, K.bitwise_right_shift
    __lshift__, __rshift__ = K.bitwise_left_shift, K.bitwise_right_shift

    def __rlshift__(self, other):
        return K.bitwise_left_shift(other, self)

    def __rrshift__(self, other):
        return K.bitwise_right_shift(other, self)
