"""The learning-rate scheduler base class, `LRScheduler`: PyTorch's protocol (see __init__)."""

from __future__ import annotations

import warnings

from ..optimizer import Optimizer


def _check_optimizer(scheduler, optimizer) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(
            f"{type(scheduler).__name__}: the first argument must be an optimizer (such as "
            f"tg.optim.SGD(model.parameters(), lr=0.1)), got {type(optimizer).__name__}"
        )


def _per_group(name: str, optimizer: Optimizer, value) -> list:
    """`value` for every parameter group: a list of one per group, or one value for all."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have one value per parameter group: got {len(value)} values for "
                f"{len(optimizer.param_groups)} groups"
            )
        return list(value)
    return [value] * len(optimizer.param_groups)


def _state_dict_with_list(scheduler, name: str, save_item) -> dict:
    """A scheduler's state_dict whose list attribute `name` is saved item by item:
    {every attribute but the optimizer and `name`, name: [save_item(item) for each item]}."""
    state = {k: v for k, v in scheduler.__dict__.items() if k not in ("optimizer", name)}
    state[name] = [save_item(item) for item in getattr(scheduler, name)]
    return _as_pytorch_keeps_it(state)


def _as_pytorch_keeps_it(state: dict) -> dict:
    """`state` with PyTorch's `_get_lr_called_within_step` flag (False between steps) after
    `_is_initial`, where PyTorch's schedulers have it, so both sides' state_dicts match."""
    if "_is_initial" not in state or "_get_lr_called_within_step" in state:
        return state
    items = []
    for key, value in state.items():
        items.append((key, value))
        if key == "_is_initial":
            items.append(("_get_lr_called_within_step", False))
    return dict(items)


def _load_state_dict_with_list(scheduler, state_dict: dict, name: str, load_item) -> None:
    """The inverse of `_state_dict_with_list`: load_item(item, saved) for each item of `name`."""
    state = dict(state_dict)
    state.pop("_get_lr_called_within_step", None)  # PyTorch's flag (see _as_pytorch_keeps_it)
    saved_items = state.pop(name)
    scheduler.__dict__.update(state)
    for item, saved in zip(getattr(scheduler, name), saved_items):
        load_item(item, saved)


class LRScheduler:
    """The base class: `base_lrs`, `last_epoch`, `step()`, `get_last_lr()`, `state_dict()`.

    A subclass defines `get_lr()`, the rates for `last_epoch` (called by `step` after it
    advanced `last_epoch`), and may define `_get_closed_form_lr()`, the same rates computed
    directly from `base_lrs` (used by `step(epoch)` and by `SequentialLR`). While the
    constructor takes its first step `self._is_initial` is True.
    """

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1):
        _check_optimizer(self, optimizer)
        self.optimizer = optimizer
        for i, group in enumerate(optimizer.param_groups):
            if last_epoch == -1:
                group.setdefault("initial_lr", group["lr"])
            elif "initial_lr" not in group:
                raise KeyError(
                    f"param 'initial_lr' is not specified in param_groups[{i}] when resuming a "
                    f"scheduler with last_epoch={last_epoch}: load the optimizer's state_dict "
                    "(which has it) first, or start a new schedule with last_epoch=-1"
                )
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list[float]:
        raise NotImplementedError(f"{type(self).__name__} must define get_lr()")

    def get_last_lr(self) -> list[float]:
        """The learning rate of each parameter group, as the last `step()` set it."""
        return self._last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance the schedule by one (call it after `optimizer.step()`), or jump to `epoch`."""
        # Optimizer.step notes that it ran (an optimizer with its own step() cannot tell).
        records = type(self.optimizer).step is Optimizer.step
        if self._step_count == 1 and records and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(
                f"{type(self).__name__}.step() was called before optimizer.step(): the first "
                "learning rate of the schedule is skipped. Call optimizer.step() first, then "
                "scheduler.step()",
                UserWarning,
                stacklevel=2,
            )
        self._step_count += 1
        if epoch is not None:
            warnings.warn(
                "scheduler.step(epoch) is deprecated (as in PyTorch): call step() once per epoch",
                UserWarning,
                stacklevel=2,
            )
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        if epoch is None:
            self.last_epoch += 1
            lrs = self.get_lr()
        else:
            self.last_epoch = epoch
            closed_form = getattr(self, "_get_closed_form_lr", None)
            lrs = closed_form() if closed_form is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, lrs):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _current_lrs(self) -> list[float]:
        return [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self) -> dict:
        """Every attribute but the optimizer (PyTorch's layout, so each loads the other's)."""
        state = {key: value for key, value in self.__dict__.items() if key != "optimizer"}
        return _as_pytorch_keeps_it(state)

    def load_state_dict(self, state_dict: dict) -> None:
        state = {k: v for k, v in state_dict.items() if k != "_get_lr_called_within_step"}
        self.__dict__.update(state)


_LRScheduler = LRScheduler  # PyTorch's old name
