"""Module-table cases for the activation modules: rows of `ModuleCase`'s fields
(name, module factory, inputs, second_order), which `module_cases.py` appends to its `CASES`
(rows, not ModuleCase objects, so that this file does not import that one). Piecewise-linear
ones skip the second order (False: their kinks); inputs are standard normal, far from every
kink with this seed."""

from __future__ import annotations

from .. import nn


def _normal(*shape, scale=1.0):
    return lambda rng: (rng.standard_normal(shape) * scale,)


MATH_CASES = [
    ("LeakyReLU(0.2)", lambda: nn.LeakyReLU(0.2), _normal(3, 4), False),
    ("ELU", lambda: nn.ELU(), _normal(3, 4)),
    ("SELU", lambda: nn.SELU(), _normal(3, 4)),
    ("CELU(0.5)", lambda: nn.CELU(0.5), _normal(3, 4)),
    ("SiLU", lambda: nn.SiLU(), _normal(3, 4)),
    ("Mish", lambda: nn.Mish(), _normal(3, 4)),
    ("Softplus(2)", lambda: nn.Softplus(beta=2.0), _normal(3, 4)),
    ("Softsign", lambda: nn.Softsign(), _normal(3, 4)),
    ("Hardtanh", lambda: nn.Hardtanh(), _normal(3, 4), False),
    ("ReLU6", lambda: nn.ReLU6(), _normal(3, 4, scale=4.0), False),
    ("Hardsigmoid", lambda: nn.Hardsigmoid(), _normal(3, 4, scale=3.0), False),
    ("Hardswish", lambda: nn.Hardswish(), _normal(3, 4, scale=3.0)),
    ("LogSigmoid", lambda: nn.LogSigmoid(), _normal(3, 4)),
    ("Tanhshrink", lambda: nn.Tanhshrink(), _normal(3, 4)),
    ("Softmin(dim=1)", lambda: nn.Softmin(dim=1), _normal(3, 4)),
    ("GLU", lambda: nn.GLU(), _normal(3, 4)),
    ("PReLU(3)", lambda: nn.PReLU(3), _normal(2, 3, 4), False),
]
