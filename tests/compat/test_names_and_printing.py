"""PyTorch's names and printing: torch.Size is a tuple printed as PyTorch prints it, dtypes carry
PyTorch's names and work as NumPy dtypes, finfo/iinfo, format() and f-strings of tensors, shapes
and dtypes, Tensor.type(), set_printoptions. Compared with PyTorch's own output where PyTorch is
installed (oracle tests)."""

import pickle

import numpy as np
import pytest

import tinygrad_norm as tg


# --- Size and dtypes ------------------------------------------------------------------------------
def test_size_is_a_tuple_printed_as_pytorch():
    s = tg.zeros(2, 3).shape
    assert isinstance(s, tuple) and isinstance(s, tg.Size)
    assert s == (2, 3) and hash(s) == hash((2, 3)) and tg.zeros(2, 3).size() == (2, 3)
    assert repr(s) == str(s) == "torch.Size([2, 3])"
    assert repr(s[1:]) == "torch.Size([3])" and s[0] == 2 and type(s[0]) is int
    assert repr(s + (4,)) == "torch.Size([2, 3, 4])" and repr((1,) + s) == "torch.Size([1, 2, 3])"
    assert (
        s.numel() == 6 and tg.Size([]).numel() == 1 and repr(tg.zeros(()).shape) == "torch.Size([])"
    )
    a, b = s
    assert (a, b) == (2, 3)
    assert f"{s}" == "torch.Size([2, 3])" and f"{s!s:>20}" == "  torch.Size([2, 3])"
    with pytest.raises(ValueError, match=r"shape \(2, 3\)"):  # the library's messages: tuples
        tg.zeros(2, 3).item()


def test_dtypes_print_by_pytorch_names_and_work_as_numpy_dtypes():
    assert repr(tg.float32) == str(tg.float32) == "torch.float32"
    assert str(tg.ones(2, dtype=tg.int64).dtype) == "torch.int64"
    assert (
        tg.float32 == np.float32 and tg.float32 == np.dtype("float32") and tg.float64 != tg.float32
    )
    assert np.dtype("float32") == tg.float32 and tg.ones(1).dtype in (np.float32, np.float64)
    assert np.zeros(2, tg.float64).dtype == np.float64
    assert np.ones(2).astype(tg.float16).dtype == np.float16
    assert {np.dtype("int64"): "yes"}[tg.int64] == "yes"
    assert (
        tg.float32.is_floating_point and not tg.int64.is_floating_point and tg.float64.itemsize == 8
    )
    assert pickle.loads(pickle.dumps(tg.float64)) == tg.float64
    assert tg.half == tg.float16 and tg.long == tg.int64 and tg.int == tg.int32
    assert isinstance(tg.float32, tg.dtype)
    assert f"{tg.float32}" == "torch.float32" and f"{tg.int64:>14}" == "   torch.int64"


def test_bfloat16_has_a_name_and_a_clear_error_on_use():
    assert repr(tg.bfloat16) == "torch.bfloat16"
    assert {"bfloat16": tg.bfloat16, "float16": tg.float16}["bfloat16"] is tg.bfloat16
    for use in (lambda: tg.zeros(2, dtype=tg.bfloat16), lambda: tg.ones(2).to(tg.bfloat16)):
        with pytest.raises(TypeError, match="bfloat16 is not supported"):
            use()


def test_finfo_and_iinfo():
    for dtype, np_dtype in (
        (tg.float32, np.float32),
        (tg.float64, np.float64),
        (tg.float16, np.float16),
    ):
        info = tg.finfo(dtype)
        assert (info.eps, info.max, info.min, info.tiny, info.bits) == (
            np.finfo(np_dtype).eps, np.finfo(np_dtype).max, np.finfo(np_dtype).min,
            np.finfo(np_dtype).smallest_normal, np.finfo(np_dtype).bits,
        )  # fmt: skip
    assert tg.finfo().eps == np.finfo(np.float32).eps
    assert (tg.iinfo(tg.int64).max, tg.iinfo(tg.uint8).min, tg.iinfo(tg.int32).bits) == (
        2**63 - 1,
        0,
        32,
    )
    with pytest.raises(TypeError, match="floating point"):
        tg.finfo(tg.int64)
    with pytest.raises(TypeError, match="integer"):
        tg.iinfo(tg.float32)


