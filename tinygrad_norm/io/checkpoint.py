"""Checkpoints of any training state as an `.npz` with a JSON manifest, never a pickle.

A file should be data, never code. `pickle` (what `torch.save` uses) stores objects as
instructions that rebuild them, so unpickling a downloaded file runs whatever its author put
in it. Here a checkpoint is a zip of `.npy` members (a small header, then raw numbers) plus
`manifest.json`, which holds the structure: the nested dicts, lists and tuples, the numbers,
strings, bools and None themselves, and for each array its member, dtype and shape.

    {"format": "tinygrad_norm.save", "version": 1,
     "root": {"dict": [["model", {"dict": [["w", {"tensor": 0, "requires_grad": false}]]}],
                       ["step", 1200]]},
     "arrays": {"0": {"dtype": "<f4", "shape": [3, 4]}}}

An array that appears twice (a tied weight) is stored once. Loading checks each member
against the manifest before reading it (see `arrays.read_array`).
"""

from __future__ import annotations

import json
import zipfile
from collections import OrderedDict

import numpy as np

from ..nn.module import Module, Parameter
from ..optim import Optimizer
from ..tensor import Tensor
from .arrays import checked_dtype, checked_shape, nbytes_of, read_array

FORMAT = "tinygrad_norm.save"
MANIFEST = "manifest.json"
MAX_MANIFEST_BYTES = 1 << 26  # 64 MiB of JSON: far more than any real structure needs
NPY_HEADER_SLACK = 1 << 16  # a .npy header is at most 64 KiB (format version 2)

WHAT_SAVE_TAKES = (
    "tg.save stores nested dicts, lists and tuples of Tensors, NumPy arrays, numbers, "
    "strings, bools and None"
)


