"""Read PyTorch `.pt` / `.bin` state dicts without PyTorch and without running their code.

`torch.save` writes a pickle: a small program of opcodes that rebuilds the objects. Its one
dangerous opcode names a global ("module.name") that the unpickler imports and calls: in a
malicious file, `os.system`. `Unpickler` below replaces `find_class` with an allow-list, the
globals PyTorch's own `weights_only=True` loader accepts for a state dict: the tensor-rebuild
functions, storage types, dtypes, `OrderedDict` and plain containers. Each maps to our own
harmless stand-in; any other global is refused before anything is called.

The tensors' numbers are not in the pickle. It names each storage by a "persistent id"
`('storage', FloatStorage, key, location, numel)`, and `persistent_load` fetches the bytes:

    zip format (torch >= 1.6)   archive/data.pkl, and storage `key` in archive/data/<key>
    legacy format               five pickles (magic number, protocol, system info, the object,
                                the storage keys), then each storage: an int64 count of
                                elements, then its raw little-endian bytes

`_rebuild_tensor_v2(storage, offset, size, stride, ...)` only records a view (`_v3`, for
uint16/32/64, adds the dtype to read an untyped storage's bytes as); once every
storage is read, `_resolve` turns the views into Tensors (bounds checked: a view must lie
inside its storage).
"""

from __future__ import annotations

import pickle
import zipfile
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from ..nn.module import Parameter
from ..tensor import Tensor
from .arrays import bfloat16_to_float32, nbytes_of, read_array

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C  # the first pickle of a legacy torch.save file

# storage type -> NumPy dtype of its bytes ("<u2" for bfloat16: widened to float32 on load)
STORAGES = {
    "DoubleStorage": "<f8",
    "FloatStorage": "<f4",
    "HalfStorage": "<f2",
    "BFloat16Storage": "<u2",
    "LongStorage": "<i8",
    "IntStorage": "<i4",
    "ShortStorage": "<i2",
    "CharStorage": "i1",
    "ByteStorage": "u1",
    "BoolStorage": "?",
    "ComplexFloatStorage": "<c8",
    "ComplexDoubleStorage": "<c16",
    "UntypedStorage": "u1",
}
DTYPES = {  # torch.<name> as it may appear in a pickle -> NumPy
    "float64": np.float64,
    "float32": np.float32,
    "float16": np.float16,
    "bfloat16": np.float32,
    "int64": np.int64,
    "int32": np.int32,
    "int16": np.int16,
    "int8": np.int8,
    "uint8": np.uint8,
    "uint16": np.uint16,
    "uint32": np.uint32,
    "uint64": np.uint64,
    "bool": np.bool_,
    "complex64": np.complex64,
    "complex128": np.complex128,
}


@dataclass
class StorageType:
    name: str


@dataclass
class Storage:
    """A storage's bytes as a 1-D array (None until a legacy file's data is read)."""

    name: str
    numel: int
    array: np.ndarray | None = None


@dataclass
class TensorRef:
    """A tensor recorded by a rebuild function: a strided view of a storage."""

    storage: Storage
    offset: int
    size: tuple
    stride: tuple
    requires_grad: bool = False
    parameter: bool = False
    dtype: np.dtype | None = None  # set by _rebuild_tensor_v3: how to read an untyped storage


class _TorchClass:
    """Stands for torch.Tensor / torch.nn.Parameter in `_rebuild_from_type_v2`."""


def _rebuild_tensor(storage, storage_offset, size, stride, *_):
    return TensorRef(storage, storage_offset, tuple(size), tuple(stride))


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, *_):
    return TensorRef(storage, storage_offset, tuple(size), tuple(stride), bool(requires_grad))


def _rebuild_tensor_v3(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, *_
):  # fmt: skip
    """PyTorch's rebuild for dtypes without a typed storage (uint16/32/64): the storage is
    untyped (bytes), and `dtype` says how to read it."""
    if not isinstance(dtype, np.dtype):
        raise pickle.UnpicklingError(f"a tensor of dtype {dtype!r} is refused")
    ref = TensorRef(storage, storage_offset, tuple(size), tuple(stride), bool(requires_grad))
    ref.dtype = dtype
    return ref


def _rebuild_parameter(data, requires_grad, *_):
    if not isinstance(data, TensorRef):
        raise pickle.UnpicklingError("a Parameter that does not hold a tensor")
    data.requires_grad, data.parameter = bool(requires_grad), True
    return data


