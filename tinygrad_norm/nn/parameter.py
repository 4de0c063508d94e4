"""`nn.Parameter`: a Tensor that a Module registers as a trainable weight."""

from __future__ import annotations

import numpy as np

from ..convert import to_array
from ..tensor import Tensor


class Parameter(Tensor):
    """A Tensor that a Module registers as a trainable weight: a leaf that requires grad.

    `Parameter(data=None, requires_grad=True)` shares the memory of the Tensor or array it is
    given (a nested list is converted first), so `Parameter(t)` and `t` see the same numbers.
    Only floating data can be a parameter, since a parameter is changed by its gradient.

    >>> import tinygrad_norm as tg
    >>> t = tg.tensor([1.0, 2.0])
    >>> w = Parameter(t)
    >>> w
    Parameter containing:
    tensor([1., 2.], requires_grad=True)
    >>> w.array is t.array
    True
    """

    __slots__ = ()

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            array = to_array([], None)
        elif isinstance(data, Tensor):
            array = data.array
        elif isinstance(data, np.ndarray):
            array = data
        else:
            array = to_array(data, None)
        if array.dtype.kind != "f":
            raise TypeError(
                f"Parameter: only floating-point data can be a parameter (gradients change it), "
                f"got {array.dtype}; convert it first, e.g. Parameter(t.float()) or "
                "Parameter(array.astype(np.float32))"
            )
        self.array = array
        self._grad = None
        self.grad_fn = None
        self.name = None
        self._hooks = None  # a list once a hook is registered (as Tensor's)
        self._versions = data._version_counter() if isinstance(data, Tensor) else None
        self._base = self._base_grad_fn = self._view_index = None
        self.requires_grad = bool(requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()
