"""`tg.install_as_torch()`: make `import torch` give tinygrad_norm, in this process.

After it, `import torch`, `import torch.nn as nn`, `from torch.nn import functional as F`,
`import torch.backends.cudnn` ... all resolve to the tinygrad_norm modules of the same names,
so a PyTorch course script or notebook runs unchanged on a framework whose source a learner
can read (`python -m tinygrad_norm run script.py` does this before running the script).

How. Python looks a module up in `sys.modules` before searching for it, so every tinygrad_norm
module already imported is entered there under its torch name (`torch.nn` is the module
`tinygrad_norm.nn`). A module imported later (`torch.optim.lr_scheduler`) is found by a small
finder on `sys.meta_path` that maps `torch.X` to `tinygrad_norm.X`. A name tinygrad_norm does
not have raises an error that says so, rather than a bare AttributeError:

    AttributeError: tinygrad_norm does not implement torch.fft yet (tinygrad_norm runs ...)

Real PyTorch, if it was imported before, is shadowed: its modules leave `sys.modules` (objects
that already hold it keep it) and `uninstall_as_torch()` puts them back.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types

PACKAGE = __name__.rpartition(".")[0]  # "tinygrad_norm"


def torch_name(module_name: str) -> str:
    """`tinygrad_norm.nn.functional` -> `torch.nn.functional`."""
    return "torch" + module_name[len(PACKAGE) :]


def not_implemented(name: str) -> str:
    return (
        f"tinygrad_norm does not implement {name} yet (tinygrad_norm runs this script in place of "
        "PyTorch; see README 'Running PyTorch code' for what it covers)"
    )


def _missing_attribute(module: types.ModuleType):
    """A module `__getattr__` (PEP 562): called only for names the module lacks."""
    prefix = torch_name(module.__name__)

    def __getattr__(name: str):
        if name.startswith("__"):  # __path__, __wrapped__, ...: probes, not torch API
            raise AttributeError(f"module {prefix!r} has no attribute {name!r}")
        raise AttributeError(not_implemented(f"{prefix}.{name}"))

    return __getattr__


def _alias(module: types.ModuleType) -> None:
    sys.modules[torch_name(module.__name__)] = module
    if "__getattr__" not in vars(module):
        module.__getattr__ = _missing_attribute(module)
        _PATCHED.append(module)


class _ExistingModule(importlib.abc.Loader):
    """Hands the import system a module that is already loaded (a tinygrad_norm module)."""

    def __init__(self, module: types.ModuleType):
        self.module = module

    def create_module(self, spec):
        self.own_spec = self.module.__spec__
        return self.module

    def exec_module(self, module) -> None:
        module.__spec__ = self.own_spec  # the import system set it to the torch.X spec


class TorchFinder(importlib.abc.MetaPathFinder):
    """Finds `torch.X.Y` as `tinygrad_norm.X.Y`; one it lacks raises a clear error."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        target_name = PACKAGE + fullname[len("torch") :]
        module = sys.modules.get(target_name)
        if module is None:
            try:
                found = importlib.util.find_spec(target_name)
            except (ModuleNotFoundError, ValueError):
                found = None
            if found is None:
                # NOTE: name=None, so `from torch.nn import missing` shows this message too
                raise ModuleNotFoundError(not_implemented(fullname))
            module = importlib.import_module(target_name)
        _alias(module)
        return importlib.util.spec_from_loader(fullname, _ExistingModule(module))


_FINDER = TorchFinder()
_REAL_TORCH = {}  # real PyTorch modules imported before install_as_torch, put back by uninstall
_PATCHED = []  # tinygrad_norm modules given the "does not implement torch.X yet" __getattr__


def _is_torch_name(name: str) -> bool:
    return name == "torch" or name.startswith("torch.")


def install_as_torch() -> None:
    """Make `import torch` (and `torch.X.Y`) resolve to tinygrad_norm in this process.

    For notebooks: run it in the first cell, then the PyTorch code as written. Undo with
    `tg.uninstall_as_torch()` (or restart the kernel).
    """
    for name, module in list(sys.modules.items()):
        if _is_torch_name(name) and not getattr(module, "__name__", "").startswith(PACKAGE):
            _REAL_TORCH[name] = sys.modules.pop(name)  # real PyTorch, imported earlier
    for name, module in list(sys.modules.items()):
        if (name == PACKAGE or name.startswith(PACKAGE + ".")) and module is not None:
            _alias(module)
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def uninstall_as_torch() -> None:
    """Undo `install_as_torch`: `import torch` finds real PyTorch again (if installed)."""
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    for name in [n for n in sys.modules if _is_torch_name(n)]:
        if getattr(sys.modules[name], "__name__", "").startswith(PACKAGE):
            del sys.modules[name]
    sys.modules.update(_REAL_TORCH)
    _REAL_TORCH.clear()
    for module in _PATCHED:
        del module.__getattr__
    _PATCHED.clear()
