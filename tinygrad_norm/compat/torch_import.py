"""`tg.install_as_torch()`: make `import torch` give tinygrad_norm, in this process.

After it, `import torch`, `import torch.nn as nn`, `from torch.nn import functional as F`,
`import torch.backends.cudnn` ... all resolve to the tinygrad_norm modules of the same names,
so a PyTorch course script or notebook runs unchanged on a framework whose source a learner
can read (`python -m tinygrad_norm run script.py` does this before running the script).

How. `MODULES` below is the table from each PyTorch module path to the tinygrad_norm module that
plays it (`torch.nn` is `tinygrad_norm.nn`; `torch.cuda` is `tinygrad_norm.compat.cuda`, since
it exists only so that course code imports). Python looks a module up in `sys.modules` before
searching for it, so every listed module already imported is entered there under its torch
name. One imported later (`torch.optim.lr_scheduler`) is found by a small finder on
`sys.meta_path` that reads the same table. A module or name tinygrad_norm does not have raises
an error that says so, rather than a bare AttributeError:

    AttributeError: tinygrad_norm does not implement torch.fft yet (tinygrad_norm runs ...)

Real PyTorch, if it was imported before, is shadowed: its modules leave `sys.modules` (objects
that already hold it keep it) and `uninstall_as_torch()` puts them back.
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import importlib.util
import sys
import types
from pathlib import Path

PACKAGE = "tinygrad_norm"

# Where each PyTorch module lives here. The import hook reads this table and nothing else: a
# `torch.X` not listed raises the "does not implement" error, whatever tinygrad_norm's own
# modules are called. Keep one line per module path that PyTorch code imports.
MODULES = {
    "torch": "tinygrad_norm",
    "torch.autograd": "tinygrad_norm.autograd",
    "torch.autograd.anomaly_mode": "tinygrad_norm.autograd.anomaly",
    "torch.autograd.forward_ad": "tinygrad_norm.func.forward_ad",
    "torch.autograd.function": "tinygrad_norm.autograd.tensor_function",
    "torch.autograd.functional": "tinygrad_norm.autograd.functional",
    "torch.autograd.grad_mode": "tinygrad_norm.autograd.grad_mode",
    "torch.autograd.gradcheck": "tinygrad_norm.gradcheck.torch_style",
    "torch.autograd.graph": "tinygrad_norm.autograd.graph",
    "torch.distributions": "tinygrad_norm.distributions",
    "torch.func": "tinygrad_norm.func",
    "torch.linalg": "tinygrad_norm.linalg",
    "torch.random": "tinygrad_norm.random",
    "torch.testing": "tinygrad_norm.testing",
    "torch.nn": "tinygrad_norm.nn",
    "torch.nn.attention": "tinygrad_norm.nn.attention",
    "torch.nn.functional": "tinygrad_norm.nn.functional",
    "torch.nn.init": "tinygrad_norm.nn.init",
    "torch.nn.parallel": "tinygrad_norm.nn.parallel",
    "torch.nn.parameter": "tinygrad_norm.nn.parameter",
    "torch.nn.utils": "tinygrad_norm.nn.utils",
    "torch.nn.utils.clip_grad": "tinygrad_norm.nn.utils.clip_grad",
    "torch.nn.utils.convert_parameters": "tinygrad_norm.nn.utils.convert_parameters",
    "torch.nn.utils.rnn": "tinygrad_norm.nn.utils.rnn",
    "torch.nn.utils.weight_norm": "tinygrad_norm.nn.utils.weight_norm",
    "torch.optim": "tinygrad_norm.optim",
    "torch.optim.adam": "tinygrad_norm.optim.adam",
    "torch.optim.optimizer": "tinygrad_norm.optim.optimizer",
    "torch.optim.sgd": "tinygrad_norm.optim.sgd",
    "torch.optim.lr_scheduler": "tinygrad_norm.optim.lr_scheduler",
    "torch.utils": "tinygrad_norm.utils",
    "torch.utils.data": "tinygrad_norm.utils.data",
    "torch.utils.data.dataloader": "tinygrad_norm.utils.data.dataloader",
    "torch.utils.data.dataset": "tinygrad_norm.utils.data.dataset",
    "torch.utils.data.sampler": "tinygrad_norm.utils.data.sampler",
    "torch.utils.data.distributed": "tinygrad_norm.utils.data.distributed",
    "torch.utils.tensorboard": "tinygrad_norm.utils.tensorboard",
    # What exists only so that PyTorch code imports (compat/):
    "torch.amp": "tinygrad_norm.compat.amp",
    "torch.backends": "tinygrad_norm.compat.backends",
    "torch.cuda": "tinygrad_norm.compat.cuda",
    "torch.cuda.amp": "tinygrad_norm.compat.cuda.amp",
    "torch.distributed": "tinygrad_norm.compat.distributed",
    "torch.cuda.amp.grad_scaler": "tinygrad_norm.compat.cuda.amp_grad_scaler",
    "torch.accelerator": "tinygrad_norm.compat.accelerator",
    "torch.jit": "tinygrad_norm.compat.jit",
    "torch.multiprocessing": "tinygrad_norm.compat.multiprocessing",
    "torch.onnx": "tinygrad_norm.compat.onnx",
    "torch.serialization": "tinygrad_norm.compat.serialization",
    "torch.version": "tinygrad_norm.compat.version",
    "torch._dynamo": "tinygrad_norm.compat.dynamo",
    "torch._dynamo.config": "tinygrad_norm.compat.dynamo.config",
    "torch.nn.modules": "tinygrad_norm.compat.nn_modules",
}
for _flags in ("cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp", "opt_einsum"):
    MODULES[f"torch.backends.{_flags}"] = f"tinygrad_norm.compat.backends.{_flags}"
for _file in (
    "activation adaptive batchnorm channelshuffle container conv distance dropout flatten fold "
    "instancenorm lazy linear loss module normalization padding pixelshuffle pooling rnn sparse "
    "transformer upsampling utils"
).split():  # torch.nn.modules.<file>: compat/nn_modules.py builds each from the table
    MODULES[f"torch.nn.modules.{_file}"] = f"tinygrad_norm.compat.nn_modules.{_file}"
TORCH_NAMES = {here: torch for torch, here in MODULES.items()}  # the other way round


def torch_name(module_name: str) -> str:
    """`tinygrad_norm.nn.functional` -> `torch.nn.functional` (a module the table lists)."""
    return TORCH_NAMES.get(module_name, module_name)


# PyTorch's public names, each here or not here with the reason (namespace_table.py writes it).
TABLE = Path(__file__).with_name("torch_namespace.tsv")


@functools.cache
def table_reasons() -> dict:
    """{full torch name: reason} for the names the committed table lists as not here."""
    found = {}
    if not TABLE.exists():  # only while namespace_table.py writes it the first time
        return found
    for line in TABLE.read_text().splitlines()[1:]:
        name, status, reason = line.split("\t")
        if status == "not here":
            found[name] = reason
    return found


def not_implemented(name: str) -> str:
    """The error text for a torch name tinygrad_norm lacks: with the table's reason if listed."""
    reason = table_reasons().get(name)
    if reason is None:
        reason = (
            "tinygrad_norm runs this script in place of PyTorch; see README 'Running PyTorch "
            "code' for what it covers"
        )
    return f"tinygrad_norm does not implement {name} yet ({reason})"


