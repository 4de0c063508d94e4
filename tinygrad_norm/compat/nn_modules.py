"""`torch.nn.modules` and its files (`torch.nn.modules.linear.Linear`, `torch.nn.modules.rnn.LSTM`,
`torch.nn.modules.module.Module`, ...): the paths PyTorch code writes to name a layer class
(in isinstance checks, type hints, safe_globals lists). tinygrad_norm keeps its layers in files
of its own (`nn/linear.py`, `nn/rnn.py`, ...), so each PyTorch file here is a module built at
import time holding the classes PyTorch's file has and tinygrad_norm's `nn` offers; which
classes each file holds is read from the namespace table (`torch_namespace.tsv`), plus
`UNLISTED`: classes a PyTorch file holds outside its `__all__` that course code names
(pytorch/examples' word_language_model lists `torch.nn.modules.linear.
NonDynamicallyQuantizableLinear` among its `safe_globals`).
"""

from __future__ import annotations

import sys
import types

from .. import nn
from ..nn.multihead_attention import NonDynamicallyQuantizableLinear
from .torch_import import TABLE

PREFIX = "torch.nn.modules."
__path__ = []  # a package: `import torch.nn.modules.linear` finds its files in sys.modules


def _files() -> dict:
    """{file: [class names]} from the table's rows torch.nn.modules.<file>.<Name>."""
    files = {}
    for line in TABLE.read_text().splitlines()[1:]:
        name = line.split("\t", 1)[0]
        if name.startswith(PREFIX) and name.count(".") == 4:
            file, attribute = name[len(PREFIX) :].split(".")
            files.setdefault(file, []).append(attribute)
    return files


UNLISTED = {"linear": {"NonDynamicallyQuantizableLinear": NonDynamicallyQuantizableLinear}}

FILES = _files()
for _file, _names in FILES.items():
    _module = types.ModuleType(f"{__name__}.{_file}", f"torch.nn.modules.{_file}, as far as here.")
    for _name in _names:
        if hasattr(nn, _name):
            setattr(_module, _name, getattr(nn, _name))
            setattr(sys.modules[__name__], _name, getattr(nn, _name))
    for _name, _class in UNLISTED.get(_file, {}).items():
        setattr(_module, _name, _class)
    sys.modules[_module.__name__] = _module
    setattr(sys.modules[__name__], _file, _module)
