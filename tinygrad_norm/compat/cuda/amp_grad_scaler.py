"""`torch.cuda.amp.grad_scaler` (where old code imports GradScaler from): the no-op GradScaler."""

from ..amp import GradScaler

__all__ = ["GradScaler"]
