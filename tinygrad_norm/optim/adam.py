"""Adam and its relatives: Adam, AdamW, Adamax, NAdam, RAdam (PyTorch's formulations).

All keep two running moments per parameter, m (of the gradient) and v (of its square), and
update the parameter array in place.
"""

from __future__ import annotations

import math

import numpy as np

from .optimizer import Optimizer, _check_options, start_step


class Adam(Optimizer):
    """Adam (Kingma & Ba, 2015), PyTorch's formulation. For each parameter p with gradient g:

        t  <- t + 1
        g  <- -g                                          if maximize
        p  <- p * (1 - lr * weight_decay)                 if decoupled_weight_decay (AdamW)
        g  <- g + weight_decay * p                        otherwise (L2 penalty in the gradient)
        m  <- beta1 * m + (1 - beta1) * g                 (first moment, m_0 = 0)
        v  <- beta2 * v + (1 - beta2) * g²                (second moment, v_0 = 0)
        v_max <- max(v_max, v)                            if amsgrad (then v_max replaces v)
        p  <- p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)

    The divisions by 1 - beta^t correct the bias of m and v towards their zero start.
    """

    _pytorch_group_keys = (
        "lr betas eps weight_decay amsgrad maximize foreach capturable differentiable fused "
        "decoupled_weight_decay"
    )

    def __init__(
        self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False,
        *, maximize: bool = False, decoupled_weight_decay: bool = False,
    ):  # fmt: skip
        options = dict(
            amsgrad=amsgrad, maximize=maximize, decoupled_weight_decay=decoupled_weight_decay
        )
        super().__init__(params, _adam_defaults(lr, betas, eps, weight_decay, **options))

    def _update(self, param, grad, state, group) -> None:
        lr, (beta1, beta2) = group["lr"], group["betas"]
        extra = ("max_exp_avg_sq",) if group["amsgrad"] else ()
        p, _, t, m, v, scratch = _start_adam_step(param, grad, state, group, extra)
        if group["amsgrad"]:
            v = np.maximum(state["max_exp_avg_sq"], v, out=state["max_exp_avg_sq"])
        step_size = lr / (1 - beta1**t)
        denom = np.sqrt(v, out=scratch)
        denom /= math.sqrt(1 - beta2**t)
        denom += group["eps"]  # denom = sqrt(v) / sqrt(1 - beta2^t) + eps
        update = np.divide(m, denom, out=scratch)
        update *= -step_size
        p += update  # p -= step_size * m / denom


def _adam_defaults(lr, betas, eps, weight_decay, **options) -> dict:
    """Checks the options every Adam relative has; returns the param group defaults: lr, betas,
    eps, weight_decay, then `options` in their order (the order of PyTorch's state_dict)."""
    _check_options(lr=lr, eps=eps, weight_decay=weight_decay, betas=betas)
    return dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, **options)


def _start_adam_step(param, grad, state, group, extra_state=()) -> tuple:
    """What Adam, NAdam and RAdam do first: `start_step` (state exp_avg, exp_avg_sq and
    `extra_state`; the step count t; maximize; weight decay), then the moments, in place:

        m <- beta1 * m + (1 - beta1) * g,    v <- beta2 * v + (1 - beta2) * g²

    Returns (the parameter's array p, the gradient g as used, t, m, v, a scratch array of p's
    shape to reuse)."""
    names = ("exp_avg", "exp_avg_sq") + extra_state
    p, grad, t = start_step(param, grad, state, group, names)
    m, v = state["exp_avg"], state["exp_avg_sq"]
    beta1, beta2 = group["betas"]
    return p, grad, t, m, v, _update_moments(m, v, grad, beta1, beta2)


