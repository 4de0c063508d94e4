"""tg.save / tg.load of checkpoints: the same structure back, atomic writes, no pickle, and
files that lie about their sizes (truncated, zip bombs) refused before they cost memory."""

import io
import json
import os
import tracemalloc
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
from helpers import UNPICKLED, RunsCodeWhenUnpickled

import tinygrad_norm as tg
from tinygrad_norm.io import load, save


class TensorLike:
    """Keeps its values in ``.data``, as an array-holding object of another library might."""

    def __init__(self, data):
        self.data = np.asarray(data)


class ArrayLike:
    """Only speaks NumPy's ``__array__`` protocol."""

    def __array__(self, dtype=None, copy=None):
        return np.arange(4, dtype=np.int64).reshape(2, 2)


# --- the same structure back -------------------------------------------------------------------
def test_round_trip_keeps_names_dtypes_shapes_and_values(tmp_path):
    rng = np.random.default_rng(0)
    state = {
        "transformer.h.0.ln_1.weight": rng.standard_normal((2, 3)).astype(np.float32),
        "transformer.h.0.ln_1.bias": rng.standard_normal(5),  # float64
        "counts": np.arange(24, dtype=np.int64).reshape(2, 3, 4),
        "fortran": np.asfortranarray(rng.standard_normal((3, 2))),
        "file": np.zeros((0, 3), dtype=np.float64),  # a name np.savez would choke on
    }
    path = tmp_path / "weights.npz"
    save(state, path)
    loaded = load(path)

    assert type(loaded) is dict
    assert list(loaded) == list(state)
    for name, expected in state.items():
        assert isinstance(loaded[name], np.ndarray)
        assert loaded[name].dtype == expected.dtype, name
        assert loaded[name].shape == expected.shape, name
        np.testing.assert_array_equal(loaded[name], expected)


def test_a_training_checkpoint_comes_back_as_the_same_structure(tmp_path):
    state = {
        "step": 1200,
        "lr": 0.5,
        "flag": True,
        "nothing": None,
        "name": "run-α",
        "big": 2**100,  # an RNG state holds 128-bit integers
        "special": [float("inf"), -0.0],
        "betas": (0.9, 0.99),
        "nested": {0: {"exp_avg": np.ones(2)}, 1: [np.int64(3), np.float32(2.5)]},
        "ordered": OrderedDict([("b", 1), ("a", 2)]),
        "empty": {"list": [], "tuple": (), "dict": {}},
    }
    path = tmp_path / "checkpoint.npz"
    save(state, path)
    loaded = load(path)
    assert list(loaded) == list(state)
    for key in ("step", "lr", "flag", "nothing", "name", "big", "betas", "empty"):
        assert loaded[key] == state[key] and type(loaded[key]) is type(state[key]), key
    assert loaded["special"][0] == float("inf") and np.signbit(loaded["special"][1])
    assert list(loaded["nested"]) == [0, 1]  # int keys stay ints (optimizer state)
    np.testing.assert_array_equal(loaded["nested"][0]["exp_avg"], np.ones(2))
    assert type(loaded["nested"][1][0]) is np.int64 and loaded["nested"][1][0] == 3
    assert type(loaded["nested"][1][1]) is np.float32 and loaded["nested"][1][1] == 2.5
    assert type(loaded["ordered"]) is OrderedDict and list(loaded["ordered"]) == ["b", "a"]


def test_tensors_come_back_as_tensors_and_parameters_as_parameters(tmp_path):
    state = {
        "w": tg.randn(3, 4),
        "x": tg.tensor([1.0, 2.0], dtype=tg.float64, requires_grad=True),
        "p": tg.nn.Parameter(tg.ones(2)),
        "mask": tg.tensor([True, False]),
    }
    save(state, tmp_path / "t.npz")
    loaded = load(tmp_path / "t.npz")
    for name, tensor in state.items():
        assert type(loaded[name]) is type(tensor), name
        assert loaded[name].dtype == tensor.dtype and loaded[name].shape == tensor.shape
        assert loaded[name].requires_grad == tensor.requires_grad, name
        np.testing.assert_array_equal(loaded[name].numpy(), tensor.numpy())


