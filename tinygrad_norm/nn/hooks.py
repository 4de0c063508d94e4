"""Module hooks, as PyTorch's: functions that see (and may change) what flows through a module.

- `register_forward_pre_hook(hook)`: `hook(module, args)` before forward; a returned value
  replaces the positional arguments (`with_kwargs=True`: `hook(module, args, kwargs)` returning
  `(args, kwargs)`).
- `register_forward_hook(hook)`: `hook(module, args, output)` after forward; a returned value
  replaces the output (`with_kwargs=True`: `hook(module, args, kwargs, output)`;
  `always_call=True`: called even when forward raised).
- `register_full_backward_pre_hook(hook)`: `hook(module, grad_output)` when the gradients of
  the module's outputs are complete; a returned tuple replaces them.
- `register_full_backward_hook(hook)`: `hook(module, grad_input, grad_output)` when the
  gradients of the module's positional Tensor inputs are complete; a returned tuple replaces
  grad_input. Entries are None for inputs (outputs) that get no gradient.

How the backward hooks work: the Tensor inputs that require grad are joined into one flat vector
(`cat`) and handed to forward as slices of it, and likewise the outputs. The engine completes
the vector's gradient only after every slice's gradient has arrived, so one tensor hook
(`register_hook`) on it sees all the inputs' (outputs') gradients at once, as PyTorch's
BackwardHookFunction node does.
"""

from __future__ import annotations

from collections import OrderedDict

from ..autograd.grad_mode import is_grad_enabled
from ..functions.creation import zeros
from ..ops.shape import cat
from ..tensor import Tensor


class RemovableHandle:
    """What `register_forward_hook` and friends return: `.remove()` takes the hook away."""

    _next_id = 0

    def __init__(self, hooks: dict, extra: tuple = ()):
        self._hooks, self._extra = hooks, extra  # extra: sets of ids with options
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self) -> None:
        self._hooks.pop(self.id, None)
        for options in self._extra:
            options.discard(self.id)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def add_hook(hooks: OrderedDict, hook, prepend: bool, extra: tuple = ()) -> RemovableHandle:
    handle = RemovableHandle(hooks, extra)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    for options in extra:
        options.add(handle.id)
    return handle


