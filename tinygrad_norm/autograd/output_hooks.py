"""What happens to a node's output gradient once it is complete, before the node's backward.

In PyTorch's order (and for each output of a node with several, e.g. a custom Function that
returns a tuple):

1. the hooks registered on the output tensor (`y.register_hook(fn)`) see its gradient and may
   replace it (a hook on an output that received no gradient is called with None);
2. `y.retain_grad()` keeps the result as `y.grad`, or `autograd.grad` captures it;
3. the node's own pre-hooks (`y.grad_fn.register_prehook(fn)`) see the tuple of all of them.

A tensor hook on output k of a node with several outputs is kept as an `OutputHook(k, fn)` in
`node.hooks`; `retain_grad()` there keeps one weak reference per output (`RetainedOutputs`).
"""

from __future__ import annotations

import weakref

from .accumulate import accumulate_grad
from .node_api import HookHandle, PreHook


class OutputHook:
    """A tensor hook on output `slot` of a node with several outputs."""

    def __init__(self, slot: int, hook):
        self.slot, self.hook = slot, hook
        self.__name__ = getattr(hook, "__name__", "hook")


class RetainedOutputs(dict):
    """`retain_grad()` on outputs of a node with several: slot -> weak reference to the output.
    Called as a single output's weak reference is, it gives None (which output is meant is not
    known there)."""

    def __call__(self):
        return None


def hook_output(tensor, hook) -> HookHandle:
    """`tensor.register_hook(hook)` for a tensor made by a node (`tensor.grad_fn`)."""
    node = tensor.grad_fn
    if node.n_outputs > 1:
        hook = OutputHook(node.output_slot(tensor), hook)
    node.hooks.append(hook)
    return HookHandle(node.hooks, hook)


def retain_output(tensor) -> None:
    """`tensor.retain_grad()` for a tensor made by a node: its gradient is kept as `.grad`."""
    node = tensor.grad_fn
    if node.n_outputs == 1:
        node.retained = weakref.ref(tensor)
        return
    if not isinstance(node.retained, RetainedOutputs):
        node.retained = RetainedOutputs()
    node.retained[node.output_slot(tensor)] = weakref.ref(tensor)


def move_retained(old_node, new_node, tensor) -> None:
    """An in-place op gave `tensor` a new node: its `retain_grad()` moves with it."""
    retained = old_node.retained
    if isinstance(retained, RetainedOutputs):
        new_node.retained = retained.pop(old_node.output_slot(tensor), None)
    else:
        new_node.retained, old_node.retained = retained, None


def run_hooks(hooks, grad):
    """Call each hook on the gradient; a hook that returns a Tensor replaces it."""
    for hook in hooks:
        result = hook(grad)
        if result is not None:
            if grad is not None and tuple(result.shape) != tuple(grad.shape):
                raise RuntimeError(
                    f"hook {getattr(hook, '__name__', hook)!s} returned a gradient of shape "
                    f"{tuple(result.shape)} for a gradient of shape {tuple(grad.shape)}; a hook "
                    "must return a gradient of the same shape (or None to keep it)"
                )
            grad = result
    return grad


def output_gradient_ready(node, grad_output, capture: dict | None, create_graph: bool):
    """A node's output gradient (a tuple, one per output, for a node with several) is
    complete: tensor hooks, then retain_grad / autograd.grad's capture, then the node's
    pre-hooks (the module docstring). Returns the gradient(s) backward receives."""
    if not node.hooks and node.retained is None and capture is None:
        return grad_output  # the usual node has none of the three
    several = node.n_outputs > 1
    grads = list(grad_output) if several else [grad_output]
    prehooks = []
    for hook in node.hooks:
        if isinstance(hook, PreHook):
            prehooks.append(hook.hook)
        elif isinstance(hook, OutputHook):
            grads[hook.slot] = run_hooks((hook.hook,), grads[hook.slot])
        else:
            grads[0] = run_hooks((hook,), grads[0])
    for k, grad in enumerate(grads):
        key = (id(node), k) if several else id(node)
        if grad is not None:
            _keep(node, k, key, grad, capture, create_graph)
    for hook in prehooks:
        result = hook(tuple(grads))
        grads = grads if result is None else list(result)
    return tuple(grads) if several else grads[0]


def _keep(node, slot: int, key, grad, capture: dict | None, create_graph: bool) -> None:
    """Capture output `slot`'s gradient for `autograd.grad`, and store it as the output's
    `.grad` if `retain_grad()` asked for that (under `autograd.grad` too, as PyTorch)."""
    if capture is not None and key in capture:
        capture[key] = grad
    retained = node.retained
    if isinstance(retained, RetainedOutputs):
        retained = retained.get(slot)
    if retained is not None and (tensor := retained()) is not None:
        accumulate_grad(tensor, grad, create_graph)