def test_a_tied_weight_is_stored_once_and_a_model_and_optimizer_resume(tmp_path):
    tg.manual_seed(0)
    config = tg.models.GPTConfig(vocab_size=7, n_ctx=4, d_model=8, n_layer=1, n_head=2, dropout=0.0)
    model = tg.models.GPT(config)
    optimizer = tg.optim.AdamW(model.parameters(), lr=0.1)
    idx = tg.randint(0, 7, size=(2, 4))
    model(idx, idx)[1].backward()
    optimizer.step()
    path = tmp_path / "gpt.npz"
    save(model.state_dict(), path)
    with zipfile.ZipFile(path) as archive:  # wte.weight and lm_head.weight: one member
        assert len(archive.namelist()) == 1 + len(model.state_dict()) - 1
    save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
    checkpoint = load(path)
    fresh = tg.models.GPT(config)
    fresh.load_state_dict(checkpoint["model"])
    fresh_optimizer = tg.optim.AdamW(fresh.parameters(), lr=0.1)
    fresh_optimizer.load_state_dict(checkpoint["optimizer"])
    for m, opt in ((model, optimizer), (fresh, fresh_optimizer)):
        opt.zero_grad()
        m(idx, idx)[1].backward()
        opt.step()
    for a, b in zip(model.parameters(), fresh.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_tensor_like_values_are_saved_through_their_data(tmp_path):
    weight = np.array([[1.5, -2.0, 3.25]], dtype=np.float32)
    path = tmp_path / "tensors.npz"
    save({"weight": TensorLike(weight), "table": ArrayLike()}, path)
    loaded = load(path)
    assert loaded["weight"].dtype == np.float32
    np.testing.assert_array_equal(loaded["weight"], weight)
    np.testing.assert_array_equal(loaded["table"], [[0, 1], [2, 3]])


def test_writes_exactly_the_given_path_and_file_objects(tmp_path):
    path = tmp_path / "checkpoint.bin"
    save({"x": np.ones(3)}, str(path))
    assert path.exists() and not (tmp_path / "checkpoint.bin.npz").exists()
    np.testing.assert_array_equal(load(str(path))["x"], np.ones(3))
    buffer = io.BytesIO()
    save([1, np.arange(3)], buffer)
    buffer.seek(0)
    one, array = load(buffer)
    assert one == 1 and array.tolist() == [0, 1, 2]


def test_load_accepts_pytorchs_keyword_arguments(tmp_path):
    save({"x": tg.ones(2)}, tmp_path / "a.npz")
    for kwargs in ({"map_location": "cpu"}, {"weights_only": False}, {"mmap": True}, {}):
        assert load(tmp_path / "a.npz", **kwargs)["x"].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="never unpickles"):
        load(tmp_path / "a.npz", pickle_module=object())


# --- what save refuses -------------------------------------------------------------------------
def test_saving_an_object_array_is_refused_before_writing(tmp_path):
    path = tmp_path / "bad.npz"
    with pytest.raises(ValueError, match="object array") as info:
        save({"ok": np.ones(2), "bad": np.array([{"a": 1}, None], dtype=object)}, path)
    assert "obj['bad']" in str(info.value)
    assert not path.exists() and os.listdir(tmp_path) == []


def test_saving_a_module_or_optimizer_says_to_save_its_state_dict(tmp_path):
    model = tg.nn.Linear(2, 3)
    with pytest.raises(TypeError, match=r"Module \(Linear\).*model\.state_dict\(\)"):
        save(model, tmp_path / "m.npz")
    with pytest.raises(TypeError, match=r"obj\['opt'\] is an optimizer.*state_dict\(\)"):
        save({"opt": tg.optim.SGD(model.parameters(), lr=0.1)}, tmp_path / "m.npz")
    assert os.listdir(tmp_path) == []


