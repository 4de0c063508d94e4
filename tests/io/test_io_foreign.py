"""tg.load of other people's weights: .safetensors and PyTorch .pt/.bin files, read without
PyTorch and without running code from the file. Files written by hand check the formats
byte by byte; files written by the real libraries (oracle tests) check agreement."""

import json
import os
import pickle
import struct
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
from helpers import UNPICKLED, RunsCodeWhenUnpickled

import tinygrad_norm as tg


# --- .safetensors, written by hand ----------------------------------------------------------------
def _safetensors(tensors: dict, header_extra=None) -> bytes:
    """A .safetensors file: {name: (dtype code, shape, raw bytes)}."""
    header, data = {"__metadata__": {"format": "np"}}, b""
    for name, (code, shape, raw) in tensors.items():
        header[name] = {
            "dtype": code,
            "shape": list(shape),
            "data_offsets": [len(data), len(data) + len(raw)],
        }
        data += raw
    header.update(header_extra or {})
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


def test_safetensors_of_every_dtype_load_as_their_numbers(tmp_path):
    arrays = {
        "F64": np.array([1.5, -2.0]),
        "F32": np.arange(6, dtype=np.float32).reshape(2, 3),
        "F16": np.array([0.5, 65504.0], dtype=np.float16),
        "I64": np.array([-(2**62), 7]),
        "I32": np.array([[-3]], dtype=np.int32),
        "I16": np.array([300], dtype=np.int16),
        "I8": np.array([-128, 127], dtype=np.int8),
        "U8": np.array([0, 255], dtype=np.uint8),
        "BOOL": np.array([True, False]),
        "EMPTY": np.zeros((0, 4), dtype=np.float32),
    }
    codes = {name: name if name != "EMPTY" else "F32" for name in arrays}
    tensors = {
        n: (codes[n], a.shape, a.astype(a.dtype.newbyteorder("<")).tobytes())
        for n, a in arrays.items()
    }
    float32 = np.array([1.0, -3.140625, 2.0**-100], dtype=np.float32)
    tensors["BF16"] = ("BF16", (3,), (float32.view(np.uint32) >> 16).astype("<u2").tobytes())
    path = tmp_path / "model.safetensors"
    path.write_bytes(_safetensors(tensors))
    loaded = tg.load(path)
    assert list(loaded) == list(tensors)
    for name, expected in arrays.items():
        assert isinstance(loaded[name], tg.Tensor) and loaded[name].dtype == expected.dtype, name
        np.testing.assert_array_equal(loaded[name].numpy(), expected)
    assert loaded["BF16"].dtype == np.float32  # NumPy has no bfloat16: widened exactly
    np.testing.assert_array_equal(loaded["BF16"].numpy(), float32)


@pytest.mark.parametrize(
    "tensors, extra, message",
    [
        ({"x": ("F8_E4M3", (2,), b"\0\0")}, None, "has dtype 'F8_E4M3'"),
        ({"x": ("F32", (3,), bytes(8))}, None, "8 bytes for shape"),
        (
            {"x": ("F32", (2,), bytes(8))},
            {"y": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}},
            "do not lie inside",
        ),
        ({"x": ("F32", (-1,), bytes(4))}, None, "is not a list of sizes"),
    ],
)
def test_inconsistent_safetensors_are_refused(tmp_path, tensors, extra, message):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(_safetensors(tensors, extra))
    with pytest.raises(ValueError, match=message):
        tg.load(path)


def test_a_truncated_safetensors_says_so(tmp_path):
    data = _safetensors({"x": ("F32", (100,), bytes(400))})
    path = tmp_path / "cut.safetensors"
    path.write_bytes(data[:-10])
    with pytest.raises(ValueError, match="truncated"):
        tg.load(path)