def _missing_attribute(module: types.ModuleType):
    """A module `__getattr__` (PEP 562): called only for names the module lacks."""
    prefix = torch_name(module.__name__)

    def __getattr__(name: str):
        if name.startswith("__"):  # __path__, __wrapped__, ...: probes, not torch API
            raise AttributeError(f"module {prefix!r} has no attribute {name!r}")
        raise AttributeError(not_implemented(f"{prefix}.{name}"))

    return __getattr__


def _missing_tensor_attribute(tensor, name: str):
    """Tensor's `__getattr__` under install_as_torch: a PyTorch method not here says why."""
    if f"torch.Tensor.{name}" in table_reasons():
        raise AttributeError(not_implemented(f"torch.Tensor.{name}"))
    raise AttributeError(f"{type(tensor).__name__!r} object has no attribute {name!r}")


def _alias(module: types.ModuleType) -> None:
    name = torch_name(module.__name__)
    sys.modules[name] = module
    parent_name, _, child = name.rpartition(".")
    parent = sys.modules.get(parent_name)
    if parent is not None and child not in vars(parent):
        # NOTE: what the import system does for a submodule it loads; a module entered here
        # before it was imported as torch.X (`import torch._dynamo`) would otherwise lack it.
        setattr(parent, child, module)
        _ATTACHED.append((parent, child))
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
        target_name = MODULES.get(fullname)
        if target_name is None:
            # NOTE: name=None, so `from torch.nn import missing` shows this message too
            raise ModuleNotFoundError(not_implemented(fullname))
        module = importlib.import_module(target_name)
        _alias(module)
        return importlib.util.spec_from_loader(fullname, _ExistingModule(module))


_FINDER = TorchFinder()
_REAL_TORCH = {}  # real PyTorch modules imported before install_as_torch, put back by uninstall
_PATCHED = []  # modules (and Tensor) given the "does not implement torch.X yet" __getattr__
_ATTACHED = []  # (parent, name): submodules set as attributes of their torch parent


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
    for name in sorted(TORCH_NAMES, key=lambda n: TORCH_NAMES[n].count(".")):  # parents first
        if sys.modules.get(name) is not None:
            _alias(sys.modules[name])
    tensor_class = importlib.import_module(PACKAGE).Tensor
    if "__getattr__" not in vars(tensor_class):
        tensor_class.__getattr__ = _missing_tensor_attribute
        _PATCHED.append(tensor_class)
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    importlib.import_module("torch.nn.modules")  # torch.nn.modules.linear.Linear, no import


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
    for parent, child in _ATTACHED:
        vars(parent).pop(child, None)
    _ATTACHED.clear()
