"""How `torch.save(model, f)` spells a whole Module (and the other objects a model holds) in
a pickle that never needs pickle's power to be read back.

PyTorch pickles a module as "call `Net.__new__`, then set its `__dict__`", and the loader
trusts the file to name harmless classes. The file written here has the same shape, opcode
for opcode, so it names the same import paths as PyTorch's would (`__main__.Net`), but
every value in it is data:

    a Module or an instance of a plain class    GLOBAL module.Class, EMPTY_TUPLE, NEWOBJ,
                                                then its attributes (a dict), BUILD:
                                                the object is rebuilt without its __init__
    a Parameter, a Tensor                       PyTorch's tensor rebuild (`torch_writer`)
    a function or a class as a value            GLOBAL module.name (never called on load:
    (`self.activation = F.relu`)                the object at that path, if it is allowed)
    a set                                       builtins.set(list)
    tg.float32, tg.device("cpu")                torch.float32, torch.device("cpu")

An object met twice (a tied weight, a module used in two places, a module that refers to
its parent) is written once and referred to after that (the pickle memo), so it is one
object again after loading. A lambda or a function defined inside another function has no
import path: it is refused with the attribute that holds it, as PyTorch's pickle refuses
it. The loader (`object_reader.py`) rebuilds only the classes tinygrad_norm defines and those
listed in `torch.serialization.safe_globals`.
"""

from __future__ import annotations

import sys
import types

from ..devices import device
from ..dtypes import dtype
from ..nn.module import Module
from .pickle_writer import Call, Global, NewObject


def encode_object(value, where: str, memo: dict, encode):
    """The pickle spelling of `value` (a Module, a plain object, a function or class, a set, a
    dtype or a device), or None when `value` is none of these. `memo` maps id(object) to
    its memo key (for objects that may be met again); `encode(value, where)` spells an
    attribute's value."""
    if isinstance(value, dtype):
        return Global("torch", value._name)
    if isinstance(value, device):
        return Call("torch", "device", (str(value),))
    if isinstance(value, (set, frozenset)):
        items = [encode(item, f"{where} (an item)") for item in value]
        return Call("builtins", "set" if isinstance(value, set) else "frozenset", (items,))
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)):
        module, name = _import_path(value, where)
        return Global(module, name)
    if isinstance(value, Module) or _is_plain_object(value):
        module, name = _import_path(type(value), where)
        key = memo[id(value)] = len(memo)
        state = dict(value.__dict__)
        if not isinstance(value, Module) and hasattr(value, "__getstate__"):  # Python >= 3.11
            state = value.__getstate__()
        return NewObject(module, name, encode(state, where), key)
    return None


def _is_plain_object(value) -> bool:
    """An instance of a class that pickles by its attributes (no `__reduce__` of its own)."""
    cls = type(value)
    return (
        hasattr(value, "__dict__")
        and cls.__reduce__ is object.__reduce__
        and cls.__reduce_ex__ is object.__reduce_ex__
        and cls.__new__ is object.__new__
        and not isinstance(value, types.ModuleType)
    )


def _import_path(obj, where: str) -> tuple:
    """(module, qualified name) of a function or class, checked to lead back to it."""
    module, name = getattr(obj, "__module__", None), getattr(obj, "__qualname__", "")
    found = sys.modules.get(module) if isinstance(module, str) else None
    for part in name.split("."):
        found = getattr(found, part, None)
    if found is not obj:
        what = "class" if isinstance(obj, type) else "function"
        raise TypeError(
            f"save: {where} is the {what} {module}.{name}, which has no import path to "
            "write (a lambda, or defined inside a function): PyTorch cannot pickle it "
            f"either. Define it at the top level of a module, or save state_dict() instead"
        )
    return module, name
