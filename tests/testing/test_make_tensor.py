"""`torch.testing.make_tensor` (PyTorch's ranges per dtype) and `assert_close`'s report."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.testing import assert_close, make_tensor


def test_default_ranges_per_dtype():
    tg.manual_seed(0)
    floats = make_tensor(200, dtype=tg.float64)
    assert floats.dtype == tg.float64 and -9 <= floats.min().item() and floats.max().item() < 9
    ints = make_tensor((200,), dtype=tg.int64)
    assert ints.dtype == tg.int64 and ints.min().item() >= -9 and ints.max().item() <= 9
    assert make_tensor(50, dtype=tg.uint8).min().item() >= 0
    assert set(make_tensor(50, dtype=tg.bool).tolist()) <= {True, False}


def test_low_high_requires_grad_and_exclude_zero():
    t = make_tensor(2, 3, dtype=tg.float32, low=-1, high=1, requires_grad=True)
    assert t.shape == (2, 3) and t.requires_grad and bool((t.abs() <= 1).all())
    assert 0 not in make_tensor(100, dtype=tg.int64, low=-1, high=2, exclude_zero=True).tolist()
    with pytest.raises(ValueError, match="low must be at most high"):
        make_tensor(3, dtype=tg.float32, low=2, high=1)


def test_assert_close_reports_as_pytorch():
    assert_close(tg.tensor([1.0, 2.0]), tg.tensor([1.0, 2.0000001]))
    with pytest.raises(AssertionError, match=r"Mismatched elements: 1 / 2 \(50.0%\)"):
        assert_close(tg.tensor([1.0, 2.0]), tg.tensor([1.0, 2.1]))
    with pytest.raises(AssertionError, match="dtype"):
        assert_close(tg.tensor([1.0]), tg.tensor([1.0], dtype=tg.float64))


@pytest.mark.oracle
def test_the_same_report_as_pytorch_begins_with():
    torch = pytest.importorskip("torch")
    a, b = np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.5, 3.0])
    with pytest.raises(AssertionError) as theirs:
        torch.testing.assert_close(torch.tensor(a), torch.tensor(b))
    with pytest.raises(AssertionError) as ours:
        assert_close(tg.tensor(a), tg.tensor(b))
    assert str(ours.value).splitlines()[:3] == str(theirs.value).splitlines()[:3]
