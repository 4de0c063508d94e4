"""Write PyTorch's zip format (`torch.save`'s since 1.6), which real `torch.load` reads with
`weights_only=True`; nothing of PyTorch is imported.

    stem/data.pkl              the structure, a protocol-2 pickle (`pickle_writer.py`)
    stem/.format_version       "1"
    stem/.storage_alignment    "64": each storage starts at a multiple of 64 bytes in the file
    stem/byteorder             "little"
    stem/data/0, data/1, ...   the storages: raw little-endian bytes, stored uncompressed
    stem/version               "3"

A whole Module (`torch.save(model, f)`) is written as PyTorch writes it, in the same zip: its
class's import path and its attributes, rebuilt without calling __init__ (`object_writer.py`
has the details).

`stem` is the file's name without its extension, as `torch.save` names its one top-level
folder. In the pickle a tensor is a call that rebuilds a strided view of a storage:

    torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, OrderedDict())
    storage = persistent id ("storage", torch.FloatStorage, "0", "cpu", numel)

with sizes, strides and the offset counted in elements. uint16 / uint32 / uint64 have no
typed storage class: they are `_rebuild_tensor_v3(...)` with the dtype as a seventh
argument, over a `torch.UntypedStorage` whose numel counts bytes. A Parameter wraps its
tensor in `torch._utils._rebuild_parameter(tensor, requires_grad, OrderedDict())`.

Views keep their storage as PyTorch's do: tensors that are NumPy views of one array are
saved as views (offset, strides) of that array's one storage, so `{"w": w, "row": w[1]}`
stores w once. A view with negative strides, or of memory that is not one plain array, is
copied into a storage of its own first.

>>> import io, zipfile
>>> file = io.BytesIO()
>>> write_torch_zip({"w": np.ones((2, 3), np.float32)}, file, "model")
>>> zipfile.ZipFile(file).namelist()  # doctest: +NORMALIZE_WHITESPACE
['model/data.pkl', 'model/.format_version', 'model/.storage_alignment', 'model/byteorder',
 'model/data/0', 'model/version']
"""

from __future__ import annotations

import os
import zipfile
from collections import OrderedDict

import numpy as np

from ..nn.module import Parameter
from ..optim import Optimizer
from ..tensor import Tensor
from .object_writer import encode_object
from .pickle_writer import Call, Global, Memo, PersistentId, Ref, dumps

ALIGNMENT = 64  # bytes: where each storage starts, so torch.load(mmap=True) can map it

STORAGE_CLASSES = {  # NumPy dtype -> PyTorch's typed storage class
    np.dtype(np.float64): "DoubleStorage",
    np.dtype(np.float32): "FloatStorage",
    np.dtype(np.float16): "HalfStorage",
    np.dtype(np.int64): "LongStorage",
    np.dtype(np.int32): "IntStorage",
    np.dtype(np.int16): "ShortStorage",
    np.dtype(np.int8): "CharStorage",
    np.dtype(np.uint8): "ByteStorage",
    np.dtype(np.bool_): "BoolStorage",
    np.dtype(np.complex64): "ComplexFloatStorage",
    np.dtype(np.complex128): "ComplexDoubleStorage",
}
UNTYPED = {np.dtype(f"uint{bits}"): f"uint{bits}" for bits in (16, 32, 64)}  # no typed storage

WHAT_IT_TAKES = (
    "a PyTorch file holds nested dicts, lists and tuples of Tensors, NumPy arrays, numbers, "
    "strings, bools and None, and whole Modules"
)


def archive_name(path) -> str:
    """The top-level folder `torch.save` uses: the file's name without its extension."""
    if path is None:
        return "archive"
    stem = os.path.splitext(os.path.basename(os.fspath(path)))[0]
    return stem or "archive"


