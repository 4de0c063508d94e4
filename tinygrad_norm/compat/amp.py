"""Mixed precision (`torch.amp`): on the CPU in float32 there is nothing to scale or cast.

Course code written for a GPU wraps its step in `autocast` and a `GradScaler`. Here both
behave as PyTorch's do when they are disabled: `autocast` runs the block unchanged (numbers
stay in the tensors' own dtypes, float32 by default; a deliberate difference from PyTorch's
CPU autocast to bfloat16, which NumPy lacks), and `GradScaler` scales by 1:

    scaler = tg.amp.GradScaler()
    scaler.scale(loss).backward()    # scale(loss) is loss
    scaler.step(optimizer)           # optimizer.step()
    scaler.update()                  # nothing to update
"""

from __future__ import annotations

import functools


class autocast:  # noqa: N801 - PyTorch's name
    """A context manager (and decorator) that changes nothing: ops keep their dtypes."""

    def __init__(self, device_type="cpu", dtype=None, enabled=True, cache_enabled=None):
        self.device_type, self.fast_dtype, self.enabled = device_type, dtype, enabled

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper


class GradScaler:
    """Loss scaling for float16 training, as a disabled PyTorch GradScaler: the scale is 1,
    `step` calls `optimizer.step()` and `update` does nothing. Gradients are float32 (or
    float64) here, so they never underflow the way float16 ones do."""

    def __init__(self, device="cpu", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):  # fmt: skip
        self._enabled = False  # nothing to scale on the CPU in float32

    def scale(self, outputs):
        return outputs

    def unscale_(self, optimizer) -> None:
        pass

    def step(self, optimizer, *args, **kwargs):
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None) -> None:
        pass

    def get_scale(self) -> float:
        return 1.0

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict:
        return {}

    def load_state_dict(self, state_dict: dict) -> None:
        pass
