"""Read and write `.safetensors` files: a JSON table of contents, then raw little-endian
numbers.

    bytes 0..8      N, the header's length (unsigned 64-bit, little-endian)
    bytes 8..8+N    JSON: {"name": {"dtype": "F32", "shape": [2, 3],
                                    "data_offsets": [begin, end]}, ...,
                           "__metadata__": {"key": "value"}}    (optional, strings only)
    bytes 8+N..     the data; each tensor is bytes [begin, end) of it, C order

Nothing in the format can run code, and every size is checked: `end - begin` must be the
shape's size in bytes and lie inside the file. bfloat16 ("BF16"), which NumPy lacks, loads
as float32 with the same values (a bfloat16 is the top half of a float32). Float8 types are
refused.

`write_safetensors` writes what the `safetensors` library writes: a flat dict of name ->
tensor, the header padded with spaces to a multiple of 8 bytes, `__metadata__`
{"format": "pt"} (what Hugging Face loaders look for), and the data in the header's order,
each tensor's bytes right after the previous one's.
"""

from __future__ import annotations

import json
import os

import numpy as np

from ..tensor import Tensor
from .arrays import CHUNK, bfloat16_to_float32, checked_shape, nbytes_of, read_array
from .checkpoint import refuse_module_or_optimizer

MAX_HEADER_BYTES = 100_000_000  # the reference implementation's own limit

DTYPES = {
    "F64": "<f8",
    "F32": "<f4",
    "F16": "<f2",
    "BF16": "<u2",  # read as raw 16-bit words, then widened to float32
    "I64": "<i8",
    "I32": "<i4",
    "I16": "<i2",
    "I8": "i1",
    "U64": "<u8",
    "U32": "<u4",
    "U16": "<u2",
    "U8": "u1",
    "BOOL": "?",
    "C64": "<c8",
}
CODES = {  # NumPy dtype (native byte order) -> code, for writing
    np.dtype(dtype).newbyteorder("="): code for code, dtype in DTYPES.items() if code != "BF16"
}


def _file_size(file) -> int:
    here = file.tell()
    size = file.seek(0, os.SEEK_END)
    file.seek(here)
    return size - here


def looks_like_safetensors(file) -> bool:
    """True when the stream starts with a plausible header length followed by '{' (a header
    longer than the file is a truncated .safetensors: `read_safetensors` says so)."""
    start = file.tell()
    head = file.read(9)
    file.seek(start)
    if len(head) < 9 or head[8:9] != b"{":
        return False
    return int.from_bytes(head[:8], "little") <= MAX_HEADER_BYTES


def read_safetensors(file, where: str) -> dict:
    """{name: Tensor} of a .safetensors stream (its `__metadata__` is not returned)."""
    size = _file_size(file)
    length = int.from_bytes(file.read(8), "little")
    if length > MAX_HEADER_BYTES:
        raise ValueError(f"{where}: a safetensors header of {length} bytes is refused")
    if length > size - 8:
        raise ValueError(
            f"{where}: its safetensors header says {length} bytes, but the file ends after "
            f"{size - 8} (truncated: was it copied or downloaded completely?)"
        )
    try:
        header = json.loads(file.read(length))
    except (UnicodeDecodeError, ValueError) as err:
        raise ValueError(f"{where}: its safetensors header is not valid JSON ({err})") from err
    if not isinstance(header, dict):
        raise ValueError(f"{where}: its safetensors header is not a JSON object")
    header.pop("__metadata__", None)
    data_start, data_size = 8 + length, size - 8 - length
    entries = []
    for name, entry in header.items():
        here = f"tensor {name!r} in {where}"
        if not isinstance(entry, dict):
            raise ValueError(f"{here}: its header entry is not an object")
        code = entry.get("dtype")
        if code not in DTYPES:
            raise ValueError(
                f"{here} has dtype {code!r}; tinygrad_norm reads "
                f"{', '.join(DTYPES)} (float8 and others have no NumPy dtype)"
            )
        dtype = np.dtype(DTYPES[code])
        shape = checked_shape(entry.get("shape"), here)
        offsets = entry.get("data_offsets")
        if not (
            isinstance(offsets, list)
            and len(offsets) == 2
            and all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)
            and 0 <= offsets[0] <= offsets[1] <= data_size
        ):
            raise ValueError(
                f"{here}: data_offsets {offsets!r} do not lie inside the file's {data_size} "
                "data bytes (truncated?)"
            )
        if offsets[1] - offsets[0] != nbytes_of(shape, dtype):
            raise ValueError(
                f"{here}: {offsets[1] - offsets[0]} bytes for shape {shape} {code} (needs "
                f"{nbytes_of(shape, dtype)})"
            )
        entries.append((offsets[0], name, code, dtype, shape, here))
    state = {}
    for begin, name, code, dtype, shape, here in sorted(entries, key=lambda e: e[0]):
        file.seek(data_start + begin)
        array = read_array(file, shape, dtype, here)
        if code == "BF16":
            array = bfloat16_to_float32(array)
        state[name] = Tensor._make(array.astype(array.dtype.newbyteorder("="), copy=False))
    return {name: state[name] for name in header}  # the file's own order


# --- writing -----------------------------------------------------------------------------------
def write_safetensors(state, file) -> None:
    """Write the flat dict `state` (str -> Tensor or NumPy array) to the open binary `file`."""
    refuse_module_or_optimizer(state, "obj")
    if not isinstance(state, dict):
        raise TypeError(
            f"save: a .safetensors file holds a flat dict of tensors, got a "
            f"{type(state).__name__}; save a whole checkpoint to a .pt file instead"
        )
    arrays, header, offset = [], {"__metadata__": {"format": "pt"}}, 0
    for name, value in state.items():
        array = _as_array(name, value)
        code = CODES.get(array.dtype.newbyteorder("="))
        if code is None:
            raise TypeError(
                f"save: tensor {name!r} has dtype {array.dtype}, which .safetensors has no code "
                f"for (it has {', '.join(DTYPES)}); convert it or save to a .pt file"
            )
        array = np.asarray(array, dtype=array.dtype.newbyteorder("<"), order="C")  # keeps 0-d
        header[name] = {
            "dtype": code,
            "shape": list(array.shape),
            "data_offsets": [offset, offset + array.nbytes],
        }
        arrays.append(array)
        offset += array.nbytes
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    file.write(len(text).to_bytes(8, "little") + text)
    for array in arrays:
        raw = array.reshape(-1).view(np.uint8)
        for start in range(0, raw.size, CHUNK):
            file.write(raw[start : start + CHUNK].data)


def _as_array(name, value) -> np.ndarray:
    """The array of entry `name`, or a clear error for a nested or non-tensor entry."""
    if not isinstance(name, str):
        raise TypeError(f"save: a .safetensors file names its tensors by str, got the key {name!r}")
    if isinstance(value, Tensor):
        return value.array
    if isinstance(value, np.ndarray):
        return value
    what = "a nested container" if isinstance(value, (dict, list, tuple)) else "not a tensor"
    raise TypeError(
        f"save: {name!r} is {what} ({type(value).__name__}); a .safetensors file holds a flat "
        "dict of tensors only (a model's state_dict()). Save a whole checkpoint (optimizer, "
        "step, ...) to a .pt file instead"
    )
