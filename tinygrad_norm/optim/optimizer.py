"""The optimizer base class: parameter groups, per-parameter state, `zero_grad`, `state_dict`.

Subclasses (sgd.py, adam.py, others.py) define only `_update`, one parameter's step; they read
and write the parameter's array through `param_array`, the one place that knows where a
Tensor keeps its NumPy array.
"""

from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import enable_grad
from ..dtypes import get_default_dtype
from ..nn.module import Module
from ..tensor import Tensor

# PyTorch's param_groups switches that choose how a step is computed, never what: their
# defaults (written by state_dict, dropped by load_state_dict).
PYTORCH_SWITCHES = {"foreach": None, "capturable": False, "differentiable": False, "fused": None}

_PASS_PARAMETERS = (
    "pass model.parameters(), a list of tensors created with requires_grad=True, or a list of "
    'dicts such as [{"params": model.parameters(), "lr": 0.1}]'
)


class Optimizer:
    """The base class: parameter groups, per-parameter state, `zero_grad`, `state_dict`.

    `params` is an iterable of Tensors (one group) or of dicts, each with a `"params"` entry
    and any options that override `defaults` for that group. A subclass defines
    `_update(param, grad, state, group)`, which changes `param_array(param)` in place.
    State entries named in `_scalar_state` are Python floats (NAdam's `mu_product`).
    """

    _scalar_state: tuple[str, ...] = ()
    _pytorch_group_keys: str = ""  # PyTorch's param_groups keys in its order, space-separated

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
                    if p.grad.grad_fn is not None:  # a grad made with create_graph
                        p.grad = p.grad.detach()
                    param_array(p.grad)[...] = 0  # in place, as PyTorch

    def step(self, closure=None):
        """Update every parameter that has a gradient. `closure`, if given, recomputes the
        loss (calling backward) and is run first; its result is returned."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        self._opt_called = True  # for the schedulers' "scheduler.step() before optimizer.step()"
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = param_array(p.grad)
                if grad.shape != p.array.shape:  # a hand-assigned .grad would broadcast silently
                    raise RuntimeError(
                        f"{type(self).__name__}.step: a parameter of shape {p.shape} has a "
                        f".grad of shape {p.grad.shape}; a gradient must have its parameter's "
                        "shape (was .grad assigned by hand?)"
                    )
                state = self.state.get(p, {})
                self._update(p, grad, state, group)
                p._bump_version()  # an in-place change: graphs that saved p must notice
                if state:
                    self.state[p] = state
        return loss

    def _update(self, param: Tensor, grad: np.ndarray, state: dict, group: dict) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define _update")

    # --- saving and loading ----------------------------------------------------------------------
    def state_dict(self) -> dict:
        """`{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}`, PyTorch's
        layout and types, so `torch.optim` loads it (and `load_state_dict` loads PyTorch's):
        parameters are numbered 0, 1, ... through the groups in order; each state is a dict of
        Tensors, `step` (and NAdam's `mu_product`) a 0-d float32 Tensor; each group has
        PyTorch's keys in its order, with its switches that change nothing here (`foreach`,
        `capturable`, `differentiable`, `fused`) at their defaults. The Tensors are copies,
        so later steps do not change a saved state."""
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            order = self._pytorch_group_keys.split() or [k for k in group if k != "params"]
            packed = {k: group[k] if k in group else PYTORCH_SWITCHES[k] for k in order}
            packed.update({k: v for k, v in group.items() if k not in packed and k != "params"})
            packed["params"] = [index.setdefault(id(p), len(index)) for p in group["params"]]
            groups.append(packed)
        state = {
            index[id(p)]: self._state_tensors(s) for p, s in self.state.items() if id(p) in index
        }
        return {"state": state, "param_groups": groups}

    def _state_tensors(self, state: dict) -> dict:
        """One parameter's state as PyTorch keeps it: `step` first, a 0-d Tensor of PyTorch's
        scalar dtype (float32, or float64 under set_default_dtype(float64)), then the scalar
        states as 0-d float64 Tensors (PyTorch's are float32: float64 keeps our Python float
        exactly, and PyTorch casts it on load), then the arrays as Tensors (copies)."""
        step_dtype = np.float64 if get_default_dtype() == np.float64 else np.float32
        packed = (
            {"step": Tensor._make(np.array(state["step"], step_dtype))} if "step" in state else {}
        )
        for key in self._scalar_state:
            if key in state:
                packed[key] = Tensor._make(np.array(state[key], np.float64))
        for key, value in state.items():
            if key not in packed:
                packed[key] = (
                    Tensor._make(np.array(value)) if isinstance(value, np.ndarray) else value
                )
        return packed

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore what `state_dict()` returned, for an optimizer over the same parameters.

        Everything is checked before anything changes. It takes what `state_dict()` returns
        here or in PyTorch (Tensors or NumPy arrays). Floating state arrays are copied and
        cast to their parameter's dtype; the group options (lr, betas, ...) are restored;
        PyTorch's switches `foreach`, `capturable`, `differentiable`, `fused` are dropped.
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
                value = _copy(param_array(value) if isinstance(value, Tensor) else value)
                if key == "step":
                    value = int(value)  # a count: never a float32 array
                elif key in self._scalar_state:
                    value = float(value)
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
            options = {k: v for k, v in saved.items() if k != "params"}
            group.update({k: v for k, v in options.items() if k not in PYTORCH_SWITCHES})

    def __repr__(self) -> str:
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {group[k]}" for k in sorted(group) if k != "params"]
        return "\n".join(lines) + "\n)"


def param_array(t: Tensor) -> np.ndarray:
    """The NumPy array behind a parameter (or its `.grad`), which the optimizers change in
    place. Every optimizer reads and writes parameters through this one function."""
    return t.array


def start_step(param, grad, state, group, names, fill: float = 0.0):
    """What every adaptive optimizer's step does first: create the state arrays `names` (filled
    with `fill`) at the first step, count the step, negate the gradient if `maximize`, and
    apply the weight decay: to the parameter if `decoupled_weight_decay` (p <- p (1 - lr wd)),
    else as an L2 term in the gradient (g <- g + wd p).
    Returns (the parameter's array, the gradient to use, the step number t >= 1)."""
    p = param_array(param)
    if not state:
        state["step"] = 0
        for name in names:
            state[name] = np.full_like(p, fill)
    state["step"] += 1
    if group["maximize"]:
        grad = -grad
    weight_decay = group["weight_decay"]
    if weight_decay != 0:
        if group.get("decoupled_weight_decay", False):
            p *= 1 - group["lr"] * weight_decay
        else:
            grad = grad + weight_decay * p
    return p, grad, state["step"]


def _is_module(obj) -> bool:
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
    # NOTE: a frozen parameter (requires_grad=False) is accepted, as in PyTorch: fine-tuning
    # freezes layers, then passes model.parameters(); step() skips it while its .grad is None.
    if not p.is_leaf:
        raise ValueError(
            f"can't optimize a non-leaf tensor (made by {p.grad_fn!r}): an optimizer changes "
            "leaves such as parameters; use .detach().requires_grad_() to make a new leaf"
        )


def _copy(value):
    return np.array(value, copy=True) if isinstance(value, np.ndarray) else value


_OPTION_NAMES = {  # how the messages name an option; others are "<name> value"
    "lr": "learning rate",
    "eps": "epsilon value",
    "initial_accumulator_value": "initial_accumulator_value",
}


def _check_options(betas=(), **nonnegative) -> None:
    """Every optimizer's option checks: each of `nonnegative` (lr, eps, weight_decay, momentum,
    alpha, ...) must be >= 0 and each of `betas` in [0, 1); checked in the order given."""
    for name, value in nonnegative.items():
        if not value >= 0.0:
            what = _OPTION_NAMES.get(name, f"{name} value")
            raise ValueError(f"invalid {what}: {value} (it must be >= 0)")
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"invalid beta parameter at index {i}: {beta} (it must be in [0, 1))")
