"""The silent differences from PyTorch the semantics review found, each as PyTorch behaves
(plain leg: no torch needed; tests/oracle/test_semantics_probe.py compares with PyTorch)."""

import numpy as np
import pytest

import tinygrad_norm as tg
import tinygrad_norm.nn.functional as F


def test_promotion_in_composite_ops_is_pytorchs():
    i, f = tg.tensor([1]), tg.tensor([1.5])
    assert tg.cat([i, f]).dtype == tg.float32 and tg.stack([i, f]).dtype == tg.float32
    assert tg.hstack([i, f]).dtype == tg.float32
    assert tg.where(tg.tensor([True]), i, f).dtype == tg.float32
    assert tg.tensor([1, 2]).clamp(0.5, 1.5).dtype == tg.float32
    assert tg.tensor([tg.tensor(1), 2.5]).dtype == tg.float32


def test_uint8_against_a_0d_int8_tensor():
    u, i = tg.tensor([1, 200], dtype=tg.uint8), tg.tensor(-2, dtype=tg.int8)
    assert (u / i).tolist() == [-0.5, -100.0]  # computed in float32, -2 not wrapped
    assert (u < i).tolist() == [True, True]  # compared in uint8: -2 is 254, as PyTorch
    assert (u + i).dtype == tg.uint8


@pytest.mark.parametrize(
    "call",
    [
        lambda: tg.tensor([[1, 2]]) @ tg.tensor([[1.0], [2.0]]),
        lambda: tg.nn.Linear(2, 1)(tg.ones(1, 2, dtype=tg.int64)),
        lambda: tg.nn.Linear(2, 1)(tg.ones(1, 2, dtype=tg.float64)),
    ],
    ids=["int@float", "linear_int", "linear_float64"],
)
def test_matrix_products_of_two_dtypes_are_refused(call):
    with pytest.raises(RuntimeError, match="same dtype"):
        call()


@pytest.mark.parametrize("op", ["//", "%"])
def test_integer_division_by_zero_raises(op):
    a, b = tg.tensor([1, 2]), tg.tensor([0, 1])
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        a // b if op == "//" else a % b


def test_bce_gradient_is_finite_at_0_and_1():
    p = tg.tensor([0.0, 1.0, 0.0, 1.0], dtype=tg.float64, requires_grad=True)
    t = tg.tensor([0.0, 1.0, 1.0, 0.0], dtype=tg.float64)
    F.binary_cross_entropy(p, t, reduction="sum").backward()
    assert p.grad.tolist() == [0.0, 0.0, -1e12, 1e12]


@pytest.mark.parametrize("target", [2.0, -0.5])
def test_bce_target_outside_0_1_is_refused(target):
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(tg.tensor([0.5]), tg.tensor([target]))


def test_arange_with_the_wrong_sign_is_refused():
    with pytest.raises(RuntimeError, match="step sign"):
        tg.arange(10, 0)
    assert tg.arange(10, 0, -3).tolist() == [10, 7, 4, 1]


def test_unique_keeps_nans_apart():
    out = tg.tensor([float("nan"), float("nan"), 1.0]).unique()
    assert out.shape == (3,) and np.isnan(out.numpy()[1:]).all()


def test_instance_norm_does_not_count_batches():
    m = tg.nn.InstanceNorm2d(2, track_running_stats=True)
    m(tg.randn(2, 2, 3, 3))
    assert int(m.num_batches_tracked) == 0


def test_zeros_of_a_bool_is_a_type_error():
    with pytest.raises(TypeError, match="bool"):
        tg.zeros(True)


def test_unhelpful_errors_now_name_the_op_with_pytorchs_class():
    with pytest.raises(RuntimeError, match="copy_: the source of shape"):
        tg.zeros(3).copy_(tg.ones(2))
    x = tg.zeros(3)
    with pytest.raises(RuntimeError, match=r"x\[index\] = value.*True entries"):
        x[tg.tensor([True, False, True])] = tg.ones(3)
    with pytest.raises(RuntimeError, match=r"x\[index\] = value: cannot write a value of shape"):
        tg.zeros(4)[0:2] = tg.ones(3)
    with pytest.raises(IndexError, match=r"size: dimension out of range .*\[-2, 1\]"):
        tg.zeros(2, 3).size(3)
    e = tg.zeros(1, 3).expand(2, 3)
    with pytest.raises(RuntimeError, match="single memory location"):
        e.fill_(1.0)


def test_writing_one_row_of_an_expanded_tensor_reaches_its_base():
    x = tg.zeros(1, 3)
    x.expand(2, 3)[0] = 1.0
    assert x.tolist() == [[1.0, 1.0, 1.0]]


def test_view_of_a_transpose_is_refused():
    with pytest.raises(RuntimeError, match="reshape"):
        tg.zeros(2, 3).t().view(6)


def test_missing_forms_exist():
    x = tg.zeros(3, 4)
    assert x.index_fill_(1, tg.tensor([0]), 1.0)[:, 0].tolist() == [1.0] * 3
    assert tg.zeros(3, 3).fill_diagonal_(2.0).diagonal().tolist() == [2.0] * 3
    assert tg.zeros(3, 1).squeeze_().shape == (3,)
    assert tg.diff(tg.tensor([1.0, 4.0, 9.0])).tolist() == [3.0, 5.0]
    assert tg.fmax(tg.tensor([float("nan")]), tg.tensor([1.0])).tolist() == [1.0]
    assert tg.arange(6.0).reshape(2, 3).mean(axis=1).tolist() == [1.0, 4.0]
    assert tg.tensor([1.0, 2.0, 3.0, 4.0]).quantile(0.5).item() == 2.5
    assert tg.tensor([1, 1, 2, 1]).unique_consecutive().tolist() == [1, 2, 1]
