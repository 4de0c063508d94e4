"""tg.compare: a hand-written gradient against autograd's, exact / approximate / max difference."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.learn.compare import TOLERANCES


def squared(values, dtype=tg.float64):
    """x (requiring grad) after (x * x).sum().backward(): x.grad == 2 * x."""
    x = tg.tensor(values, dtype=dtype, requires_grad=True)
    (x * x).sum().backward()
    return x


def test_a_right_gradient_is_exact_and_approximate_and_prints_one_line(capsys):
    x = squared([[1.0, -2.0], [0.5, 3.0]])
    result = tg.compare("dx", 2 * x.numpy(), x)
    assert (result.exact, result.approximate, result.maxdiff) == (True, True, 0.0)
    assert result and isinstance(result, tg.learn.Comparison)
    line = capsys.readouterr().out
    assert line == "dx              | exact: True  | approximate: True  | maxdiff: 0.0e+00\n"


def test_a_wrong_gradient_fails_with_the_largest_difference():
    x = squared([1.0, -2.0, 3.0])
    result = tg.compare("dx", x.numpy(), x, show=False)  # forgot the 2: off by |x|
    assert not result and not result.exact
    assert result.maxdiff == 3.0


def test_rounding_differences_are_approximate_but_not_exact():
    x = squared([0.1, 0.7, 1.3])
    nudged = np.nextafter(2 * x.numpy(), np.inf)  # one ulp away in every element
    result = tg.compare("dx", nudged, x, show=False)
    assert result.approximate and not result.exact
    assert result.maxdiff == pytest.approx(np.max(np.spacing(2 * x.numpy())), rel=1e-12)


def test_tolerances_follow_the_less_precise_dtype_and_can_be_given():
    x = squared([1.0, 2.0])
    off = 2 * x.numpy() + 1e-6  # beyond float64's atol 1e-7 + rtol 1e-7 * 4, within float32's
    assert not tg.compare("f64", off, x, show=False)
    as_float32 = tg.compare("f32", off.astype(np.float32), x, show=False)
    assert as_float32 and (as_float32.rtol, as_float32.atol) == TOLERANCES[np.dtype(np.float32)]
    assert tg.compare("loose", off, x, atol=1e-5, show=False)
    assert not tg.compare("strict", off, x, rtol=0, atol=0, show=False)


def test_a_tensor_without_requires_grad_is_compared_by_its_values():
    x = squared([1.0, 2.0])
    assert tg.compare("grad", tg.tensor([2.0, 4.0], dtype=tg.float64), x.grad, show=False).exact
    assert not tg.compare("values", [2.0, 4.0], x.detach(), show=False)  # x is [1, 2]


def test_an_intermediate_is_compared_by_its_retained_grad():
    a = tg.tensor([1.0, 2.0, 3.0], dtype=tg.float64, requires_grad=True)
    h = a * 3
    h.retain_grad()
    (h * h).sum().backward()
    assert tg.compare("dh", 2 * h.numpy(), h, show=False).exact
    assert tg.compare("da", 18 * a.numpy(), a, show=False).exact


def test_a_missing_grad_says_to_call_backward_or_retain_grad():
    a = tg.tensor([1.0, 2.0], requires_grad=True)
    h = a * 3
    (h * h).sum().backward()  # h did not retain its grad
    with pytest.raises(RuntimeError, match=r"compare\('dh'\).*retain_grad"):
        tg.compare("dh", 2 * h.numpy(), h)


def test_shapes_must_match_exactly_and_both_are_named():
    x = squared([[1.0, 2.0, 3.0]])
    with pytest.raises(RuntimeError, match=r"shape \(3,\) but the reference has shape \(1, 3\)"):
        tg.compare("dx", np.array([2.0, 4.0, 6.0]), x)  # equal after broadcasting: still refused
    with pytest.raises(RuntimeError, match=r"shape \(3, 1\) .* shape \(1, 3\)"):
        tg.compare("dx", np.array([[2.0], [4.0], [6.0]]), x)


def test_nan_in_the_same_place_matches_and_elsewhere_does_not():
    ref = np.array([1.0, np.nan, np.inf])
    same = tg.compare("same", ref.copy(), ref, show=False)
    assert (same.exact, same.approximate, same.maxdiff) == (True, True, 0.0)
    moved = tg.compare("moved", np.array([np.nan, 1.0, np.inf]), ref, show=False)
    assert not moved and not moved.exact and np.isnan(moved.maxdiff)


def test_empty_tensors_agree_with_maxdiff_zero():
    result = tg.compare("empty", np.zeros((0, 3)), tg.zeros(0, 3), show=False)
    assert (result.exact, result.approximate, result.maxdiff) == (True, True, 0.0)


def test_integers_must_match_exactly():
    assert not tg.compare("ints", np.array([1, 2]), np.array([1, 3]), show=False)
    assert tg.compare("ints", np.array([1, 2]), np.array([1, 2]), show=False).exact