def write_torch_zip(obj, file, name: str = "archive") -> None:
    """Write `obj` to the open binary `file` in PyTorch's zip format, folder `name`."""
    encoding = Encoding()
    data_pkl = dumps(encoding.encode(obj, "obj"))
    with zipfile.ZipFile(file, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(f"{name}/data.pkl", data_pkl)
        archive.writestr(f"{name}/.format_version", "1")
        archive.writestr(f"{name}/.storage_alignment", str(ALIGNMENT))
        archive.writestr(f"{name}/byteorder", "little")
        for key, flat in enumerate(encoding.storages.arrays):
            _write_aligned(archive, f"{name}/data/{key}", flat)
        archive.writestr(f"{name}/version", "3\n")


class Storages:
    """The storages met so far: each array that owns memory, once, in a 1-D byte order."""

    def __init__(self):
        self.arrays: list[np.ndarray] = []  # 1-D, contiguous, little-endian
        self.keys: dict[int, int] = {}  # id(owner) -> key
        self.owners: list[np.ndarray] = []  # kept alive so their ids stay unique

    def add(self, owner: np.ndarray, flat: np.ndarray) -> str:
        if id(owner) not in self.keys:
            self.keys[id(owner)] = len(self.arrays)
            self.arrays.append(flat)
            self.owners.append(owner)
        return str(self.keys[id(owner)])


class Encoding:
    """What one save has met so far: the storages, and the memo keys of the objects that
    may be met again (tensors, modules), so each is written once."""

    def __init__(self):
        self.storages = Storages()
        self.memo: dict[int, int] = {}  # id(object) -> memo key
        self.alive: list = []  # the objects of the memo, kept alive so their ids stay unique

    def encode(self, value, where: str):
        """`value` with every tensor, array and module replaced by what rebuilds it."""
        if value is None or isinstance(value, (bool, int, float, complex, str, bytes, bytearray)):
            return value
        if id(value) in self.memo:
            return Ref(self.memo[id(value)])
        if isinstance(value, Optimizer):
            raise TypeError(
                f"save: {where} is an optimizer ({type(value).__name__}); save "
                "optimizer.state_dict() and restore it with optimizer.load_state_dict(...)"
            )
        if isinstance(value, Tensor):
            self.alive.append(value)
            key = self.memo[id(value)] = len(self.memo)
            return Memo(key, _tensor_call(value, where, self.storages))
        if isinstance(value, np.ndarray):
            return _tensor(value, where, self.storages, False)
        if isinstance(value, np.generic):  # a NumPy scalar: the Python number it holds
            item = value.item()
            if not isinstance(item, (bool, int, float, complex)):
                raise TypeError(f"save: {where} is a {type(value).__name__}; {WHAT_IT_TAKES}")
            return item
        if isinstance(value, dict):
            return self._dict(value, where)
        if isinstance(value, (list, tuple)):
            items = [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
            return items if isinstance(value, list) else tuple(items)
        self.alive.append(value)
        spelled = encode_object(value, where, self.memo, self.encode)
        if spelled is not None:
            return spelled
        data = getattr(value, "data", None)  # an array-holding object of another library
        if isinstance(data, np.ndarray) or hasattr(value, "__array__"):
            array = data if isinstance(data, np.ndarray) else np.asarray(value)
            return _tensor(array, where, self.storages, False)
        raise TypeError(f"save: {where} is a {type(value).__name__}; {WHAT_IT_TAKES}")

    def _dict(self, value: dict, where: str):
        encoded = OrderedDict() if isinstance(value, OrderedDict) else {}
        for key, item in value.items():
            if not (key is None or isinstance(key, (bool, int, float, str))):
                raise TypeError(
                    f"save: {where} has the key {key!r} ({type(key).__name__}); keys must be "
                    "strings, numbers, bools or None"
                )
            encoded[key] = self.encode(item, f"{where}[{key!r}]")
        return encoded


def _tensor_call(value: Tensor, where: str, storages: Storages) -> Call:
    """The rebuild of a Tensor; a Parameter wraps its tensor, which does not require grad
    itself."""
    if isinstance(value, Parameter):
        inner = _tensor(value.array, where, storages, False)
        args = (inner, bool(value.requires_grad), _HOOKS)
        return Call("torch._utils", "_rebuild_parameter", args)
    return _tensor(value.array, where, storages, bool(value.requires_grad))


_HOOKS = Call("collections", "OrderedDict", ())  # the empty backward hooks every tensor has


def _tensor(array: np.ndarray, where: str, storages: Storages, requires_grad: bool) -> Call:
    """The rebuild call of `array`: a view of its owner's storage, or of a copy of it."""
    native = array.dtype.newbyteorder("=")  # the same dtype in this machine's byte order
    if native not in STORAGE_CLASSES and native not in UNTYPED:
        raise TypeError(
            f"save: {where} has dtype {array.dtype}, which PyTorch has no tensor for; convert "
            "it (e.g. .astype(np.float64)) or save to a .npz file"
        )
    view = _as_view(array)
    if view is None:  # copy: a contiguous little-endian array of its own
        owner = np.array(array, dtype=native.newbyteorder("<"), order="C")  # keeps 0-d
        view = (owner, owner.reshape(-1), 0, _element_strides(owner))
    owner, flat, offset, strides = view
    key = storages.add(owner, flat)
    size = tuple(int(n) for n in array.shape)
    if native in UNTYPED:
        storage = PersistentId(
            ("storage", Global("torch.storage", "UntypedStorage"), key, "cpu", flat.nbytes)
        )
        dtype_global = Global("torch", UNTYPED[native])
        args = (storage, offset, size, strides, requires_grad, _HOOKS, dtype_global)
        return Call("torch._utils", "_rebuild_tensor_v3", args)
    storage_class = Global("torch", STORAGE_CLASSES[native])
    storage = PersistentId(("storage", storage_class, key, "cpu", flat.size))
    args = (storage, offset, size, strides, requires_grad, _HOOKS)
    return Call("torch._utils", "_rebuild_tensor_v2", args)


def _as_view(array: np.ndarray):
    """(owner, its memory as a 1-D array, offset, strides in elements) when `array` is a
    non-empty little-endian view with non-negative strides of one contiguous array; else
    None (the caller copies)."""
    owner = array
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if (
        array.size == 0
        or not (owner.flags.c_contiguous or owner.flags.f_contiguous)
        or owner.dtype != array.dtype
        or array.dtype.byteorder == ">"
        or not np.little_endian
        or any(s < 0 for s in array.strides)
    ):
        return None
    itemsize = array.dtype.itemsize
    start = array.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    strides = [s // itemsize for s in array.strides]
    if start % itemsize or any(s % itemsize for s in array.strides):
        return None
    flat = owner.reshape(-1, order="A")  # the owner's memory, in memory order (no copy)
    offset = start // itemsize
    last = offset + sum((n - 1) * s for n, s in zip(array.shape, strides))
    if offset < 0 or last >= flat.size:
        return None
    shape_strides = tuple(1 if n == 1 else s for n, s in zip(array.shape, strides))
    return owner, flat, offset, shape_strides


def _element_strides(array: np.ndarray) -> tuple:
    """C-order strides in elements (PyTorch's contiguous strides; 1 for sizes 0 and 1)."""
    strides, step = [], 1
    for n in reversed(array.shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _write_aligned(archive: zipfile.ZipFile, name: str, flat: np.ndarray) -> None:
    """Write `flat`'s bytes as an uncompressed member whose data starts at a multiple of
    ALIGNMENT in the file: the local header's extra field is padded to get there."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.file_size, info.compress_size, info.CRC = flat.nbytes, 0, 0  # (filled in on close)
    zip64 = flat.nbytes * 1.05 > zipfile.ZIP64_LIMIT  # as ZipFile.open decides
    header = len(info.FileHeader(zip64)) + 4  # + the padding field's own 4-byte header
    padding = -(archive.fp.tell() + header) % ALIGNMENT
    info.extra = b"FB" + padding.to_bytes(2, "little") + b"Z" * padding
    raw = np.ascontiguousarray(flat).view(np.uint8)
    with archive.open(info, "w", force_zip64=zip64) as member:
        for start in range(0, raw.size, 1 << 24):
            member.write(raw[start : start + (1 << 24)].data)
