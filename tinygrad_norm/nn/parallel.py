"""`nn.parallel`: running a model on several devices at once is PyTorch's job.

`DataParallel(model)` with no GPU runs the model itself, as PyTorch's does when no GPU is
available. `DistributedDataParallel` needs a process group (`torch.distributed`), which does
not exist here, so it raises an error that explains.
"""

from __future__ import annotations

from .module import Module


class DataParallel(Module):
    """Wraps `module` and calls it: with no GPU there is nothing to split the batch over."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


class DistributedDataParallel(Module):
    """Raises: distributed training needs a process group, which does not exist here."""

    def __init__(self, module: Module, *args, **kwargs):
        raise RuntimeError(
            "nn.parallel.DistributedDataParallel: distributed training (several processes or "
            "GPUs) is PyTorch's job; tinygrad_norm trains in one process on the CPU. Use the "
            "model itself (or nn.DataParallel, which runs it as it is), or run the script under "
            "real PyTorch to train in parallel"
        )
