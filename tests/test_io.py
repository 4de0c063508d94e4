"""save / load: a round trip keeps names, dtypes, shapes and values; pickle is never used."""

import numpy as np
import pytest

from tinygrad_norm.io import load, save

UNPICKLED = []


def _record_unpickling(tag):
    UNPICKLED.append(tag)
    return tag


class _RunsCodeWhenUnpickled:
    """Unpickling this object calls ``_record_unpickling``: proof that a loader ran code."""

    def __reduce__(self):
        return (_record_unpickling, ("code ran",))


class TensorLike:
    """Stands in for tinygrad_norm.Tensor, which keeps its values in ``.data``."""

    def __init__(self, data):
        self.data = np.asarray(data)


class ArrayLike:
    """Only speaks NumPy's ``__array__`` protocol."""

    def __array__(self, dtype=None, copy=None):
        return np.arange(4, dtype=np.int64).reshape(2, 2)


def test_round_trip_keeps_names_dtypes_shapes_and_values(tmp_path):
    rng = np.random.default_rng(0)
    state = {
        "transformer.h.0.ln_1.weight": rng.standard_normal((2, 3)).astype(np.float32),
        "transformer.h.0.ln_1.bias": rng.standard_normal(5),  # float64
        "counts": np.arange(24, dtype=np.int64).reshape(2, 3, 4),
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


def test_python_numbers_become_zero_dim_arrays(tmp_path):
    path = tmp_path / "numbers.npz"
    save({"step": 7, "lr": 0.5, "flag": True}, path)
    loaded = load(path)
    assert loaded["step"].shape == () and loaded["step"].dtype.kind == "i" and loaded["step"] == 7
    assert loaded["lr"].dtype == np.float64 and loaded["lr"] == 0.5
    assert loaded["flag"].dtype == np.bool_ and loaded["flag"]


def test_tensor_like_values_are_saved_through_their_data(tmp_path):
    weight = np.array([[1.5, -2.0, 3.25]], dtype=np.float32)
    path = tmp_path / "tensors.npz"
    save({"weight": TensorLike(weight), "table": ArrayLike()}, path)
    loaded = load(path)
    assert loaded["weight"].dtype == np.float32
    np.testing.assert_array_equal(loaded["weight"], weight)
    np.testing.assert_array_equal(loaded["table"], [[0, 1], [2, 3]])


def test_writes_exactly_the_given_path(tmp_path):
    path = tmp_path / "checkpoint.bin"
    save({"x": np.ones(3)}, str(path))
    assert path.exists()
    assert not (tmp_path / "checkpoint.bin.npz").exists()
    np.testing.assert_array_equal(load(str(path))["x"], np.ones(3))


def test_saving_an_object_array_is_refused_before_writing(tmp_path):
    path = tmp_path / "bad.npz"
    with pytest.raises(ValueError, match="object array") as info:
        save({"ok": np.ones(2), "bad": np.array([{"a": 1}, None], dtype=object)}, path)
    assert "'bad'" in str(info.value)
    assert not path.exists()


def test_saving_needs_a_dict_with_string_names(tmp_path):
    with pytest.raises(TypeError, match="dict"):
        save([np.ones(2)], tmp_path / "list.npz")
    with pytest.raises(TypeError, match="string names"):
        save({0: np.ones(2)}, tmp_path / "int_key.npz")


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


def test_loading_a_single_npy_is_refused(tmp_path):
    path = tmp_path / "array.npy"
    np.save(path, np.ones(3))
    with pytest.raises(ValueError, match=r"\.npy.*expected a \.npz"):
        load(path)


def test_loading_an_object_array_is_refused_without_unpickling(tmp_path):
    path = tmp_path / "evil.npz"
    np.savez(  # np.savez pickles object arrays by default: this is the dangerous kind of file
        path,
        weight=np.ones(2),
        payload=np.array([_RunsCodeWhenUnpickled(), None], dtype=object),
    )
    UNPICKLED.clear()
    with pytest.raises(ValueError, match="object arrays are refused.*unpickle") as info:
        load(path)
    assert "'payload'" in str(info.value)
    assert UNPICKLED == []
