"""How tensors, shapes and dtypes print and are named, as PyTorch prints and names them: repr of
tensors (PyTorch's own output for the same tensor, checked with torch 2.13), set_printoptions,
format() and f-strings, torch.Size as a tuple, dtype names that work as NumPy dtypes, finfo /
iinfo, Tensor.type(). Compared with PyTorch's own output where PyTorch is installed (oracle
tests)."""

import pickle

import numpy as np
import pytest

import tinygrad_norm as tg


@pytest.fixture
def printoptions():
    """Let a test call tg.set_printoptions; the defaults come back afterwards."""
    yield tg.set_printoptions
    tg.set_printoptions(precision=4, threshold=1000, edgeitems=3, linewidth=80)


# --- repr ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, expected",
    [
        (
            lambda: tg.tensor([[0.2, 0.1]], requires_grad=True),
            "tensor([[0.2000, 0.1000]], requires_grad=True)",
        ),
        (
            lambda: tg.tensor([[0.2, 0.1]], requires_grad=True) + 1.0,
            "tensor([[1.2000, 1.1000]], grad_fn=<AddBackward>)",
        ),
        (lambda: tg.tensor([1.0, 2.0]), "tensor([1., 2.])"),
        (lambda: tg.tensor([1, 2, 3]), "tensor([1, 2, 3])"),
        (lambda: tg.tensor([1.0, 2.0], dtype=tg.float64), "tensor([1., 2.], dtype=torch.float64)"),
        (lambda: tg.tensor(0.5), "tensor(0.5000)"),
        (lambda: tg.tensor(3), "tensor(3)"),
        (lambda: tg.tensor([1.5, -2.0]), "tensor([ 1.5000, -2.0000])"),
        (lambda: tg.tensor([True, False]), "tensor([ True, False])"),
        (lambda: tg.tensor([1e-5, 1.0]), "tensor([1.0000e-05, 1.0000e+00])"),
        (lambda: tg.tensor([1.0, float("nan")]), "tensor([1., nan])"),
        (lambda: tg.tensor([0.5, float("inf")]), "tensor([0.5000,    inf])"),
        (lambda: tg.tensor([[1, -2], [30, 4]]), "tensor([[ 1, -2],\n        [30,  4]])"),
        (lambda: tg.zeros(2, 0), "tensor([], size=(2, 0))"),
        (lambda: tg.tensor([1, 2], dtype=tg.int32), "tensor([1, 2], dtype=torch.int32)"),
        (
            lambda: (tg.tensor(2.0, requires_grad=True) * 3.0).sum(),
            "tensor(6., grad_fn=<SumBackward>)",
        ),
    ],
)
def test_repr_matches_pytorch(make, expected):
    assert repr(make()) == expected


def test_repr_of_a_3d_tensor_has_a_blank_line_between_blocks():
    expected = (
        "tensor([[[ 0.,  1.,  2.],\n"
        "         [ 3.,  4.,  5.]],\n"
        "\n"
        "        [[ 6.,  7.,  8.],\n"
        "         [ 9., 10., 11.]]])"
    )
    assert repr(tg.arange(12.0).reshape(2, 2, 3)) == expected


def test_repr_wraps_long_rows_and_summarises_large_tensors():
    assert repr(tg.arange(20.0) / 3) == (
        "tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n"
        "        3.0000, 3.3333, 3.6667, 4.0000, 4.3333, 4.6667, 5.0000, 5.3333, 5.6667,\n"
        "        6.0000, 6.3333])"
    )
    assert repr(tg.arange(2000)) == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"


def test_repr_moves_a_long_suffix_to_its_own_line():
    t = tg.tensor([220.4, -19.045, 63.87, -7.119, 153.749, -34.757, 33.714, -87.007])
    assert repr(t.requires_grad_()) == (
        "tensor([220.4000, -19.0450,  63.8700,  -7.1190, 153.7490, -34.7570,  33.7140,\n"
        "        -87.0070], requires_grad=True)"
    )


def test_repr_in_float64_default_names_float32(default_float64):
    assert repr(tg.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(tg.tensor([1.0, 2.0], dtype=tg.float32)) == "tensor([1., 2.], dtype=torch.float32)"


def test_set_printoptions_precision(printoptions):
    printoptions(precision=2)
    assert repr(tg.tensor([1.2345, 2.0])) == "tensor([1.23, 2.00])"
    printoptions(precision=4)
    assert repr(tg.tensor([1.2345, 2.0])) == "tensor([1.2345, 2.0000])"


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


# --- format(), f-strings and Tensor.type() against PyTorch ---------------------------------------
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
