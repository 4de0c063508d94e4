"""Calling a node's backward, and fitting what it returned to the node's inputs.

The loop (`engine.backward_steps`) hands a node the gradient of its output; `call_backward`
runs the Function's backward and returns exactly one gradient (or None) per Tensor input, each
with that input's shape and dtype: a gradient of a broadcast shape is summed back, a NumPy
array is wrapped, and what had to change is noted in `node.fixes` for gradcheck to report.
`run_post_hooks` then lets `Node.register_hook` hooks see (and replace) what was sent.
"""

from __future__ import annotations

import numpy as np

from ..broadcast import broadcasts_to, sum_to_shape
from .grad_mode import is_grad_enabled
from .node import GraphTensor


def call_backward(node, grad_output) -> tuple:
    """Call the Function's backward: one gradient (or None) per Tensor input, each with
    exactly that input's shape and dtype."""
    if node.versions:
        node.check_versions()
    if node.n_outputs == 1:
        grads = node.fn.backward(node, grad_output)
    else:  # PyTorch-style: one gradient argument per output
        grads = node.fn.backward(node, *node.materialize(grad_output))
    needs = node.needs_input_grad
    grads = grads if type(grads) is tuple else (grads,)
    if len(grads) != len(needs):
        grads = _one_per_argument(node, grads)
    if len(grads) > len(node.inputs):  # keep those of the Tensor arguments, in order
        tensor_arguments = [isinstance(a, GraphTensor) for a in node.args]
        grads = [g for g, is_tensor in zip(grads, tensor_arguments) if is_tensor]
        needs = [n for n, is_tensor in zip(needs, tensor_arguments) if is_tensor]
    return tuple(
        _as_input_gradient(node, i, g, grad_output) if needs[i] and g is not None else None
        for i, g in enumerate(grads)
    )


def _one_per_argument(node, grads) -> tuple:
    """What backward returned (as a tuple), as one gradient (or None) per positional
    argument of forward; trailing Nones for arguments that need no gradient may be left out."""
    n_args = len(node.needs_input_grad)
    if len(grads) < n_args and not any(node.needs_input_grad[len(grads) :]):
        grads += (None,) * (n_args - len(grads))
    elif len(grads) > n_args and all(g is None for g in grads[n_args:]):  # defaults left out
        grads = grads[:n_args]
    if len(grads) != n_args:
        raise RuntimeError(
            f"{node.name}: backward returned {len(grads)} gradients but forward took "
            f"{n_args} arguments; return one per argument (None for those that need none)"
        )
    return grads


def _as_input_gradient(node, i: int, g, like):
    """A gradient backward returned for input `i`, as a Tensor of that input's shape and
    dtype. What had to change is noted in `node.fixes`, so gradcheck can report it."""
    shape, dtype = node.input_shapes[i], node.input_dtypes[i]
    if isinstance(g, GraphTensor):
        values = g.array
    else:  # an array: an `ops/xp.py` formula ran on arrays (nothing recorded), or a slip
        if is_grad_enabled():  # recording the backward pass: this gradient is a constant
            node.fixes |= {f"returned a NumPy array for input {i}"}
        g = values = np.asarray(g)
    if values.shape != shape:
        if not broadcasts_to(shape, values.shape):
            raise RuntimeError(
                f"{node.name}: backward returned a gradient of shape {values.shape} for "
                f"input {i} of shape {shape}; a gradient must have the input's shape "
                "(or a shape the input broadcasts to, which is then summed back)"
            )
        g = sum_to_shape(g, shape)  # a Tensor or an array, as g was
    if values.dtype != dtype:
        node.fixes |= {f"returned {values.dtype} for input {i} of dtype {dtype}"}
        g = g.astype(dtype) if isinstance(g, np.ndarray) else g.to(dtype)
    return like._make(g) if isinstance(g, np.ndarray) else g


def run_post_hooks(node, grad_inputs: tuple, grad_output) -> tuple:
    """PyTorch's `Node.register_hook`: each hook sees (grad_inputs, grad_outputs) and may
    return a replacement for grad_inputs."""
    grad_outputs = grad_output if node.n_outputs > 1 else (grad_output,)
    for hook in node.post_hooks:
        result = hook(grad_inputs, grad_outputs)
        if result is not None:
            grad_inputs = tuple(result)
    return grad_inputs
