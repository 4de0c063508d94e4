"""Comparisons and shifts as functions, PyTorch's names: eq, ne, lt, le, gt, ge (and the long
aliases greater, less_equal, ...), equal, isposinf, isneginf, bitwise_left_shift and
bitwise_right_shift. Each gives a tensor outside the graph (bool or integer values have no
gradient); `equal` gives one Python bool.
"""

import numpy as np

from .pointwise_composed import _some_tensor, array_of, bitwise, constant


def _compare(ufunc, input, other):  # noqa: A002 - PyTorch's argument name
    return constant(ufunc(array_of(input), array_of(other)), _some_tensor(input, other))


def eq(input, other):  # noqa: A002
    """input == other, elementwise (broadcast): a bool tensor."""
    return _compare(np.equal, input, other)


def ne(input, other):  # noqa: A002
    """input != other, elementwise: a bool tensor."""
    return _compare(np.not_equal, input, other)


def lt(input, other):  # noqa: A002
    """input < other, elementwise: a bool tensor."""
    return _compare(np.less, input, other)


def le(input, other):  # noqa: A002
    """input <= other, elementwise: a bool tensor."""
    return _compare(np.less_equal, input, other)


def gt(input, other):  # noqa: A002
    """input > other, elementwise: a bool tensor."""
    return _compare(np.greater, input, other)


def ge(input, other):  # noqa: A002
    """input >= other, elementwise: a bool tensor."""
    return _compare(np.greater_equal, input, other)


def equal(input, other) -> bool:  # noqa: A002
    """True when both tensors have the same shape and the same values (a Python bool)."""
    a, b = array_of(input), array_of(other)
    return bool(a.shape == b.shape and np.array_equal(a, b))


def isposinf(input):  # noqa: A002
    """Where input is +inf: a bool tensor."""
    return constant(np.isposinf(array_of(input)), input)


def isneginf(input):  # noqa: A002
    """Where input is -inf: a bool tensor."""
    return constant(np.isneginf(array_of(input)), input)


def bitwise_left_shift(input, other):  # noqa: A002
    """input << other on integers: input · 2^other, wrapping around as the dtype does."""
    return bitwise("bitwise_left_shift", np.left_shift, input, other, bools=False)


def bitwise_right_shift(input, other):  # noqa: A002
    """input >> other on integers: floor(input / 2^other) (an arithmetic shift)."""
    return bitwise("bitwise_right_shift", np.right_shift, input, other, bools=False)


greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
