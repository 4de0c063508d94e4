"""How the module-level functions take their inputs: a Tensor as it is; a NumPy array, list or
number as a constant Tensor (`torch.exp(x)` and `tg.exp(array)` both work).
"""

import functools

from ..ops import composite as C
from ..tensor import Tensor
from .creation import as_tensor


def _t(x) -> Tensor:
    """A Tensor as it is; a NumPy array (sharing its memory), list or number as a Tensor."""
    return as_tensor(x)


def _tensor_argument(op: str, x, name: str = "input") -> Tensor:
    """`x` (a Tensor, NumPy array or list) as a Tensor; a Python number is refused with
    PyTorch's TypeError: `torch.maximum(x, 0)` and `torch.stack([x, 1.0])` need Tensors."""
    if isinstance(x, (bool, int, float)):
        raise TypeError(
            f"{op}: argument '{name}' must be a Tensor, not the number {x!r} (as PyTorch "
            f"requires); wrap it, e.g. tg.tensor({x!r}), or use a method that takes a number "
            "(x.clamp(min=0), x.masked_fill, x + 1)"
        )
    return _t(x)


def _like(*xs) -> Tensor:
    """The first Tensor among `xs` (or the first of them made a Tensor): numbers beside it take
    its dtype."""
    tensors = [x for x in xs if isinstance(x, Tensor)]
    return tensors[0] if tensors else _t(xs[0])


def _t2(a, b) -> Tensor:
    """The first operand as a Tensor; a number first takes the second's dtype (torch.add(1, x))."""
    if isinstance(b, Tensor) and isinstance(a, (bool, int, float)):
        return C.as_tensor(a, b)
    return _t(a)


def _on_tensor(fn):
    """`fn` with its first argument (the input) made a Tensor if it is a NumPy array."""

    @functools.wraps(fn)
    def call(input, *args, **kwargs):  # noqa: A002 - PyTorch's name
        return fn(_t(input), *args, **kwargs)

    return call
