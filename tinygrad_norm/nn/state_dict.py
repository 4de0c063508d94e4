"""`Module.load_state_dict`'s checks: a whole checkpoint is checked before any value is written."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..tensor import Tensor


class IncompatibleKeys(NamedTuple):
    """What `load_state_dict` returns: the names it did not find, and the names it did not use."""

    missing_keys: list
    unexpected_keys: list


def load_checked(module, state, strict: bool) -> IncompatibleKeys:
    """Check `state` (name -> array or Tensor) against `module`'s parameters and buffers, then
    copy it in: missing and unexpected keys (when `strict`), shapes and dtypes (always), and
    tied tensors given different values. Any problem: one RuntimeError listing all of them,
    and nothing changed."""
    if not hasattr(state, "items"):
        raise TypeError(f"load_state_dict expects a dict, got {type(state).__name__}")
    targets = module.state_dict(keep_vars=True)
    aliases: dict[int, list] = {}  # id(tensor) -> every name it is saved under
    for name, tensor in targets.items():
        aliases.setdefault(id(tensor), []).append(name)

    missing = [name for name, t in targets.items() if not any(a in state for a in aliases[id(t)])]
    unexpected = [name for name in state if name not in targets]
    problems = []
    if strict and missing:
        problems.append("missing key(s): " + ", ".join(map(repr, missing)))
    if strict and unexpected:
        problems.append("unexpected key(s): " + ", ".join(map(repr, unexpected)))
    arrays, lazy = {}, []
    for name, target in targets.items():
        if name not in state:
            continue
        value = state[name]
        array = value.array if isinstance(value, Tensor) else np.asarray(value)
        owner_name, _, local = name.rpartition(".")
        owner = module.get_submodule(owner_name) if owner_name else module
        if array.shape != target.shape and owner._takes_checkpoint_shape(local, array.shape):
            lazy.append((owner, array))  # shaped from the checkpoint, after every check
            arrays[name] = array
        elif array.shape != target.shape:
            problems.append(
                f"size mismatch for {name!r}: the checkpoint has shape {array.shape}, "
                f"the model has {target.shape}"
            )
        elif array.dtype != target.dtype:
            fix = f"convert the value with .astype(np.{target.dtype})"
            if array.dtype.kind == target.dtype.kind == "f":
                fix += f", or the model with model.to(tg.{array.dtype})"
            problems.append(
                f"dtype mismatch for {name!r}: the checkpoint has {array.dtype}, the model "
                f"has {target.dtype}; {fix}"
            )
        else:
            arrays[name] = array
    for names in aliases.values():
        given = [n for n in names if n in arrays]
        if any(not np.array_equal(arrays[given[0]], arrays[n]) for n in given[1:]):
            problems.append(
                f"{' and '.join(map(repr, given))} are one tied tensor, but the checkpoint "
                "gives them different values"
            )
    if problems:
        if strict and (missing or unexpected):
            problems.append(
                "(to load only the keys that match, pass strict=False: it returns the "
                "missing and unexpected keys)"
            )
        if any(p.startswith("size mismatch") for p in problems):
            problems.append(
                "(a size mismatch means the checkpoint comes from a model built with other "
                "sizes: build this one with the checkpoint's configuration)"
            )
        raise RuntimeError(
            f"Error(s) in loading state_dict for {type(module).__name__} (nothing was "
            "changed):\n  " + "\n  ".join(problems)
        )
    for owner, array in lazy:
        owner._materialize(array.shape, array.dtype)
    for name, array in arrays.items():
        np.copyto(targets[name].array, array)
    return IncompatibleKeys(missing, unexpected)
