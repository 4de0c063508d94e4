"""tg.save to .pt / .pth / .bin / no extension writes PyTorch's zip format.

The plain tests compare with `fixtures/torch_made.pt`, written once by real torch.save
(`fixtures/make_fixtures.py`): the same records in one top-level folder, the same pickle
structure (read back with a recording unpickler that runs nothing), no opcode or global
PyTorch did not use, the same storage bytes. The oracle tests read our files with real
`torch.load(weights_only=True)`.
"""

import io
import pickle
import pickletools
import zipfile
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.io import torch_writer

FIXTURES = Path(__file__).parent / "fixtures"


def same_object_as_the_fixture():
    """What fixtures/make_fixtures.py saved with torch, built here with NumPy and tg."""
    base = np.arange(12, dtype=np.float32)
    grid = base.reshape(3, 4)
    return {
        "grid": grid,
        "row": grid[1],
        "column": grid[:, 1],
        "u16": np.array([0, 1, 65535], dtype=np.uint16),
        "scalar": tg.tensor(2.5, dtype=tg.float64),
        "empty": tg.zeros(0, 2),
        "mask": tg.tensor([True, False]),
        "ordered": OrderedDict([("b", tg.tensor([7])), ("a", 1)]),
        "meta": {
            "step": 3, "lr": 0.5, "name": "run", "none": None, "ok": True, "betas": (0.9, 0.999),
            "ints": [-5, 1000, 70000, 2**100, -(2**70)], 0: "int key",
        },
    }  # fmt: skip


class Called(tuple):
    """What a REDUCE of a recorded global gave: (name, args)."""


class Named:
    """A global, recorded by name; calling it records the call (OrderedDict() is real)."""

    def __init__(self, name):
        self.name = name

    def __call__(self, *args):
        return (
            OrderedDict() if self.name == "collections.OrderedDict" else Called((self.name, args))
        )

    def __eq__(self, other):
        return isinstance(other, Named) and other.name == self.name

    def __repr__(self):
        return self.name


class Recorder(pickle.Unpickler):
    """Unpickles the structure only: globals become their names, storages their ids."""

    def find_class(self, module, name):
        return Named(f"{module}.{name}")

    def persistent_load(self, pid):
        return ("persistent", pid)


def records(path_or_bytes):
    data = path_or_bytes if isinstance(path_or_bytes, bytes) else Path(path_or_bytes).read_bytes()
    archive = zipfile.ZipFile(io.BytesIO(data))
    return archive, {info.filename: info for info in archive.infolist()}


def data_offset(raw: bytes, info: zipfile.ZipInfo) -> int:
    """Where a member's bytes start: after its local header and that header's extra field."""
    name_length = int.from_bytes(raw[info.header_offset + 26 : info.header_offset + 28], "little")
    extra_length = int.from_bytes(raw[info.header_offset + 28 : info.header_offset + 30], "little")
    return info.header_offset + 30 + name_length + extra_length


def opcodes_and_globals(data_pkl: bytes):
    ops, globals_ = set(), set()
    for op, arg, _ in pickletools.genops(data_pkl):
        ops.add(op.name)
        if op.name == "GLOBAL":
            globals_.add(arg)
    return ops, globals_


@pytest.fixture
def ours(tmp_path):
    path = tmp_path / "torch_made.pt"  # the fixture's name: the same folder name inside
    tg.save(same_object_as_the_fixture(), path)
    return path


def test_the_records_are_pytorchs(ours):
    theirs_archive, theirs = records(FIXTURES / "torch_made.pt")
    our_archive, mine = records(ours)
    assert {name.split("/")[0] for name in mine} == {"torch_made"}  # one folder, the stem
    mandatory = {"torch_made/data.pkl", "torch_made/version", "torch_made/byteorder"}
    assert mandatory <= set(theirs) and mandatory <= set(mine)
    storages = {n for n in theirs if n.startswith("torch_made/data/")}
    assert {n for n in mine if n.startswith("torch_made/data/")} == storages
    extra = set(mine) - set(theirs)
    assert extra == set(), extra  # nothing PyTorch does not write
    for name in ("version", "byteorder", ".format_version", ".storage_alignment"):
        assert our_archive.read(f"torch_made/{name}") == theirs_archive.read(f"torch_made/{name}")
    for name in storages:  # the same bytes, uncompressed, each at a multiple of 64 bytes
        assert our_archive.read(name) == theirs_archive.read(name), name
        assert mine[name].compress_type == zipfile.ZIP_STORED
        assert data_offset(ours.read_bytes(), mine[name]) % 64 == 0, name


