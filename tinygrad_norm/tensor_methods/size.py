"""`Size`: a tensor's shape, a tuple that prints as PyTorch's `torch.Size([2, 3])`.

It is a tuple (`t.shape == (2, 3)` is True, it unpacks, indexes and hashes as one); slicing
or adding keeps it a Size, and `numel()` is the product of the sizes. tinygrad_norm's own
error messages format it as the plain tuple `(2, 3)` (see `dtypes.formatted_by_the_library`).

>>> import tinygrad_norm as tg
>>> tg.zeros(2, 3).shape
torch.Size([2, 3])
>>> tg.zeros(2, 3).shape == (2, 3)
True
"""

from __future__ import annotations

import math

from ..dtypes import formatted_by_the_library


class Size(tuple):
    """A tuple of ints printed `torch.Size([2, 3])`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(n) for n in self)}])"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if formatted_by_the_library():  # error messages say "shape (2, 3)"
            return format(tuple.__repr__(self), spec)
        return format(repr(self), spec)

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def numel(self) -> int:
        """The number of elements of a tensor of this shape (1 for `Size([])`)."""
        return math.prod(self)

    def __reduce__(self):
        return (Size, (tuple(self),))
