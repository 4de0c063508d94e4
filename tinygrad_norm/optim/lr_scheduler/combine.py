"""Schedules of schedules: SequentialLR (one after another, say a linear warm-up and then a
cosine decay) and ChainedScheduler (several at once, their factors multiplied)."""

from __future__ import annotations

from bisect import bisect_right

from .base import LRScheduler, _load_state_dict_with_list, _state_dict_with_list
from .plateau import ReduceLROnPlateau


def _check_schedulers(combined, schedulers, optimizer) -> None:
    name = type(combined).__name__
    if len(schedulers) < 1:
        raise ValueError(f"{name} expects at least one scheduler, got none")
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{name}: schedulers[{i}] is not a scheduler")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{name}: schedulers[{i}] is a ReduceLROnPlateau, whose step() needs the "
                "metric; step it yourself instead"
            )
        if scheduler.optimizer is not optimizer:
            raise ValueError(
                f"{name}: schedulers[{i}] ({type(scheduler).__name__}) drives another "
                "optimizer; every scheduler must be built on the same optimizer"
            )


class _Combined(LRScheduler):
    """state_dict of a schedule of schedules: its own attributes and each inner state_dict."""

    def state_dict(self) -> dict:
        return _state_dict_with_list(self, "_schedulers", lambda s: s.state_dict())

    def load_state_dict(self, state_dict: dict) -> None:
        _load_state_dict_with_list(
            self, state_dict, "_schedulers", lambda s, saved: s.load_state_dict(saved)
        )


class SequentialLR(_Combined):
    """Run `schedulers[0]` until epoch `milestones[0]`, then `schedulers[1]` (restarted at its
    own epoch 0) until `milestones[1]`, and so on. All must drive `optimizer`.

    >>> import tinygrad_norm as tg
    >>> opt = tg.optim.SGD([tg.zeros(1, requires_grad=True)], lr=1.0)
    >>> warmup = tg.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
    >>> decay = tg.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    >>> sched = tg.optim.lr_scheduler.SequentialLR(opt, [warmup, decay], milestones=[2])
    >>> lrs = [sched.get_last_lr()[0]]
    >>> for _ in range(4):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [0.5, 0.75, 1.0, 0.5, 0.25]
    """

    def __init__(self, optimizer, schedulers: list, milestones: list[int], last_epoch: int = -1):
        _check_schedulers(self, schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                f"SequentialLR expects one milestone fewer than schedulers, got "
                f"{len(schedulers)} schedulers and {len(milestones)} milestones"
            )
        self._schedulers, self._milestones = schedulers, milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Each scheduler took a first step when it was built: undo those, start the first one.
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self.recursive_undo()
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def recursive_undo(self, sched=None) -> None:
        """Step every (nested) scheduler's last_epoch back by one."""
        sched = self if sched is None else sched
        if hasattr(sched, "_schedulers"):
            for inner in sched._schedulers:
                self.recursive_undo(inner)
        elif hasattr(sched, "last_epoch"):
            sched.last_epoch -= 1

    def step(self) -> None:
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler._update_lr(0)  # a new phase starts at its own epoch 0
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Combined):
    """Step several schedules together each epoch; as they are chainable, their factors
    multiply (say, an ExponentialLR decay with a MultiStepLR drop)."""

    def __init__(self, schedulers: list, optimizer=None):
        optimizer = optimizer or (schedulers[0].optimizer if schedulers else None)
        _check_schedulers(self, schedulers, optimizer)
        self._schedulers, self.optimizer = schedulers, optimizer
        self._last_lr = self._current_lrs()

    def step(self) -> None:
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = self._current_lrs()
