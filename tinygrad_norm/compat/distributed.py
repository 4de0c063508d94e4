"""`torch.distributed`: training on several processes or GPUs is PyTorch's job.

`is_available()` is False, so course code that checks it (or an environment variable such as
RANK) trains in one process. Starting a process group raises an error that says so.
"""

from __future__ import annotations


def is_available() -> bool:
    return False


def is_initialized() -> bool:
    return False


def is_torchelastic_launched() -> bool:
    return False


def _explain(op: str) -> RuntimeError:
    return RuntimeError(
        f"torch.distributed.{op}: distributed training (several processes or GPUs) is PyTorch's "
        "job; tinygrad_norm trains in one process on the CPU. Run the script without torchrun "
        "(unset RANK / WORLD_SIZE), or run it under real PyTorch to train in parallel"
    )


def init_process_group(*args, **kwargs):
    raise _explain("init_process_group")


def destroy_process_group(*args, **kwargs):
    raise _explain("destroy_process_group")


def get_rank(group=None) -> int:
    raise _explain("get_rank")


def get_world_size(group=None) -> int:
    raise _explain("get_world_size")


def barrier(*args, **kwargs):
    raise _explain("barrier")


def all_reduce(tensor, op=None, group=None, async_op=False):
    raise _explain("all_reduce")


def broadcast(tensor, src, group=None, async_op=False):
    raise _explain("broadcast")


class ReduceOp:
    SUM, PRODUCT, MIN, MAX, AVG = "sum", "product", "min", "max", "avg"
