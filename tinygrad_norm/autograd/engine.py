"""The backward loop: `topological_sort`, `backward_steps`, and the bookkeeping of gradients.

How reverse mode works here, in four sentences:

1. Every differentiable operation is a `Function` subclass with `forward(ctx, *arrays)` on NumPy
   arrays and `backward(ctx, grad_output)` written with Tensor operations.
2. `Function.apply` runs forward and, when an input requires grad, records a `Context` as the
   output's `grad_fn`: the node remembers its inputs and what forward saved for backward.
3. `backward_steps` sorts the nodes reachable from the output so that every node comes after all
   nodes that use its result (reverse topological order), then visits each node once: it hands
   the node the sum of the gradients its output received, calls the node's backward, and passes
   each returned gradient on to the input's node, or adds it into a leaf's `.grad`.
4. Because backward is made of Tensor operations, running it with grad enabled
   (`create_graph=True`) records a graph of the backward pass itself: gradients of gradients.
   (The ops' own backwards are written so that the same lines also run on the bare arrays when
   nothing is recorded, which is faster: `ops/xp.py`. A backward may return arrays then.)

`Tensor.backward()` runs `backward_steps` to the end; the step-through tool shows the same steps
one at a time, so what a learner steps through is what really runs. The node's side (`Function`,
`Context`) is in `function.py` and `node.py`; the loop is here, with two helpers: what happens
to a node's output gradient before its backward (hooks, retain_grad: `output_hooks.py`) and
`.grad += g` (`accumulate.py`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .accumulate import accumulate_grad, plus
from .anomaly import check_gradients, is_anomaly_enabled
from .backward_call import call_backward, run_post_hooks
from .grad_mode import enable_grad, no_grad
from .node import HINT, Context, GraphTensor
from .output_hooks import output_gradient_ready, run_hooks

__all__ = [
    "Step",
    "accumulate_grad",
    "backward_steps",
    "gradient_key",
    "run_backward",
    "topological_sort",
]


class Step(NamedTuple):
    """What the engine did at one node: the step-through tool shows these."""

    index: int
    node: Context
    grad_output: Any  # Tensor: the gradient of the node's output, summed over all its uses
    grad_inputs: tuple  # what the node sent to each of its Tensor inputs (None: nothing)
    inputs: tuple  # the node's input Tensors
    grads: dict  # the loop's sums of gradients so far (features.add_gradient), and
    capture: Any  # autograd.grad's capture (or None): what `so_far` reads

    def so_far(self) -> tuple:
        """Each input's gradient so far (a leaf's: its .grad once complete). Only the
        step-through tool asks; call it before the next step runs."""
        inputs = self.inputs or (None,) * len(self.node.edges)
        return tuple(
            _gradient_so_far(e, gradient_key(e, t), self.grads, self.capture)
            for e, t in zip(self.node.edges, inputs)
        )


def topological_sort(roots: list[Context]) -> list[Context]:
    """Nodes reachable from `roots`, each after every node that consumes its output.

    An iterative depth-first search (no recursion limit): a node is appended once all of its
    inputs' nodes are finished; reversing that post-order puts consumers first.
    """
    order: list[Context] = []
    visited: set[Context] = set()  # nodes hash by identity
    for root in roots:
        if root in visited:
            continue
        visited.add(root)
        stack = [(root, iter(root.edges))]
        while stack:
            node, children = stack[-1]
            for child in children:
                if isinstance(child, Context) and child not in visited:
                    visited.add(child)
                    stack.append((child, iter(child.edges)))
                    break
            else:
                stack.pop()
                order.append(node)
    order.reverse()
    return order


def backward_steps(roots, grad_roots, *, retain_graph=False, create_graph=False, capture=None):
    """Run the backward pass from `roots` (Tensors) seeded with `grad_roots`, one node at a time.

    Yields a `Step` after each node. `grads` holds, for every node and leaf, the sum of the
    gradients it has received so far. A leaf's sum is delivered (hooks, then
    `.grad`) as soon as the last edge into it has run: `pending` counts those edges. With
    `capture` (a dict keyed by `id` of the tensors `autograd.grad` asked for), gradients go there
    instead of `.grad`.
    """
    create_graph = bool(create_graph)
    grad_mode = enable_grad() if create_graph else no_grad()  # the mode inside each backward
    grads: dict = {}  # id(node or leaf) -> the sum of its gradients so far (`gradient_key`)
    for root, grad in zip(roots, grad_roots):
        add_gradient(grads, gradient_key(root.grad_fn or root, root), grad, create_graph)
    order = topological_sort([r.grad_fn for r in roots if r.grad_fn is not None])
    pending = count_edges_into_leaves(roots, order)
    for root in {id(r): r for r in roots if r.grad_fn is None}.values():
        if pending[id(root)] == 0:  # a leaf that is itself a root, used by no node
            grad = take_gradient(grads, id(root))
            deliver_to_leaf(root, grad, capture, create_graph)

    needed, wanted = _needed(order, capture)
    for index, node in enumerate(order):
        if node.n_outputs == 1:
            grad_output = take_gradient(grads, id(node))
        else:  # one gradient per output; None where an output received none
            grad_output = tuple(take_gradient(grads, (id(node), k)) for k in range(node.n_outputs))
            grad_output = None if all(g is None for g in grad_output) else grad_output
        grad_inputs: tuple = (None,) * len(node.edges)
        run = needed is None or id(node) in needed  # autograd.grad: only towards its inputs
        # a custom Function that no gradient reached is called too (PyTorch): zeros, or None
        called = run and (grad_output is not None or node.runs_without_gradient)
        if called and node.released:
            raise RuntimeError(f"{node.name}: backward through the graph a second time: {HINT}")
        if called and grad_output is None:
            grad_output = node.no_gradient()
        if (called or id(node) in wanted) and grad_output is not None:
            grad_output = output_gradient_ready(node, grad_output, capture, create_graph)
        if called:
            with grad_mode:
                grad_inputs = call_backward(node, grad_output)
                if node.post_hooks:
                    grad_inputs = run_post_hooks(node, grad_inputs, grad_output)
            if is_anomaly_enabled():
                check_gradients(node, grad_inputs)
        for edge, grad, tensor in zip(node.edges, grad_inputs, node.inputs):
            key = gradient_key(edge, tensor)
            if grad is not None:
                add_gradient(grads, key, grad, create_graph)
            if key in pending:  # a leaf that requires grad: was this the last edge into it?
                pending[key] -= 1
                if pending[key] == 0 and key in grads:
                    deliver_to_leaf(edge, take_gradient(grads, key), capture, create_graph)
        inputs = node.inputs
        if not retain_graph and run:
            node.release()
        yield Step(index, node, grad_output, grad_inputs, inputs, grads, capture)


def _needed(order: list, capture: dict | None) -> tuple:
    """For `autograd.grad` (a capture): the ids of the nodes from which a path of edges leads
    to a tensor it asked for (only these run, as in PyTorch), and the ids of the nodes and
    leaves asked for. (None, ()) for a plain backward: every node runs."""
    if capture is None:
        return None, ()
    wanted = {key[0] if isinstance(key, tuple) else key for key in capture}
    needed: set = set()
    for node in reversed(order):  # a node's inputs come before it
        if any(id(edge) in wanted or id(edge) in needed for edge in node.edges):
            needed.add(id(node))
    return needed, wanted


def gradient_key(edge, tensor):
    """Where the gradient for `tensor` (whose node, or leaf, is `edge`) is summed: `id(edge)`,
    or `(id(node), k)` for output k of a node with several outputs."""
    if type(edge) is Context or isinstance(edge, GraphTensor) or edge.n_outputs == 1:
        return id(edge)
    return (id(edge), edge.output_slot(tensor))


def _gradient_so_far(edge, key, grads: dict, capture: dict | None):
    """The gradient `edge` has received so far: still being summed, or delivered."""
    if key in grads:
        total = grads[key][0]
        return total._make(total.array.copy())  # a snapshot: later uses may add into the sum
    if isinstance(edge, Context) or capture is not None or not edge.requires_grad:
        return None  # a node's sum was handed on already; a captured or constant input
    return edge.grad


def count_edges_into_leaves(roots, order: list[Context]) -> dict[int, int]:
    """For each leaf that requires grad: how many edges of the graph lead into it."""
    pending = {id(r): 0 for r in roots if r.grad_fn is None}
    for node in order:
        for edge in node.edges:
            if not isinstance(edge, Context) and edge.requires_grad:
                pending[id(edge)] = pending.get(id(edge), 0) + 1
    return pending


def run_backward(roots, grad_roots, *, retain_graph=False, create_graph=False, capture=None):
    """Run every step of `backward_steps`: what `Tensor.backward()` does."""
    for _ in backward_steps(
        roots, grad_roots, retain_graph=retain_graph, create_graph=create_graph, capture=capture
    ):
        pass


# --- the gradient bookkeeping of the loop ---------------------------------------------------------


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
        # further use (a weight used at every step of an RNN)
        entry[0].array += grad.array
    else:
        entry[0], entry[1] = plus(entry[0], grad, create_graph), True


def take_gradient(grads: dict, key: int):
    """The sum of the gradients `key` received (None if none), taken out of `grads`."""
    entry = grads.pop(key, None)
    return None if entry is None else entry[0]


def deliver_to_leaf(leaf, grad, capture: dict | None, create_graph: bool) -> None:
    """A leaf's gradient is complete: run its hooks, then add it into `.grad` (or capture it
    for `autograd.grad`; a leaf it did not ask for is left alone, no hook runs)."""
    if capture is None:
        accumulate_grad(leaf, run_hooks(leaf._hooks or (), grad), create_graph)
    elif id(leaf) in capture:
        capture[id(leaf)] = run_hooks(leaf._hooks or (), grad)
