"""The Jacobian by forward mode, node by node, for `check_forward_ad` of PyTorch's gradcheck.

Forward mode pushes a tangent t (how each input moves) through the graph from the inputs to
the outputs: each node turns its inputs' tangents into its output's tangent, J_node · t. Here:

- a custom `torch.autograd.Function` uses its own `jvp(ctx, *tangents)` (one tangent per
  forward argument: zeros for a Tensor without one, None for the rest; None throughout after
  `ctx.set_materialize_grads(False)`; `ctx.saved_tensors` there are what `save_for_forward`
  kept). Without a `jvp` it raises NotImplementedError, as
  PyTorch does: a planted mistake in a jvp is what this check exists to find;
- every other node by the double-vjp identity on that node alone: with u = 0 requiring grad,
  its backward gives g_i(u) = J_iᵀ u for each input i, and d(Σ_i g_i(u)·t_i)/du = Σ_i J_i t_i.

Column j of the Jacobian with respect to input p is the outputs' tangent for t = e_j.
"""

from __future__ import annotations

import numpy as np

from ..autograd.backward_call import call_backward
from ..autograd.engine import backward_steps, gradient_key, topological_sort
from ..autograd.grad import grad
from ..autograd.grad_mode import enable_grad, no_grad
from ..autograd.node import GraphTensor
from ..autograd.tensor_function import WATCHERS, FunctionCtx
from ..autograd.tensor_function import Function as TorchFunction
from ..tensor import Tensor

NO_JVP = (
    "You must implement the jvp function for custom autograd.Function to use it with forward "
    "mode AD."
)


def forward_jacobians(outputs: list, leaves: list) -> dict:
    """{(output k, leaf p): J as an (output.numel, leaf.numel) array} by forward mode, for
    `outputs` made from `leaves` (the graph is kept; nothing is freed)."""
    roots = [out for out in outputs if out.grad_fn is not None]
    order = topological_sort([out.grad_fn for out in roots])
    shapes = _output_shapes(roots, leaves)
    order.reverse()  # inputs first
    jacobians = {
        (k, p): np.zeros((out.array.size, leaf.array.size))
        for k, out in enumerate(outputs)
        for p, leaf in enumerate(leaves)
    }
    for p, leaf in enumerate(leaves):
        for j in range(leaf.array.size):
            tangent = np.zeros(leaf.array.shape, dtype=leaf.array.dtype)
            tangent.flat[j] = 1.0
            tangents = _push(order, shapes, {id(leaf): Tensor._make(tangent)})
            for k, out in enumerate(outputs):
                t = tangents.get(gradient_key(out.grad_fn or out, out))
                if t is not None:
                    jacobians[k, p][:, j] = np.asarray(t.array, dtype=np.float64).ravel()
    return jacobians


def refuse_custom_functions_without_jvp(func, arguments: tuple, leaves: list):
    """Run func(*arguments); NotImplementedError (PyTorch's) if it applied a custom Function
    without a jvp to something that depends on `leaves` (forward mode would need that jvp),
    even where the outputs' graph no longer goes through it (a gradient built from x)."""
    made: list = []
    WATCHERS.append(made)
    try:
        with enable_grad():
            returned = func(*arguments)
    finally:
        WATCHERS.remove(made)
    wanted = {id(leaf) for leaf in leaves}
    for node in made:
        if node.fn.jvp is TorchFunction.jvp and _depends_on(node, wanted):
            raise NotImplementedError(NO_JVP)
    return returned


def _depends_on(node, wanted: set) -> bool:
    """Does a path of edges lead from `node` to one of the leaves whose ids are `wanted`?"""
    stack, seen = [node], set()
    while stack:
        current = stack.pop()
        for edge in getattr(current, "edges", ()):
            if id(edge) in wanted:
                return True
            if id(edge) not in seen and not isinstance(edge, GraphTensor):
                seen.add(id(edge))
                stack.append(edge)
    return False


def _output_shapes(roots: list, leaves: list) -> dict:
    """{gradient key: (shape, dtype)} of the output of every node between `leaves` and `roots`,
    read from one backward pass with zero seeds (captured: no `.grad` changes; the graph is
    kept)."""
    shapes = {}
    seeds = [Tensor._make(np.zeros_like(r.array)) for r in roots]
    capture = dict.fromkeys(id(leaf) for leaf in leaves)
    for step in backward_steps(roots, seeds, retain_graph=True, capture=capture):
        node, g = step.node, step.grad_output
        if node.n_outputs > 1:
            for k, array in enumerate(node.output_arrays):
                if array is not None:
                    shapes[id(node), k] = (array.shape, array.dtype)
        elif g is not None:
            shapes[id(node)] = (tuple(g.shape), g.array.dtype)
    return shapes


def _push(order: list, shapes: dict, tangents: dict) -> dict:
    """Every node's output tangent, from the leaves' `tangents` (keyed as gradients are)."""
    for node in order:
        ins = [tangents.get(gradient_key(e, t)) for e, t in zip(node.edges, node.inputs)]
        if all(t is None for t in ins):
            continue
        if isinstance(node, FunctionCtx):
            outs = _custom_jvp(node, ins)
            for k, t in enumerate(outs):
                key = (id(node), k) if node.n_outputs > 1 else id(node)
                if isinstance(t, GraphTensor):
                    tangents[key] = t
        elif id(node) in shapes:
            t = _local_jvp(node, ins, *shapes[id(node)])
            if t is not None:
                tangents[id(node)] = t
    return tangents


def _custom_jvp(node: FunctionCtx, ins: list) -> tuple:
    """A custom Function's own `jvp`, one tangent per forward argument."""
    if node.fn.jvp is TorchFunction.jvp:
        raise NotImplementedError(NO_JVP)
    given = iter(ins)
    arguments = []
    for a in node.args:
        if not isinstance(a, GraphTensor):
            arguments.append(None)
            continue
        t = next(given)
        if t is None and node.materialize_grads:
            t = a._make(np.zeros_like(a.array))
        arguments.append(t)
    node.in_jvp = True  # ctx.saved_tensors: what save_for_forward kept, as in PyTorch
    try:
        with no_grad():
            out = node.fn.jvp(node, *arguments)
    finally:
        node.in_jvp = False
    return out if isinstance(out, tuple) else (out,)


def _local_jvp(node, ins: list, shape: tuple, dtype):
    """J_node · t by the double-vjp identity on this node alone (module docstring)."""
    with enable_grad():
        u = Tensor._make(np.zeros(shape, dtype=dtype), requires_grad=True)
        transposed = call_backward(node, u)
        terms = [
            (g * t).sum()
            for g, t in zip(transposed, ins)
            if isinstance(g, GraphTensor) and g.requires_grad and t is not None
        ]
        if not terms:
            return None
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        (product,) = grad(total, u, retain_graph=True, allow_unused=True)
    return product
