"""Data types: NumPy's dtypes under PyTorch's names, and the default floating dtype.

`tg.float32` is a small `dtype` object that prints `torch.float32`, as PyTorch's does (in
tinygrad_norm's own error messages it reads `float32`: see `formatted_by_the_library`), and
stands for NumPy's `np.dtype('float32')` wherever NumPy takes a dtype (NumPy reads its `.dtype`
attribute): `np.zeros(3, tg.float32)`, `array.astype(tg.float64)`, `tg.float32 == np.float32`.
`Tensor.dtype` returns these objects; the arrays inside keep plain NumPy dtypes.

>>> import tinygrad_norm as tg
>>> tg.ones(2).dtype
torch.float32
>>> tg.ones(2).dtype == np.float32
True
"""

import builtins
import sys

import numpy as np


class dtype:  # noqa: N801 - PyTorch's name, as tg.dtype
    """A NumPy dtype that prints by its PyTorch name (`torch.float32`)."""

    __slots__ = ("_numpy", "_name")

    def __init__(self, numpy_dtype, name: str):
        self._numpy, self._name = numpy_dtype, name

    @property
    def dtype(self) -> np.dtype:
        """The NumPy dtype (what `np.dtype(tg.float32)` reads)."""
        return self._numpy

    # read from the NumPy dtype: the attributes code written for NumPy reads, and PyTorch's flags
    kind = property(lambda self: self._numpy.kind)
    itemsize = property(lambda self: self._numpy.itemsize)
    name = property(lambda self: self._numpy.name)
    type = property(lambda self: self._numpy.type)
    char = property(lambda self: self._numpy.char)
    is_floating_point = property(lambda self: self._numpy.kind == "f")
    is_complex = property(lambda self: self._numpy.kind == "c")
    is_signed = property(lambda self: self._numpy.kind in "ifc")

    def __eq__(self, other):
        if isinstance(other, dtype):
            return self._name == other._name
        try:
            return self.dtype == np.dtype(other)
        except TypeError:
            return NotImplemented

    def __hash__(self) -> int:
        return hash(self._numpy) if self._numpy is not None else hash(self._name)

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if formatted_by_the_library():  # error messages say "float32", as NumPy
            return format(self._name if self._numpy is None else self._numpy.name, spec)
        return format(repr(self), spec)

    def __reduce__(self):
        return (_by_name, (self._name,))

    @property
    def str(self):  # noqa: A003 - NumPy's attribute name ('<f4')
        return self.dtype.str


def formatted_by_the_library() -> bool:
    """Is the f-string (or `format`) formatting a dtype or a shape in tinygrad_norm's own code?

    Your code gets PyTorch's text (`f"{x.shape}"` is `torch.Size([2, 3])`, `f"{x.dtype}"` is
    `torch.float32`); tinygrad_norm's error messages keep NumPy's plainer `(2, 3)` and `float32`.
    Frame 0 is this function, 1 the `__format__` that asks, 2 the code holding the f-string.
    """
    try:
        caller = sys._getframe(2).f_globals.get("__name__", "")
    except ValueError:  # no Python code below: called from C alone
        return False
    return caller == "tinygrad_norm" or caller.startswith("tinygrad_norm.")


class _Unsupported(dtype):
    """A PyTorch dtype NumPy has no counterpart for (bfloat16): it can be named and compared,
    and using it to make or convert a tensor raises a clear TypeError."""

    __slots__ = ()

    @property
    def dtype(self):
        raise TypeError(
            f"torch.{self._name} is not supported: tinygrad_norm stores tensors as NumPy arrays "
            f"and NumPy has no {self._name}; use tg.float32 (or tg.float16 for half precision)"
        )


_TORCH_NAMES = {
    "float16": "float16",
    "float32": "float32",
    "float64": "float64",
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "uint8": "uint8",
    "uint16": "uint16",
    "uint32": "uint32",
    "uint64": "uint64",
    "bool": "bool",
    "complex64": "complex64",
    "complex128": "complex128",
}
_BY_NUMPY = {np.dtype(n): dtype(np.dtype(n), t) for n, t in _TORCH_NAMES.items()}


TorchDtype = dtype  # the class, for functions whose argument is named dtype


def of(numpy_dtype) -> dtype:
    """The PyTorch-named dtype object for a NumPy dtype (what `Tensor.dtype` returns)."""
    found = _BY_NUMPY.get(numpy_dtype)
    if found is None:  # a dtype PyTorch has no name for (float128, ...): NumPy's name
        numpy_dtype = np.dtype(numpy_dtype)
        found = _BY_NUMPY.setdefault(numpy_dtype, dtype(numpy_dtype, numpy_dtype.name))
    return found


