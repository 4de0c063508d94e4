"""What PyTorch's `torch.autograd.graph.Node` offers beyond the engine's needs: hooks on the node
itself (`register_prehook`, `register_hook`), `metadata()`, and a `name` that can be called.
`Context` (node.py) inherits these; the engine runs the hooks (`engine.py`,
`backward_call.py`).
"""

from __future__ import annotations


class PyTorchNode:
    """The hooks and metadata of a node, as PyTorch's `Node` has them."""

    __slots__ = ()

    # --- hooks on the node itself --------------------------------------------
    def register_prehook(self, hook):
        """`hook(grad_outputs) -> tuple | None`, before this node's backward runs (PyTorch's
        `Node.register_prehook`); returns a handle with `.remove()`."""
        adapter = PreHook(hook)
        self.hooks.append(adapter)
        return HookHandle(self.hooks, adapter)

    def register_hook(self, hook):
        """`hook(grad_inputs, grad_outputs) -> tuple | None`, after this node's backward ran
        (PyTorch's `Node.register_hook`); a returned tuple replaces the gradients it sends."""
        if not self.post_hooks:
            self.post_hooks = []
        self.post_hooks.append(hook)
        return HookHandle(self.post_hooks, hook)

    def metadata(self) -> dict:
        return self.__dict__.setdefault("_metadata", {})


class NodeName(str):
    """A node's name: a string that can also be called, as PyTorch's `grad_fn.name()`."""

    def __call__(self) -> str:
        return str(self)


class PreHook:
    """A PyTorch node pre-hook (on the tuple of output gradients) as a hook on one gradient."""

    def __init__(self, hook):
        self.hook = hook
        self.__name__ = getattr(hook, "__name__", "prehook")

    def __call__(self, grad):
        result = self.hook((grad,))
        return None if result is None else result[0]


class HookHandle:
    """What `register_hook` returns (a node's or a tensor's): `.remove()` unregisters the hook."""

    def __init__(self, hooks: list, hook):
        self.hooks, self.hook = hooks, hook

    def remove(self) -> None:
        if self.hook in self.hooks:
            self.hooks.remove(self.hook)
