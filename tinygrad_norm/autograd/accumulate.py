"""Adding gradients up: `.grad += grad` as PyTorch's AccumulateGrad does it, and the sum of
two gradients inside the backward loop (`plus`). `engine.py` and `output_hooks.py` use both.
"""

from __future__ import annotations

import numpy as np


def plus(a, b, create_graph: bool):
    """a + b for two gradients: recorded under create_graph (a gradient of gradients)."""
    if create_graph:
        return a + b
    # NOTE: nothing to record, so the arrays are added directly, without a node
    return b._make(np.asarray(a.array + b.array))  # np.asarray: a 0-d sum stays an array


def accumulate_grad(tensor, grad, create_graph: bool) -> None:
    """`tensor.grad += grad`, as PyTorch's AccumulateGrad does it.

    - the first gradient is copied: the same gradient Tensor can reach two leaves (`a + b`
      sends one to both), and each `.grad` must be its own array (under `create_graph` the copy
      is a recorded `clone()`, so the gradient stays differentiable); a hook or a custom
      backward may also keep it;
    - later gradients are added into that same Tensor in place, so `g = w.grad` held across a
      second backward sees the sum, and `g.zero_()` reaches the parameter;
    - under `create_graph` the sum is a new, differentiable Tensor that replaces `.grad`.
    """
    current = tensor.grad
    if current is None:
        tensor.grad = grad.clone() if create_graph else grad._make(grad.array.copy())
    elif create_graph or not current.array.flags.writeable:
        tensor.grad = plus(current, grad, create_graph)  # recorded, or beside a read-only .grad
    else:
        # NOTE: in place, into the array `.grad` holds: every reference to it sees the sum
        current.array += grad.array
        if current._versions is not None:
            current._versions[0] += 1
