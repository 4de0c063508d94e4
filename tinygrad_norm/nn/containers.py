"""Containers: Modules that hold other Modules (`Sequential`, `ModuleList`, `ModuleDict`) or
Parameters (`ParameterList`, `ParameterDict`), and the placeholder `Identity`, as in PyTorch."""

from __future__ import annotations

from collections import OrderedDict

from ..tensor import Tensor
from .module import Module, _indent
from .parameter import Parameter


class Sequential(Module):
    """Modules applied one after the other: `Sequential(a, b, c)(x)` is `c(b(a(x)))`.

    Children are named "0", "1", ... (or by the keys of an OrderedDict given instead).
    """

    def __init__(self, *modules):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, module in modules[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(modules):
                self.add_module(str(i), module)

    def _key(self, index: int) -> str:
        n = len(self._modules)
        if not -n <= index < n:
            raise IndexError(f"index {index} is out of range for {type(self).__name__} of {n}")
        return list(self._modules)[index % n]

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(OrderedDict(list(self._modules.items())[index]))
        return self._modules[self._key(index)]

    def __setitem__(self, index: int, module: Module) -> None:
        setattr(self, self._key(index), module)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def forward(self, input):  # noqa: A002 - PyTorch's name
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules, registered so their parameters are found (a plain list hides them).

    It has no forward: iterate over it in the parent's forward.
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _index(self, index: int) -> int:
        n = len(self._modules)
        if not -n <= index < n:
            raise IndexError(f"index {index} is out of range for ModuleList of {n}")
        return index % n

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(list(self._modules.values())[index])
        return self._modules[str(self._index(index))]

    def __setitem__(self, index: int, module: Module) -> None:
        setattr(self, str(self._index(index)), module)

    def __delitem__(self, index) -> None:
        modules = list(self._modules.values())
        del modules[index if isinstance(index, slice) else self._index(index)]
        self._modules.clear()
        self.extend(modules)  # renumber: the names stay 0, 1, 2, ...

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules) -> ModuleList:
        return self.extend(modules)

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules) -> ModuleList:
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules.clear()
        self.extend(modules)

    def __repr__(self) -> str:
        """Runs of equal children print once, as PyTorch does: `(0-11): 12 x Block(...)`."""
        if not self._modules:
            return self._get_name() + "()"
        runs = []  # [first index, last index, repr]
        for i, module in enumerate(self):
            text = repr(module)
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        lines = [
            _indent(f"({a}): {text}" if a == b else f"({a}-{b}): {b - a + 1} x {text}", 2)
            for a, b, text in runs
        ]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules by name, registered so their parameters are found."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def pop(self, key: str) -> Module:
        return self._modules.pop(key)

    def clear(self) -> None:
        self._modules.clear()

    def update(self, modules) -> None:
        items = modules.items() if hasattr(modules, "items") else modules
        for key, module in items:
            self[key] = module


class Identity(Module):
    """Returns its input unchanged (any constructor arguments are ignored), as a placeholder."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):  # noqa: A002 - PyTorch's name
        return input


def _parameter(value):
    """A Tensor becomes a Parameter (sharing its memory), as PyTorch's ParameterList does."""
    return (
        Parameter(value)
        if isinstance(value, Tensor) and not isinstance(value, Parameter)
        else value
    )


_TYPENAMES = {"float16": "HalfTensor", "float32": "FloatTensor", "float64": "DoubleTensor",
               "int32": "IntTensor", "int64": "LongTensor", "bool": "BoolTensor"}  # fmt: skip


def _describe(value, typename: bool = False) -> str:
    """One line of ParameterList's repr (dtype `torch.float32`) or ParameterDict's (PyTorch's
    type name `torch.FloatTensor`), PyTorch's wording."""
    if not isinstance(value, Tensor):
        return f"Object of type: {type(value).__name__}"
    dtype = str(value.dtype).removeprefix("torch.")
    dtype = f"torch.{_TYPENAMES.get(dtype, dtype) if typename else dtype}"
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    size = "x".join(str(n) for n in value.shape)
    return f"{kind} containing: [{dtype} of size {size}]"


class ParameterList(Module):
    """A list of Parameters, registered (named "0", "1", ...) so the module's `parameters()`
    and `state_dict()` find them. A plain Tensor put in is wrapped in a Parameter.

    >>> import tinygrad_norm as tg
    >>> params = ParameterList([tg.zeros(2, 3), tg.ones(3)])
    >>> [name for name, _ in params.named_parameters()]
    ['0', '1']
    """

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _index(self, index: int) -> int:
        if not -self._size <= index < self._size:
            raise IndexError(f"index {index} is out of range for ParameterList of {self._size}")
        return index % self._size

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)([self[i] for i in range(self._size)[index]])
        return getattr(self, str(self._index(index)))

    def __setitem__(self, index: int, param) -> None:
        setattr(self, str(self._index(index)), _parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self):
        return (self[i] for i in range(self._size))

    def __iadd__(self, parameters) -> ParameterList:
        return self.extend(parameters)

    def append(self, value) -> ParameterList:
        self._size += 1
        setattr(self, str(self._size - 1), _parameter(value))
        return self

    def extend(self, values) -> ParameterList:
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(f"  ({i}): {_describe(p)}" for i, p in enumerate(self))


class ParameterDict(Module):
    """A dict of Parameters by name, registered so `parameters()` and `state_dict()` find them.
    A plain Tensor put in is wrapped in a Parameter; keys keep their insertion order.

    >>> import tinygrad_norm as tg
    >>> params = ParameterDict({"scale": tg.ones(3)})
    >>> params["shift"] = tg.zeros(3)
    >>> list(params.keys())
    ['scale', 'shift']
    """

    def __init__(self, parameters=None):
        super().__init__()
        self._keys: dict = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str):
        return getattr(self, key)

    def __setitem__(self, key: str, value) -> None:
        if not isinstance(key, str):
            raise TypeError(f"ParameterDict keys must be strings, got {type(key).__name__}")
        self._keys[key] = None
        setattr(self, key, _parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key) -> bool:
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def get(self, key: str, default=None):
        return self[key] if key in self else default

    def pop(self, key: str):
        value = self[key]
        del self[key]
        return value

    def setdefault(self, key: str, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def copy(self) -> ParameterDict:
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def update(self, parameters) -> None:
        items = parameters.items() if hasattr(parameters, "items") else parameters
        for key, value in items:
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): {_describe(p, typename=True)}" for k, p in self.items())