def test_the_pickle_has_pytorchs_structure_and_nothing_else(ours):
    theirs_pkl = zipfile.ZipFile(FIXTURES / "torch_made.pt").read("torch_made/data.pkl")
    our_pkl = zipfile.ZipFile(ours).read("torch_made/data.pkl")
    theirs = Recorder(io.BytesIO(theirs_pkl)).load()
    mine = Recorder(io.BytesIO(our_pkl)).load()
    assert mine == theirs  # rebuild calls, storage ids, offsets, sizes, strides, containers
    assert mine["row"][1][0] == mine["grid"][1][0]  # row is a view of grid's storage...
    assert mine["row"][1][1:4] == (4, (4,), (1,))  # ...at offset 4
    assert mine["u16"][0] == "torch._utils._rebuild_tensor_v3"
    our_ops, our_globals = opcodes_and_globals(our_pkl)
    their_ops, their_globals = opcodes_and_globals(theirs_pkl)
    assert our_ops <= their_ops, our_ops - their_ops
    assert our_globals <= their_globals, our_globals - their_globals
    assert pickletools.optimize(our_pkl)  # a well-formed pickle


def test_tg_load_reads_both_the_same(ours):
    expected = same_object_as_the_fixture()
    for path in (ours, FIXTURES / "torch_made.pt"):
        loaded = tg.load(path)
        assert list(loaded) == list(expected)
        for key in ("grid", "row", "column", "u16", "scalar", "empty", "mask"):
            value = loaded[key]
            assert isinstance(value, tg.Tensor), (path, key)
            want = np.asarray(expected[key])
            assert value.dtype == want.dtype and value.shape == want.shape, (path, key)
            np.testing.assert_array_equal(value.numpy(), want)
        assert type(loaded["ordered"]) is OrderedDict and list(loaded["ordered"]) == ["b", "a"]
        assert loaded["meta"] == expected["meta"]


@pytest.mark.parametrize("name", ["m.pt", "m.pth", "m.bin", "m", "m.ckpt"])
def test_every_name_but_npz_and_safetensors_gets_pytorchs_format(tmp_path, name):
    tg.save({"w": tg.ones(2)}, tmp_path / name)
    names = zipfile.ZipFile(tmp_path / name).namelist()
    assert "m/data.pkl" in names and "m/version" in names
    buffer = io.BytesIO()  # a file object without a name: PyTorch's format too
    tg.save({"w": tg.ones(2)}, buffer)
    assert "archive/data.pkl" in zipfile.ZipFile(buffer).namelist()
    np.testing.assert_array_equal(tg.load(io.BytesIO(buffer.getvalue()))["w"].numpy(), [1, 1])


def test_negative_strides_are_copied_and_parameters_kept(tmp_path):
    base = np.arange(6.0)
    state = {
        "reversed": base[::-2],
        "p": tg.nn.Parameter(tg.ones(2)),
        "x": tg.ones(1, requires_grad=True),
    }
    tg.save(state, tmp_path / "v.pt")
    loaded = tg.load(tmp_path / "v.pt")
    np.testing.assert_array_equal(loaded["reversed"].numpy(), [5.0, 3.0, 1.0])
    assert isinstance(loaded["p"], tg.nn.Parameter) and loaded["p"].requires_grad
    assert loaded["x"].requires_grad and not isinstance(loaded["x"], tg.nn.Parameter)


def test_what_pytorchs_loader_could_not_take_is_refused_by_name(tmp_path):
    cases = [
        ({"blob": b"raw"}, r"obj\['blob'\] is bytes.*uint8 array"),
        ({"t": np.array(["a"])}, r"obj\['t'\] has dtype <U1, which PyTorch has no tensor for"),
        ({(1, 2): 3}, "keys must be strings, numbers"),
        ({"o": tg.optim.SGD([tg.nn.Parameter(tg.ones(1))], lr=1)}, "optimizer.state_dict()"),
        ({"g": (i for i in [])}, r"obj\['g'\] is a generator"),
    ]
    for obj, message in cases:
        with pytest.raises(TypeError, match=message):
            tg.save(obj, tmp_path / "bad.pt")
        assert not (tmp_path / "bad.pt").exists()
    assert list(tmp_path.iterdir()) == []  # no temporary file left behind


