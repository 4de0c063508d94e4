"""Per-coordinate step sizes from a running sum of squared gradients: RMSprop, Adagrad,
Adadelta (PyTorch's formulations). Each updates the parameter array in place."""

from __future__ import annotations

import numpy as np

from .optimizer import Optimizer, _check_options, start_step


def _check_in_unit_interval(name: str, value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"invalid {name} value: {value} (it must be in [0, 1])")


class RMSprop(Optimizer):
    """RMSprop (Hinton's lecture 6e), PyTorch's formulation. For each parameter p, gradient g:

        s  <- alpha * s + (1 - alpha) * g²                 (state "square_avg")
        a  <- alpha * a + (1 - alpha) * g                  if centered (state "grad_avg")
        d  <- sqrt(s - a²) + eps  if centered, else  sqrt(s) + eps
        b  <- momentum * b + g / d;  p <- p - lr * b       if momentum > 0
        p  <- p - lr * g / d                               otherwise

    `maximize` and `weight_decay` (L2, added to g first) as in `SGD`. Default lr 1e-2.
    """

    _pytorch_group_keys = (
        "lr momentum alpha eps centered weight_decay capturable foreach maximize differentiable"
    )

    def __init__(
        self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
        weight_decay: float = 0, momentum: float = 0, centered: bool = False,
        *, maximize: bool = False,
    ):  # fmt: skip
        _check_options(lr=lr, eps=eps, weight_decay=weight_decay, momentum=momentum, alpha=alpha)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered)
        super().__init__(params, dict(defaults, weight_decay=weight_decay, maximize=maximize))

    def _update(self, param, grad, state, group) -> None:
        alpha, momentum = group["alpha"], group["momentum"]
        names = ("square_avg",)
        names += ("momentum_buffer",) if momentum > 0 else ()
        names += ("grad_avg",) if group["centered"] else ()
        p, grad, _ = start_step(param, grad, state, group, names)
        square_avg = state["square_avg"]
        square_avg *= alpha
        square_avg += (1 - alpha) * grad * grad
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg += (1 - alpha) * (grad - grad_avg)
            denom = np.sqrt(square_avg - grad_avg * grad_avg)
        else:
            denom = np.sqrt(square_avg)
        denom += group["eps"]
        if momentum > 0:
            buf = state["momentum_buffer"]
            buf *= momentum
            buf += grad / denom
            p -= group["lr"] * buf
        else:
            p -= group["lr"] * grad / denom


class Adagrad(Optimizer):
    """Adagrad (Duchi et al., 2011): each coordinate's step shrinks with the sum of its squared
    gradients so far. For each parameter p with gradient g, at step t:

        s  <- s + g²                        (state "sum", starting at initial_accumulator_value)
        p  <- p - lr / (1 + (t - 1) * lr_decay) * g / (sqrt(s) + eps)

    `maximize` and `weight_decay` (L2, added to g first) as in `SGD`. Default lr 1e-2.
    """

    _pytorch_group_keys = (
        "lr lr_decay eps weight_decay initial_accumulator_value foreach maximize differentiable "
        "fused"
    )

    def __init__(
        self, params, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
        initial_accumulator_value: float = 0, eps: float = 1e-10, *, maximize: bool = False,
    ):  # fmt: skip
        _check_options(
            lr=lr, eps=eps, weight_decay=weight_decay, lr_decay=lr_decay,
            initial_accumulator_value=initial_accumulator_value,
        )  # fmt: skip
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay)
        defaults.update(initial_accumulator_value=initial_accumulator_value, maximize=maximize)
        super().__init__(params, defaults)

    def _update(self, param, grad, state, group) -> None:
        fill = group["initial_accumulator_value"]
        p, grad, t = start_step(param, grad, state, group, ("sum",), fill=fill)
        state_sum = state["sum"]
        state_sum += grad * grad
        lr = group["lr"] / (1 + (t - 1) * group["lr_decay"])
        p -= lr * grad / (np.sqrt(state_sum) + group["eps"])


class Adadelta(Optimizer):
    """Adadelta (Zeiler, 2012): a step whose units match the parameter's, from two running
    averages. For each parameter p with gradient g:

        s  <- rho * s + (1 - rho) * g²                     (state "square_avg")
        dx <- sqrt(u + eps) / sqrt(s + eps) * g
        u  <- rho * u + (1 - rho) * dx²                    (state "acc_delta")
        p  <- p - lr * dx

    `maximize` and `weight_decay` (L2, added to g first) as in `SGD`. Default lr 1.0.
    """

    _pytorch_group_keys = "lr rho eps weight_decay maximize capturable foreach differentiable"

    def __init__(
        self, params, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
        weight_decay: float = 0, *, maximize: bool = False,
    ):  # fmt: skip
        _check_options(lr=lr, eps=eps, weight_decay=weight_decay)
        _check_in_unit_interval("rho", rho)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize)
        super().__init__(params, defaults)

    def _update(self, param, grad, state, group) -> None:
        rho, eps = group["rho"], group["eps"]
        p, grad, _ = start_step(param, grad, state, group, ("square_avg", "acc_delta"))
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg *= rho
        square_avg += (1 - rho) * grad * grad
        delta = np.sqrt(acc_delta + eps) / np.sqrt(square_avg + eps) * grad
        acc_delta *= rho
        acc_delta += (1 - rho) * delta * delta
        p -= group["lr"] * delta
