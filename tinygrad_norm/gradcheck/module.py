"""`check_module`: gradcheck a whole layer, with respect to its inputs and every parameter.

A module's gradients reach two kinds of leaves: the input it is called on and the parameters
it owns. `check_module` makes a float64 copy of the module (the original is never touched),
then runs `gradcheck` on the function

    (input..., parameter...) -> module(input...)

once in training mode and once in evaluation mode. For the parameters to be the leaves
gradcheck perturbs, each evaluation puts the tensors it is given into the copy's parameter
slots and takes them out again afterwards.

Random layers (Dropout) are checkable because every evaluation replays the same random
state: the one `seed` sets before each mode.

>>> import tinygrad_norm as tg
>>> from tinygrad_norm import nn
>>> class Scale(nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.weight = nn.Parameter(tg.ones(3))
...     def forward(self, x):
...         return (x * self.weight).tanh()
>>> bool(tg.check_module(Scale(), tg.randn(2, 3)))
True
"""

from __future__ import annotations

import copy

import numpy as np

from .. import random
from ..tensor import Tensor
from .check import gradcheck


class ModuleCheck:
    """The gradcheck results of one module, per mode; truthy when all passed."""

    def __init__(self, name: str, results: dict, names: list[str]):
        self.name, self.results, self.names = name, results, names

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results.values())

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        legend = ", ".join(f"{i}: {n}" for i, n in enumerate(self.names))
        parts = [f"check_module({self.name}) — inputs of the check: {legend}"]
        for mode, result in self.results.items():
            parts.append(f"\n{mode} mode:\n{result}")
        return "\n".join(parts)

    __repr__ = __str__


def _parameter_slots(module) -> tuple[list, list[str], list[list]]:
    """Each distinct parameter (a tied one once), its name, and every (owner, attribute) slot
    that holds it."""
    params, names, slots, seen = [], [], [], {}
    for owner_name, owner in module.named_modules():
        for attr, param in owner._parameters.items():
            if param is None:
                continue
            if id(param) not in seen:
                seen[id(param)] = len(params)
                params.append(param)
                names.append(f"{owner_name}.{attr}" if owner_name else attr)
                slots.append([])
            slots[seen[id(param)]].append((owner, attr))
    return params, names, slots


def _as_input(x, name: str):
    """Floating inputs become float64 leaves to differentiate; others (indices) stay as they are."""
    if isinstance(x, (Tensor, np.ndarray)) and np.asarray(x).dtype.kind == "f":
        return Tensor(np.asarray(x, dtype=np.float64), requires_grad=True, name=name)
    return x


def check_module(
    module,
    *inputs,
    seed: int = 0,
    modes=("train", "eval"),
    raise_exception=True,
    **gradcheck_options,
) -> ModuleCheck:
    """Gradcheck `module(*inputs)` with respect to its floating inputs and every parameter.

    Runs on a float64 deep copy, in each of `modes` ("train": Dropout active, with the random
    state fixed by `seed`; "eval"). Options such as `fast_mode=True`, `atol`, `rtol` and `eps`
    go to `gradcheck`. Returns a `ModuleCheck` (truthy on success, prints both tables);
    with `raise_exception=True` a failure raises `GradcheckError` naming the mode.
    """
    model = copy.deepcopy(module).to(np.float64)
    params, param_names, slots = _parameter_slots(model)
    args = [_as_input(x, f"input {i}") for i, x in enumerate(inputs)]
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
    leaves = tuple(args[i] for i in positions) + tuple(
        Tensor(p.array, requires_grad=True, name=n) for p, n in zip(params, param_names)
    )
    names = [f"input {i}" for i in positions] + param_names

    def forward(*tensors):
        call = list(args)
        for i, t in zip(positions, tensors):
            call[i] = t
        originals = [[owner._parameters[attr] for owner, attr in s] for s in slots]
        try:
            for t, owners in zip(tensors[len(positions) :], slots):
                for owner, attr in owners:
                    owner._parameters[attr] = t
            out = model(*call)
        finally:
            for kept, owners in zip(originals, slots):
                for p, (owner, attr) in zip(kept, owners):
                    owner._parameters[attr] = p
        if isinstance(out, tuple):
            out = tuple(o for o in out if isinstance(o, Tensor) and o.requires_grad)
            return out if len(out) != 1 else out[0]
        return out

    results = {}
    for mode in modes:
        model.train(mode == "train")
        with random.fork_rng():
            random.manual_seed(seed)
            try:
                results[mode] = gradcheck(
                    forward, leaves, raise_exception=raise_exception, **gradcheck_options
                )
            except Exception as error:
                error.args = (
                    f"check_module({type(module).__name__}) in {mode} mode "
                    f"(inputs: {', '.join(names)}):\n{error}",
                ) + error.args[1:]
                raise
    return ModuleCheck(type(module).__name__, results, names)