def _update_moments(m, v, grad, beta1, beta2) -> np.ndarray:
    """m <- beta1 m + (1 - beta1) g and v <- beta2 v + (1 - beta2) g², in place; returns a
    scratch array of the gradient's shape for the caller to reuse.

    NOTE: in place, through one scratch array, where the plain formulas make nine temporaries
    per parameter; the scalars are Python floats, so a float32 parameter is updated in float32
    (as PyTorch does) rather than through float64 temporaries.
    """
    scratch = np.subtract(grad, m)
    scratch *= 1 - beta1
    m += scratch  # m += (1 - beta1) * (g - m)
    v *= beta2
    np.multiply(grad, 1 - beta2, out=scratch)
    scratch *= grad
    v += scratch  # v = beta2 * v + (1 - beta2) * g * g
    return scratch


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter, 2019): before the Adam step,

        p <- p * (1 - lr * weight_decay)

    instead of adding weight_decay * p to the gradient, so the decay is not rescaled by
    Adam's per-coordinate step sizes. Default weight_decay=1e-2. See `Adam` for the rest.
    """

    def __init__(
        self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False,
        *, maximize: bool = False,
    ):  # fmt: skip
        decoupled = dict(maximize=maximize, decoupled_weight_decay=True)
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, **decoupled)


class Adamax(Optimizer):
    """Adamax (Kingma & Ba, 2015, section 7): Adam with the infinity norm in place of v.

        m  <- beta1 * m + (1 - beta1) * g
        u  <- max(beta2 * u, |g| + eps)                  (state "exp_inf")
        p  <- p - lr / (1 - beta1^t) * m / u

    `maximize` and `weight_decay` (L2, added to the gradient) as in `Adam`. Default lr 2e-3.
    """

    _pytorch_group_keys = "lr betas eps weight_decay foreach maximize differentiable capturable"

    def __init__(
        self, params, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8, weight_decay: float = 0, *, maximize: bool = False,
    ):  # fmt: skip
        super().__init__(params, _adam_defaults(lr, betas, eps, weight_decay, maximize=maximize))

    def _update(self, param, grad, state, group) -> None:
        (beta1, beta2), eps = group["betas"], group["eps"]
        p, grad, t = start_step(param, grad, state, group, ("exp_avg", "exp_inf"))
        m, u = state["exp_avg"], state["exp_inf"]
        m += (1 - beta1) * (grad - m)
        u *= beta2
        np.maximum(u, np.abs(grad) + eps, out=u)
        p -= group["lr"] / (1 - beta1**t) * m / u


class NAdam(Optimizer):
    """NAdam (Dozat, 2016): Adam with Nesterov momentum, PyTorch's formulation.

        mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay))    (momentum schedule)
        m, v as in Adam;  prod_t = mu_1 * ... * mu_t             (state "mu_product")
        denom = sqrt(v / (1 - beta2^t)) + eps
        p  <- p - lr (1 - mu_t) / (1 - prod_t) * g / denom
                - lr mu_{t+1} / (1 - prod_t mu_{t+1}) * m / denom

    `decoupled_weight_decay=True` decays p as AdamW does. Default lr 2e-3.
    """

    _pytorch_group_keys = (
        "lr betas eps weight_decay momentum_decay decoupled_weight_decay maximize foreach "
        "capturable differentiable"
    )

    _scalar_state = ("mu_product",)

    def __init__(
        self, params, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8, weight_decay: float = 0, momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False, *, maximize: bool = False,
    ):  # fmt: skip
        options = dict(momentum_decay=momentum_decay, maximize=maximize)
        options.update(decoupled_weight_decay=decoupled_weight_decay)
        defaults = _adam_defaults(lr, betas, eps, weight_decay, **options)
        _check_options(momentum_decay=momentum_decay)
        super().__init__(params, defaults)

    def _update(self, param, grad, state, group) -> None:
        lr, (beta1, beta2), decay = group["lr"], group["betas"], group["momentum_decay"]
        p, grad, t, m, v, _ = _start_adam_step(param, grad, state, group)
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (t * decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * decay))
        mu_product = state["mu_product"] = state.get("mu_product", 1.0) * mu
        denom = np.sqrt(v / (1 - beta2**t)) + group["eps"]
        p -= lr * (1.0 - mu) / (1.0 - mu_product) * grad / denom
        p -= lr * mu_next / (1.0 - mu_product * mu_next) * m / denom


class RAdam(Optimizer):
    """RAdam (Liu et al., 2020): Adam whose adaptive step is switched on gradually, once the
    variance of v's estimate is tractable. With rho_inf = 2 / (1 - beta2) - 1 and
    rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t):

        m, v as in Adam;  m_hat = m / (1 - beta1^t)
        if rho_t > 5:  r = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
                       p <- p - lr * m_hat * r * sqrt(1 - beta2^t) / (sqrt(v) + eps)
        else:          p <- p - lr * m_hat                      (plain momentum SGD)

    `decoupled_weight_decay=True` decays p as AdamW does.
    """

    _pytorch_group_keys = (
        "lr betas eps weight_decay maximize foreach capturable decoupled_weight_decay "
        "differentiable"
    )

    def __init__(
        self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8, weight_decay: float = 0, decoupled_weight_decay: bool = False,
        *, maximize: bool = False,
    ):  # fmt: skip
        options = dict(maximize=maximize, decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, _adam_defaults(lr, betas, eps, weight_decay, **options))

    def _update(self, param, grad, state, group) -> None:
        lr, (beta1, beta2) = group["lr"], group["betas"]
        p, _, t, m, v, _ = _start_adam_step(param, grad, state, group)
        bias_correction2 = 1 - beta2**t
        m_hat = m / (1 - beta1**t)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * t * beta2**t / bias_correction2
        if rho_t > 5.0:
            rect = math.sqrt(
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            )
            p -= m_hat * lr * (math.sqrt(bias_correction2) / (np.sqrt(v) + group["eps"])) * rect
        else:
            p -= m_hat * lr