def test_saving_other_objects_names_where_they_are(tmp_path):
    with pytest.raises(TypeError, match=r"obj\['a'\]\[1\] is a set; tg.save stores nested"):
        save({"a": [1, {2}]}, tmp_path / "x.npz")
    with pytest.raises(TypeError, match="keys must be strings or ints"):
        save({(0, 1): np.ones(2)}, tmp_path / "x.npz")


def test_saving_into_a_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(RuntimeError, match="does not exist; create it first"):
        save({"x": 1}, tmp_path / "no" / "such" / "x.npz")


def test_a_failure_mid_save_leaves_the_previous_checkpoint_intact(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.npz"
    save({"step": 1, "w": np.ones(3), "v": np.zeros(2)}, path)
    before = path.read_bytes()
    write_array = np.lib.format.write_array
    calls = []

    def fail_on_the_second_array(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt  # Ctrl-C in the middle of writing
        return write_array(*args, **kwargs)

    monkeypatch.setattr(np.lib.format, "write_array", fail_on_the_second_array)
    with pytest.raises(KeyboardInterrupt):
        save({"step": 2, "w": np.full(3, 7.0), "v": np.ones(2)}, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ckpt.npz"]  # the temporary file was removed
    assert load(path)["step"] == 1
    monkeypatch.undo()
    save({"step": 2}, path)
    assert load(path) == {"step": 2}
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(path).st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's private 0600


# --- what load refuses -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "filename, content",
    [
        ("notes.txt", b"hello, this is not an archive\n"),
        ("empty.npz", b""),
        ("broken.npz", b"PK\x03\x04 not really a zip"),
    ],
)
def test_loading_a_file_that_is_not_an_npz_is_refused(tmp_path, filename, content):
    path = tmp_path / filename
    path.write_bytes(content)
    with pytest.raises(ValueError, match="expected a .npz file written by tinygrad_norm.save") as e:
        load(path)
    assert str(path) in str(e.value)


def test_loading_a_truncated_checkpoint_says_so(tmp_path):
    path = tmp_path / "ckpt.npz"
    save({"w": np.ones(1000), "step": 3}, path)
    data = path.read_bytes()
    for cut in (len(data) // 2, len(data) - 10):
        path.write_bytes(data[:cut])
        with pytest.raises(match="truncated"):
            load(path)


def test_loading_a_zip_of_other_files_or_a_single_npy_is_refused(tmp_path):
    with zipfile.ZipFile(tmp_path / "other.zip", "w") as archive:
        archive.writestr("readme.txt", "hello")
    with pytest.raises(match="a zip of other files"):
        load(tmp_path / "other.zip")
    np.save(tmp_path / "array.npy", np.ones(3))
    with pytest.raises(ValueError, match=r"\.npy.*expected a \.npz"):
        load(tmp_path / "array.npy")


def test_loading_an_object_array_is_refused_without_unpickling(tmp_path):
    path = tmp_path / "evil.npz"
    np.savez(  # np.savez pickles object arrays by default: this is the dangerous kind of file
        path,
        weight=np.ones(2),
        payload=np.array([RunsCodeWhenUnpickled(), None], dtype=object),
    )
    UNPICKLED.clear()
    with pytest.raises(ValueError, match="object arrays are refused.*unpickl") as info:
        load(path)
    assert "'payload'" in str(info.value)
    assert UNPICKLED == []


def _checkpoint_with(path, manifest_arrays, members):
    """A zip holding a manifest of one tensor and the given raw members."""
    manifest = {"format": "tinygrad_norm.save", "version": 1, "root": {"ndarray": 0}}
    manifest["arrays"] = manifest_arrays
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", json.dumps(manifest))
        for name, write in members.items():
            with archive.open(name, "w", force_zip64=True) as member:
                write(member)


def test_a_manifest_that_names_an_object_dtype_is_refused(tmp_path):
    path = tmp_path / "evil.npz"
    payload = np.array([RunsCodeWhenUnpickled()], dtype=object)
    write = lambda m: np.lib.format.write_array(m, payload, allow_pickle=True)  # noqa: E731
    _checkpoint_with(path, {"0": {"dtype": "|O", "shape": [1]}}, {"0.npy": write})
    UNPICKLED.clear()
    with pytest.raises(match="object array"):
        load(path)
    _checkpoint_with(path, {"0": {"dtype": "<f8", "shape": [1]}}, {"0.npy": write})
    with pytest.raises(match="object array"):
        load(path)
    assert UNPICKLED == []


def test_an_array_that_disagrees_with_the_manifest_is_refused(tmp_path):
    path = tmp_path / "odd.npz"
    write = lambda m: np.lib.format.write_array(m, np.ones((2, 2)))  # noqa: E731
    _checkpoint_with(path, {"0": {"dtype": "<f8", "shape": [4]}}, {"0.npy": write})
    with pytest.raises(match=r"holds \(2, 2\) float64, the manifest says \(4,\)"):
        load(path)
    _checkpoint_with(path, {"0": {"dtype": "<f8", "shape": [4]}}, {})
    with pytest.raises(match="missing"):
        load(path)


GIB = 1 << 30


def _bomb_member(member, header_shape):
    """A .npy header for `header_shape` float64, then 1 GiB of zeros (deflates to ~1 MB)."""
    np.lib.format.write_array_header_1_0(
        member, {"descr": "<f8", "fortran_order": False, "shape": header_shape}
    )
    chunk = bytes(1 << 24)
    for _ in range(GIB // len(chunk)):
        member.write(chunk)


def test_a_deflate_bomb_is_refused_before_it_allocates(tmp_path):
    path = tmp_path / "bomb.npz"
    _checkpoint_with(
        path,
        {"0": {"dtype": "<f8", "shape": [10]}},
        {"0.npy": lambda m: _bomb_member(m, (10,))},
    )
    assert path.stat().st_size < 8 * (1 << 20)  # a few MB on disk
    tracemalloc.start()
    try:
        with pytest.raises(match="zip bomb"):
            load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * (1 << 20)


def test_a_plain_npz_whose_member_outgrows_its_header_is_refused(tmp_path):
    path = tmp_path / "bomb.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("w.npy", "w", force_zip64=True) as member:
            np.lib.format.write_array_header_1_0(
                member, {"descr": "<f8", "fortran_order": False, "shape": (10,)}
            )
            member.write(bytes(1 << 22))
    with pytest.raises(match="more bytes than its header"):
        load(path)


def test_a_plain_npz_of_arrays_still_loads(tmp_path):
    np.savez(tmp_path / "plain.npz", a=np.arange(3), b=np.eye(2, dtype=np.float32))
    loaded = load(tmp_path / "plain.npz")
    assert list(loaded) == ["a", "b"] and loaded["b"].dtype == np.float32
    np.testing.assert_array_equal(loaded["a"], [0, 1, 2])


# --- a dict of tensors, as torch.save -------------------------------------------------------------


def test_save_load_round_trip_of_a_dict_of_tensors(tmp_path):
    state = {
        "weight": tg.randn(3, 4),
        "bias": tg.tensor([1.0, -2.0], dtype=tg.float64),
        "step": tg.tensor(7),
        "mask": tg.tensor([True, False]),
    }
    path = tmp_path / "model.npz"
    tg.save(state, path)
    loaded = tg.load(path)
    assert set(loaded) == set(state)
    for name, tensor in state.items():
        assert isinstance(loaded[name], tg.Tensor)  # the same structure back, as torch.load
        assert loaded[name].dtype == tensor.dtype and loaded[name].shape == tensor.shape
        np.testing.assert_array_equal(loaded[name], tensor.numpy())
    restored = tg.tensor(loaded["weight"])
    assert restored.dtype == tg.float32