# --- real PyTorch reads what we wrote ---------------------------------------------------------
@pytest.mark.oracle
def test_torch_loads_every_dtype_view_and_container_equal(tmp_path):
    torch = pytest.importorskip("torch")
    base = np.arange(24, dtype=np.float32)
    dtypes = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
              "uint16", "uint32", "uint64", "bool", "complex64", "complex128"]  # fmt: skip
    rng = np.random.default_rng(0)
    state = {
        "dtypes": {name: (rng.standard_normal((2, 3)) * 50).astype(name) for name in dtypes},
        "extremes": [np.array([2**64 - 1, 0], np.uint64), np.array([65535], np.uint16)],
        "views": (base.reshape(4, 6)[1:3, ::2], base.reshape(4, 6).T, base[5:], base[::-3]),
        "base": base,
        "tensors": [tg.tensor(3.5), tg.zeros(0, 4), tg.ones(2, 0, 3, dtype=tg.int64)],
        "nested": {"a": [1, 2.5, "s", None, True, False, (1, (2, [3]))], 7: {"deep": {}}},
        "numbers": {"big": 2**100, "negative": -(2**40), "inf": float("inf"), "c": 1 + 2j},
        "ordered": OrderedDict([("z", tg.ones(1)), ("a", 0)]),
        "fortran": np.asfortranarray(np.arange(6.0).reshape(2, 3)),
        "big_endian": np.arange(3, dtype=">i4"),
        "big_endian_0d": np.array(2.5, dtype=">f8"),
    }
    tg.save(state, tmp_path / "all.pt")
    loaded = torch.load(tmp_path / "all.pt", weights_only=True)

    def compare(ours, theirs, where):
        if isinstance(ours, (np.ndarray, tg.Tensor)):
            ours = np.asarray(ours)
            assert isinstance(theirs, torch.Tensor), where
            assert str(theirs.dtype) == f"torch.{ours.dtype.newbyteorder('=').name}", where
            assert tuple(theirs.shape) == ours.shape, where
            np.testing.assert_array_equal(theirs.numpy(), ours, err_msg=where)
        elif isinstance(ours, dict):
            assert type(theirs) is type(ours) and list(theirs) == list(ours), where
            for key in ours:
                compare(ours[key], theirs[key], f"{where}[{key!r}]")
        elif isinstance(ours, (list, tuple)):
            assert type(theirs) is type(ours) and len(theirs) == len(ours), where
            for i, (a, b) in enumerate(zip(ours, theirs)):
                compare(a, b, f"{where}[{i}]")
        else:
            assert type(theirs) is type(ours) and theirs == ours, where

    compare(state, loaded, "state")
    views = loaded["views"]  # views share the one storage of `base`, with its offsets
    pointer = loaded["base"].untyped_storage().data_ptr()
    assert all(v.untyped_storage().data_ptr() == pointer for v in views[:3])
    assert views[0].storage_offset() == 6 and views[0].stride() == (6, 2)
    assert views[1].stride() == (1, 6)
    assert views[3].untyped_storage().data_ptr() != pointer  # negative strides: a copy
    assert loaded["fortran"].stride() == (1, 2)
    # mmap needs each storage aligned: PyTorch's own check
    torch.load(tmp_path / "all.pt", weights_only=True, mmap=True)


@pytest.mark.oracle
def test_torch_loads_a_state_dict_into_the_same_layers(tmp_path):
    torch = pytest.importorskip("torch")
    tg.manual_seed(0)
    ours = tg.nn.Sequential(tg.nn.Linear(3, 4), tg.nn.BatchNorm1d(4), tg.nn.Linear(4, 2))
    tg.save(ours.state_dict(), tmp_path / "m.pth")
    theirs = torch.nn.Sequential(
        torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 2)
    )
    theirs.load_state_dict(torch.load(tmp_path / "m.pth", weights_only=True))
    ours.eval(), theirs.eval()
    x = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(
        theirs(torch.from_numpy(x)).detach().numpy(),
        ours(tg.tensor(x)).numpy(),
        rtol=1e-6,
        atol=1e-6,
    )


def test_an_interrupted_save_leaves_the_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.pt"
    tg.save({"step": 1, "w": np.ones(3), "v": np.zeros(2)}, path)
    before = path.read_bytes()
    write_aligned = torch_writer._write_aligned
    calls = []

    def interrupted_on_the_second_storage(*args):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt  # Ctrl-C in the middle of writing
        write_aligned(*args)

    monkeypatch.setattr(torch_writer, "_write_aligned", interrupted_on_the_second_storage)
    with pytest.raises(KeyboardInterrupt):
        tg.save({"step": 2, "w": np.full(3, 7.0), "v": np.ones(2)}, path)
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["ckpt.pt"]
    assert tg.load(path)["step"] == 1


@pytest.mark.oracle
def test_every_dtype_torch_saved_loads_here(tmp_path):
    torch = pytest.importorskip("torch")
    names = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
             "uint16", "uint32", "uint64", "bool", "complex64", "complex128"]  # fmt: skip
    rng = np.random.default_rng(2)
    arrays = {name: (rng.standard_normal((3, 2)) * 50).astype(name) for name in names}
    base = torch.arange(10, dtype=torch.int64).to(torch.uint32)
    state = {name: torch.from_numpy(array) for name, array in arrays.items()}
    state["uint32_view"] = base[2::3]
    torch.save(state, tmp_path / "dtypes.pt")
    loaded = tg.load(tmp_path / "dtypes.pt")
    for name, array in arrays.items():
        assert loaded[name].dtype == array.dtype, name
        np.testing.assert_array_equal(loaded[name].numpy(), array, err_msg=name)
    np.testing.assert_array_equal(loaded["uint32_view"].numpy(), np.array([2, 5, 8], np.uint32))
