"""A PyTorch index (ints, slices, None, ..., lists, bool and int Tensors) as a NumPy index.

`Tensor.__getitem__` and `__setitem__` use these helpers; `GetItem` (ops/movement.py) does the
indexing itself.
"""

from __future__ import annotations

import numpy as np

from ..autograd.node import GraphTensor
from ..ops.movement import has_array_index


def normalize_index(index, ndim: int) -> tuple:
    """An index as a tuple NumPy understands (for a tensor of `ndim` dimensions): Tensors and
    lists become arrays (a list of floats is truncated to integers, as PyTorch does)."""
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    for i in index:
        if isinstance(i, GraphTensor):
            # a copy: the index is kept for backward, and the tensor may change in place later
            # (a uint8 tensor is a mask, as in PyTorch, which once had no bool dtype)
            if i.array.dtype == np.uint8:
                i = i.array.astype(bool)
            else:
                i = i.array.item() if i.ndim == 0 and i.dtype.kind in "iu" else i.array.copy()
        elif isinstance(i, list):
            i = np.asarray(i)
            i = i.astype(np.int64) if i.dtype.kind == "f" else i
        elif isinstance(i, slice) and i.step is not None and i.step <= 0:
            _refuse_step(i)
        out.append(i)
    return _one_ellipsis(tuple(out), ndim)


def _one_ellipsis(index: tuple, ndim: int) -> tuple:
    """PyTorch's reading of several `...`: each stands for the same axes count (`ndim` minus
    the indexed axes), so a later one only reaches past the last axis, where nothing may follow
    it. NumPy refuses a second `...`; the index keeps the first."""
    marks = [k for k, i in enumerate(index) if i is Ellipsis]
    if len(marks) < 2:
        return index
    indexed = [i for i in index if i is not None and i is not Ellipsis]
    if ndim > len(indexed) and any(i is not None for i in index[marks[1] :] if i is not Ellipsis):
        raise IndexError(
            f"index: each of several ellipses ('...') stands for {ndim - len(indexed)} axes, "
            f"so the indices after the second one are past the last of the {ndim} axes; "
            "use one '...'"
        )
    return tuple(i for k, i in enumerate(index) if i is not Ellipsis or k == marks[0])


def _refuse_step(i: slice) -> None:
    """PyTorch refuses a slice step below 1 (NumPy would reverse): say what to use instead."""
    if i.step < 0:
        raise ValueError(
            f"index: step must be greater than zero (PyTorch has no negative steps), got "
            f"{i.step} in {_describe_entry(i)}; to reverse, use x.flip(dim)"
        )
    raise ValueError(f"index: slice step cannot be zero, got {_describe_entry(i)}")


def ints_first(index: tuple) -> tuple[tuple, tuple]:
    """Split an index that mixes integers with index arrays into (integers, the rest).

    PyTorch applies the integers first, as `x[0]` would, then indexes what is left with the
    arrays; NumPy counts an integer as one more array index, and moves the broadcast axes of
    separated array indices to the front: for x of shape (2, 3, 4), `x[0, :, [1, 1]]` is
    (3, 2) in PyTorch but (2, 3) in NumPy. Indexing with the integers (and full slices in
    place of everything else) and then with the rest gives PyTorch's result. Returns
    `((), index)` when the index does not mix the two.
    """
    ints = [isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in index]
    if not any(ints) or not has_array_index(index):
        return (), index
    first, rest = [], []
    for i, is_int in zip(index, ints):
        if is_int:
            first.append(i)
        elif i is Ellipsis:
            first.append(i)
            rest.append(i)
        elif i is None:
            rest.append(i)
        else:  # a slice, or an array (a boolean one stands for as many axes as it has)
            n_axes = i.ndim if isinstance(i, np.ndarray) and i.dtype == np.bool_ else 1
            first.extend([slice(None)] * n_axes)
            rest.append(i)
    return tuple(first), tuple(rest)


def describe_index(index: tuple) -> str:
    """The index as it was written: `[:, array(2,), 1:3]`."""
    return "[" + ", ".join(_describe_entry(i) for i in index) + "]"


def _describe_entry(i) -> str:
    if isinstance(i, np.ndarray):
        return f"array{i.shape}"
    if isinstance(i, slice):
        text = ":".join("" if v is None else str(v) for v in (i.start, i.stop, i.step))
        return text[:-1] if i.step is None else text  # "1:3", not "1:3:"
    return "..." if i is Ellipsis else repr(i)
