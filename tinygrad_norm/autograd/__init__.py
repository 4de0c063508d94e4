"""Automatic differentiation: the engine, grad mode, `grad` and `functional`."""

from . import functional
from .function import Function
from .grad import grad
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .variable import Variable

__all__ = [
    "Function",
    "Variable",
    "enable_grad",
    "functional",
    "grad",
    "is_grad_enabled",
    "no_grad",
    "set_grad_enabled",
]
