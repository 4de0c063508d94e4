"""PyTorch's own namespace as the checklist: every public name, *here* or *not here* and why.

`torch_namespace.tsv` (beside this file, committed) has one line per public name of the
namespaces course code uses (`torch`, `torch.Tensor`, `torch.nn`, `torch.nn.functional`, ...,
and each `torch.nn.modules.<file>`): the full name, `here` or `not here`, and for a name not
here the reason. `install_as_torch` reads the reasons: code that touches such a name gets

    AttributeError: tinygrad_norm does not implement torch.quantize_per_tensor yet (<reason>)

The table is generated from PyTorch 2.13 by running this module with PyTorch installed:

    python -m tinygrad_norm.compat.namespace_table        # rewrites torch_namespace.tsv

A name is *here* when, under `install_as_torch`, the same path resolves (`import torch.nn`,
then `hasattr(torch.nn, "LazyLinear")`). The reason of a name not here is the first rule of
`REASONS` whose pattern (shell-style, on the full name) matches it; names no rule matches get
`NOT_YET`. An oracle test regenerates the table and fails when the committed one is stale.
"""

from __future__ import annotations

import fnmatch
import importlib
import json
import pkgutil
import subprocess
import sys
import types

from .torch_import import TABLE, install_as_torch, uninstall_as_torch

HEADER = "name\tstatus\treason"

NAMESPACES = (
    "torch",
    "torch.Tensor",
    "torch.nn",
    "torch.nn.functional",
    "torch.nn.init",
    "torch.nn.utils",
    "torch.optim",
    "torch.optim.lr_scheduler",
    "torch.utils.data",
    "torch.autograd",
    "torch.linalg",
    "torch.distributions",
    "torch.cuda",
    "torch.backends",
    "torch.amp",
    "torch.jit",
    "torch.serialization",
    "torch.accelerator",
    "torch.version",
)

NOT_YET = "not written yet; open an issue if your course uses it"
NO_GPU = "there is no GPU here: tinygrad_norm computes on the CPU with NumPy"
COMPILER = "there is nothing to compile: tinygrad_norm runs Python operations one by one"
KERNEL = "a kernel of one PyTorch backend; tinygrad_norm has one NumPy backend and no such kernels"
QUANTIZED = "quantized tensors need integer kernels that NumPy would only pretend to be"
SPARSE = "sparse tensors would be dense NumPy arrays in disguise: a pretence, so not offered"
COMPLEX = "tinygrad_norm's tensors hold real numbers only (no complex dtypes)"
STORAGE = "typed storages are PyTorch's memory internals; tinygrad_norm tensors are NumPy arrays"
PROCESSES = "tinygrad_norm runs in one process on one CPU (no distributed or RPC machinery)"
INTERNAL = "an internal of PyTorch's C++ core or its code generators, not used by course code"
NAMED = "named tensors (a PyTorch prototype) are not implemented"
INPLACE_FUNCTION = "the in-place function form; use the tensor method (x.op_()) instead"

# First match wins. Patterns are on the full name (`torch.Tensor.is_sparse` ...).
REASONS = (
    ("torch.cuda.*", NO_GPU),
    ("torch.backends.cudnn*", NO_GPU),
    ("torch.accelerator.*", NO_GPU),
    ("torch.jit.*", COMPILER),
    ("torch.compile*", COMPILER),
    ("torch.compiler*", COMPILER),
    ("torch.export*", COMPILER),
    ("torch.fx*", COMPILER),
    ("torch.*Script*", COMPILER),
    ("torch.*Type", INTERNAL),
    ("*cudnn*", KERNEL),
    ("*miopen*", KERNEL),
    ("*mkldnn*", KERNEL),
    ("*fbgemm*", KERNEL),
    ("*xnnpack*", KERNEL),
    ("*mps*", KERNEL),
    ("*quantiz*", QUANTIZED),
    ("*qint*", QUANTIZED),
    ("*quint*", QUANTIZED),
    ("torch.q_*", QUANTIZED),
    ("torch.Tensor.q_*", QUANTIZED),
    ("*qscheme*", QUANTIZED),
    ("*per_channel*", QUANTIZED),
    ("*per_tensor*", QUANTIZED),
    ("*sparse*", SPARSE),
    ("*_csr*", SPARSE),
    ("*_csc*", SPARSE),
    ("*_bsr*", SPARSE),
    ("*_bsc*", SPARSE),
    ("*coalesce*", SPARSE),
    ("*indices*", SPARSE),
    ("torch.Tensor.to_dense", SPARSE),
    ("*complex*", COMPLEX),
    ("torch.c*float", COMPLEX),
    ("torch.cdouble", COMPLEX),
    ("torch.chalf", COMPLEX),
    ("*conj*", COMPLEX),
    ("*.angle", COMPLEX),
    ("*.polar", COMPLEX),
    ("*.view_as_real", COMPLEX),
    ("*.imag", COMPLEX),
    ("*.real", COMPLEX),
    ("*Storage*", STORAGE),
    ("*storage*", STORAGE),
    ("torch.distributed*", PROCESSES),
    ("*rpc*", PROCESSES),
    ("torch.Tensor.names", NAMED),
    ("torch.Tensor.refine_names", NAMED),
    ("torch.Tensor.rename*", NAMED),
    ("torch.Tensor.align_*", NAMED),
    ("torch.Tensor.has_names", NAMED),
    ("torch.Tensor.unflatten", NOT_YET),
    ("torch.*_copy", INTERNAL),
    ("torch._*", INTERNAL),
    ("torch.*_backward*", INTERNAL),
    ("torch.batch_norm_*", INTERNAL),
    ("torch.native_*", INTERNAL),
    ("torch.Tensor.is_neg", COMPLEX),
    ("torch.Tensor.*", NOT_YET),
    ("torch.*_", INPLACE_FUNCTION),
)


