"""The small features the backward loop (`engine.backward_steps`) calls, one function each.

- `add_gradient`, `take_gradient`: one more gradient for a node's output or a leaf (the uses
  add up); the sum, once the last has arrived.
- `output_gradient_ready`: a node's output gradient is complete: `run_hooks` (`register_hook`
  functions see it, and may replace it), then `keep_for_retain_grad` (a non-leaf's `.grad`
  after `retain_grad()`, or `autograd.grad`'s capture).
- `deliver_to_leaf`: a leaf's gradient is complete: hooks, then `.grad` (or the capture).
- `join_view`: an op's output that is a view of an input shares its version counter (forward).
- `refuse_stale_view`: a view taken before its base was changed in place is not used (forward).
"""

from __future__ import annotations

import numpy as np

HINT = (  # how to backpropagate twice through one graph
    "its saved values were freed after the first backward. Pass retain_graph=True to the first "
    "backward() (or autograd.grad) if you need to backpropagate through the same graph twice."
)


def add_gradient(grads: dict, key: int, grad, create_graph: bool) -> None:
    """grads[key] += grad: the gradient of a value used twice is the sum over its uses.

    An entry is [the sum so far, whether it is an array made here]. The first gradient is kept
    as it is; the second makes a new sum; later ones are added into that one in place.
    """
    entry = grads.get(key)
    if entry is None:
        grads[key] = [grad, False]
    elif entry[1] and not create_graph:
        # NOTE: in place, into the array made here (nobody else has it): no new array per
        # further use (a weight used at every step of an RNN; (512, 128) float32: 5.1 -> 4.1 us)
        entry[0].array += grad.array
    else:
        entry[0], entry[1] = _plus(entry[0], grad, create_graph), True


def take_gradient(grads: dict, key: int):
    """The sum of the gradients `key` received (None if none), taken out of `grads`."""
    entry = grads.pop(key, None)
    return None if entry is None else entry[0]


def _plus(a, b, create_graph: bool):
    """a + b for two gradients: recorded under create_graph (a gradient of gradients)."""
    if create_graph:
        return a + b
    # NOTE: nothing to record, so the arrays are added directly: a Tensor op would cost ~5 us
    # more per extra use of a value (measured on a 61-node backward: 2.9 -> 2.3 ms).
    return b._make(np.asarray(a.array + b.array))  # np.asarray: a 0-d sum stays an array


def run_hooks(hooks, grad):
    """Call each hook on the gradient; a hook that returns a Tensor replaces it."""
    for hook in hooks:
        result = hook(grad)
        if result is not None:
            if tuple(result.shape) != tuple(grad.shape):
                raise RuntimeError(
                    f"hook {getattr(hook, '__name__', hook)!s} returned a gradient of shape "
                    f"{tuple(result.shape)} for a gradient of shape {tuple(grad.shape)}; a hook "
                    "must return a gradient of the same shape (or None to keep it)"
                )
            grad = result
    return grad


def output_gradient_ready(node, grad_output, capture: dict | None, create_graph: bool):
    """A node's output gradient is complete: its hooks see it (and may replace it), then
    `retain_grad()` or `autograd.grad`'s capture keeps it. Returns the gradient to use."""
    if not node.hooks and node.retained is None and capture is None:
        return grad_output  # NOTE: the usual node has none of the three (103 -> 63 ns a node)
    grad_output = run_hooks(node.hooks, grad_output)
    keep_for_retain_grad(node, grad_output, capture, create_graph)
    return grad_output


def keep_for_retain_grad(node, grad_output, capture: dict | None, create_graph: bool) -> None:
    """A node's output gradient is complete: capture it for `autograd.grad`, or store it as the
    output tensor's `.grad` if `retain_grad()` asked for that."""
    if capture is not None:
        if id(node) in capture:
            capture[id(node)] = grad_output
    elif node.retained is not None and (tensor := node.retained()) is not None:
        accumulate_grad(tensor, grad_output, create_graph)


def deliver_to_leaf(leaf, grad, capture: dict | None, create_graph: bool) -> None:
    """A leaf's gradient is complete: run its hooks, then add it into `.grad` (or capture it
    for `autograd.grad`; a leaf it did not ask for is left alone, no hook runs)."""
    if capture is None:
        accumulate_grad(leaf, run_hooks(leaf._hooks or (), grad), create_graph)
    elif id(leaf) in capture:
        capture[id(leaf)] = run_hooks(leaf._hooks or (), grad)


def accumulate_grad(tensor, grad, create_graph: bool) -> None:
    """`tensor.grad += grad`. The first gradient is copied (unless recorded): the same gradient
    Tensor can reach two leaves (`a + b` sends one to both), and each `.grad` must be its own."""
    if tensor.grad is None:
        tensor.grad = grad if create_graph else grad._make(grad.array.copy())
    else:
        tensor.grad = _plus(tensor.grad, grad, create_graph)


def join_view(out, inputs) -> None:
    """If `out`'s array is a view into an input's memory, `out` shares that input's version
    counter (an in-place change of either is a change of both) and remembers it as `_base`."""
    root = _root(out.array)
    for t in inputs:
        # NOTE: a view's base is most often the owner itself: tested before walking to the root
        # (reshape: 216.8k -> 202.0k instructions per op, with one other trim)
        base = t.array.base
        if t.array is root or base is root or (base is not None and _root(t.array) is root):
            out._versions = t._version_counter()
            out._base = t if t._base is None else t._base
            out._base_grad_fn = out._base.grad_fn
            return


def _root(array):
    """The array that owns the memory `array` looks into."""
    while isinstance(array.base, type(array)):
        array = array.base
    return array


def refuse_stale_view(view, op: str) -> None:
    """A view's values follow its base's memory, but its grad_fn was fixed when it was taken:
    after a recorded in-place change of the base, using the old view would send gradients
    along the base's old history. PyTorch rebuilds the view's history; here, take it again."""
    if view._base.grad_fn is not view._base_grad_fn:
        raise RuntimeError(
            f"{op}: this tensor is a view taken before its base was changed in place (the "
            "change is recorded in the base's history, not in the view's); take the view "
            "again after the in-place change, e.g. v = y[:2] once more"
        )
