"""Automatic differentiation: the engine, grad mode, `grad` and `functional`.

`tinygrad_norm.autograd` is also `torch.autograd` for scripts written for PyTorch, so its
`Function` is PyTorch's (forward on Tensors, tensor_function.py); `tg.Function` is the teaching
one (forward on NumPy arrays, function.py). `gradcheck` / `gradgradcheck` under PyTorch's names
and `forward_ad` are attached by the package's `__init__` (they need the Tensor class, which
this package must not import).
"""

from . import functional, graph
from .anomaly import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly
from .anomaly import torch_detect_anomaly as detect_anomaly
from .grad import grad
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .tensor_function import Function, FunctionCtx, once_differentiable
from .variable import Variable

__all__ = [
    "Function",
    "FunctionCtx",
    "Variable",
    "detect_anomaly",
    "enable_grad",
    "functional",
    "grad",
    "graph",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "no_grad",
    "once_differentiable",
    "set_detect_anomaly",
    "set_grad_enabled",
]
