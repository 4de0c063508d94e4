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

A whole module (`torch.save(model, f)`) names its classes too: `object_reader.py` says which
may be rebuilt (tinygrad_norm's own, and those listed in `torch.serialization.safe_globals`)
and how (never by calling them: `object.__new__`, then the attributes). The unpickler here is
Python's own, opcode by opcode, with the opcodes that call something replaced: REDUCE calls
only the stand-ins below and allowed functions, NEWOBJ makes only allowed classes, BUILD sets
only the attributes of an object it made (or an OrderedDict's), and INST, OBJ and NEWOBJ_EX
are refused.

`_rebuild_tensor_v2(storage, offset, size, stride, ...)` only records a view (`_v3`, for
uint16/32/64, adds the dtype to read an untyped storage's bytes as); once every
storage is read, `_resolve` turns the views into Tensors (bounds checked: a view must lie
inside its storage).
"""

from __future__ import annotations

import io
import pickle
import types
import zipfile
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from .. import dtypes
from ..devices import device
from ..nn.module import Module, Parameter
from ..tensor import Tensor
from .arrays import bfloat16_to_float32, nbytes_of, read_array
from .object_reader import build, check_module, new_object, own_globals, refusal, user_globals

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
    if not isinstance(dtype, dtypes.dtype) or dtype._name not in DTYPES:
        raise pickle.UnpicklingError(f"a tensor of dtype {dtype!r} is refused")
    dtype = np.dtype(DTYPES[dtype._name])
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
        "device": device,
        **{name: StorageType(name) for name in STORAGES},
        **{name: dtypes._by_name(name) for name in DTYPES},
    },
    "torch.nn.parameter": {"Parameter": _TorchClass()},
    "torch.storage": {"UntypedStorage": StorageType("UntypedStorage")},
    "_codecs": {"encode": _encode},
    "builtins": {
        "set": set,
        "frozenset": frozenset,
        "bytearray": bytearray,
        "complex": complex,
    },
}
CALLABLE = [value for names in ALLOWED.values() for value in names.values() if callable(value)]


class Unpickler(pickle._Unpickler):
    """Python's unpickler with an allow-list of globals, the opcodes that call something
    checked (see above), and storages from `read_storage`."""

    dispatch = dict(pickle._Unpickler.dispatch)

    def __init__(self, file, where: str, read_storage=None, weights_only=True):
        super().__init__(file, encoding="utf-8")
        self.where, self.read_storage = where, read_storage
        self.weights_only = weights_only is not False
        self.made: dict[int, object] = {}  # id -> each object NEWOBJ made
        self.own: dict | None = None  # tinygrad_norm's own globals, found once asked for

    def find_class(self, module: str, name: str):
        module = "builtins" if module == "__builtin__" else module  # Python 2 pickles
        if name in ALLOWED.get(module, {}):
            return ALLOWED[module][name]
        path = f"{module}.{name}"
        found = self._allowed(path)
        if found is not None:
            return found
        raise pickle.UnpicklingError(refusal(path, self.where, self.weights_only))

    def _allowed(self, path: str):
        found = user_globals().get(path)
        if found is None:
            self.own = own_globals() if self.own is None else self.own
            found = self.own.get(path)
        return found

    def load_reduce(self):
        args = self.stack.pop()
        func = self.stack[-1]
        listed = isinstance(func, types.FunctionType) and any(
            func is f for f in user_globals().values()
        )  # tinygrad_norm's own functions are names a file may hold (F.relu), never calls
        if not (any(func is c for c in CALLABLE) or listed):
            raise pickle.UnpicklingError(
                f"{self.where}: the file asks to call {func!r}: refused (a class is rebuilt "
                "without calling it; only tensor rebuilds and functions listed in "
                "safe_globals are called)"
            )
        self.stack[-1] = func(*args)

    def load_newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        stand_in = any(cls is c for c in CALLABLE)  # OrderedDict, set, ...: never made so
        obj = new_object(None if stand_in else cls, args, self.where)
        self.made[id(obj)] = obj
        self.append(obj)

    def load_build(self):
        state = self.stack.pop()
        obj = self.stack[-1]
        if type(obj) is OrderedDict and isinstance(state, dict):  # a state dict's _metadata
            obj.__dict__.update(state)
        elif id(obj) in self.made:
            own = type(obj).__module__.split(".")[0] == "tinygrad_norm"
            build(obj, state, own, self.where)
        else:
            raise pickle.UnpicklingError(
                f"{self.where}: the file asks to set the attributes of a {type(obj).__name__}:"
                " refused (only objects it made are given attributes)"
            )

    def load_append(self):
        value = self.stack.pop()
        self._container(list).append(value)

    def load_appends(self):
        items = self.pop_mark()
        self._container(list).extend(items)

    def load_setitem(self):
        value, key = self.stack.pop(), self.stack.pop()
        self._container(dict)[key] = value

    def load_setitems(self):
        items = self.pop_mark()
        target = self._container(dict)
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]

    def _container(self, kind: type):
        """The list or dict items are added to: a plain one (never an object's own method)."""
        target = self.stack[-1]
        if type(target) not in ((list,) if kind is list else (dict, OrderedDict)):
            raise pickle.UnpicklingError(
                f"{self.where}: the file adds items to a {type(target).__name__}: refused "
                "(only to lists and dicts)"
            )
        return target

    def refuse(self):
        raise pickle.UnpicklingError(
            f"{self.where}: the pickle uses an opcode that calls a class with arguments or "
            "fills a set (INST, OBJ, NEWOBJ_EX, ADDITEMS), which PyTorch never writes: refused"
        )

    dispatch[pickle.REDUCE[0]] = load_reduce
    dispatch[pickle.NEWOBJ[0]] = load_newobj
    dispatch[pickle.BUILD[0]] = load_build
    dispatch[pickle.APPEND[0]] = load_append
    dispatch[pickle.APPENDS[0]] = load_appends
    dispatch[pickle.SETITEM[0]] = load_setitem
    dispatch[pickle.SETITEMS[0]] = load_setitems
    for _opcode in (pickle.INST, pickle.OBJ, pickle.NEWOBJ_EX, pickle.ADDITEMS):
        dispatch[_opcode[0]] = refuse

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


def read_torch_zip(archive: zipfile.ZipFile, where: str, weights_only=True):
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

    with archive.open(pickle_name) as member:  # in memory: the unpickler reads byte by byte
        unpickler = Unpickler(io.BytesIO(member.read()), where, read_storage, weights_only)
        result = _unpickle(unpickler, where)
    return _resolve(result, where, unpickler.made)


def read_torch_legacy(file, where: str, weights_only=True):
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

    unpickler = Unpickler(file, where, read_storage, weights_only)
    result = _unpickle(unpickler, where)
    keys = _unpickle(Unpickler(file, where), where)
    for key in keys:
        if key not in storages:
            raise ValueError(f"{where}: storage {key!r} is listed but never used")
        storage, here = storages[key], f"storage {key!r} in {where}"
        count = int.from_bytes(file.read(8), "little", signed=True)
        if count != storage.numel:
            raise ValueError(f"{here}: {count} elements, its pickle says {storage.numel}")
        storage.array = read_array(file, (count,), np.dtype(STORAGES[storage.name]), here)
    return _resolve(result, where, unpickler.made)


def _unpickle(unpickler: Unpickler, where: str):
    try:
        return unpickler.load()
    except (EOFError, TypeError, KeyError, IndexError, AttributeError) as err:
        raise ValueError(f"{where}: a damaged or truncated PyTorch file ({err})") from err


def _resolve(obj, where: str, made: dict, done: dict | None = None):
    """`obj` with every TensorRef made a Tensor (or Parameter), inside the objects the file
    rebuilt too; a TensorRef or object met twice gives the same object twice (`done`)."""
    done = {} if done is None else done
    if id(obj) in done:
        return done[id(obj)]
    if isinstance(obj, TensorRef):
        done[id(obj)] = _tensor(obj, where)
        return done[id(obj)]
    if id(obj) in made:  # a rebuilt module or object: its attributes, in place
        done[id(obj)] = obj
        attributes = getattr(obj, "__dict__", {})
        for name, value in list(attributes.items()):
            attributes[name] = _resolve(value, where, made, done)
        if isinstance(obj, Module):
            check_module(obj, where)
        return obj
    if isinstance(obj, (dict, OrderedDict)):
        resolved = type(obj)((k, _resolve(v, where, made, done)) for k, v in obj.items())
        if hasattr(obj, "_metadata"):  # a Module's state dict keeps its version table
            resolved._metadata = obj._metadata
        return resolved
    if isinstance(obj, (list, tuple)):
        return type(obj)(_resolve(v, where, made, done) for v in obj)
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
