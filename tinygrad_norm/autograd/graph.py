"""`torch.autograd.graph`: the graph's nodes and the saved-tensor hooks, under PyTorch's names.

`Node` is the class of every `grad_fn` here (`Context`): `name()`, `next_functions`,
`register_hook`, `register_prehook`, `metadata()`. `saved_tensors_hooks(pack, unpack)`
intercepts what `save_for_backward` keeps (saved_hooks.py).
"""

from __future__ import annotations

import contextlib

from .node import Context
from .saved_hooks import disable_saved_tensors_hooks, saved_tensors_hooks

Node = Context  # isinstance(y.grad_fn, torch.autograd.graph.Node) holds


@contextlib.contextmanager
def save_on_cpu(pin_memory: bool = False, device_type: str = "cuda"):
    """PyTorch keeps saved tensors in CPU memory; here every tensor already is: a no-op."""
    yield


def increment_version(tensor) -> None:
    """Count an in-place change made behind autograd's back (as PyTorch's)."""
    tensor._bump_version()


__all__ = [
    "Node",
    "disable_saved_tensors_hooks",
    "increment_version",
    "save_on_cpu",
    "saved_tensors_hooks",
]
