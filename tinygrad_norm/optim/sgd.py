"""SGD: stochastic gradient descent with PyTorch's momentum, dampening and Nesterov options."""

from __future__ import annotations

import numpy as np

from .optimizer import Optimizer, _check_options, param_array


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with momentum (PyTorch's formulation).

    For each parameter p with gradient g, at step t:

        g  <- -g                          if maximize
        g  <- g + weight_decay * p        (L2 penalty, added to the gradient)
        b  <- g                           at the first step (no dampening),
        b  <- momentum * b + (1 - dampening) * g    afterwards       (only if momentum != 0)
        g  <- g + momentum * b            if nesterov, else  g <- b  (only if momentum != 0)
        p  <- p - lr * g

    Note the velocity form: lr multiplies the whole buffer (unlike Sutskever et al., where the
    buffer accumulates lr * g). `nesterov` needs momentum > 0 and dampening = 0.
    """

    _pytorch_group_keys = (
        "lr momentum dampening weight_decay nesterov maximize foreach differentiable fused"
    )

    def __init__(
        self, params, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
        weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
    ):  # fmt: skip
        _check_options(lr=lr, weight_decay=weight_decay, momentum=momentum)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("nesterov momentum requires a momentum > 0 and zero dampening")
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
        )
        super().__init__(params, defaults)

    def _update(self, param, grad, state, group) -> None:
        momentum, weight_decay = group["momentum"], group["weight_decay"]
        if group["maximize"]:
            grad = -grad
        if weight_decay != 0:
            grad = grad + weight_decay * param_array(param)
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = np.array(grad, copy=True)
            else:
                buf *= momentum
                buf += (1 - group["dampening"]) * grad
            grad = grad + momentum * buf if group["nesterov"] else buf
        p = param_array(param)
        p += -group["lr"] * grad
