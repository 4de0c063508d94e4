"""`saved_tensors_hooks(pack, unpack)`: what `save_for_backward` keeps passes through `pack`
when the node is recorded, and through `unpack` when backward reads `ctx.saved_tensors`.

PyTorch uses it to move saved activations elsewhere (to the CPU, to disk, compressed) and back.
Here the pair is kept on a per-thread stack; the innermost pair applies.

>>> import tinygrad_norm as tg
>>> seen = []
>>> def pack(t):
...     seen.append(tuple(t.shape))
...     return t
>>> x = tg.ones(3, requires_grad=True)
>>> with saved_tensors_hooks(pack, lambda t: t):
...     y = (x * x).sum()
>>> seen
[(3,), (3,)]
"""

from __future__ import annotations

import contextlib
import threading


class _State(threading.local):
    stack: tuple = ()  # (pack, unpack) pairs, innermost last


_state = _State()


def active() -> bool:
    return bool(_state.stack)


@contextlib.contextmanager
def saved_tensors_hooks(pack_hook, unpack_hook):
    """Inside, every tensor a node saves for backward is `pack_hook(tensor)`; backward gets
    `unpack_hook(packed)` back."""
    previous = _state.stack
    _state.stack = (*previous, (pack_hook, unpack_hook))
    try:
        yield
    finally:
        _state.stack = previous


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str = ""):
    """Inside, no saved-tensor hooks apply (PyTorch raises if one is registered; here they
    are simply not used)."""
    previous = _state.stack
    _state.stack = ()
    try:
        yield
    finally:
        _state.stack = previous


class Packed:
    """A saved tensor as `pack` returned it, with the `unpack` that turns it back."""

    __slots__ = ("value", "unpack_hook")

    def __init__(self, value, unpack_hook):
        self.value, self.unpack_hook = value, unpack_hook

    def unpack(self):
        return self.unpack_hook(self.value)


def pack_all(node) -> tuple:
    """The node's saved values, each passed through the innermost pack hook. Forward's own
    output is packed as a Tensor joined to the graph, as backward would read it."""
    pack, unpack = _state.stack[-1]
    readable = node.saved_tensors  # Tensors, as backward reads them
    return tuple(None if t is None else Packed(pack(t), unpack) for t in readable)