@pytest.mark.oracle
def test_safetensors_written_by_the_library_load(tmp_path):
    safetensors_torch = pytest.importorskip("safetensors.torch")
    torch = pytest.importorskip("torch")
    tensors = {
        "w": torch.randn(3, 4),
        "h": torch.randn(5).half(),
        "b": torch.randn(2, 2).bfloat16(),
        "i": torch.arange(4),
        "m": torch.tensor([True, False]),
    }
    safetensors_torch.save_file(tensors, tmp_path / "m.safetensors", metadata={"k": "v"})
    loaded = tg.load(tmp_path / "m.safetensors")
    for name, tensor in tensors.items():
        expected = tensor.float() if tensor.dtype == torch.bfloat16 else tensor
        np.testing.assert_array_equal(loaded[name].numpy(), expected.numpy(), err_msg=name)


# --- PyTorch pickles, written by hand -------------------------------------------------------------
def _global(module: str, name: str) -> bytes:
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def _text(s: str) -> bytes:
    return b"X" + struct.pack("<I", len(s)) + s.encode()


def _ints(values) -> bytes:
    return b"(" + b"".join(b"J" + struct.pack("<i", v) for v in values) + b"t"


def _tensor_pickle(offset: int, size, stride, numel: int) -> bytes:
    """data.pkl of {"w": _rebuild_tensor_v2(storage 0 of `numel` floats, offset, size, stride)}."""
    storage = b"(" + _text("storage") + _global("torch", "FloatStorage") + _text("0") + _text("cpu")
    storage += b"J" + struct.pack("<i", numel) + b"tQ"  # a tuple, then BINPERSID
    args = b"(" + storage + b"J" + struct.pack("<i", offset) + _ints(size) + _ints(stride)
    args += b"\x89}t"  # requires_grad False, backward hooks {}
    rebuild = _global("torch._utils", "_rebuild_tensor_v2") + args + b"R"
    return b"\x80\x02}" + _text("w") + rebuild + b"s."


def _torch_zip(path, data_pkl: bytes, storage: bytes):
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("archive/data.pkl", data_pkl)
        archive.writestr("archive/data/0", storage)
        archive.writestr("archive/version", "3\n")


def test_a_hand_written_torch_zip_loads_its_strided_view(tmp_path):
    storage = np.arange(12, dtype="<f4")
    _torch_zip(tmp_path / "w.pt", _tensor_pickle(1, (2, 3), (1, 4), 12), storage.tobytes())
    loaded = tg.load(tmp_path / "w.pt")
    expected = [
        [storage[1 + i * 1 + j * 4] for j in range(3)] for i in range(2)
    ]  # offset+i·s0+j·s1
    np.testing.assert_array_equal(loaded["w"].numpy(), expected)


def test_a_view_outside_its_storage_is_refused(tmp_path):
    _torch_zip(tmp_path / "w.pt", _tensor_pickle(8, (3,), (2,), 12), bytes(48))
    with pytest.raises(ValueError, match="reaches element 12 of a storage of 12"):
        tg.load(tmp_path / "w.pt")
    _torch_zip(tmp_path / "w.pt", _tensor_pickle(0, (3,), (1,), 12), bytes(40))
    with pytest.raises(ValueError, match="holds 40 bytes, its pickle says 12"):
        tg.load(tmp_path / "w.pt")


def _legacy(path, payload: bytes):
    """A legacy torch.save file whose object pickle is `payload` (no storages)."""
    with open(path, "wb") as f:
        for header in (0x1950A86A20F9469CFC6C, 1001, {"little_endian": True}):
            pickle.dump(header, f, protocol=2)
        f.write(payload)
        pickle.dump([], f, protocol=2)


