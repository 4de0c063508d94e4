"""Files that are cut short or whose headers lie about sizes are refused with a clear
error, whichever format and whoever wrote them, and cost no memory beyond their own size."""

import io
import json
import struct
import tracemalloc
import zipfile

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.io.pickle_writer import Call, Global, PersistentId, dumps

CLEAR = ("truncated", "damaged", "expected a .npz file written by tinygrad_norm.save")


@pytest.mark.parametrize("name", ["ckpt.pt", "ckpt.npz", "weights.safetensors"])
def test_a_file_cut_at_any_byte_is_refused_clearly(tmp_path, name):
    state = {"w": tg.ones(3, 4), "b": tg.arange(5.0)}
    if not name.endswith(".safetensors"):
        state["optimizer"] = {"step": 3, "betas": (0.9, 0.99), "exp_avg": np.ones(2)}
    tg.save(state, tmp_path / name)
    data = (tmp_path / name).read_bytes()
    for cut in range(len(data)):
        with pytest.raises(ValueError) as info:
            tg.load(io.BytesIO(data[:cut]))
        assert any(word in str(info.value) for word in CLEAR), (cut, str(info.value))


def peak_memory_of(load) -> int:
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as info:
            load()
        return tracemalloc.get_traced_memory()[1], str(info.value)
    finally:
        tracemalloc.stop()


GIB = 1 << 30


def test_a_torch_zip_that_claims_a_gigabyte_is_refused_without_taking_it(tmp_path):
    storage = PersistentId(("storage", Global("torch", "FloatStorage"), "0", "cpu", GIB // 4))
    hooks = Call("collections", "OrderedDict", ())
    tensor = Call(
        "torch._utils", "_rebuild_tensor_v2", (storage, 0, (GIB // 4,), (1,), False, hooks)
    )
    path = tmp_path / "liar.pt"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("liar/data.pkl", dumps({"w": tensor}))
        archive.writestr("liar/data/0", bytes(16))
        archive.writestr("liar/version", "3\n")
    data = bytearray(path.read_bytes())
    entry = data.index(b"PK\x01\x02")
    while data[entry + 46 : entry + 46 + 11] != b"liar/data/0":  # the central directory entry
        entry = data.index(b"PK\x01\x02", entry + 4)
    data[entry + 20 : entry + 28] = struct.pack("<II", GIB, GIB)  # sizes: 1 GiB, not 16 bytes
    path.write_bytes(bytes(data))
    peak, message = peak_memory_of(lambda: tg.load(path))
    assert "damaged or truncated" in message, message
    assert peak < 4 * (1 << 20)


def test_a_safetensors_that_claims_a_gigabyte_is_refused_without_taking_it(tmp_path):
    header = {"w": {"dtype": "F32", "shape": [GIB // 4], "data_offsets": [0, GIB]}}
    text = json.dumps(header).encode()
    path = tmp_path / "liar.safetensors"
    path.write_bytes(struct.pack("<Q", len(text)) + text + bytes(64))
    peak, message = peak_memory_of(lambda: tg.load(path))
    assert "do not lie inside the file's 64 data bytes" in message
    assert peak < 4 * (1 << 20)