def reason_for(name: str) -> str:
    """The reason a name is not here: the first matching rule of REASONS, else NOT_YET."""
    for pattern, reason in REASONS:
        if fnmatch.fnmatchcase(name, pattern):
            return reason
    return NOT_YET


def _is_public(owner, name: str) -> bool:
    """A public torch name: no underscore, and not an import of another library (`os`, `Any`)."""
    if name.startswith("_"):
        return False
    try:
        value = getattr(owner, name)
    except Exception:  # noqa: BLE001 - a name that fails to load is still listed by dir()
        return True
    if isinstance(value, types.ModuleType):
        return value.__name__.startswith("torch")
    module = getattr(value, "__module__", None)
    if isinstance(value, type | types.FunctionType) and isinstance(module, str):
        return module.startswith("torch")
    return not (isinstance(module, str) and module in ("typing", "typing_extensions"))


def torch_names() -> dict:
    """{namespace: sorted public names} from the PyTorch installed (imports torch)."""
    import torch  # optional dependency: only the generator needs it

    for lazy in sorted(getattr(torch, "_lazy_modules", ())):  # dir(torch) lists them once
        importlib.import_module(f"torch.{lazy}")  # imported, so the table is the same always
    fresh = _fresh_names()
    namespaces = {}
    for path in NAMESPACES:
        owner = torch.Tensor if path == "torch.Tensor" else importlib.import_module(path)
        names = [n for n in dir(owner) if _is_public(owner, n)]
        # a submodule another import brought in (torch.numa, after some torch.X) is left out
        namespaces[path] = sorted(
            n
            for n in names
            if n in fresh[path] or not isinstance(getattr(owner, n, None), types.ModuleType)
        )
    modules = importlib.import_module("torch.nn.modules")
    for info in pkgutil.iter_modules(modules.__path__):
        if not info.name.startswith("_"):
            path = f"torch.nn.modules.{info.name}"
            module = importlib.import_module(path)
            listed = getattr(module, "__all__", None)
            names = listed if listed is not None else [n for n in dir(module) if n[:1].isupper()]
            namespaces[path] = sorted(n for n in names if _is_public(module, n))
    return namespaces


def _fresh_names() -> dict:
    """{namespace: dir()} in a new process that imports only torch (and its lazy modules, as
    `torch_names` does): what a namespace holds must not depend on what this process imported."""
    code = (
        "import importlib, json, sys, torch\n"
        "for lazy in sorted(getattr(torch, '_lazy_modules', ())):\n"
        "    importlib.import_module(f'torch.{lazy}')\n"
        "paths = json.loads(sys.argv[1])\n"
        "print(json.dumps({p: dir(torch.Tensor if p == 'torch.Tensor' else "
        "importlib.import_module(p)) for p in paths}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(list(NAMESPACES))],
        capture_output=True,
        text=True,
        check=True,
    )
    return {path: set(names) for path, names in json.loads(done.stdout).items()}


def _resolves(path: str, name: str) -> bool:
    """Under install_as_torch: does `torch.X.name` exist (as an attribute or a module)?"""
    try:
        owner = importlib.import_module("torch").Tensor if path == "torch.Tensor" else None
        owner = owner if owner is not None else importlib.import_module(path)
    except ImportError:
        return False
    if hasattr(owner, name):
        return True
    if path == "torch.Tensor":
        return False
    try:
        importlib.import_module(f"{path}.{name}")
    except ImportError:
        return False
    return True


def build_rows() -> list:
    """[(full name, "here" | "not here", reason)] for every public name of NAMESPACES."""
    namespaces = torch_names()
    install_as_torch()
    try:
        rows = []
        for path, names in namespaces.items():
            for name in names:
                full = f"{path}.{name}"
                if _resolves(path, name):
                    rows.append((full, "here", ""))
                else:
                    rows.append((full, "not here", reason_for(full)))
    finally:
        uninstall_as_torch()
    return rows


def render(rows) -> str:
    return "\n".join([HEADER, *("\t".join(row) for row in rows)]) + "\n"


def counts(rows) -> dict:
    """{namespace: (here, not here)}; the torch.nn.modules.* files counted as one."""
    table = {}
    for full, status, _ in rows:
        path = full.rsplit(".", 1)[0]
        key = "torch.nn.modules.*" if path.startswith("torch.nn.modules.") else path
        here, missing = table.get(key, (0, 0))
        table[key] = (here + (status == "here"), missing + (status != "here"))
    return table


def main() -> None:
    rows = build_rows()
    TABLE.write_text(render(rows))
    for path, (here, missing) in counts(rows).items():
        print(f"| `{path}` | {here} | {missing} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
