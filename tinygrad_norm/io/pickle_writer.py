"""A small protocol-2 pickle writer for data only: what PyTorch's `weights_only=True` loader
accepts, and nothing else.

A pickle is a little stack program. This writer emits only these opcodes (names as in the
`pickle` module; `pickletools.dis` prints them):

    PROTO 2, STOP                       the frame of every pickle
    NONE, NEWTRUE, NEWFALSE             None, True, False
    BININT1, BININT2, BININT, LONG1     ints: 1, 2 or 4 bytes, or any size (little-endian)
    BINFLOAT                            a float, 8 bytes big-endian
    BINUNICODE                          a str, UTF-8
    EMPTY_TUPLE, TUPLE1/2/3, TUPLE      tuples (MARK items TUPLE for longer ones)
    EMPTY_LIST, APPENDS                 lists (MARK items APPENDS)
    EMPTY_DICT, SETITEMS                dicts (MARK key value ... SETITEMS)
    GLOBAL "module\\nname\\n"            a named object (a storage class, a dtype)
    GLOBAL, a tuple, REDUCE             call a named function on a tuple of arguments
    GLOBAL, EMPTY_TUPLE, NEWOBJ,        an object of a named class, made without calling
      its state, BUILD                  its __init__ (cls.__new__(cls)), then given its
                                        attributes (`NewObject`)
    BINPUT / LONG_BINPUT n              remember the object just written as memo entry n
    BINGET / LONG_BINGET n              the object remembered as n, again (`Ref`): a tied
                                        weight or a shared module stays one object
    BINPERSID                           a reference to data kept outside the pickle

The only GLOBALs are the ones a caller builds with `Global`, `Call` or `NewObject` (here:
PyTorch's tensor-rebuild functions, storage classes and dtypes, `collections.OrderedDict`,
`builtins.complex`; for a whole module its classes' import paths). The memo is the caller's
choice too: `Memo(key, value)` writes value and remembers it, `Ref(key)` writes it again
(the caller numbers the keys 0, 1, 2, ... in the order it first meets the objects). Python's
own pickle reads the result back:

>>> import pickle
>>> pickle.loads(dumps({"lr": 0.5, "betas": (0.9, 0.999), "counts": [1, 2**70], 0: None}))
{'lr': 0.5, 'betas': (0.9, 0.999), 'counts': [1, 1180591620717411303424], 0: None}
"""

from __future__ import annotations

import struct
from collections import OrderedDict
from dataclasses import dataclass

MARK, STOP, PROTO = b"(", b".", b"\x80"
NONE, NEWTRUE, NEWFALSE = b"N", b"\x88", b"\x89"
BININT1, BININT2, BININT, LONG1 = b"K", b"M", b"J", b"\x8a"
BINFLOAT, BINUNICODE = b"G", b"X"
EMPTY_TUPLE, TUPLE1, TUPLE2, TUPLE3, TUPLE = b")", b"\x85", b"\x86", b"\x87", b"t"
EMPTY_LIST, APPENDS, EMPTY_DICT, SETITEMS = b"]", b"e", b"}", b"u"
GLOBAL, REDUCE, BINPERSID = b"c", b"R", b"Q"
NEWOBJ, BUILD = b"\x81", b"b"
BINPUT, LONG_BINPUT, BINGET, LONG_BINGET = b"q", b"r", b"h", b"j"

BATCH = 1000  # items per APPENDS / SETITEMS, as the pickle module batches them


@dataclass(frozen=True)
class Global:
    """The object `module.name` (a class, a dtype), written as GLOBAL."""

    module: str
    name: str


@dataclass(frozen=True)
class Call:
    """`module.name(*args)`, written as GLOBAL, the argument tuple, REDUCE."""

    module: str
    name: str
    args: tuple


@dataclass(frozen=True)
class PersistentId:
    """A reference the loader resolves itself (`persistent_load`): the tuple, then BINPERSID."""

    value: tuple


@dataclass(frozen=True, eq=False)
class NewObject:
    """An object of class `module.name` made without calling its __init__, remembered as memo
    entry `key` before its `state` (a dict of attributes) is written and set by BUILD; so the
    state may refer back to the object itself (`Ref(key)`)."""

    module: str
    name: str
    state: object
    key: int


@dataclass(frozen=True, eq=False)
class Memo:
    """`value`, remembered as memo entry `key` once written."""

    key: int
    value: object


@dataclass(frozen=True)
class Ref:
    """The object remembered as memo entry `key`, written again."""

    key: int


class Unpicklable(TypeError):
    """A value this writer has no data-only spelling for; `where` names it."""


