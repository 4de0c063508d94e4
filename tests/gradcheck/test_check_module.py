"""check_module: a module's gradients with respect to its inputs and every parameter."""

import numpy as np
import pytest
from helpers import ForgotTheTwo

import tinygrad_norm as tg
from tinygrad_norm import nn


class NoisyAffine(nn.Module):
    """x * w + b with inverted dropout drawn from the global generator in training mode."""

    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(tg.randn(n))
        self.b = nn.Parameter(tg.randn(n))

    def forward(self, x):
        y = (x * self.w + self.b).tanh()
        if self.training:
            keep = tg.rand(y.shape).numpy() > 0.5
            y = y * tg.tensor(keep / 0.5, dtype=y.dtype)
        return y


class Buggy(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(tg.randn(3))

    def forward(self, x):
        return x * ForgotTheTwo.apply(self.w)


class Tied(nn.Module):
    """One Parameter under two names (as GPT's lm_head and token embedding)."""

    def __init__(self):
        super().__init__()
        self.a = nn.Module()
        self.a.w = nn.Parameter(tg.randn(3))
        self.b = nn.Module()
        self.b.w = self.a.w

    def forward(self, x):
        return (x * self.a.w).tanh() * self.b.w


def test_passes_in_train_mode_with_dropout_and_in_eval_mode():
    tg.manual_seed(0)
    result = tg.check_module(NoisyAffine(4), tg.randn(3, 4))
    assert result and set(result.results) == {"train", "eval"}
    assert "input 0" in str(result) and "w" in str(result) and "b" in str(result)


def test_checks_every_parameter_and_names_the_mode_on_failure():
    tg.manual_seed(0)
    with pytest.raises(tg.GradcheckError, match="check_module\\(Buggy\\) in train mode"):
        tg.check_module(Buggy(), tg.randn(2, 3))
    result = tg.check_module(Buggy(), tg.randn(2, 3), raise_exception=False)
    assert not result
    wrong = [row for row in result.results["eval"].rows if row.status != "ok"]
    assert [row.input for row in wrong] == [1]  # input 0 is x (fine); input 1 is the parameter


def test_the_original_module_is_left_as_it_was():
    tg.manual_seed(0)
    module = NoisyAffine(4)
    before = {k: v.numpy().copy() for k, v in module.state_dict().items()}
    tg.check_module(module, tg.randn(3, 4))
    assert module.w.dtype == tg.float32 and module.training
    for k, v in module.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k])


def test_a_tied_parameter_is_one_leaf():
    tg.manual_seed(0)
    result = tg.check_module(Tied(), tg.randn(2, 3))
    assert result
    assert len(result.results["eval"].rows) == 2  # the input and the one shared weight
