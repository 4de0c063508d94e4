"""`torch.autograd.Variable`, from PyTorch before 0.4, when tensors did not record gradients
and a Variable wrapped one that did. Today every tensor can: `Variable(x)` is a tensor holding
x's values (a new leaf, sharing its memory), `Variable(x, requires_grad=True)` one that
requires grad, and `isinstance(t, Variable)` is True for every tensor, as in PyTorch."""

from __future__ import annotations

from .node import GraphTensor


class _VariableMeta(type):
    def __instancecheck__(cls, value) -> bool:
        return isinstance(value, GraphTensor)


class Variable(metaclass=_VariableMeta):
    def __new__(cls, data, requires_grad: bool = False, volatile: bool = False):
        if not isinstance(data, GraphTensor):
            raise TypeError(
                f"Variable: data must be a tensor, got {type(data).__name__}; today a tensor "
                "needs no wrapper (torch.tensor(data, requires_grad=True))"
            )
        leaf = data.detach()
        leaf.requires_grad = bool(requires_grad)
        return leaf