def _by_name(name: str) -> dtype:
    return bfloat16 if name == "bfloat16" else of(np.dtype(name))


float16 = of(np.dtype(np.float16))
float32 = of(np.dtype(np.float32))
float64 = of(np.dtype(np.float64))
int8 = of(np.dtype(np.int8))
int16 = of(np.dtype(np.int16))
int32 = of(np.dtype(np.int32))
int64 = of(np.dtype(np.int64))
uint8 = of(np.dtype(np.uint8))
bool = of(np.dtype(np.bool_))  # noqa: A001 - PyTorch's name, as tg.bool
complex64 = of(np.dtype(np.complex64))
complex128 = of(np.dtype(np.complex128))
bfloat16 = _Unsupported(None, "bfloat16")
half, float, double, long, int, short = float16, float32, float64, int64, int32, int16  # noqa: A001
cfloat, cdouble = complex64, complex128

_default = {"float": float32}


def set_default_dtype(dtype) -> None:
    """Make Python floats become `dtype` (float32 or float64) when a tensor is created."""
    dtype = of(np.dtype(dtype))
    if dtype.kind != "f":
        raise TypeError(f"set_default_dtype: the default dtype must be floating, got {dtype}")
    _default["float"] = dtype


def get_default_dtype() -> dtype:
    """The dtype Python floats become: float32 unless `set_default_dtype` changed it."""
    return _default["float"]


def is_floating(dtype) -> bool:
    return np.dtype(dtype).kind == "f"


def for_op(op: str, dtype) -> np.dtype:
    """`np.dtype(dtype)`, with the op named when PyTorch's dtype has no NumPy counterpart
    (`tg.randn(3, dtype=tg.bfloat16)` says "randn: torch.bfloat16 is not supported: ...")."""
    try:
        return np.dtype(dtype)
    except TypeError as error:
        if isinstance(dtype, _Unsupported):
            raise TypeError(f"{op}: {error}") from None
        raise


def numeric_dtype(dtype) -> np.dtype:
    """`dtype=` as a NumPy dtype of numbers (a string or object dtype is refused)."""
    try:
        numeric = np.dtype(dtype)
    except TypeError:
        if isinstance(dtype, TorchDtype):  # bfloat16: its own message says why
            raise
        numeric = None
    if numeric is None or numeric.kind not in "biufc":
        raise TypeError(
            f"Tensor: dtype must be a numeric data type such as tg.float32, tg.float64, "
            f"tg.int64 or tg.bool, got {getattr(dtype, '__name__', dtype)!r}"
        )
    return numeric


class finfo:  # noqa: N801 - PyTorch's name
    """The limits of a floating dtype (default: the default dtype), as NumPy's finfo with
    PyTorch's attribute names: bits, eps, max, min, tiny (= smallest_normal), resolution."""

    def __init__(self, type=None):  # noqa: A002 - PyTorch's name
        numpy_dtype = numeric_dtype(get_default_dtype() if type is None else type)
        if numpy_dtype.kind != "f":
            raise TypeError(f"torch.finfo() requires a floating point dtype, got {numpy_dtype}")
        info = np.finfo(numpy_dtype)
        self.bits, self.dtype = info.bits, numpy_dtype.name
        self.eps, self.max, self.min = (
            builtins.float(info.eps),
            builtins.float(info.max),
            builtins.float(info.min),
        )
        self.tiny = self.smallest_normal = builtins.float(info.smallest_normal)
        self.resolution = 10.0**-info.precision

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution}, min={self.min:e}, max={self.max:e}, "
            f"eps={self.eps}, smallest_normal={self.tiny}, tiny={self.tiny}, dtype={self.dtype})"
        )


class iinfo:  # noqa: N801 - PyTorch's name
    """The limits of an integer dtype: bits, max, min."""

    def __init__(self, type):  # noqa: A002 - PyTorch's name
        numpy_dtype = numeric_dtype(type)
        if numpy_dtype.kind not in "iub":
            raise TypeError(f"torch.iinfo() requires an integer dtype, got {numpy_dtype}")
        info = np.iinfo(np.uint8 if numpy_dtype.kind == "b" else numpy_dtype)
        self.bits, self.max, self.min, self.dtype = (
            info.bits,
            builtins.int(info.max),
            builtins.int(info.min),
            info.dtype.name,
        )

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


