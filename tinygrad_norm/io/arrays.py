"""What every reader shares: checked dtypes, and reading a known number of bytes safely.

A file tells us how big its arrays are twice: in its own table of contents (the manifest of
an `.npz`, the JSON header of a `.safetensors`, the storage sizes of a PyTorch file) and in
the data itself. `read_array` trusts neither alone: the size comes from the table of
contents, the bytes are read in chunks into a buffer that grows as they arrive, and a file
that ends early or holds more is an error. Memory is taken only as bytes really arrive, so
a small file that claims a gigabyte fails before it takes one (a lying header, a "zip
bomb").
"""

from __future__ import annotations

import numpy as np

CHUNK = 1 << 20  # bytes read at a time (1 MiB): all a lying header can cost beyond the file

# The dtypes a file may hold: numbers, bools, and fixed-width strings and times (all stored
# as raw bytes by .npy). Object arrays (pickles) and structured records are refused.
SAFE_KINDS = "biufcUSMm"


def checked_dtype(descr, where: str) -> np.dtype:
    """The dtype a header names, refused unless it holds plain values (no objects)."""
    if not isinstance(descr, str):
        raise ValueError(f"{where}: the dtype {descr!r} is not a plain array dtype")
    try:
        dtype = np.dtype(descr)
    except TypeError as err:
        raise ValueError(f"{where}: unknown dtype {descr!r}") from err
    if dtype.hasobject:
        raise ValueError(
            f"{where} is an object array; object arrays are refused because loading them "
            "would unpickle, and unpickling can run arbitrary code"
        )
    if dtype.kind not in SAFE_KINDS:
        raise ValueError(f"{where}: dtype {descr!r} is not a plain numeric dtype")
    return dtype


def checked_shape(shape, where: str) -> tuple:
    """A shape from a header: a list of non-negative ints."""
    if not isinstance(shape, (list, tuple)) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape
    ):
        raise ValueError(f"{where}: the shape {shape!r} is not a list of sizes")
    return tuple(shape)


def nbytes_of(shape: tuple, dtype: np.dtype) -> int:
    """The bytes an array of this shape and dtype holds (Python ints: no overflow)."""
    count = 1
    for n in shape:
        count *= n
    return count * dtype.itemsize


def read_array(stream, shape: tuple, dtype: np.dtype, where: str, fortran: bool = False):
    """Read exactly the bytes of a (shape, dtype) array from `stream`, in chunks.

    The bytes are gathered in a buffer that grows only as they arrive, so a header that
    claims more than the file holds costs no more memory than the file's own bytes; a
    stream that ends early raises ValueError. The array is then made over that buffer.
    """
    nbytes = nbytes_of(shape, dtype)
    buffer = bytearray()
    while len(buffer) < nbytes:
        chunk = stream.read(min(CHUNK, nbytes - len(buffer)))
        if not chunk:
            raise ValueError(
                f"{where}: the file ends after {len(buffer)} of the array's {nbytes} bytes "
                "(truncated: was it copied or downloaded completely?)"
            )
        buffer += chunk
    if nbytes == 0:
        return np.empty(shape, dtype=dtype, order="F" if fortran else "C")
    return np.frombuffer(buffer, dtype=dtype).reshape(shape, order="F" if fortran else "C")


def bfloat16_to_float32(raw: np.ndarray) -> np.ndarray:
    """bfloat16 (the top 16 bits of a float32) widened to float32 exactly: NumPy has no
    bfloat16, so such weights load as float32 with the same values."""
    return (raw.astype(np.uint32) << 16).view(np.float32)
