"""The format of one op-table case (`OpCase`), shared by `op_cases.py` and the case files it
appends (`op_cases_shape.py`, ...), which import it from here so that none imports another.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

REAL, POSITIVE = "real", "positive"


@dataclass(frozen=True)
class OpCase:
    name: str
    fn: Callable  # fn(lib, *tensors) -> tensor or tuple of tensors
    ref: Callable  # ref(*arrays) -> array or tuple of arrays: the same maths in plain NumPy
    shapes: tuple  # one shape per input
    domain: str = REAL  # REAL: standard normal; POSITIVE: uniform on [0.5, 2)
    second_order: bool = True  # also gradgradcheck (False where the op is piecewise linear)
    torch: bool = True  # compare with PyTorch (False where PyTorch has no such call)
    tags: tuple = field(default=())

    def inputs(self, seed: int = 0) -> tuple[np.ndarray, ...]:
        """Fresh float64 input arrays, the same for a given seed."""
        rng = np.random.default_rng(seed)
        if self.domain == POSITIVE:
            return tuple(rng.uniform(0.5, 2.0, s) for s in self.shapes)
        return tuple(rng.standard_normal(s) for s in self.shapes)