class DtypeError(RuntimeError, TypeError):
    """A tensor of the wrong dtype for an op (a float mask, a float index): a RuntimeError,
    as PyTorch raises, and a TypeError."""


def require_same_dtype(op: str, a, b, names=("the first operand", "the second")) -> None:
    """PyTorch's matrix products do not promote: both sides must have one dtype."""
    if a.array.dtype != b.array.dtype:
        raise RuntimeError(
            f"{op}: expected both sides to have the same dtype, but {names[0]} is {a.dtype} and "
            f"{names[1]} is {b.dtype} (PyTorch does not promote in matrix products); convert "
            f"one, e.g. x.float() or x.to(w.dtype)"
        )


def refuse_bool_subtraction(a: np.ndarray, b) -> None:
    """PyTorch refuses `-` with a bool operand: a mask minus a mask is not a mask."""
    other = getattr(b, "array", None)
    if (
        a.dtype == np.bool_
        or isinstance(b, builtins.bool)
        or (other is not None and other.dtype == np.bool_)
    ):
        raise RuntimeError(
            "sub: subtraction, the `-` operator, with a bool tensor is not supported (as in "
            "PyTorch); to invert a mask use `~mask` or mask.logical_not(); to count, convert "
            "first with .long() or .float()"
        )


def refuse_bool(op: str, *operands, error=NotImplementedError, fix="e.g. x.long() or x.float()"):
    """PyTorch has no bool kernel for `op` (floor, matmul, pow, clamp to numbers, argmax, ...):
    raise its class when every operand (a Tensor, an array or a Python bool) holds bools."""
    if all(np.asarray(getattr(v, "array", v)).dtype == np.bool_ for v in operands):
        raise error(f"{op}: not implemented for bool tensors (as in PyTorch); convert first, {fix}")


# --- PyTorch's type promotion: the one rule every op with several inputs uses ---------------
_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}  # bool < integer < floating < complex


def promote_types(a, b) -> np.dtype:
    """The dtype two dtypes promote to (torch.promote_types): of two categories, the higher
    one's dtype (int64 with float16 is float16, unlike NumPy's float64); of one category,
    the smallest dtype that holds both (uint8 with int8 is int16)."""
    a, b = np.dtype(a), np.dtype(b)
    if a == b:
        return a
    rank_a, rank_b = _CATEGORY[a.kind], _CATEGORY[b.kind]
    if rank_a != rank_b:
        return a if rank_a > rank_b else b
    return np.promote_types(a, b)


def _combine(higher, lower):
    """PyTorch's combine_categories: a lower priority group (0-d tensors, then Python numbers)
    only counts when it is of a higher category than the groups above it."""
    if higher is None:
        return lower
    if lower is None or higher.kind in "fc":
        return higher
    if higher.kind == "b" or lower.kind in "fc":
        return promote_types(higher, lower)
    return higher


_NUMBERS = (builtins.bool, builtins.int, builtins.float, np.bool_, np.integer, np.floating)


def result_type(*operands) -> np.dtype:
    """The dtype PyTorch gives the result of an op on `operands` (arrays, Tensors, or Python
    bool/int/float numbers; None is skipped), torch.result_type's rule:

    1. categories: bool < integer < floating;
    2. three priority groups: tensors with dimensions, then 0-d tensors, then Python numbers
       (a float number is the default dtype, an int is int64, a bool is bool);
    3. within a group, the dtypes promote (`promote_types`); a lower group changes the
       result only when it is of a higher category: float32 tensor + float64 0-d tensor is
       float32, int32 tensor + 2.5 is float32, uint8 tensor + 0-d int8 tensor is uint8.
    """
    groups: list = [None, None, None]  # dimensioned, 0-d, Python numbers
    for x in operands:
        if x is None:
            continue
        if isinstance(x, _NUMBERS):
            if isinstance(x, (builtins.bool, np.bool_)):
                dt = np.dtype(np.bool_)
            elif isinstance(x, (builtins.int, np.integer)):
                dt = np.dtype(np.int64)
            else:
                dt = np.dtype(get_default_dtype())
            group = 2
        else:
            array = getattr(x, "array", x)
            dt, group = array.dtype, 0 if array.ndim else 1
        groups[group] = dt if groups[group] is None else promote_types(groups[group], dt)
    return _combine(groups[0], _combine(groups[1], groups[2]))
