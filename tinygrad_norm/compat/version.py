"""`torch.version`: which PyTorch this stands in for, and no CUDA or ROCm (`torch.version.cuda`
is None, as in PyTorch's CPU builds)."""

from __future__ import annotations

__version__ = "2.13.0+tinygrad_norm"
cuda = None
hip = None
rocm = None
xpu = None
debug = False
git_version = "tinygrad_norm"
