"""`torch.backends`: the switches of PyTorch's GPU and CPU libraries (cuDNN, TF32 matmuls,
MPS). tinygrad_norm computes everything in NumPy, so each flag is accepted and ignored:
`torch.backends.cudnn.benchmark = True` and `torch.backends.cuda.matmul.allow_tf32 = True`
run and change nothing; every `is_available()` is False.
"""

from __future__ import annotations

import contextlib
import sys
import types


def _false(*args, **kwargs) -> bool:
    return False


def _backend(name: str, **flags) -> types.ModuleType:
    """A submodule (`tinygrad_norm.compat.backends.cudnn`) holding `flags`, importable by name."""
    module = types.ModuleType(f"{__name__}.{name}", f"torch.backends.{name}: accepted, ignored.")
    module.__dict__.update(is_available=_false, **flags)
    sys.modules[module.__name__] = module
    return module


@contextlib.contextmanager
def _sdp_kernel(*args, **kwargs):
    yield


cudnn = _backend(
    "cudnn", enabled=True, benchmark=False, deterministic=False, allow_tf32=True, version=_false
)
cuda = _backend(
    "cuda",
    matmul=types.SimpleNamespace(
        allow_tf32=False,
        allow_fp16_reduced_precision_reduction=True,
        allow_bf16_reduced_precision_reduction=True,
    ),
    is_built=_false,
    sdp_kernel=_sdp_kernel,
    flash_sdp_enabled=_false,
    enable_flash_sdp=_false,
    enable_mem_efficient_sdp=_false,
    enable_math_sdp=_false,
)
mps = _backend("mps", is_built=_false)
mkldnn = _backend("mkldnn", enabled=False)
mkl = _backend("mkl")
openmp = _backend("openmp")
opt_einsum = _backend("opt_einsum", enabled=False, strategy=None)