def _rebuild_from_type_v2(func, new_type, args, state):
    if not isinstance(new_type, _TorchClass):
        raise pickle.UnpicklingError(f"a tensor of the subclass {new_type!r} is refused")
    return func(*args)


def _encode(text, encoding="latin1"):
    """`_codecs.encode`: protocol-2 pickles spell bytes as encode(str, 'latin1')."""
    if encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError(f"_codecs.encode with {encoding!r} is refused")
    return text.encode("latin1")


ALLOWED = {  # module -> {name: what find_class returns for module.name}
    "collections": {"OrderedDict": OrderedDict},
    "torch._utils": {
        "_rebuild_tensor": _rebuild_tensor,
        "_rebuild_tensor_v2": _rebuild_tensor_v2,
        "_rebuild_tensor_v3": _rebuild_tensor_v3,
        "_rebuild_parameter": _rebuild_parameter,
        "_rebuild_parameter_with_state": _rebuild_parameter,
    },
    "torch._tensor": {"_rebuild_from_type_v2": _rebuild_from_type_v2},
    "torch": {
        "Tensor": _TorchClass(),
        "Size": tuple,
        "device": str,
        **{name: StorageType(name) for name in STORAGES},
        **{name: np.dtype(dtype) for name, dtype in DTYPES.items()},
    },
    "torch.nn.parameter": {"Parameter": _TorchClass()},
    "torch.storage": {"UntypedStorage": StorageType("UntypedStorage")},
    "_codecs": {"encode": _encode},
    "builtins": {"set": set, "bytearray": bytearray, "complex": complex},
}


class Unpickler(pickle.Unpickler):
    """pickle.Unpickler with an allow-list of globals and storages from `read_storage`."""

    def __init__(self, file, where: str, read_storage=None):
        super().__init__(file, encoding="utf-8")
        self.where, self.read_storage = where, read_storage

    def find_class(self, module: str, name: str):
        module = "builtins" if module == "__builtin__" else module  # Python 2 pickles
        if name in ALLOWED.get(module, {}):
            return ALLOWED[module][name]
        raise pickle.UnpicklingError(
            f"refused to load {self.where}: it names {module}.{name}, which is not a tensor, "
            "storage, OrderedDict or plain container. Unpickling it could run code, so "
            "tinygrad_norm never does. If you trust the file, load it with "
            "torch.load(path, weights_only=False) and tg.save its state_dict() instead."
        )

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) >= 5 and pid[0] in ("storage", b"storage")):
            raise pickle.UnpicklingError(f"{self.where}: unexpected persistent id {pid!r}")
        if self.read_storage is None:
            raise pickle.UnpicklingError(f"{self.where}: a storage where none is expected")
        return self.read_storage(pid)


def _storage_kind(storage_type, where: str) -> str:
    if not isinstance(storage_type, StorageType):
        raise ValueError(f"{where}: a storage of unknown type {storage_type!r}")
    return storage_type.name


def read_torch_zip(archive: zipfile.ZipFile, where: str):
    """A `torch.save` zip file (the default since PyTorch 1.6)."""
    pickle_name = next(n for n in archive.namelist() if n.endswith("data.pkl"))
    prefix = pickle_name[: -len("data.pkl")]
    storages: dict = {}

    def read_storage(pid):
        _, storage_type, key, _location, numel = pid[:5]
        name = _storage_kind(storage_type, where)
        if key not in storages:
            here = f"storage {key} in {where}"
            dtype = np.dtype(STORAGES[name])
            try:
                info = archive.getinfo(f"{prefix}data/{key}")
            except KeyError:
                raise ValueError(f"{where}: {here} is missing") from None
            if info.file_size != nbytes_of((numel,), dtype):
                raise ValueError(
                    f"{here} holds {info.file_size} bytes, its pickle says {numel} x {dtype}"
                )
            with archive.open(info) as member:
                storages[key] = Storage(name, numel, read_array(member, (numel,), dtype, here))
        return storages[key]

    with archive.open(pickle_name) as file:
        result = _unpickle(Unpickler(file, where, read_storage), where)
    return _resolve(result, where)