# --- printing -------------------------------------------------------------------------------------
@pytest.mark.oracle
def test_printing_matches_pytorch():
    torch = pytest.importorskip("torch")
    for name in (
        "float16",
        "float32",
        "float64",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "bool",
    ):
        assert str(getattr(tg, name)) == str(getattr(torch, name))
        assert repr(tg.zeros(2, dtype=getattr(tg, name))) == repr(
            torch.zeros(2, dtype=getattr(torch, name))
        )
    assert str(tg.bfloat16) == str(torch.bfloat16)
    for shape in ((2, 3), (), (0,), (1, 2, 1)):
        assert repr(tg.zeros(shape).shape) == repr(torch.zeros(shape).shape)
        assert repr(tg.zeros(shape).size()) == repr(torch.zeros(shape).size())
    assert repr(tg.zeros(1).device) == repr(torch.zeros(1).device)
    assert str(tg.zeros(1).device) == str(torch.zeros(1).device)
    assert repr(tg.device("cuda:1")) == repr(torch.device("cuda:1"))


@pytest.mark.oracle
def test_f_strings_of_shapes_and_dtypes_match_pytorch():
    torch = pytest.importorskip("torch")
    ours, theirs = tg.zeros(2, 3, dtype=tg.float64), torch.zeros(2, 3, dtype=torch.float64)
    assert f"{ours.shape} {ours.dtype} {ours.size()} {ours.device}" == (
        f"{theirs.shape} {theirs.dtype} {theirs.size()} {theirs.device}"
    )
    assert "{}|{}".format(ours.shape, ours.dtype) == "{}|{}".format(theirs.shape, theirs.dtype)  # noqa: UP032


@pytest.mark.oracle
def test_format_type_and_sizes_match_pytorch():
    torch = pytest.importorskip("torch")
    for value in (3.14159, -2.5, 1e-8):
        for spec in (".4f", ".2e", "", ">12.3f", "g"):
            assert format(tg.tensor(value), spec) == format(torch.tensor(value), spec)
    assert (
        f"{tg.tensor(7)}" == f"{torch.tensor(7)}"
        and f"{tg.tensor(7):>4}" == f"{torch.tensor(7):>4}"
    )
    assert f"{tg.ones(2)}" == f"{torch.ones(2)}"
    with pytest.raises(TypeError):
        f"{torch.ones(2):.2f}"
    with pytest.raises(TypeError, match="only a 0-d tensor"):
        f"{tg.ones(2):.2f}"
    for name in (
        "float32",
        "float64",
        "float16",
        "int64",
        "int32",
        "int16",
        "int8",
        "uint8",
        "bool",
    ):
        ours, theirs = (
            tg.zeros(3, dtype=getattr(tg, name)),
            torch.zeros(3, dtype=getattr(torch, name)),
        )
        assert ours.type() == theirs.type()
        assert ours.element_size() == theirs.element_size()
        assert ours.is_floating_point() == theirs.is_floating_point()
        assert ours.nelement() == theirs.nelement() == tg.numel(ours)
    assert tg.ones(2).type(tg.float64).dtype == tg.float64
    assert tg.ones(2).type("torch.DoubleTensor").dtype == tg.float64
    with pytest.raises(ValueError, match="invalid type"):
        tg.ones(2).type("torch.Bogus")


def test_set_printoptions_exists():
    tg.set_printoptions(precision=2)
    try:
        assert repr(tg.tensor([1.23456])) == "tensor([1.23])"
    finally:
        tg.set_printoptions(precision=4)