# --- saving --------------------------------------------------------------------------------
def write_checkpoint(obj, file) -> None:
    """Write `obj` to the open binary `file` as a zip of .npy members and the manifest."""
    arrays: list[np.ndarray] = []
    root = _encode(obj, "obj", arrays, {})
    manifest = {
        "format": FORMAT,
        "version": 1,
        "root": root,
        "arrays": {
            str(i): {"dtype": a.dtype.str, "shape": list(a.shape)} for i, a in enumerate(arrays)
        },
    }
    with zipfile.ZipFile(file, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(MANIFEST, json.dumps(manifest))
        for i, array in enumerate(arrays):
            with archive.open(f"{i}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)


def _encode(value, where: str, arrays: list, seen: dict):
    """The manifest node of `value`; its arrays are appended to `arrays` (once each)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    refuse_module_or_optimizer(value, where)
    if isinstance(value, Tensor):
        node = {"tensor": _array_id(np.asarray(value), where, arrays, seen)}
        node["requires_grad"] = bool(value.requires_grad)
        if isinstance(value, Parameter):
            node["parameter"] = True
        return node
    if isinstance(value, np.ndarray):
        return {"ndarray": _array_id(value, where, arrays, seen)}
    if isinstance(value, np.generic):
        return {"scalar": _array_id(np.asarray(value), where, arrays, seen)}
    if isinstance(value, dict):
        items = []
        for key, item in value.items():
            if isinstance(key, bool) or not isinstance(key, (str, int)):
                raise TypeError(
                    f"save: {where} has the key {key!r} ({type(key).__name__}); "
                    "keys must be strings or ints"
                )
            items.append([key, _encode(item, f"{where}[{key!r}]", arrays, seen)])
        node = {"dict": items}
        if isinstance(value, OrderedDict):
            node["ordered"] = True
        return node
    if isinstance(value, (list, tuple)):
        kind = "list" if isinstance(value, list) else "tuple"
        return {kind: [_encode(v, f"{where}[{i}]", arrays, seen) for i, v in enumerate(value)]}
    # our Tensor keeps its ndarray in .array; an array-holding object of another library
    # might keep it in .data
    data = getattr(value, "array", None)
    data = data if isinstance(data, np.ndarray) else getattr(value, "data", None)
    if isinstance(data, np.ndarray) or hasattr(value, "__array__"):
        array = data if isinstance(data, np.ndarray) else np.asarray(value)
        return {"ndarray": _array_id(array, where, arrays, seen)}
    raise TypeError(f"save: {where} is a {type(value).__name__}; {WHAT_SAVE_TAKES} (never pickle)")


def refuse_module_or_optimizer(value, where: str) -> None:
    """Every writer's hint for a Module or an optimizer: save its state_dict()."""
    if isinstance(value, Module):
        raise TypeError(
            f"save: {where} is a Module ({type(value).__name__}); save its weights instead: "
            "tg.save(model.state_dict(), path), and later "
            "model.load_state_dict(tg.load(path)) into a model built the same way (a whole "
            "Module goes to a PyTorch file only: a path ending in .pt)"
        )
    if isinstance(value, Optimizer):
        raise TypeError(
            f"save: {where} is an optimizer ({type(value).__name__}); save "
            "optimizer.state_dict() and restore it with optimizer.load_state_dict(...)"
        )


def _array_id(array: np.ndarray, where: str, arrays: list, seen: dict) -> int:
    if array.dtype.hasobject:
        raise ValueError(
            f"cannot save {where}: it is an object array (dtype={array.dtype}); object arrays "
            "are refused because loading them would unpickle, and unpickling can run "
            "arbitrary code. Convert it to a numeric dtype first."
        )
    checked_dtype(array.dtype.str, f"cannot save {where}")
    if id(array) not in seen:  # the same array twice (tied weights) is stored once
        seen[id(array)] = len(arrays)
        arrays.append(array)
    return seen[id(array)]


# --- loading -------------------------------------------------------------------------------
def read_checkpoint(archive: zipfile.ZipFile, where: str):
    """The object `write_checkpoint` wrote, from its open zip."""
    info = archive.getinfo(MANIFEST)
    if info.file_size > MAX_MANIFEST_BYTES:
        raise ValueError(f"{where}: its manifest claims {info.file_size} bytes: not ours")
    try:
        with archive.open(info) as member:
            manifest = json.loads(member.read(MAX_MANIFEST_BYTES + 1))
        version, root, table = manifest["version"], manifest["root"], manifest["arrays"]
    except (ValueError, KeyError, TypeError) as err:
        raise ValueError(f"{where}: its manifest is not valid ({err})") from err
    if manifest.get("format") != FORMAT or version != 1:
        raise ValueError(f"{where}: a manifest of another format or version ({version!r})")
    loaded: dict = {}

    def array(i) -> np.ndarray:
        if str(i) not in loaded:
            loaded[str(i)] = _read_member(archive, str(i), table, where)
        return loaded[str(i)]

    return _decode(root, array, where)


def _read_member(archive: zipfile.ZipFile, name: str, table: dict, where: str) -> np.ndarray:
    """Array `name`, its zip entry and .npy header checked against the manifest first."""
    here = f"array {name} in {where}"
    if not isinstance(table.get(name), dict):
        raise ValueError(f"{where}: the manifest names array {name} but does not describe it")
    dtype = checked_dtype(table[name].get("dtype"), here)
    shape = checked_shape(table[name].get("shape"), here)
    try:
        info = archive.getinfo(name + ".npy")
    except KeyError:
        raise ValueError(f"{where}: array {name} of the manifest is missing") from None
    expected = nbytes_of(shape, dtype)
    if info.file_size > expected + NPY_HEADER_SLACK:
        raise ValueError(
            f"{here} unpacks to {info.file_size} bytes, but the manifest describes "
            f"{shape} {dtype} ({expected} bytes): refused (a damaged file or a zip bomb)"
        )
    with archive.open(info) as member:
        npy_shape, fortran, npy_dtype = read_npy_header(member, here)
        if npy_shape != shape or npy_dtype != dtype:
            raise ValueError(
                f"{here} holds {npy_shape} {npy_dtype}, the manifest says {shape} {dtype}"
            )
        return read_array(member, shape, dtype, here, fortran)


def read_npy_header(member, where: str):
    """(shape, fortran_order, dtype) of a .npy stream, which is left at the data."""
    try:
        version = np.lib.format.read_magic(member)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(member)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(member)
    except ValueError as err:
        raise ValueError(f"{where} is not a valid .npy array ({err})") from err
    return tuple(shape), fortran, checked_dtype(dtype.str if not dtype.fields else dtype, where)


def _decode(node, array, where: str):
    """The Python object of a manifest node; `array(i)` gives array i."""
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    if isinstance(node, list) or not isinstance(node, dict) or len(node) == 0:
        raise ValueError(f"{where}: unexpected manifest entry {str(node)[:80]!r}")
    kind = next(iter(node))
    if kind == "tensor":
        cls = Parameter if node.get("parameter") else Tensor
        if cls is Parameter:
            return Parameter(array(node["tensor"]), requires_grad=bool(node["requires_grad"]))
        return Tensor._make(array(node["tensor"]), requires_grad=bool(node["requires_grad"]))
    if kind == "ndarray":
        return array(node["ndarray"])
    if kind == "scalar":
        return array(node["scalar"])[()]
    if kind == "dict":
        pairs = [(key, _decode(value, array, where)) for key, value in node["dict"]]
        return OrderedDict(pairs) if node.get("ordered") else dict(pairs)
    if kind in ("list", "tuple"):
        items = [_decode(value, array, where) for value in node[kind]]
        return items if kind == "list" else tuple(items)
    raise ValueError(f"{where}: unexpected manifest entry of kind {kind!r}")


def read_plain_npz(archive: zipfile.ZipFile, where: str) -> dict:
    """An `.npz` without a manifest (`np.savez`, or tg.save before manifests): name -> array,
    each member's size checked against its own .npy header."""
    state = {}
    for info in archive.infolist():
        name = info.filename[: -len(".npy")]
        here = f"{name!r} in {where}"
        with archive.open(info) as member:
            shape, fortran, dtype = read_npy_header(member, here)
            if info.file_size > nbytes_of(shape, dtype) + NPY_HEADER_SLACK:
                raise ValueError(f"{here} unpacks to more bytes than its header describes")
            state[name] = read_array(member, shape, dtype, here, fortran)
    return state
