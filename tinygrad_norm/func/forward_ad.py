"""`torch.autograd.forward_ad`: dual numbers, primal + tangent·ε, under PyTorch's names.

    with forward_ad.dual_level():
        x = forward_ad.make_dual(primal, tangent)
        y = f(x)
        jvp = forward_ad.unpack_dual(y).tangent      # J · tangent

How it works here: not by a tangent rule per op. `make_dual` returns a fresh leaf that
requires grad, and the level remembers its tangent; `unpack_dual(y)` computes y's tangent by
the double-vjp identity (transforms.py): with u = 0 requiring grad, g(u) = Jᵀu, and
d(Σ g·t)/du = J t, summed over every dual tensor of the level that y depends on. The numbers
are forward mode's; the cost is two backward passes per `unpack_dual`.
"""

from __future__ import annotations

import threading
from typing import NamedTuple

import numpy as np

from ..autograd.grad import grad as autograd_grad
from ..autograd.grad_mode import enable_grad
from ..tensor import Tensor


class _Levels(threading.local):
    stack: tuple = ()  # one list of (leaf, tangent) per open level, innermost last


_levels = _Levels()


class UnpackedDualTensor(NamedTuple):
    primal: Tensor
    tangent: Tensor | None


class dual_level:  # noqa: N801 (PyTorch's name)
    """Inside, `make_dual` / `unpack_dual` work; the tangents are forgotten at the end."""

    def __enter__(self):
        _levels.stack = (*_levels.stack, [])  # the dual tensors of this level: (leaf, tangent)
        return len(_levels.stack) - 1

    def __exit__(self, *exc_info) -> None:
        _levels.stack = _levels.stack[:-1]


def enter_dual_level() -> int:
    return dual_level().__enter__()


def exit_dual_level(*, level=None) -> None:
    dual_level().__exit__(None, None, None)


def _current(name: str) -> list:
    if not _levels.stack:
        raise RuntimeError(
            f"forward_ad.{name}: no dual level is active; use it inside "
            "`with torch.autograd.forward_ad.dual_level():`"
        )
    return _levels.stack[-1]


def make_dual(tensor: Tensor, tangent: Tensor, *, level=None) -> Tensor:
    """The dual number tensor + tangent·ε (a new tensor with tensor's values)."""
    duals = _current("make_dual")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(
            f"forward_ad.make_dual: Trying to set a forward gradient that has a different size "
            f"than that of the original Tensor, this is not supported. Tensor is of size "
            f"{list(tensor.shape)} while the given forward gradient is of size "
            f"{list(tangent.shape)}."
        )
    leaf = tensor.detach().requires_grad_()
    duals.append((leaf, tangent.detach()))
    return leaf


def unpack_dual(tensor: Tensor, *, level=None) -> UnpackedDualTensor:
    """`(primal, tangent)`: tangent is J·t over the level's dual tensors (None if `tensor`
    depends on none of them)."""
    duals = _current("unpack_dual")
    for leaf, tangent in duals:
        if tensor is leaf:
            return UnpackedDualTensor(tensor.detach(), tangent)
    if not duals or not tensor.requires_grad:
        return UnpackedDualTensor(tensor.detach(), None)
    return UnpackedDualTensor(tensor.detach(), _tangent(tensor, duals))


def _tangent(tensor: Tensor, duals: list):
    leaves = [leaf for leaf, _ in duals]
    with enable_grad():
        u = Tensor._make(np.zeros_like(tensor.array)).requires_grad_()
        transposed = autograd_grad(
            tensor, leaves, u, retain_graph=True, create_graph=True, allow_unused=True
        )
        terms = [
            (g * t).sum()
            for g, (_, t) in zip(transposed, duals)
            if g is not None and g.requires_grad
        ]
        if not terms:
            return None
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        (product,) = autograd_grad(total, u, allow_unused=True)
    return product if product is not None else Tensor._make(np.zeros_like(tensor.array))
