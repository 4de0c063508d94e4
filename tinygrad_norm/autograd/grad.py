"""`tg.autograd.grad`: gradients of outputs with respect to chosen inputs, returned, not stored."""

from __future__ import annotations

import numpy as np

from .engine import gradient_key, run_backward
from .node import GraphTensor


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    allow_unused=None,
    *,
    materialize_grads=False,
):
    """d(outputs)/d(inputs), as a tuple with one gradient per input; no `.grad` is touched.

    `outputs` and `inputs` are Tensors or sequences of them; `grad_outputs` gives the vector of
    the vector-Jacobian product for each output (ones for a one-element output). An input that
    does not influence the outputs is an error unless `allow_unused=True` (it then gets None).

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor(3.0, requires_grad=True)
    >>> (dy_dx,) = tg.autograd.grad(x ** 3, x, create_graph=True)
    >>> dy_dx, tg.autograd.grad(dy_dx, x)[0]
    (tensor(27., grad_fn=<MulBackward>), tensor(18.))
    """
    outputs = (outputs,) if isinstance(outputs, GraphTensor) else tuple(outputs)
    inputs = (inputs,) if isinstance(inputs, GraphTensor) else tuple(inputs)
    if grad_outputs is None or isinstance(grad_outputs, GraphTensor):
        grad_outputs = (grad_outputs,) * len(outputs) if grad_outputs is None else (grad_outputs,)
    for i, t in enumerate(inputs):
        if not t.requires_grad:
            raise RuntimeError(
                f"autograd.grad: input {i} does not require grad; create it with requires_grad=True"
            )
    seeds = [out._initial_gradient("autograd.grad", g) for out, g in zip(outputs, grad_outputs)]
    keys = [id(t) if t.grad_fn is None else gradient_key(t.grad_fn, t) for t in inputs]
    capture = dict.fromkeys(keys)
    retain = create_graph if retain_graph is None else retain_graph
    run_backward(outputs, seeds, retain_graph=retain, create_graph=create_graph, capture=capture)
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "autograd.grad: materialize_grads=True needs allow_unused to be None or True "
            "(an unused input then gets zeros)"
        )
    allow_unused = bool(allow_unused) or materialize_grads
    grads = []
    for i, (t, key) in enumerate(zip(inputs, keys)):
        g = capture[key]
        if g is None and materialize_grads:  # zeros for an unused input, as PyTorch's
            g = t._make(np.zeros_like(t.array))
        if g is None and not allow_unused:
            raise RuntimeError(
                f"autograd.grad: input {i} (shape {t.shape}) was not used to "
                "compute the outputs; pass allow_unused=True to get None for it"
            )
        if g is None:
            grads.append(None)
        else:
            grads.append(g if create_graph else g._make(g.array))
    return tuple(grads)