def dumps(obj, where: str = "obj") -> bytes:
    """The protocol-2 pickle of `obj` (None, bools, ints, floats, complex numbers, strings,
    tuples, lists, dicts, OrderedDicts, `Global`s, `Call`s, `NewObject`s, `Memo`s, `Ref`s
    and `PersistentId`s, nested)."""
    out: list[bytes] = [PROTO, b"\x02"]
    _write(obj, out, where)
    out.append(STOP)
    return b"".join(out)


def _write(obj, out: list, where: str) -> None:
    if obj is None:
        out.append(NONE)
    elif isinstance(obj, bool):
        out.append(NEWTRUE if obj else NEWFALSE)
    elif isinstance(obj, int):
        out.append(_int(int(obj), where))
    elif isinstance(obj, float):
        out.append(BINFLOAT + struct.pack(">d", obj))
    elif isinstance(obj, complex):
        _write(Call("builtins", "complex", (obj.real, obj.imag)), out, where)
    elif isinstance(obj, str):
        text = obj.encode("utf-8", "surrogatepass")
        out.append(BINUNICODE + struct.pack("<I", len(text)) + text)
    elif isinstance(obj, (bytes, bytearray)):
        raise Unpicklable(
            f"{where} is {type(obj).__name__}; PyTorch's weights_only loader would need "
            "_codecs.encode to rebuild it. Store it as a uint8 array "
            "(np.frombuffer(data, np.uint8)) or as a str"
        )
    elif isinstance(obj, tuple):  # a named tuple too, as a plain tuple
        _tuple(tuple(obj), out, where)
    elif isinstance(obj, list):
        out.append(EMPTY_LIST)
        for start in range(0, len(obj), BATCH):
            out.append(MARK)
            for i, item in enumerate(obj[start : start + BATCH], start):
                _write(item, out, f"{where}[{i}]")
            out.append(APPENDS)
    elif isinstance(obj, dict):
        if isinstance(obj, OrderedDict):
            out.append(GLOBAL + b"collections\nOrderedDict\n" + EMPTY_TUPLE + REDUCE)
        else:
            out.append(EMPTY_DICT)
        items = list(obj.items())
        for start in range(0, len(items), BATCH):
            out.append(MARK)
            for key, value in items[start : start + BATCH]:
                _write(key, out, f"{where} (a key)")
                _write(value, out, f"{where}[{key!r}]")
            out.append(SETITEMS)
    elif isinstance(obj, (Global, Call)):
        out.append(GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
        if isinstance(obj, Call):
            _tuple(obj.args, out, where)
            out.append(REDUCE)
    elif isinstance(obj, NewObject):
        out.append(GLOBAL + f"{obj.module}\n{obj.name}\n".encode() + EMPTY_TUPLE + NEWOBJ)
        out.append(_put(obj.key))
        _write(obj.state, out, where)
        out.append(BUILD)
    elif isinstance(obj, Memo):
        _write(obj.value, out, where)
        out.append(_put(obj.key))
    elif isinstance(obj, Ref):
        out.append(BINGET + bytes([obj.key]) if obj.key < 256 else LONG_BINGET + _u32(obj.key))
    elif isinstance(obj, PersistentId):
        _tuple(obj.value, out, where)
        out.append(BINPERSID)
    else:
        raise Unpicklable(f"{where} is a {type(obj).__name__}")


def _put(key: int) -> bytes:
    return BINPUT + bytes([key]) if key < 256 else LONG_BINPUT + _u32(key)


def _u32(n: int) -> bytes:
    return struct.pack("<I", n)


def _int(n: int, where: str) -> bytes:
    if 0 <= n < 256:
        return BININT1 + bytes([n])
    if 0 <= n < 65536:
        return BININT2 + struct.pack("<H", n)
    if -(2**31) <= n < 2**31:
        return BININT + struct.pack("<i", n)
    size = (n + (n < 0)).bit_length() // 8 + 1  # two's complement, with room for the sign
    if size > 255:
        raise Unpicklable(f"{where} is an int of {size} bytes; at most 255 bytes are written")
    return LONG1 + bytes([size]) + n.to_bytes(size, "little", signed=True)


def _tuple(items: tuple, out: list, where: str) -> None:
    short = {0: EMPTY_TUPLE, 1: TUPLE1, 2: TUPLE2, 3: TUPLE3}
    if len(items) not in short:
        out.append(MARK)
    for i, item in enumerate(items):
        _write(item, out, f"{where}[{i}]")
    out.append(short.get(len(items), TUPLE))
