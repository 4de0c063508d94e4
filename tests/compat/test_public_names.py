"""Every PyTorch module path and public name that worked before the package was reorganised
still works: `import torch.X` under `install_as_torch`, and each name listed for it.

`public_names.json` was written from the package as it stood before the move (the modules real
PyTorch 2.13 also has, importable through the hook, and their public names). Internal module
paths of tinygrad_norm may move; these may not. Two names left on purpose:
`torch.random.numpy_generator` (the NumPy PCG64 generator, replaced by PyTorch's stream) and
`torch.nn.parallel.distributed` (an import of compat's module, not PyTorch's submodule of that
name)."""

import importlib
import json
from pathlib import Path

import pytest

import tinygrad_norm as tg

NAMES = json.loads((Path(__file__).parent / "public_names.json").read_text())


@pytest.fixture(scope="module")
def as_torch():
    tg.install_as_torch()
    yield
    tg.uninstall_as_torch()


@pytest.mark.parametrize("module", sorted(NAMES))
def test_the_module_path_and_its_names_still_work(as_torch, module):
    if module == "torch.Tensor":  # the class's methods and attributes, not a module
        imported = importlib.import_module("torch").Tensor
    else:
        imported = importlib.import_module(module)
    missing = [name for name in NAMES[module] if not hasattr(imported, name)]
    assert not missing, f"{module} lost {missing}"


def test_every_top_level_name_is_listed():
    assert len(NAMES["torch"]) > 250
    assert all(hasattr(tg, name) for name in NAMES["torch"])
