"""The small features the backward loop (`engine.backward_steps`) calls, one function each.

- `add_gradient`: one more gradient for a node's output or a leaf; the uses add up.
- `run_hooks`: `register_hook` functions see (and may replace) a gradient.
- `keep_for_retain_grad`: a non-leaf's `.grad` after `retain_grad()`, or `autograd.grad`'s capture.
- `deliver_to_leaf`: a leaf's gradient is complete: hooks, then `.grad` (or the capture).
- `join_view`: an op's output that is a view of an input shares its version counter (forward).
"""

from __future__ import annotations

HINT = (  # how to backpropagate twice through one graph
    "its saved values were freed after the first backward. Pass retain_graph=True to the first "
    "backward() (or autograd.grad) if you need to backpropagate through the same graph twice."
)


def add_gradient(grads: dict, key: int, grad) -> None:
    """grads[key] += grad: the gradient of a value used twice is the sum over its uses."""
    grads[key] = grads[key] + grad if key in grads else grad


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


def keep_for_retain_grad(node, grad_output, capture: dict | None, create_graph: bool) -> None:
    """A node's output gradient is complete: capture it for `autograd.grad`, or store it as the
    output tensor's `.grad` if `retain_grad()` asked for that."""
    if capture is not None:
        if id(node) in capture:
            capture[id(node)] = grad_output
    elif node.retained is not None and node.retained() is not None:
        accumulate_grad(node.retained(), grad_output, create_graph)


def deliver_to_leaf(leaf, grad, capture: dict | None, create_graph: bool) -> None:
    """A leaf's gradient is complete: run its hooks, then add it into `.grad` (or capture it
    for `autograd.grad`; a leaf it did not ask for is left alone, no hook runs)."""
    if capture is None:
        accumulate_grad(leaf, run_hooks(leaf._hooks, grad), create_graph)
    elif id(leaf) in capture:
        capture[id(leaf)] = run_hooks(leaf._hooks, grad)


def accumulate_grad(tensor, grad, create_graph: bool) -> None:
    """`tensor.grad += grad`. The first gradient is copied (unless recorded): the same gradient
    Tensor can reach two leaves (`a + b` sends one to both), and each `.grad` must be its own."""
    if tensor.grad is None:
        tensor.grad = grad if create_graph else grad._make(grad.data.copy())
    else:
        tensor.grad = tensor.grad + grad


def join_view(out, inputs) -> None:
    """If `out`'s array is a view into an input's memory, `out` shares that input's version
    counter (an in-place change of either is a change of both) and remembers it as `_base`."""
    root = _root(out.data)
    for t in inputs:
        if _root(t.data) is root:
            out._versions = t._version_counter()
            out._base = t if t._base is None else t._base
            return


def _root(array):
    """The array that owns the memory `array` looks into."""
    while isinstance(array.base, type(array)):
        array = array.base
    return array
