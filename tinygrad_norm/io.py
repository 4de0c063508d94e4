"""Save and load named arrays as a ``.npz`` file, never with pickle.

A file should be data, never code. ``pickle`` (what ``torch.save`` uses by default) stores
objects as instructions that rebuild them, so unpickling a file you downloaded runs whatever
code its author put in it. A ``.npz`` is a zip of ``.npy`` files: a small header (dtype,
shape) followed by raw numbers. The one door to pickle it still has is the object array
(``dtype=object``), so ``save`` refuses to write one and ``load`` refuses to read one.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "weights.npz")
>>> save({"weight": np.ones((2, 3), dtype=np.float32), "step": 10}, path)
>>> state = load(path)
>>> state["weight"].shape, state["weight"].dtype, state["step"]
((2, 3), dtype('float32'), array(10))
"""

import os
import zipfile

import numpy as np

_NOT_NPZ = (
    "expected a .npz file written by tinygrad_norm.save (a PyTorch .pt checkpoint is a pickle: "
    "load it with torch, then give load_state_dict {name: tensor.numpy()})"
)
_WHY_NO_OBJECTS = (
    "object arrays are refused because loading them would unpickle, and unpickling can run "
    "arbitrary code"
)


def save(state, path):
    """Write ``state``, a dict of name -> array, to ``path`` as a ``.npz``.

    Values may be NumPy arrays, Python numbers or lists, or Tensors (anything with a ``.data``
    ndarray or ``__array__``). The file is written exactly at ``path``: no ``.npz`` is appended.
    """
    if not hasattr(state, "items"):
        raise TypeError(f"save expects a dict of name -> array, got {type(state).__name__}")
    arrays = {}
    for name, value in state.items():
        if not isinstance(name, str):
            raise TypeError(f"save needs string names, got {name!r} ({type(name).__name__})")
        arrays[name] = _as_array(name, value)
    # np.savez would take the names as keyword arguments, so a name like "file" would clash
    # with its own parameters; writing the zip of .npy members ourselves has no such limit.
    with open(os.fspath(path), "wb") as f, zipfile.ZipFile(f, "w") as archive:
        for name, array in arrays.items():
            with archive.open(name + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)


def load(path):
    """Read a ``.npz`` written by ``save`` back as a dict of name -> ``np.ndarray``."""
    try:
        archive = np.load(path, allow_pickle=False)
    except (ValueError, EOFError, zipfile.BadZipFile) as err:
        raise ValueError(f"cannot load {os.fspath(path)!r}: {_NOT_NPZ}") from err
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ValueError(f"cannot load {os.fspath(path)!r}: it is a single .npy array; {_NOT_NPZ}")
    state = {}
    with archive:
        for name in archive.files:
            try:
                array = archive[name]
            except ValueError as err:  # numpy with allow_pickle=False: an object array
                where = f"{name!r} in {os.fspath(path)!r}"
                raise ValueError(f"{where} is an object array; {_WHY_NO_OBJECTS}") from err
            if not isinstance(array, np.ndarray):  # a zip member that is not a .npy
                raise ValueError(f"{name!r} in {os.fspath(path)!r} is not an array; {_NOT_NPZ}")
            state[name] = array
    return state


def _as_array(name, value):
    """``value`` as an ndarray: a Tensor gives its ``.data``, anything else goes to np.asarray."""
    data = getattr(value, "data", None)  # an ndarray's own .data is a memoryview: not used
    try:
        array = np.asarray(data if isinstance(data, np.ndarray) else value)
    except (ValueError, TypeError) as err:
        raise ValueError(f"cannot save {name!r}: it does not convert to an array ({err})") from err
    if array.dtype.hasobject:
        raise ValueError(
            f"cannot save {name!r}: it is an object array (dtype={array.dtype}); "
            f"{_WHY_NO_OBJECTS}. Convert it to a numeric dtype first."
        )
    return array
