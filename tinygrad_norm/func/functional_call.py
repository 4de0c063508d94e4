"""`torch.func.functional_call`: call a module with other tensors in place of its parameters
and buffers, leaving the module as it was.

What makes per-sample gradients possible: `grad(lambda params, x: loss(functional_call(model,
params, (x,))))` differentiates with respect to a dict of tensors, not the module's own.
"""

from __future__ import annotations


def functional_call(
    module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False
):
    """`module(*args, **kwargs)` with each named parameter or buffer (`"0.weight"`) replaced by
    the tensor of that name in the dict (or tuple of dicts) for the duration of the call."""
    dicts = parameter_and_buffer_dicts
    replacements = {}
    for d in dicts if isinstance(dicts, (tuple, list)) else (dicts,):
        for name in d:
            if name in replacements:
                raise ValueError(f"functional_call: {name!r} appeared in more than one dict")
        replacements.update(d)
    if strict:
        expected = {n for n, _ in module.named_parameters()} | {
            n for n, _ in module.named_buffers()
        }
        missing, unexpected = (
            sorted(expected - set(replacements)),
            sorted(set(replacements) - expected),
        )
        if missing or unexpected:
            raise RuntimeError(
                f"functional_call (strict=True): missing keys {missing}, "
                f"unexpected keys {unexpected}"
            )
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    swapped = [_swap(module, name, value) for name, value in replacements.items()]
    try:
        return module(*args, **(kwargs or {}))
    finally:
        for table, key, old in reversed(swapped):
            table[key] = old


def _swap(module, name: str, value):
    """Put `value` where the parameter or buffer `name` is; return how to undo it."""
    owner_name, _, key = name.rpartition(".")
    owner = module.get_submodule(owner_name) if owner_name else module
    for table in (owner._parameters, owner._buffers):
        if key in table:
            old = table[key]
            table[key] = value
            return table, key, old
    raise AttributeError(
        f"functional_call: {type(owner).__name__} has no parameter or buffer {key!r} ({name!r})"
    )