def run_forward_pre_hooks(module, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    for key, hook in list(module._forward_pre_hooks.items()):
        if key in module._forward_pre_hooks_with_kwargs:
            result = hook(module, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(
                        "forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                        f"but got {result}."
                    )
                args, kwargs = result
        else:
            result = hook(module, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    return args, kwargs


def run_forward_hooks(module, args: tuple, kwargs: dict, output, only_always: bool = False):
    for key, hook in list(module._forward_hooks.items()):
        if only_always and key not in module._forward_hooks_always_called:
            continue
        if key in module._forward_hooks_with_kwargs:
            result = hook(module, args, kwargs, output)
        else:
            result = hook(module, args, output)
        if result is not None:
            output = result
    return output


def call_module(module, args: tuple, kwargs: dict):
    """What `module(*args, **kwargs)` does: pre-hooks, forward, forward hooks, and the set-up
    of the backward hooks."""
    if module._forward_pre_hooks:
        args, kwargs = run_forward_pre_hooks(module, args, kwargs)
    backward = None
    if (module._backward_hooks or module._backward_pre_hooks) and is_grad_enabled():
        backward = BackwardHook(module)
        args = backward.wrap_inputs(args)
    try:
        output = module.forward(*args, **kwargs)
    except Exception:
        if module._forward_hooks_always_called:
            run_forward_hooks(module, args, kwargs, None, only_always=True)
        raise
    if module._forward_hooks:
        output = run_forward_hooks(module, args, kwargs, output)
    if backward is not None:
        output = backward.wrap_outputs(output)
    return output


def _join_wanted(items: list, on_done):
    """Replaces, in `items`, each Tensor that requires grad by its piece of one joined node
    (`_join`), whose backward calls `on_done`. Returns the number of Tensors, the positions
    among them of those that require grad (the slots), and `_join`'s `reached` (or None)."""
    where = [i for i, item in enumerate(items) if isinstance(item, Tensor)]
    wanted = [(k, i) for k, i in enumerate(where) if items[i].requires_grad]
    if not wanted:
        return len(where), [], None
    pieces, reached = _join([items[i] for _, i in wanted], on_done)
    for (_, i), piece in zip(wanted, pieces):
        items[i] = piece
    return len(where), [k for k, _ in wanted], reached


class BackwardHook:
    """One call's backward hooks: it joins the differentiable inputs (and outputs) into one
    node each, and calls the module's hooks when their gradients are complete."""

    def __init__(self, module):
        self.module = module
        self.n_inputs = self.n_outputs = 0  # positional Tensor arguments, Tensor outputs
        self.input_slots: list[int] = []  # which inputs require grad
        self.output_slots: list[int] = []  # which outputs require grad
        self.grad_outputs = None  # set when the outputs' gradients are complete

    def wrap_inputs(self, args: tuple) -> tuple:
        items = list(args)
        self.n_inputs, self.input_slots, self.input_reached = _join_wanted(items, self._on_inputs)
        return tuple(items) if self.input_slots else args

    def wrap_outputs(self, output):
        items = list(output) if isinstance(output, tuple) else [output]
        self.n_outputs, self.output_slots, self.output_reached = _join_wanted(
            items, self._on_outputs
        )
        if not self.output_slots:
            return output
        return tuple(items) if isinstance(output, tuple) else items[0]

    def _on_outputs(self, grads: list) -> list:
        full = _spread(grads, self.output_reached, self.output_slots, self.n_outputs)
        for hook in list(self.module._backward_pre_hooks.values()):
            result = hook(self.module, full)
            if result is not None:
                full = _check_result(result, full, "grad_output")
        self.grad_outputs = full
        if not self.input_slots:  # no input requires grad: the hooks are called now
            none = (None,) * self.n_inputs
            for hook in list(self.module._backward_hooks.values()):
                result = hook(self.module, none, full)
                if result is not None and any(r is not None for r in result):
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires gradient should "
                        "always return None or None for all gradients."
                    )
        return [full[k] for k in self.output_slots]

    def _on_inputs(self, grads: list) -> list:
        full = _spread(grads, self.input_reached, self.input_slots, self.n_inputs)
        for hook in list(self.module._backward_hooks.values()):
            result = hook(self.module, full, self.grad_outputs)
            if result is not None:
                full = _check_result(result, full, "grad_input")
        return [full[k] for k in self.input_slots]


def _spread(grads: list, reached: list, slots: list, n: int) -> tuple:
    """One entry per Tensor argument: the gradient, or None where none arrived."""
    full = [None] * n
    for k, g, hit in zip(slots, grads, reached):
        full[k] = g if hit[0] else None
    return tuple(full)


def _check_result(result, before: tuple, what: str) -> tuple:
    result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
    if len(result) != len(before):
        raise RuntimeError(
            f"Backward hook returned an invalid number of {what}, got {len(result)}, but "
            f"expected {len(before)}"
        )
    return result


def _join(tensors: list, on_grads) -> tuple[list, list]:
    """The same values as `tensors`, as slices of one flat vector whose gradient, complete once
    every slice's has arrived, passes through `on_grads(list of gradients) -> list`."""
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) != 1:
        raise NotImplementedError(
            "full backward hooks: the differentiable inputs (or outputs) of one module call "
            f"have different dtypes {sorted(map(str, dtypes))}; tinygrad_norm needs one dtype"
        )
    sizes = [t.numel() for t in tensors]
    flat = cat([t.reshape(-1) for t in tensors])  # (sum of sizes,)
    offsets = [sum(sizes[:k]) for k in range(len(sizes) + 1)]
    reached = [[False] for _ in tensors]

    def hook(grad):
        pieces = [grad[a:b].reshape(t.shape) for a, b, t in zip(offsets, offsets[1:], tensors)]
        new = on_grads(pieces)
        new = [zeros(*t.shape, dtype=grad.dtype) if g is None else g for g, t in zip(new, tensors)]
        return cat([g.reshape(-1) for g in new])

    flat.register_hook(hook)
    pieces = []
    for a, b, t, mark in zip(offsets, offsets[1:], tensors, reached):
        piece = flat[a:b].reshape(t.shape)
        piece.register_hook(lambda g, mark=mark: mark.__setitem__(0, True))
        pieces.append(piece)
    return pieces, reached
