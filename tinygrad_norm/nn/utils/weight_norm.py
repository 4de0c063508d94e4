"""nn.utils.weight_norm: weight normalization (`weight_norm`, `remove_weight_norm`).

Weight normalization (Salimans & Kingma, 2016) writes a weight as a length times a direction,

    w = g * v / ||v||

and trains g (the length, one number per output unit by default) and v (the direction) instead
of w. `weight_norm(module)` replaces the parameter `weight` by two parameters, `weight_g` and
`weight_v`, and registers a forward pre-hook that recomputes `module.weight` from them before
every call: `module.weight` is then an ordinary Tensor whose graph leads back to g and v, so
the gradients reach them. `remove_weight_norm(module)` folds them back into one Parameter.
"""

from __future__ import annotations

import numpy as np

from ...autograd.grad_mode import no_grad
from ..module import Module
from ..parameter import Parameter

__all__ = ["remove_weight_norm", "weight_norm"]


def norm_except_dim(v, dim: int | None):
    """The 2-norm of v over every axis except `dim`, keeping the axes: for v (out, in) and
    dim=0 the shape is (out, 1), one norm per row. dim=None: the norm of the whole tensor (0-d).
    """
    if dim is None:
        return v.norm()
    axes = tuple(a for a in range(v.ndim) if a != dim)
    return v.norm(dim=axes, keepdim=True) if axes else v.abs()  # no other axis: |v| itself


class WeightNorm:
    """The forward pre-hook of `weight_norm`: sets module.<name> = g * v / ||v|| from the
    parameters <name>_g and <name>_v."""

    def __init__(self, name: str, dim: int | None):
        self.name, self.dim = name, dim

    def compute_weight(self, module: Module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / norm_except_dim(v, self.dim))

    def __call__(self, module: Module, args) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrize `module.<name>` as g * v / ||v||, with g and v the new parameters.

    The norm is taken over every axis except `dim`, so each slice along `dim` gets its own
    length: for a Linear weight (out, in) and dim=0, `weight_g` is (out, 1), one length per
    output unit, and `weight_v` is (out, in). dim=None takes the norm of the whole tensor and
    `weight_g` is a 0-d tensor. A negative dim counts from the end (unlike PyTorch's
    weight_norm, where dim=-1 means the same as None).

    At the start, g = ||w|| and v = w, so the module computes exactly what it did before.
    `module.<name>` is recomputed before every forward, and can be read right after the call
    (or right after weight_norm); the module is returned.

    >>> import tinygrad_norm as tg
    >>> from tinygrad_norm import nn
    >>> class Linear(nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.weight = nn.Parameter(tg.tensor([[3.0, 4.0], [0.0, 2.0]]))
    ...     def forward(self, x):
    ...         return x @ self.weight.T
    >>> m = nn.utils.weight_norm(Linear())
    >>> [(n, p.shape) for n, p in m.named_parameters()]
    [('weight_g', torch.Size([2, 1])), ('weight_v', torch.Size([2, 2]))]
    >>> m.weight_g
    Parameter containing:
    tensor([[5.],
            [2.]], requires_grad=True)
    >>> m(tg.ones(1, 2))
    tensor([[7., 2.]], grad_fn=<MatMulBackward>)
    """
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, WeightNorm) and hook.name == name:
            raise RuntimeError(
                f"weight_norm: {name!r} of {type(module).__name__} is already weight-normalized "
                f"(it has {name}_g and {name}_v); call remove_weight_norm first"
            )
    weight = module._parameters.get(name)
    if not isinstance(weight, Parameter):
        raise AttributeError(
            f"weight_norm: {type(module).__name__} has no parameter {name!r}; its parameters "
            f"are {list(module._parameters)}"
        )
    if dim is not None:
        if not -weight.ndim <= dim < weight.ndim:
            raise IndexError(
                f"weight_norm: dim {dim} is out of range for {name} of shape {weight.shape}; "
                f"use a dim from {-weight.ndim} to {weight.ndim - 1}, or None for the whole tensor"
            )
        dim %= weight.ndim
    hook = WeightNorm(name, dim)
    with no_grad():
        g = norm_except_dim(weight, dim)
    del module._parameters[name]
    module.register_parameter(name + "_g", Parameter(np.array(g.array, dtype=weight.dtype)))
    module.register_parameter(name + "_v", Parameter(weight.array))
    hook(module, ())
    module.register_forward_pre_hook(hook)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undo `weight_norm`: `module.<name>` becomes one Parameter again, equal to g * v / ||v||
    at this moment; `<name>_g`, `<name>_v` and the pre-hook are removed. Returns the module.
    """
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            with no_grad():
                weight = hook.compute_weight(module)
            delattr(module, name)
            del module._parameters[name + "_g"]
            del module._parameters[name + "_v"]
            setattr(module, name, Parameter(weight.array))
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(
        f"remove_weight_norm: {name!r} of {type(module).__name__} is not weight-normalized "
        "(no weight_norm hook for it was found)"
    )
