"""Modules: objects that hold Parameters, buffers and other Modules, as in PyTorch.

A `Module` subclass assigns its pieces in `__init__` and computes in `forward`:

    class Affine(nn.Module):
        def __init__(self, n_in, n_out):
            super().__init__()
            self.weight = nn.Parameter(tg.randn(n_out, n_in))   # registered as a parameter
            self.register_buffer("calls", tg.zeros(()))          # state that is not trained

        def forward(self, x):                                    # called by model(x)
            return x @ self.weight.T

Assigning a `Parameter` registers it in `_parameters`, a `Module` in `_modules`; buffers are
registered with `register_buffer`. Everything else (`named_parameters`, `state_dict`, `train`,
`to`, the printed tree) walks those three dicts, module by module, in the order of assignment.

`state_dict()` maps dotted names (`"blocks.0.attn.c_attn.weight"`) to Tensors that share the
parameters' memory; `load_state_dict` checks a whole checkpoint before writing any value, then
copies the values into the existing arrays, so an optimizer holding the parameters keeps working.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from .. import devices
from ..tensor import Tensor
from .hooks import RemovableHandle, add_hook, call_module
from .parameter import Parameter
from .state_dict import IncompatibleKeys, load_checked


class Module:
    """The base class of every layer and model: subclass it, assign parts, define `forward`.

    `module(*inputs)` runs the forward pre-hooks, `forward(*inputs)`, then the forward hooks.
    """

    training: bool

    def __init__(self):
        # object.__setattr__: our own __setattr__ needs these dicts to exist already.
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent_buffers", set())
        object.__setattr__(self, "_modules", {})
        for name in ("_forward_pre_hooks", "_forward_hooks", "_backward_hooks"):
            object.__setattr__(self, name, OrderedDict())
        object.__setattr__(self, "_backward_pre_hooks", OrderedDict())
        for name in ("_forward_pre_hooks_with_kwargs", "_forward_hooks_with_kwargs"):
            object.__setattr__(self, name, set())
        object.__setattr__(self, "_forward_hooks_always_called", set())

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args, **kwargs):
        return call_module(self, args, kwargs)  # hooks.py: the hooks around forward

    # --- hooks (hooks.py has the details) --------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Call `hook(module, args)` before every forward; a returned value replaces args
        (`with_kwargs=True`: `hook(module, args, kwargs)` returns `(args, kwargs)` or None)."""
        extra = (self._forward_pre_hooks_with_kwargs,) if with_kwargs else ()
        return add_hook(self._forward_pre_hooks, hook, prepend, extra)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """Call `hook(module, args, output)` after every forward; a returned value replaces the
        output (`with_kwargs=True`: `hook(module, args, kwargs, output)`)."""
        extra = (self._forward_hooks_with_kwargs,) if with_kwargs else ()
        extra += (self._forward_hooks_always_called,) if always_call else ()
        return add_hook(self._forward_hooks, hook, prepend, extra)

    def register_full_backward_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Call `hook(module, grad_input, grad_output)` when the gradients of the positional
        Tensor inputs are computed; a returned tuple replaces grad_input."""
        return add_hook(self._backward_hooks, hook, prepend)

    def register_full_backward_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Call `hook(module, grad_output)` when the gradients of the outputs are complete,
        before they flow into the module; a returned tuple replaces grad_output."""
        return add_hook(self._backward_pre_hooks, hook, prepend)

    # --- registration ----------------------------------------------------------------------------
    def __setattr__(self, name: str, value) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(
                f"cannot assign {name!r} before Module.__init__() call: start "
                f"{type(self).__name__}.__init__ with super().__init__()"
            )
        params, buffers, modules = self._parameters, self._buffers, self._modules
        if isinstance(value, Parameter):
            self._forget(name, keep=params)  # re-assigning keeps the parameter's place
            self.register_parameter(name, value)
        elif name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign {type(value).__name__} as parameter {name!r} "
                    "(nn.Parameter or None expected); wrap it: nn.Parameter(value), or "
                    f"first `del module.{name}` to store a plain tensor"
                )
            params[name] = None
        elif isinstance(value, Module):
            self._forget(name, keep=modules)
            modules[name] = value
        elif name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign {type(value).__name__} as child module {name!r} "
                    "(nn.Module or None expected)"
                )
            modules[name] = None
        elif name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign {type(value).__name__} as buffer {name!r} "
                    "(Tensor or None expected)"
                )
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str, keep: dict) -> None:
        """Remove `name` from wherever else it was registered before (it is being re-assigned
        as a different kind of thing)."""
        self.__dict__.pop(name, None)
        for table in (self._parameters, self._buffers, self._modules):
            if table is not keep:
                table.pop(name, None)
        self._non_persistent_buffers.discard(name)

    def __getattr__(self, name: str):
        # Only called when normal lookup fails: look in the three registries.
        registries = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if table in registries and name in registries[table]:
                return registries[table][name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __delattr__(self, name: str) -> None:
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                self._non_persistent_buffers.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        registered = [*self._parameters, *self._buffers, *self._modules]
        return sorted(set(super().__dir__()).union(registered))

    def _check_new_name(self, kind: str, name) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot register a {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string, got {type(name).__name__}")
        if name == "" or "." in name:
            raise KeyError(f'{kind} name can\'t be empty or contain ".", got {name!r}')

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register `param` (a Parameter, or None for an absent one) under `name`."""
        self._check_new_name("parameter", name)
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute {name!r} already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign {type(param).__name__} object to parameter {name!r} "
                "(nn.Parameter or None required)"
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Register a Tensor that is state but not a parameter (a running mean, a mask).

        Buffers follow `to()` / `float()` and appear in `state_dict()` unless
        `persistent=False` (e.g. a causal mask that is rebuilt from the config).
        """
        self._check_new_name("buffer", name)
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute {name!r} already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign {type(tensor).__name__} object to buffer {name!r} "
                "(Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers.discard(name)
        else:
            self._non_persistent_buffers.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Register `module` as a child under `name` (what `self.name = module` does)."""
        self._check_new_name("module", name)
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute {name!r} already exists")
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._modules[name] = module

    register_module = add_module

    # --- walking the tree ------------------------------------------------------------------------
    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        """Yield `(dotted_name, module)` for this module (name `prefix`) and all below it,
        depth first in the order of assignment, each module once."""
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, _join(prefix, name), remove_duplicate)

    def modules(self):
        """Yield this module and all below it, in `named_modules`' order, each once.

        NOTE: one loop over a stack, without the dotted names or a generator per module:
        `parameters()` runs this in every training step of course code (the loop that sets
        each `p.grad = None`).
        """
        seen, stack = set(), [self]
        while stack:
            module = stack.pop()
            if module is None or id(module) in seen:  # (a child may be registered as None)
                continue
            seen.add(id(module))
            yield module
            stack += reversed(module._modules.values())  # the first child on top: in order

    def named_children(self):
        """Yield `(name, module)` for the direct children, each once."""
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, table: str, prefix: str, recurse: bool, remove_duplicate: bool):
        seen = set()
        if recurse:
            modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
        else:
            modules = [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in getattr(module, table).items():
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield _join(module_prefix, name), value

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate=True):
        """Yield `(dotted_name, Parameter)`; a parameter shared by two modules (tied weights)
        comes once, under the first name it is found by."""
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True):
        """Yield every Parameter once: what an optimizer wants, `SGD(model.parameters(), lr)`."""
        seen = set()
        for module in self.modules() if recurse else (self,):
            for param in module._parameters.values():
                if param is not None and id(param) not in seen:
                    seen.add(id(param))
                    yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate=True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True):
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def get_submodule(self, target: str) -> Module:
        """The module at dotted path `target` (`""` is this module)."""
        module = self
        for i, name in enumerate(target.split(".") if target else []):
            child = module._modules.get(name)
            if not isinstance(child, Module):
                where = ".".join(target.split(".")[:i]) or type(self).__name__
                raise AttributeError(f"{where} has no submodule {name!r} (looking for {target!r})")
            module = child
        return module

    # --- modes and gradients ---------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode (Dropout drops, BatchNorm uses batch statistics) here and below."""
        if not isinstance(mode, bool):
            raise ValueError(f"train: mode is expected to be a bool, got {mode!r}")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> Module:
        """Evaluation mode: the same as `train(False)`."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Switch gradient recording on or off for every parameter (e.g. to freeze a layer)."""
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the accumulated gradients: `.grad = None`, or zeros with `set_to_none=False`."""
        _zero_grad(self.parameters(), set_to_none)

    # --- functions over the tree -----------------------------------------------------------------
    def apply(self, fn) -> Module:
        """Call `fn(module)` on every child (recursively), then on this module; returns self.

        Typical use: `model.apply(init_weights)` with a function that tests the module type.
        """
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _convert(self, convert) -> Module:
        """Replace the array of every parameter, gradient and buffer by `convert(array)`, in
        place: the Parameter objects stay the same, so an optimizer made before keeps them."""
        for param in self.parameters():  # each once, tied ones included
            param.array = convert(param.array)
            if param.grad is not None:
                param.grad.array = convert(param.grad.array)
        for buffer in self.buffers():
            buffer.array = convert(buffer.array)
        return self

    def to(self, *args, dtype=None, device=None) -> Module:
        """Convert floating parameters and buffers to `dtype` in place (the device "cpu" is
        accepted; "cuda" raises; integer buffers keep their dtype, as in PyTorch)."""
        devices.check("Module.to", device)
        for arg in args:
            if devices.is_device(arg):
                devices.check("Module.to", arg)
                continue
            dtype = arg
        if dtype is None:
            return self
        dtype = np.dtype(dtype)
        if dtype.kind != "f":
            raise TypeError(
                f"Module.to only accepts floating dtypes, got {dtype}; integer buffers are "
                "left as they are, and parameters must stay floating"
            )
        return self._convert(lambda a: a.astype(dtype) if a.dtype.kind == "f" else a)

    def cpu(self) -> Module:
        return self

    def cuda(self, device=None) -> Module:
        devices.check("Module.cuda", "cuda")

    def float(self) -> Module:
        return self.to(np.float32)

    def double(self) -> Module:
        return self.to(np.float64)

    # --- saving and loading ----------------------------------------------------------------------
    def state_dict(self, destination=None, prefix: str = "", keep_vars: bool = False):
        """An OrderedDict of every parameter and persistent buffer, by dotted name.

        The values are detached Tensors sharing the parameters' memory (the Parameters
        themselves with `keep_vars=True`). A tied parameter appears under each of its names.
        """
        if destination is None:
            destination = OrderedDict()
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination, prefix + name + ".", keep_vars)
        return destination

    def _filter_state_dict(self, state: dict) -> dict:
        """Hook for `load_state_dict`: return the checkpoint entries to load (all by default).

        A subclass overrides it to translate a foreign checkpoint, e.g. to drop the GPT-2
        checkpoints' `attn.bias` mask buffers, which this model rebuilds itself. It is called
        on the module whose `load_state_dict` is called, with the whole dict.
        """
        return state

    def load_state_dict(self, state_dict, strict: bool = True) -> IncompatibleKeys:
        """Copy a checkpoint (name -> NumPy array or Tensor) into the parameters and buffers.

        Everything is checked first: missing keys and unexpected keys (when `strict`), shape
        and dtype differences (always). If anything is wrong, one RuntimeError lists every
        problem and no value has changed. Then each value is copied into the existing array
        (`np.copyto`), so Parameter objects, and the optimizers holding them, stay valid.
        A tied parameter is loaded when any one of its names is present.
        Returns `(missing_keys, unexpected_keys)`.
        """
        return load_checked(self, self._filter_state_dict(state_dict), strict)

    def _takes_checkpoint_shape(self, name: str, shape: tuple) -> bool:
        """May this module's not-yet-shaped parameter `name` take `shape` from a checkpoint?

        No, for a module whose parameters have their shapes from construction. A lazy module
        (LayerNorm(dimensions=...), shaped by its first input) says yes before that first
        call, and gets `_materialize(shape, dtype)` once everything else has been checked.
        """
        return False

    # --- printing --------------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """The text inside the parentheses of this module's line, e.g. `in_features=2, ...`."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            f"({name}): " + _indent(repr(module), 2) for name, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        if not lines:
            return self._get_name() + "()"
        if len(extra_lines) == 1 and not child_lines:
            return f"{self._get_name()}({extra_lines[0]})"
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _indent(text: str, spaces: int) -> str:
    """Indent every line but the first (the first follows `(name): `)."""
    return text.replace("\n", "\n" + " " * spaces)


def _zero_grad(params, set_to_none: bool) -> None:
    for param in params:
        if param.grad is None:
            continue
        if set_to_none:
            param.grad = None
        else:
            if param.grad.grad_fn is not None:  # a grad made with create_graph has a graph
                param.grad = param.grad.detach()
            param.grad.array[...] = 0  # in place: a reference to .grad sees the zeros