def read_torch_legacy(file, where: str):
    """A legacy `torch.save` file (`_use_new_zipfile_serialization=False`, PyTorch < 1.6)."""
    try:
        magic = Unpickler(file, where).load()
    except Exception as err:  # anything but a plain pickled int: not a PyTorch file
        raise ValueError(
            f"cannot load {where}: a pickle that is not a PyTorch checkpoint (never unpickled: "
            "it could run code); expected a .npz file written by tinygrad_norm.save, a "
            ".safetensors file, or a PyTorch .pt/.bin state dict"
        ) from err
    if magic != MAGIC_NUMBER:
        raise ValueError(
            f"cannot load {where}: a pickle that is not a PyTorch checkpoint; expected a .npz "
            "file written by tinygrad_norm.save, a .safetensors file, or a PyTorch state dict"
        )
    _protocol = _unpickle(Unpickler(file, where), where)
    sys_info = _unpickle(Unpickler(file, where), where)
    if isinstance(sys_info, dict) and not sys_info.get("little_endian", True):
        raise ValueError(f"{where}: written on a big-endian machine: not supported")
    storages: dict = {}

    def read_storage(pid):
        _, storage_type, key, _location, numel = pid[:5]
        name = _storage_kind(storage_type, where)
        view = pid[5] if len(pid) > 5 else None
        if view is not None:
            raise ValueError(f"{where}: storage views of very old PyTorch files unsupported")
        storages.setdefault(key, Storage(name, int(numel)))
        return storages[key]

    result = _unpickle(Unpickler(file, where, read_storage), where)
    keys = _unpickle(Unpickler(file, where), where)
    for key in keys:
        if key not in storages:
            raise ValueError(f"{where}: storage {key!r} is listed but never used")
        storage, here = storages[key], f"storage {key!r} in {where}"
        count = int.from_bytes(file.read(8), "little", signed=True)
        if count != storage.numel:
            raise ValueError(f"{here}: {count} elements, its pickle says {storage.numel}")
        storage.array = read_array(file, (count,), np.dtype(STORAGES[storage.name]), here)
    return _resolve(result, where)


def _unpickle(unpickler: Unpickler, where: str):
    try:
        return unpickler.load()
    except (EOFError, TypeError, KeyError, IndexError, AttributeError) as err:
        raise ValueError(f"{where}: a damaged or truncated PyTorch file ({err})") from err


def _resolve(obj, where: str):
    """`obj` with every TensorRef made a Tensor (or Parameter)."""
    if isinstance(obj, TensorRef):
        return _tensor(obj, where)
    if isinstance(obj, (dict, OrderedDict)):
        resolved = type(obj)((k, _resolve(v, where)) for k, v in obj.items())
        if hasattr(obj, "_metadata"):  # a Module's state dict keeps its version table
            resolved._metadata = obj._metadata
        return resolved
    if isinstance(obj, (list, tuple)):
        return type(obj)(_resolve(v, where) for v in obj)
    return obj


def _tensor(ref: TensorRef, where: str) -> Tensor:
    storage = ref.storage
    if not isinstance(storage, Storage) or storage.array is None:
        raise ValueError(f"{where}: a tensor without the data of its storage")
    size, stride, offset = ref.size, ref.stride, ref.offset
    if not all(isinstance(n, int) and n >= 0 for n in (*size, *stride, offset)) or len(size) != len(
        stride
    ):
        raise ValueError(f"{where}: a tensor of size {size}, stride {stride}: invalid")
    data = storage.array
    if ref.dtype is not None and ref.dtype != data.dtype:  # an untyped storage: its bytes
        if storage.name != "UntypedStorage" or data.nbytes % ref.dtype.itemsize:
            raise ValueError(
                f"{where}: a {ref.dtype} tensor over a {storage.name} of {data.nbytes} bytes"
            )
        data = data.view(ref.dtype.newbyteorder("<"))
    if 0 in size:
        array = np.zeros(size, dtype=data.dtype)
    else:
        last = offset + sum((n - 1) * s for n, s in zip(size, stride))
        if last >= data.size:
            raise ValueError(
                f"{where}: a tensor of size {size}, stride {stride}, offset {offset} reaches "
                f"element {last} of a storage of {data.size}"
            )
        view = np.lib.stride_tricks.as_strided(
            data[offset:], shape=size, strides=[s * data.itemsize for s in stride]
        )
        array = view if view.flags.c_contiguous else view.copy()  # contiguous: shares storage
    if storage.name == "BFloat16Storage":
        array = bfloat16_to_float32(array)
    array = array.astype(array.dtype.newbyteorder("="), copy=False)
    if ref.parameter:
        return Parameter(array, requires_grad=ref.requires_grad)
    return Tensor._make(array, requires_grad=ref.requires_grad)
