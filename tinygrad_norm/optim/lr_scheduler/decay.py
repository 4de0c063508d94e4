"""Schedules that set the learning rate by a rule of the epoch: LambdaLR, MultiplicativeLR,
StepLR, MultiStepLR, ConstantLR, LinearLR, ExponentialLR, PolynomialLR, CosineAnnealingLR.
All but LambdaLR are chainable, as in PyTorch."""

from __future__ import annotations

import math
import types
from bisect import bisect_right
from collections import Counter

from .base import (
    LRScheduler,
    _check_optimizer,
    _load_state_dict_with_list,
    _per_group,
    _state_dict_with_list,
)


class _LambdaState:
    """state_dict for schedules of functions: a callable object's attributes are saved, a plain
    function (or lambda) is not (it cannot be), as in PyTorch."""

    def state_dict(self) -> dict:
        return _state_dict_with_list(self, "lr_lambdas", _lambda_state)

    def load_state_dict(self, state_dict: dict) -> None:
        _load_state_dict_with_list(self, state_dict, "lr_lambdas", _load_lambda_state)


def _lambda_state(f) -> dict | None:
    """A callable object's attributes; None for a plain function (its state cannot be saved)."""
    return None if isinstance(f, types.FunctionType) else dict(f.__dict__)


def _load_lambda_state(f, saved: dict | None) -> None:
    if saved is not None:
        f.__dict__.update(saved)


def _lambdas(scheduler, optimizer, lr_lambda) -> list:
    _check_optimizer(scheduler, optimizer)
    lambdas = _per_group("lr_lambda", optimizer, lr_lambda)
    for f in lambdas:
        if not callable(f):
            raise TypeError(f"lr_lambda should be a function, but got {type(f).__name__}")
    return lambdas


class LambdaLR(_LambdaState, LRScheduler):
    """lr_t = base_lr * lr_lambda(t): any schedule, as a function of the epoch t.

    `lr_lambda` is one function, or a list with one per parameter group. Not chainable.
    """

    def __init__(self, optimizer, lr_lambda, last_epoch: int = -1):
        self.lr_lambdas = _lambdas(self, optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        return [base * f(self.last_epoch) for f, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaState, LRScheduler):
    """lr_t = lr_{t-1} * lr_lambda(t): each epoch multiplies the rate by a factor."""

    def __init__(self, optimizer, lr_lambda, last_epoch: int = -1):
        self.lr_lambdas = _lambdas(self, optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self._is_initial:
            return self._current_lrs()
        return [lr * f(self.last_epoch) for f, lr in zip(self.lr_lambdas, self._current_lrs())]


class StepLR(LRScheduler):
    """lr <- lr * gamma every `step_size` epochs:  lr_t = base_lr * gamma^floor(t / step_size)."""

    def __init__(self, optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """lr <- lr * gamma at each epoch in `milestones`:  lr_t = base_lr * gamma^(milestones <= t)."""

    def __init__(self, optimizer, milestones, gamma: float = 0.1, last_epoch: int = -1):
        self.milestones = Counter(milestones)  # a milestone given twice multiplies by gamma²
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch not in self.milestones:
            return self._current_lrs()
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [lr * factor for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma**passed for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """lr <- lr * gamma every epoch:  lr_t = base_lr * gamma^t."""

    def __init__(self, optimizer, gamma: float, last_epoch: int = -1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self._is_initial:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self.gamma**self.last_epoch for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """lr_t = base_lr * factor for t < total_iters, then base_lr (a constant warm-up)."""

    def __init__(
        self, optimizer, factor: float = 1.0 / 3, total_iters: int = 5, last_epoch: int = -1
    ):
        if not 0 <= factor <= 1:
            raise ValueError(f"ConstantLR: factor must be in [0, 1], got {factor}")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current_lrs()]
        if self.last_epoch != self.total_iters:
            return self._current_lrs()
        return [lr * (1.0 / self.factor) for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        done = self.last_epoch >= self.total_iters
        return [base * (self.factor + done * (1 - self.factor)) for base in self.base_lrs]


class LinearLR(LRScheduler):
    """The factor on base_lr moves linearly from `start_factor` to `end_factor` over
    `total_iters` epochs, then stays:  lr_t = base_lr * (s + (e - s) * min(t, T) / T)."""

    def __init__(
        self,
        optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ):
        if not 0 < start_factor <= 1:
            raise ValueError(f"LinearLR: start_factor must be in (0, 1], got {start_factor}")
        if not 0 <= end_factor <= 1:
            raise ValueError(f"LinearLR: end_factor must be in [0, 1], got {end_factor}")
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._current_lrs()]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current_lrs()
        change = self.end_factor - self.start_factor  # ratio of factor(t) to factor(t - 1):
        ratio = 1.0 + change / (
            self.total_iters * self.start_factor + (self.last_epoch - 1) * change
        )
        return [lr * ratio for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        fraction = min(self.total_iters, self.last_epoch) / self.total_iters
        factor = self.start_factor + (self.end_factor - self.start_factor) * fraction
        return [base * factor for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """lr_t = base_lr * (1 - min(t, total_iters) / total_iters)^power: down to 0 at total_iters."""

    def __init__(self, optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1):
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current_lrs()
        t, T = self.last_epoch, self.total_iters
        factor = ((1.0 - t / T) / (1.0 - (t - 1) / T)) ** self.power
        return [lr * factor for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        left = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * left**self.power for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Half a cosine from base_lr down to `eta_min` over `T_max` epochs (Loshchilov & Hutter,
    SGDR, without restarts; past T_max it rises again):

        lr_t = eta_min + (base_lr - eta_min) * (1 + cos(pi t / T_max)) / 2

    computed as PyTorch does, from lr_{t-1} (chainable), so the numbers match to the last bits.
    """

    def __init__(self, optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        t, T, eta_min = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._current_lrs()
        if self._step_count == 1 and t > 0:
            return self._get_closed_form_lr()
        if (t - 1 - T) % (2 * T) == 0:  # at the bottom, where the ratio below would be 0 / 0
            rise = (1 - math.cos(math.pi / T)) / 2
            return [
                lr + (base - eta_min) * rise for lr, base in zip(self._current_lrs(), self.base_lrs)
            ]
        ratio = (1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
        return [ratio * (lr - eta_min) + eta_min for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        cosine = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
        return [self.eta_min + (base - self.eta_min) * cosine for base in self.base_lrs]
