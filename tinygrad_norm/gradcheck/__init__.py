"""Gradient checking: is every backward right? Compare it with finite differences.

A backward is a hand-written derivative, and hand-written derivatives have bugs: a factor
forgotten, a broadcast axis not summed, one index off. Finite differences need no derivative
at all, only forward: (f(x + eps) - f(x - eps)) / 2 eps approaches f'(x) with a truncation
error of order eps², plus a rounding error of order machine_eps / eps. gradcheck compares the
two for every element of every Jacobian, in float64: with eps = 1e-6 the rounding error is
about 2e-10 there, but 0.1 in float32, whose values keep too few digits for the difference of
two nearly equal numbers.

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([[1.0, -2.0, 0.5]], dtype=tg.float64, requires_grad=True)
    >>> result = tg.gradcheck(lambda x: x.tanh() * x, x)
    >>> result.ok, result.rows[0].shape, result.rows[0].status
    (True, torch.Size([1, 3]), 'ok')

- `check.py`: `gradcheck`, `gradgradcheck`: analytic Jacobians row by row from backward,
  numerical ones column by column, gradient shapes and dtypes, determinism, random-op replay.
- `numerical.py`: central and one-sided differences, the error analysis, kink detection.
- `localise.py`: when a composed function fails, each node of its graph is checked alone to
  name the first op whose own backward is wrong.
- `report.py`: the result table, `GradcheckError`.
"""

from .check import gradcheck, gradgradcheck
from .module import ModuleCheck, check_module
from .report import Culprit, GradcheckError, GradcheckResult, Kink, Row

__all__ = [
    "Culprit",
    "GradcheckError",
    "GradcheckResult",
    "Kink",
    "Row",
    "gradcheck",
    "gradgradcheck",
    "check_module",
    "ModuleCheck",
]
