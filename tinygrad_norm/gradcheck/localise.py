"""Which op is wrong? Check every node of the graph on its own.

When a composed function fails gradcheck, the error could sit in any of its ops. Each node of
the graph remembers its Function, its arguments and the Context its forward filled, so each can
be checked alone: replay its forward on the same arrays, nudging one element of one input at a
time, and compare the change of vᵀ·out (for a random v) with the node's own backward applied to
v. The first node, in forward order, whose backward disagrees is the one to fix.
"""

from __future__ import annotations

import copy

import numpy as np

from ..autograd.backward_call import call_backward
from ..autograd.engine import topological_sort
from ..autograd.grad_mode import enable_grad, no_grad
from ..autograd.node import Context
from ..autograd.tensor_function import FunctionCtx
from ..random import get_rng_state, set_rng_state
from ..tensor import Tensor
from .numerical import compare, finite_differences, kinks, within_slopes
from .report import Culprit


def first_wrong_op(fn, leaves: tuple, outputs_of_fn, rng_state, eps, atol, rtol):
    """The `Culprit`: the first node of fn's graph whose own backward is wrong, or None.

    `outputs_of_fn(value)` turns what fn returned into a list of Tensors. The graph is built
    afresh (at the random state every evaluation uses) and never released, so each node still
    holds what its forward saved.
    """
    set_rng_state(rng_state)
    with enable_grad():
        outputs = outputs_of_fn(fn(*leaves))
    roots = [out.grad_fn for out in outputs if out.grad_fn is not None]
    forward_order = topological_sort(roots)[::-1]  # every node after the nodes it reads
    produced = _node_outputs(forward_order, outputs)
    rng = np.random.default_rng(0)  # local: the global generator is not touched
    for node in forward_order:
        found = check_node(node, produced.get(id(node)), rng, rng_state, eps, atol, rtol)
        if found is not None:
            return found
    return None


def _node_outputs(nodes: list, outputs: list) -> dict:
    """id(node) -> the array the node produced (read from the tensors that hold it)."""
    produced = {id(t.grad_fn): t.array for t in outputs if t.grad_fn is not None}
    for node in nodes:
        for t in node.inputs or ():
            if t.grad_fn is not None:
                produced.setdefault(id(t.grad_fn), t.array)
    return produced


def _own_copies(args: list, kwargs: dict) -> tuple:
    """Copies of a node's arguments for one more run of its forward. A forward may change an
    array argument in place (BatchNorm moves the running statistics it is given): checking a
    node must leave the learner's arrays as they were."""
    return copy.deepcopy((args, kwargs))


def check_node(node: Context, recorded, rng, rng_state, eps, atol, rtol):
    """Compare one node's backward with central differences of its own forward.

    The scalar vᵀ·forward(inputs) has gradient backward(v) with respect to each input; both
    sides are computed for one random v. Only float64 inputs that need a gradient are checked.
    """
    tensor_positions = [p for p, a in enumerate(node.args) if isinstance(a, Tensor)]
    checked = [
        (slot, p)
        for slot, p in enumerate(tensor_positions)
        if node.needs_input_grad[p] and node.args[p].dtype == np.float64
    ]
    on_tensors = isinstance(node, FunctionCtx)  # torch.autograd.Function: forward on Tensors
    if not checked or recorded is None or recorded.dtype != np.float64 or node.n_outputs > 1:
        return None
    arrays = [np.array(a.array) if isinstance(a, Tensor) else a for a in node.args]

    def replay() -> np.ndarray:
        set_rng_state(rng_state)
        args, kwargs = _own_copies(arrays, node.kwargs)
        if on_tensors:
            tensors = [Tensor._make(a) if p in tensor_positions else a for p, a in enumerate(args)]
            with no_grad():
                return np.array(node.fn.apply(*tensors, **kwargs).array, dtype=np.float64)
        ctx = Context(node.fn, node.needs_input_grad)
        return np.array(node.fn.forward(ctx, *args, **kwargs), dtype=np.float64)

    reproduced = np.array_equal(replay(), recorded, equal_nan=True)
    draws_random = not np.array_equal(get_rng_state(), rng_state)
    ctx = node
    if draws_random or not reproduced:
        # The forward draws random numbers (dropout), so the node's saved mask need not be what
        # `replay` draws (even when the outputs agree: a mask can differ where the input is 0).
        # Run the op once more at the state `replay` uses, so forward and backward agree.
        set_rng_state(rng_state)
        args, kwargs = _own_copies(arrays, node.kwargs)
        fresh = [
            Tensor._make(a, requires_grad=node.needs_input_grad[p]) if p in tensor_positions else a
            for p, a in enumerate(args)
        ]
        with enable_grad():
            ctx = node.fn.apply(*fresh, **kwargs).grad_fn
        if ctx is None:
            return None
    v = rng.standard_normal(recorded.shape)
    with no_grad():
        grads = call_backward(ctx, Tensor._make(v))

    def v_dot_out() -> np.ndarray:
        return np.array([np.sum(v * replay())])

    for slot, p in checked:
        x = arrays[p]
        g = grads[slot]
        analytic = np.zeros((1, x.size)) if g is None else g.array.reshape(1, -1)
        fd = finite_differences(v_dot_out, x, eps)
        result = compare(fd.central, analytic, atol, rtol)
        excused = kinks(v_dot_out, x, fd, eps, atol, rtol) & within_slopes(analytic, fd, atol, rtol)
        wrong = result.failing & ~excused
        if wrong.any():
            j = int(np.argmax(np.where(wrong, result.badness, -np.inf)[0]))
            element = tuple(int(i) for i in np.unravel_index(j, x.shape))
            return Culprit(node.name, slot, element, fd.central[0, j], analytic[0, j])
    return None


def fixes_made(outputs) -> list[tuple[str, str]]:
    """(op, what) for each change the engine made to what a backward of the outputs' graph
    returned (`Context.fixes`): a NumPy array recorded as a constant, a dtype cast. Each once,
    in the order the nodes run."""
    nodes = topological_sort([o.grad_fn for o in outputs if o.grad_fn is not None])
    return list(dict.fromkeys((node.name, fix) for node in nodes for fix in sorted(node.fixes)))
