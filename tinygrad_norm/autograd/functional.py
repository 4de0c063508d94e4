"""Derivatives of whole functions: `jacobian`, `hessian`, `vjp`, `jvp`, `hvp` (as PyTorch's).

All of them are built on one operation, the vector-Jacobian product `vᵀJ` that backward
computes:

- `vjp(f, x, v)` is one backward pass.
- `jacobian(f, x)` is one backward pass per output element (v = each unit vector in turn).
- `jvp(f, x, u)` (= J u) uses the "double backward" trick: g(w) = Jᵀw is linear in w, so
  its own vector-Jacobian product with u is (Jᵀ)ᵀ u = J u.
- `hessian(f, x)` is the Jacobian of the gradient; `hvp(f, x, v)` differentiates gᵀv once.

`inputs` is a Tensor or a tuple of Tensors; results mirror that (a Tensor, or a tuple).
"""

from __future__ import annotations

import numpy as np

from ..ops.shape import stack
from .grad import grad
from .node import GraphTensor


def _as_tuple(x) -> tuple[tuple, bool]:
    return ((x,), False) if isinstance(x, GraphTensor) else (tuple(x), True)


def _zeros_like(x):
    return x._make(np.zeros_like(x.array))


def _prepare(inputs, create_graph: bool) -> tuple:
    """Fresh leaves to differentiate at (kept joined to the caller's graph with create_graph)."""
    return tuple(
        x if create_graph and x.requires_grad else x.detach().requires_grad_() for x in inputs
    )


def _grads(outputs, inputs, grad_outputs, create_graph: bool) -> tuple:
    """Like `grad`, but an input the outputs do not depend on gets zeros, not None."""
    outputs = tuple(o for o in outputs if o.requires_grad)
    if not outputs:
        return tuple(_zeros_like(x) for x in inputs)
    kept = [g for o, g in zip(outputs, grad_outputs)] if grad_outputs is not None else None
    result = grad(
        outputs, inputs, kept, retain_graph=True, create_graph=create_graph, allow_unused=True
    )
    return tuple(_zeros_like(x) if g is None else g for x, g in zip(inputs, result))


def _result(values: tuple, is_tuple: bool):
    return values if is_tuple else values[0]


def _detach_all(values: tuple, create_graph: bool) -> tuple:
    return values if create_graph else tuple(v.detach() for v in values)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), vᵀ J): one backward pass. `v` may be omitted for a one-element output."""
    inputs, in_tuple = _as_tuple(inputs)
    inputs = _prepare(inputs, create_graph)
    outputs, out_tuple = _as_tuple(func(*inputs))
    vs = _as_tuple(v)[0] if v is not None else (None,) * len(outputs)
    result = _grads(outputs, inputs, vs, create_graph)
    return (
        _result(_detach_all(outputs, create_graph), out_tuple),
        _result(_detach_all(result, create_graph), in_tuple),
    )


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J u) for a tangent `u` (= `v`) of the inputs' shapes."""
    inputs, in_tuple = _as_tuple(inputs)
    inputs = _prepare(inputs, create_graph)
    outputs, out_tuple = _as_tuple(func(*inputs))
    us = _as_tuple(v)[0] if v is not None else tuple(x._make(np.ones_like(x.array)) for x in inputs)
    # Dummy cotangents w: Jᵀw is linear in w, and its vector-Jacobian product with u is J u.
    ws = tuple(_zeros_like(o).requires_grad_() for o in outputs)
    jt_w = _grads(outputs, inputs, ws, create_graph=True)
    result = _grads(jt_w, ws, us, create_graph)
    return (
        _result(_detach_all(outputs, create_graph), out_tuple),
        _result(_detach_all(result, create_graph), out_tuple),
    )


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False):
    """d func(inputs) / d inputs, of shape `output.shape + input.shape`.

    With several inputs: a tuple with one Jacobian per input; with several outputs too: a
    tuple (one per output) of such tuples.
    """
    inputs, in_tuple = _as_tuple(inputs)
    inputs = _prepare(inputs, create_graph)
    outputs, out_tuple = _as_tuple(func(*inputs))
    per_output = []
    for out in outputs:
        rows: list[list] = [[] for _ in inputs]
        for i in range(out.numel()):
            unit = np.zeros(out.numel(), dtype=out.dtype)
            unit[i] = 1
            seed = out._make(np.zeros(out.shape, dtype=out.dtype))
            seed.array[...] = unit.reshape(out.shape)
            for k, g in enumerate(_grads((out,), inputs, (seed,), create_graph)):
                rows[k].append(g)
        jac = tuple(
            (
                stack(r).reshape(out.shape + x.shape)
                if r
                else x._make(np.zeros(out.shape + x.shape, dtype=x.dtype))
            )
            for r, x in zip(rows, inputs)
        )
        per_output.append(_result(_detach_all(jac, create_graph), in_tuple))
    return _result(tuple(per_output), out_tuple)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False):
    """Second derivatives of a function with one-element output: shape `x.shape + x.shape`
    (a tuple of tuples, H[i][j] = d²f / dxᵢ dxⱼ, for several inputs)."""
    inputs, in_tuple = _as_tuple(inputs)

    def gradient(*xs):
        out = func(*xs)
        if out.numel() != 1:
            raise RuntimeError(
                f"hessian: the function must return one element, got shape {out.shape}"
            )
        return _grads((out,), xs, (None,), create_graph=True)

    jac = jacobian(gradient, inputs if in_tuple else inputs[0], create_graph=create_graph)
    return jac if in_tuple else jac[0]


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v): differentiate gᵀv once, where g is the gradient."""
    inputs, in_tuple = _as_tuple(inputs)
    inputs = _prepare(inputs, create_graph)
    out = func(*inputs)
    if out.numel() != 1:
        raise RuntimeError(f"hvp: the function must return one element, got shape {out.shape}")
    vs = _as_tuple(v)[0]
    grads = _grads((out,), inputs, (None,), create_graph=True)
    result = _grads(grads, inputs, vs, create_graph)
    return (out if create_graph else out.detach()), _result(
        _detach_all(result, create_graph), in_tuple
    )
