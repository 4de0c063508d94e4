"""What a loaded file may rebuild besides tensors: the classes and functions it names by
import path, looked up, never imported or called.

A pickle names a class or function as "module.name" (GLOBAL); Python's own unpickler imports
the module and calls what it finds. Here a name is looked up in two tables only:

    tinygrad_norm's own     every nn.Module subclass tinygrad_norm defines
                            (tinygrad_norm.nn.linear.Linear, ...), the other classes and
                            functions of `nn` and `models` (a model's config, `F.relu` as
                            `self.activation`, a weight-norm hook), and the `tg.X` math
    the safe globals        what `torch.serialization.add_safe_globals([...])` or
                            `with torch.serialization.safe_globals([...]):` lists
                            (`SAFE_GLOBALS` below), by the class's own import path
                            ("__main__.Net"), or a (object, "path") pair

Any other name is refused before anything happens, with PyTorch's message (whatever
`weights_only` says: a deliberate difference, tinygrad_norm never runs code from a file). A
class found here is rebuilt as PyTorch's pickle rebuilds it, but without calling anything
of the file's choosing: `object.__new__(cls)` (no __init__), then its attributes are set
from the file (`build`); once the tensors are made, `check_module` checks that a rebuilt
Module holds what a Module holds.
"""

from __future__ import annotations

import pickle
import sys
import types
from collections import OrderedDict

from .. import functions
from ..nn.module import Module
from ..nn.parameter import Parameter
from ..tensor import Tensor

SAFE_GLOBALS: list = []  # torch.serialization's list: classes, functions, (object, "path")

UNSAFE_MESSAGE = (  # PyTorch 2.13's first line, and its advice with what is true here
    "Weights only load failed. This file can still be loaded, to do so you have two options, "
    "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
    "\n\t(1) In PyTorch, re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution; tinygrad_norm never "
    "runs code from a file, so there `weights_only=False` rebuilds no more than (2) allows."
    "\n\t(2) Alternatively, to load with `weights_only=True` please check the recommended "
    "steps in the following error message.\n\tWeightsUnpickler error: "
)


def path_of(obj) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


OWN_ROOMS = ("tinygrad_norm.nn", "tinygrad_norm.models")  # their classes and functions


def own_globals() -> dict:
    """{import path: object} of tinygrad_norm's own: every Module subclass, the classes and
    functions of `nn` and `models` (a model's config, a weight-norm hook), and the `tg.X`
    math functions. Only modules already imported are looked at."""
    table = {}
    classes = [Module]
    while classes:
        cls = classes.pop()
        classes.extend(cls.__subclasses__())
        if cls.__module__.split(".")[0] == "tinygrad_norm":
            table[path_of(cls)] = cls
    rooms = [vars(functions)]
    for name, module in list(sys.modules.items()):
        if name in OWN_ROOMS or name.startswith(tuple(room + "." for room in OWN_ROOMS)):
            rooms.append(vars(module))
    for namespace in rooms:
        for value in list(namespace.values()):
            if isinstance(value, (type, types.FunctionType)) and value.__module__.startswith(
                OWN_ROOMS
            ):
                table.setdefault(path_of(value), value)
            elif isinstance(value, types.FunctionType) and value.__module__.startswith(
                "tinygrad_norm."
            ):
                table.setdefault(path_of(value), value)
    return table


def user_globals() -> dict:
    """{import path: object} of the safe globals, as PyTorch names them."""
    table = {}
    for entry in SAFE_GLOBALS:
        if isinstance(entry, tuple):
            if len(entry) != 2 or not isinstance(entry[1], str):
                raise TypeError(
                    "safe_globals: expected a class, a function or a (global, 'module.name') "
                    f"pair, got {entry!r}"
                )
            table[entry[1]] = entry[0]
        else:
            table[path_of(entry)] = entry
    return table


def refusal(path: str, where: str, weights_only: bool) -> str:
    """PyTorch's message for a global it does not allow (with the file's name after it)."""
    if path.startswith("builtins."):
        path = path[len("builtins.") :]  # as PyTorch prints it
    advice = (
        f"Unsupported global: GLOBAL {path} was not an allowed global by default. Please use "
        f"`torch.serialization.add_safe_globals([{path}])` or the "
        f"`torch.serialization.safe_globals([{path}])` context manager to allowlist this "
        "global if you trust this class/function."
    )
    if path.startswith("torch."):
        advice += (
            f" {path} is a class of PyTorch itself: this is a whole model saved by PyTorch, "
            "which only PyTorch rebuilds. In PyTorch, save model.state_dict() instead and "
            "load that into a model built the same way here."
        )
    if weights_only:
        return f"{UNSAFE_MESSAGE}{advice}\n\n(in {where})"
    return (
        f"Load refused: {where} names {path}, which is neither tinygrad_norm's nor listed as "
        "safe; tinygrad_norm never imports or calls what a file names, even with "
        f"weights_only=False (unpickling can run arbitrary code). {advice}"
    )


def new_object(cls, args: tuple, where: str):
    """NEWOBJ: an instance of an allowed class (None: another), made without calling its
    __init__."""
    if args or not isinstance(cls, type) or cls in (Tensor, Parameter):
        raise pickle.UnpicklingError(
            f"{where}: the file asks to make a {cls!r} from {len(args)} arguments: refused "
            "(only classes are rebuilt, without arguments)"
        )
    try:
        return object.__new__(cls)
    except TypeError as err:
        raise pickle.UnpicklingError(f"{where}: {path_of(cls)} cannot be rebuilt ({err})") from err


def build(obj, state, own: bool, where: str) -> None:
    """BUILD: set the attributes of an object `new_object` made (`own`: a class of
    tinygrad_norm, whose __dict__ is set; a listed class's own __setstate__ is used)."""
    setstate = getattr(type(obj), "__setstate__", None)
    if not own and setstate is not None:
        obj.__setstate__(state)
        return
    slots = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    for part in (state, slots):
        if part is not None and not (
            isinstance(part, dict) and all(isinstance(k, str) for k in part)
        ):
            raise pickle.UnpicklingError(
                f"{where}: the attributes of a {type(obj).__name__} are not a dict of names"
            )
    obj.__dict__.update(state or {})
    for name, value in (slots or {}).items():
        object.__setattr__(obj, name, value)


def check_module(module: Module, where: str) -> None:
    """A rebuilt Module: its registries present (a file without them gets empty ones) and
    holding Parameters, Tensors and Modules."""
    template = object.__new__(Module)
    Module.__init__(template)
    attributes = module.__dict__
    for name, empty in template.__dict__.items():
        attributes.setdefault(name, empty)
    kinds = {"_parameters": Parameter, "_buffers": Tensor, "_modules": Module}
    for table, kind in kinds.items():
        registry = attributes[table]
        if not isinstance(registry, dict) or not all(
            isinstance(k, str) and (v is None or isinstance(v, kind)) for k, v in registry.items()
        ):
            raise ValueError(
                f"{where}: the rebuilt {type(module).__name__} has a damaged {table} (expected "
                f"names of {kind.__name__}s)"
            )
    if type(attributes["training"]) is not bool or not isinstance(
        attributes["_non_persistent_buffers"], (set, frozenset)
    ):
        raise ValueError(f"{where}: the rebuilt {type(module).__name__} has a damaged state")
    for name in ("_forward_pre_hooks", "_forward_hooks", "_backward_hooks"):
        if not isinstance(attributes[name], OrderedDict):
            raise ValueError(f"{where}: the rebuilt {type(module).__name__} has damaged hooks")
