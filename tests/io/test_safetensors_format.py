"""tg.save to .safetensors writes the real format: compared with a file the safetensors
library wrote (`fixtures/library_made.safetensors`), and (oracle) read by the library."""

import json
import struct
from pathlib import Path

import numpy as np
import pytest

import tinygrad_norm as tg

FIXTURES = Path(__file__).parent / "fixtures"


def header_of(data: bytes) -> tuple[int, dict]:
    (length,) = struct.unpack("<Q", data[:8])
    return length, json.loads(data[8 : 8 + length])


def test_the_header_and_data_are_the_librarys(tmp_path):
    theirs = (FIXTURES / "library_made.safetensors").read_bytes()
    state = {  # what make_fixtures.py saved, in the library's order of the data
        "ids": np.array([1, -2, 3], dtype=np.int64),
        "weight": tg.arange(6, dtype=tg.float32).reshape(2, 3),
    }
    tg.save(state, tmp_path / "m.safetensors")
    ours = (tmp_path / "m.safetensors").read_bytes()
    their_length, their_header = header_of(theirs)
    our_length, our_header = header_of(ours)
    assert our_length % 8 == 0 and their_length % 8 == 0  # padded with spaces to 8 bytes
    assert our_header == their_header  # dtype codes, shapes, offsets, __metadata__
    assert ours[8 + our_length :] == theirs[8 + their_length :]
    assert len(ours) == 8 + our_length + sum(np.asarray(v).nbytes for v in state.values())


def test_every_dtype_round_trips(tmp_path):
    rng = np.random.default_rng(0)
    names = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
             "uint16", "uint32", "uint64", "bool", "complex64"]  # fmt: skip
    state = {n: (rng.standard_normal((2, 3)) * 40).astype(n) for n in names}
    state["view"] = np.arange(12.0).reshape(3, 4).T[::2]  # written contiguous
    state["scalar"] = tg.tensor(1.5)
    state["empty"] = np.zeros((0, 3), np.float32)
    tg.save(state, tmp_path / "all.safetensors")
    loaded = tg.load(tmp_path / "all.safetensors")
    assert list(loaded) == list(state)
    for name, value in state.items():
        value = np.asarray(value)
        assert loaded[name].dtype == value.dtype and loaded[name].shape == value.shape, name
        np.testing.assert_array_equal(loaded[name].numpy(), value, err_msg=name)


def test_only_a_flat_dict_of_tensors_is_written(tmp_path):
    path = tmp_path / "bad.safetensors"
    cases = [
        ({"w": tg.ones(2), "opt": {"step": 1}}, r"'opt' is a nested container \(dict\)"),
        ({"w": tg.ones(2), "step": 3}, r"'step' is not a tensor \(int\).*\.pt file"),
        ({0: tg.ones(2)}, "names its tensors by str"),
        ([tg.ones(2)], "holds a flat dict of tensors, got a list"),
        ({"c": np.ones(2, np.complex128)}, "complex128, which .safetensors has no code"),
    ]
    for obj, message in cases:
        with pytest.raises(TypeError, match=message):
            tg.save(obj, path)
        assert not path.exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.oracle
def test_the_library_reads_ours_and_we_read_the_librarys(tmp_path):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    rng = np.random.default_rng(1)
    state = {
        "w": tg.randn(3, 4),
        "b": rng.standard_normal(5),
        "ids": np.arange(7, dtype=np.uint32),
        "half": np.ones((2, 2), np.float16),
        "mask": np.array([True, False]),
        "c": np.array([1 + 2j], np.complex64),
    }
    tg.save(state, tmp_path / "ours.safetensors")
    loaded = safetensors_numpy.load_file(tmp_path / "ours.safetensors")
    assert set(loaded) == set(state)
    for name, value in state.items():
        value = np.asarray(value)
        assert loaded[name].dtype == value.dtype, name
        np.testing.assert_array_equal(loaded[name], value, err_msg=name)
    safetensors_numpy.save_file(
        {k: np.asarray(v) for k, v in state.items()}, tmp_path / "theirs.safetensors"
    )
    ours = tg.load(tmp_path / "theirs.safetensors")
    for name, value in state.items():
        np.testing.assert_array_equal(ours[name].numpy(), np.asarray(value), err_msg=name)