def test_pickles_that_name_anything_else_are_refused_without_running_it(tmp_path):
    evil = pickle.dumps({"w": RunsCodeWhenUnpickled()}, protocol=2)
    _legacy(tmp_path / "legacy.pt", evil)
    _torch_zip(tmp_path / "zip.pt", evil, b"")
    (tmp_path / "plain.pt").write_bytes(evil)
    UNPICKLED.clear()
    for name in ("legacy.pt", "zip.pt"):
        with pytest.raises(
            pickle.UnpicklingError, match=r"GLOBAL helpers\.record_unpickling was not an allowed"
        ):
            tg.load(tmp_path / name)
    with pytest.raises(ValueError, match="a pickle that is not a PyTorch checkpoint"):
        tg.load(tmp_path / "plain.pt")
    os_system = b"\x80\x02" + _global("os", "system") + b"(" + _text("echo hacked") + b"tR."
    _legacy(tmp_path / "system.pt", os_system)
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL os.system was not an allowed"):
        tg.load(tmp_path / "system.pt")
    assert UNPICKLED == []


# --- PyTorch files, written by PyTorch ------------------------------------------------------------
@pytest.mark.oracle
@pytest.mark.parametrize("zip_format", [True, False], ids=["zip", "legacy"])
def test_state_dicts_written_by_torch_save_load_to_equal_arrays(tmp_path, zip_format):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    optimizer = torch.optim.Adam(net.parameters())
    net(torch.randn(5, 3)).sum().backward()
    optimizer.step()
    base = torch.arange(20.0)
    obj = {
        "model": net.state_dict(),
        "optimizer": optimizer.state_dict(),
        "dtypes": [
            torch.randn(2, dtype=torch.float64), torch.randn(3).half(), torch.randn(2).bfloat16(),
            torch.arange(3, dtype=torch.int32), torch.tensor([1, -2], dtype=torch.int8),
            torch.tensor([1, 2], dtype=torch.uint8), torch.tensor([True]),
            torch.arange(4, dtype=torch.int16),
        ],
        "views": (base[3:9].view(2, 3), base.view(4, 5).t(), base[::4], base.view(4, 5)[1:, 2:]),
        "param": torch.nn.Parameter(torch.ones(2)),
        "numbers": {"step": 3, "lr": 0.5, "name": "x", "none": None},
        "empty": torch.zeros(0, 3),
    }  # fmt: skip
    path = tmp_path / "ckpt.pt"
    torch.save(obj, path, _use_new_zipfile_serialization=zip_format)
    loaded = tg.load(path)

    def compare(ours, theirs, where):
        if isinstance(theirs, torch.Tensor):
            assert isinstance(ours, tg.Tensor), where
            expected = (
                theirs.detach().float() if theirs.dtype == torch.bfloat16 else theirs.detach()
            )
            assert ours.shape == tuple(theirs.shape), where
            np.testing.assert_array_equal(ours.numpy(), expected.numpy(), err_msg=where)
            assert ours.requires_grad == theirs.requires_grad, where
        elif isinstance(theirs, dict):
            assert list(ours) == list(theirs), where
            for key in theirs:
                compare(ours[key], theirs[key], f"{where}[{key!r}]")
        elif isinstance(theirs, (list, tuple)):
            assert type(ours) is type(theirs) and len(ours) == len(theirs), where
            for i, (a, b) in enumerate(zip(ours, theirs)):
                compare(a, b, f"{where}[{i}]")
        else:
            assert ours == theirs, where

    compare(loaded, obj, "obj")
    assert type(loaded["model"]) is OrderedDict and isinstance(loaded["param"], tg.nn.Parameter)
    ours = tg.nn.Sequential(tg.nn.Linear(3, 4), tg.nn.BatchNorm1d(4))
    ours.load_state_dict(loaded["model"])  # a PyTorch state dict loads into the same layers


@pytest.mark.oracle
def test_a_malicious_torch_save_is_refused(tmp_path):
    torch = pytest.importorskip("torch")
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (os.mkdir, (str(marker),))

    torch.save({"w": torch.ones(2), "x": Payload()}, tmp_path / "evil.pt")
    for weights_only in (True, False):
        with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL (posix|os)\.mkdir was not"):
            tg.load(tmp_path / "evil.pt", weights_only=weights_only)
    assert not marker.exists()
