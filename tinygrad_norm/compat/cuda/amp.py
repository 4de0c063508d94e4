"""`torch.cuda.amp` (PyTorch's older spelling of `torch.amp`): the same no-op `autocast` and
`GradScaler` as `tinygrad_norm.compat.amp`."""

from ..amp import GradScaler, autocast

__all__ = ["GradScaler", "autocast"]
__path__ = []  # a package for the import system: `torch.cuda.amp.grad_scaler` is listed in MODULES
