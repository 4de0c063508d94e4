"""Learning-rate schedules: each changes `group["lr"]` of an optimizer's groups at `step()`.

PyTorch's protocol, and its numbers: the constructor records each group's starting rate as
`group["initial_lr"]` (the `base_lrs`) and takes a first step to epoch 0; after every epoch (or
batch), call `optimizer.step()` and then `scheduler.step()`. `last_epoch` counts the steps,
`get_last_lr()` returns the rates just set. Most schedules are chainable, as in PyTorch: the new
rate is computed from the group's current rate (lr_t = lr_{t-1} * factor), so two schedules on
one optimizer multiply; `state_dict()` / `load_state_dict()` save and restore everything but
the optimizer.

>>> import tinygrad_norm as tg
>>> w = tg.zeros(2, requires_grad=True)
>>> opt = tg.optim.SGD([w], lr=1.0)
>>> sched = tg.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
>>> lrs = []
>>> for epoch in range(5):
...     opt.step()                   # (training)
...     sched.step()
...     lrs.append(sched.get_last_lr()[0])
>>> lrs
[1.0, 0.5, 0.5, 0.25, 0.25]
"""

from .base import LRScheduler, _LRScheduler
from .combine import ChainedScheduler, SequentialLR
from .cycles import CosineAnnealingWarmRestarts, OneCycleLR
from .decay import (
    ConstantLR,
    CosineAnnealingLR,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    MultiplicativeLR,
    MultiStepLR,
    PolynomialLR,
    StepLR,
)
from .plateau import ReduceLROnPlateau
