"""`torch.autograd.forward_ad`: dual numbers (by the double-vjp identity), against the
derivative formulas and (oracle) PyTorch."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.func import forward_ad as fwAD

X = np.array([0.3, -1.2, 2.0])


def t(values):
    return tg.tensor(np.asarray(values, dtype=np.float64))


def test_the_tangent_of_an_expression_is_j_times_the_tangent():
    tangent = np.array([1.0, 2.0, -1.0])
    with fwAD.dual_level():
        x = fwAD.make_dual(t(X), t(tangent))
        y = (x**2).sin()
        primal, dual = fwAD.unpack_dual(y)
        np.testing.assert_allclose(primal.numpy(), np.sin(X**2), rtol=1e-12)
        np.testing.assert_allclose(dual.numpy(), np.cos(X**2) * 2 * X * tangent, rtol=1e-12)
        assert fwAD.unpack_dual(x).tangent.tolist() == tangent.tolist()
        assert fwAD.unpack_dual(t(X)).tangent is None  # depends on no dual tensor


def test_two_dual_inputs_add_their_contributions():
    with fwAD.dual_level():
        a = fwAD.make_dual(t([2.0]), t([1.0]))
        b = fwAD.make_dual(t([3.0]), t([10.0]))
        assert fwAD.unpack_dual(a * b).tangent.tolist() == [1.0 * 3.0 + 10.0 * 2.0]


def test_outside_a_level_or_with_a_wrong_shape_it_says_so():
    with pytest.raises(RuntimeError, match="no dual level is active"):
        fwAD.make_dual(t(X), t(X))
    with fwAD.dual_level(), pytest.raises(RuntimeError, match="different size"):
        fwAD.make_dual(t(X), t([1.0]))


def test_it_is_torch_autograd_forward_ad():
    assert tg.autograd.forward_ad is fwAD


@pytest.mark.oracle
def test_pytorch_gives_the_same_tangent():
    torch = pytest.importorskip("torch")
    import torch.autograd.forward_ad as their

    tangent = np.array([1.0, 2.0, -1.0])
    with their.dual_level():
        x = their.make_dual(torch.tensor(X), torch.tensor(tangent))
        want = their.unpack_dual((x.exp() * x).tanh().cumsum(0)).tangent.numpy()
    with fwAD.dual_level():
        x = fwAD.make_dual(t(X), t(tangent))
        got = fwAD.unpack_dual((x.exp() * x).tanh().cumsum(0)).tangent.numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10)
