"""Optimizers: SGD, Adam and AdamW, with PyTorch's parameter groups and update rules.

An optimizer holds the parameters to train, in groups that each carry their own options
(`lr`, `weight_decay`, ...), plus a per-parameter `state` (momentum buffers, moment estimates).
`step()` reads each parameter's `.grad` and changes `.data` in place with NumPy: the update is
not part of any graph. Parameters whose `.grad` is None are skipped.

>>> import tinygrad_norm as tg
>>> w = tg.tensor([1.0, -2.0], requires_grad=True)
>>> opt = tg.optim.SGD([w], lr=0.1)
>>> (w * w).sum().backward()       # grad = 2w
>>> opt.step()                     # w <- w - 0.1 * 2w
>>> w
tensor([ 0.8000, -1.6000], requires_grad=True)
>>> opt.zero_grad()                # grad = None, ready for the next backward
"""

from __future__ import annotations

import math

import numpy as np

from .autograd.grad_mode import enable_grad
from .tensor import Tensor

_PASS_PARAMETERS = (
    "pass model.parameters(), a list of tensors created with requires_grad=True, or a list of "
    'dicts such as [{"params": model.parameters(), "lr": 0.1}]'
)


class Optimizer:
    """The base class: parameter groups, per-parameter state, `zero_grad`, `state_dict`.

    `params` is an iterable of Tensors (one group) or of dicts, each with a `"params"` entry
    and any options that override `defaults` for that group. A subclass defines
    `_update(param, grad, state, group)`, which changes `param.data` in place.
    """

    def __init__(self, params, defaults: dict):
        self.defaults = dict(defaults)
        self.state: dict = {}  # Parameter -> dict of arrays (and "step")
        self.param_groups: list[dict] = []
        if isinstance(params, Tensor):
            raise TypeError(
                f"{type(self).__name__}: params should be an iterable of Tensors or dicts, got "
                f"a single Tensor; wrap it in a list ([t]) or {_PASS_PARAMETERS}"
            )
        if _is_module(params):
            raise TypeError(
                f"{type(self).__name__}: got a Module ({type(params).__name__}); pass its "
                "parameters instead: model.parameters()"
            )
        if isinstance(params, (set, frozenset, dict)) or not hasattr(params, "__iter__"):
            raise TypeError(
                f"{type(self).__name__}: params should be an ordered iterable (a list or a "
                f"generator), got {type(params).__name__}; {_PASS_PARAMETERS}"
            )
        groups = list(params)
        if not groups:
            raise ValueError(
                f"{type(self).__name__} got an empty parameter list (note that a generator "
                "such as model.parameters() is used up after one pass)"
            )
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters with its own options (missing ones from `defaults`)."""
        if not isinstance(param_group, dict):
            raise TypeError(
                f"a parameter group must be a dict, got {type(param_group).__name__}; "
                "either all entries of params are dicts or none is"
            )
        group = dict(param_group)
        params = group.get("params")
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, (set, frozenset)):
            raise TypeError(
                "optimizer parameters need to be in an ordered collection (the order of a set "
                "changes between runs, which breaks state_dict); use a list"
            )
        params = list(params) if params is not None else []
        for p in params:
            _check_param(p)
        ids = [id(p) for p in params]
        if len(set(ids)) != len(ids):
            raise ValueError(
                "a parameter appears twice in one parameter group; it would be updated twice "
                "per step. Pass each parameter once (model.parameters() already does)"
            )
        for other in self.param_groups:
            if set(ids) & {id(p) for p in other["params"]}:
                raise ValueError("some parameters appear in more than one parameter group")
        group["params"] = params
        for name, default in self.defaults.items():
            group.setdefault(name, default)
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients: `.grad = None`, or zeros in place with `set_to_none=False`."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    p.grad = p.grad.detach()
                    p.grad.data[...] = 0

    def step(self, closure=None):
        """Update every parameter that has a gradient. `closure`, if given, recomputes the
        loss (calling backward) and is run first; its result is returned."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.grad.shape != p.shape:  # a hand-assigned .grad would broadcast silently
                    raise RuntimeError(
                        f"{type(self).__name__}.step: a parameter of shape {p.shape} has a "
                        f".grad of shape {p.grad.shape}; a gradient must have its parameter's "
                        "shape (was .grad assigned by hand?)"
                    )
                state = self.state.get(p, {})
                self._update(p, p.grad.data, state, group)
                p._bump_version()  # an in-place change: graphs that saved p must notice
                if state:
                    self.state[p] = state
        return loss

    def _update(self, param: Tensor, grad: np.ndarray, state: dict, group: dict) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define _update")

    # --- saving and loading ----------------------------------------------------------------------
    def state_dict(self) -> dict:
        """`{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}`, PyTorch's
        layout: parameters are numbered 0, 1, ... through the groups in order. Arrays are
        copies, so later steps do not change a saved state."""
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [index.setdefault(id(p), len(index)) for p in group["params"]]
            groups.append(packed)
        state = {
            index[id(p)]: {k: _copy(v) for k, v in s.items()}
            for p, s in self.state.items()
            if id(p) in index
        }
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore what `state_dict()` returned, for an optimizer over the same parameters.

        Everything is checked before anything changes. Floating state arrays are copied and
        cast to their parameter's dtype; the group options (lr, betas, ...) are restored.
        """
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError(
                f"loaded state dict has {len(saved_groups)} parameter groups, this optimizer "
                f"has {len(self.param_groups)}"
            )
        by_index = {}
        for i, (group, saved) in enumerate(zip(self.param_groups, saved_groups)):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError(
                    f"parameter group {i} of the loaded state dict has {len(saved['params'])} "
                    f"parameters, this optimizer's has {len(group['params'])}"
                )
            by_index.update(zip(saved["params"], group["params"]))
        state = {}
        for index, saved_state in state_dict["state"].items():
            if index not in by_index:
                raise ValueError(f"loaded state dict has state for unknown parameter {index!r}")
            p = by_index[index]
            state[p] = {}
            for key, value in saved_state.items():
                value = _copy(value.data if isinstance(value, Tensor) else value)
                if key == "step":
                    value = int(value)  # a count: never a float32 array
                elif isinstance(value, np.ndarray):
                    if value.shape != p.shape:
                        raise ValueError(
                            f"state {key!r} of parameter {index} has shape {value.shape}, the "
                            f"parameter has {p.shape}"
                        )
                    if value.dtype.kind == "f":
                        value = value.astype(p.dtype, copy=False)
                state[p][key] = value
        self.state = state
        for group, saved in zip(self.param_groups, saved_groups):
            group.update({k: v for k, v in saved.items() if k != "params"})

    def __repr__(self) -> str:
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {group[k]}" for k in sorted(group) if k != "params"]
        return "\n".join(lines) + "\n)"


def _is_module(obj) -> bool:
    from .nn.module import Module

    return isinstance(obj, Module)


def _check_param(p) -> None:
    if _is_module(p):
        raise TypeError(
            f"optimizer can only optimize Tensors, but one of the params is a Module "
            f"({type(p).__name__}); pass model.parameters()"
        )
    if not isinstance(p, Tensor):
        raise TypeError(
            f"optimizer can only optimize Tensors, but one of the params is "
            f"{type(p).__name__} ({p!r:.40}); {_PASS_PARAMETERS}"
        )
    if not p.requires_grad:
        raise ValueError(
            f"optimizer got a tensor of shape {p.shape} that does not require grad: it would "
            "never get a gradient. Create it with requires_grad=True, or leave frozen "
            "parameters out: [p for p in model.parameters() if p.requires_grad]"
        )
    if not p.is_leaf:
        raise ValueError(
            f"can't optimize a non-leaf tensor (made by {p.grad_fn!r}): an optimizer changes "
            "leaves such as parameters; use .detach().requires_grad_() to make a new leaf"
        )


def _copy(value):
    return np.array(value, copy=True) if isinstance(value, np.ndarray) else value


def _check_options(lr=0.0, eps=0.0, weight_decay=0.0, momentum=0.0, betas=(0.0, 0.0)) -> None:
    if not lr >= 0.0:
        raise ValueError(f"invalid learning rate: {lr} (it must be >= 0)")
    if not eps >= 0.0:
        raise ValueError(f"invalid epsilon value: {eps} (it must be >= 0)")
    if not weight_decay >= 0.0:
        raise ValueError(f"invalid weight_decay value: {weight_decay} (it must be >= 0)")
    if not momentum >= 0.0:
        raise ValueError(f"invalid momentum value: {momentum} (it must be >= 0)")
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"invalid beta parameter at index {i}: {beta} (it must be in [0, 1))")


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

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
    ):
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
            grad = grad + weight_decay * param.data
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = np.array(grad, copy=True)
            else:
                buf *= momentum
                buf += (1 - group["dampening"]) * grad
            grad = grad + momentum * buf if group["nesterov"] else buf
        param.data += -group["lr"] * grad


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

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        decoupled_weight_decay: bool = False,
    ):
        _check_options(lr=lr, eps=eps, weight_decay=weight_decay, betas=betas)
        defaults = dict(
            lr=lr,
            betas=tuple(betas),
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
            decoupled_weight_decay=decoupled_weight_decay,
        )
        super().__init__(params, defaults)

    def _update(self, param, grad, state, group) -> None:
        lr, (beta1, beta2), weight_decay = group["lr"], group["betas"], group["weight_decay"]
        if not state:
            state["step"] = 0
            state["exp_avg"] = np.zeros_like(param.data)
            state["exp_avg_sq"] = np.zeros_like(param.data)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = np.zeros_like(param.data)
        state["step"] += 1
        t = state["step"]
        if group["maximize"]:
            grad = -grad
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.data *= 1 - lr * weight_decay
            else:
                grad = grad + weight_decay * param.data
        # NOTE: in place, through one scratch array, where the plain formulas make nine
        # temporaries per parameter; the scalars are Python floats, so a float32 parameter is
        # updated in float32 (as PyTorch does) rather than through float64 temporaries.
        m, v = state["exp_avg"], state["exp_avg_sq"]
        scratch = np.subtract(grad, m)
        scratch *= 1 - beta1
        m += scratch  # m += (1 - beta1) * (g - m)
        v *= beta2
        np.multiply(grad, 1 - beta2, out=scratch)
        scratch *= grad
        v += scratch  # v = beta2 * v + (1 - beta2) * g * g
        if group["amsgrad"]:
            v = np.maximum(state["max_exp_avg_sq"], v, out=state["max_exp_avg_sq"])
        step_size = lr / (1 - beta1**t)
        denom = np.sqrt(v, out=scratch)
        denom /= math.sqrt(1 - beta2**t)
        denom += group["eps"]  # denom = sqrt(v) / sqrt(1 - beta2^t) + eps
        update = np.divide(m, denom, out=scratch)
        update *= -step_size
        param.data += update  # p -= step_size * m / denom


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter, 2019): before the Adam step,

        p <- p * (1 - lr * weight_decay)

    instead of adding weight_decay * p to the gradient, so the decay is not rescaled by
    Adam's per-coordinate step sizes. Default weight_decay=1e-2. See `Adam` for the rest.
    """

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
    ):
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            maximize=maximize,
            decoupled_weight_decay=True,
        )
