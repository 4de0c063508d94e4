"""`tg.save` and `tg.load`: checkpoints of any training state, and other people's weights.

`save` writes nested dicts, lists and tuples of Tensors, arrays, numbers, strings, bools and
None in the format the file name says:

    .npz            a zip of .npy arrays with a JSON manifest (`checkpoint.py`)
    .safetensors    the safetensors format, a flat dict of tensors only (`safetensors.py`)
    anything else   (.pt, .pth, .bin, no extension) PyTorch's zip format, which real
                    `torch.load(path, weights_only=True)` reads (`torch_writer.py`); a
                    whole Module too, which only tinygrad_norm rebuilds (`object_writer.py`)

always atomically: the bytes go to a temporary file in the same folder, are flushed to the
disk, and only then replace `path` in one step, so a crash or Ctrl-C mid-save leaves the
previous checkpoint as it was.

`load` reads all three, whoever wrote them (the same structure back; Tensors come back as
Tensors; a .pt file gives NumPy arrays back as Tensors and NumPy scalars as Python
numbers, as PyTorch would), and PyTorch's legacy
`.pt` / `.bin` files (`torch_pickle.py`), without PyTorch and without running code from the
file.

>>> import os, tempfile, numpy as np, tinygrad_norm as tg
>>> path = os.path.join(tempfile.mkdtemp(), "ckpt.pt")  # torch.load reads it too
>>> save({"w": tg.ones(2, 3), "step": 10, "betas": (0.9, 0.99), "note": None}, path)
>>> state = load(path)
>>> state["w"].shape, state["step"], state["betas"], state["note"]
(torch.Size([2, 3]), 10, (0.9, 0.99), None)
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import zipfile

from .checkpoint import MANIFEST, read_checkpoint, read_plain_npz, write_checkpoint
from .pickle_writer import Unpicklable
from .safetensors import looks_like_safetensors, read_safetensors, write_safetensors
from .torch_pickle import read_torch_legacy, read_torch_zip
from .torch_writer import archive_name, write_torch_zip

FOREIGN = (
    "expected a .npz file written by tinygrad_norm.save, a .safetensors file, or a PyTorch "
    ".pt/.bin state dict"
)

__all__ = ["save", "load"]


def save(obj, f) -> None:
    """Write `obj` (nested dicts / lists / tuples of Tensors, arrays, numbers, strings, bools,
    None) to `f`, a path or a binary file object, in the format its name says: `.npz`,
    `.safetensors` (a flat dict of tensors), or else PyTorch's (a file object without a
    name too).

    A path is written atomically and exactly as given (no extension is appended). A whole
    Module (`save(model, "model.pt")`, or inside the dict) is written to PyTorch's format only:
    its classes' import paths and attributes, which `load` rebuilds without calling them
    (`object_writer.py`); an optimizer is refused with a hint: save its `state_dict()`.
    """
    name = getattr(f, "name", None) if hasattr(f, "write") else os.fspath(f)
    name = name if isinstance(name, (str, bytes)) else None
    write = _writer(obj, os.fsdecode(name) if name is not None else None)
    if hasattr(f, "write"):
        write(f)
        return
    folder = os.path.dirname(os.path.abspath(name))
    if not os.path.isdir(folder):
        raise RuntimeError(f"save: the folder {folder!r} does not exist; create it first")
    write_atomically(name, write)


def _writer(obj, name: str | None):
    """`write(file)` for the format the file's name asks for."""
    extension = os.path.splitext(name or "")[1].lower()
    if extension == ".npz":
        return lambda file: write_checkpoint(obj, file)
    if extension == ".safetensors":
        return lambda file: write_safetensors(obj, file)

    def write_pytorch(file):
        try:
            write_torch_zip(obj, file, archive_name(name))
        except Unpicklable as err:
            raise TypeError(f"save: {err}") from None

    return write_pytorch


def write_atomically(path: str, write) -> None:
    """Call `write(file)` on a temporary file beside `path`, fsync it, then `os.replace` it
    onto `path`. On any error or interrupt the temporary file is removed and `path` is
    untouched."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(
        prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder
    )
    try:
        with os.fdopen(fd, "wb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())
        umask = os.umask(0)  # mkstemp made it private (0600): give it the usual permissions
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable, where supported
        folder_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(folder_fd)
        finally:
            os.close(folder_fd)


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **kwargs):
    """Read a checkpoint, a `.safetensors` file or a PyTorch state dict from `f` (a path or a
    binary file object).

    PyTorch's keyword arguments are accepted: every tensor lives on the CPU here, so
    `map_location` and `mmap` change nothing. A whole module saved by `save` is rebuilt from
    tinygrad_norm's own classes and those listed in `torch.serialization.safe_globals`; any
    other class or function a file names is refused with PyTorch's `weights_only` message,
    and `weights_only=False` does not turn pickle on (`object_reader.py`). A file of another
    kind, a truncated one, or one that holds object arrays or code raises a clear error.
    """
    if pickle_module is not None:
        raise ValueError("load: pickle_module is not supported: tinygrad_norm never unpickles")
    where = repr(os.fspath(f)) if not hasattr(f, "read") else "the file object"
    if hasattr(f, "read"):
        return _load_stream(f if f.seekable() else io.BytesIO(f.read()), where, weights_only)
    with open(os.fspath(f), "rb") as file:
        return _load_stream(file, where, weights_only)


def _load_stream(file, where: str, weights_only):
    start = file.tell()
    head = file.read(16)
    file.seek(start)
    if head.startswith(b"\x93NUMPY"):
        raise ValueError(f"cannot load {where}: it is a single .npy array; {FOREIGN}")
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        try:
            archive = zipfile.ZipFile(file)
        except (zipfile.BadZipFile, EOFError, OSError) as err:
            raise ValueError(
                f"cannot load {where}: it starts like a zip but its end is missing or damaged "
                f"(truncated? {err}); {FOREIGN}"
            ) from err
        with archive:
            return _load_zip(archive, where, weights_only)
    if looks_like_safetensors(file):
        return read_safetensors(file, where)
    if head[:1] == b"\x80":  # a pickle: PyTorch's legacy format, or refused
        return read_torch_legacy(file, where, weights_only)
    raise ValueError(f"cannot load {where}: {FOREIGN}")


def _load_zip(archive: zipfile.ZipFile, where: str, weights_only):
    names = archive.namelist()
    try:
        if MANIFEST in names:
            return read_checkpoint(archive, where)
        if any(n == "data.pkl" or n.endswith("/data.pkl") for n in names):
            return read_torch_zip(archive, where, weights_only)
        if names and all(n.endswith(".npy") for n in names):
            return read_plain_npz(archive, where)
    except (zipfile.BadZipFile, EOFError, OSError) as err:
        raise ValueError(f"cannot load {where}: damaged or truncated ({err})") from err
    raise ValueError(f"cannot load {where}: a zip of other files; {FOREIGN}")
