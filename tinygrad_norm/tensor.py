"""Tensor: a NumPy array that remembers how it was made, so gradients can flow back.

A Tensor holds `.array` (the `np.ndarray` of its values), `.requires_grad`, `.grad` and
`.grad_fn` (the node that made it, None for a leaf). `.data` is PyTorch's: the same values as a
detached Tensor (`p.data.normal_()`, `p.data += -lr * p.grad`, `p.data.std()` mean what they
mean in PyTorch); `.numpy()` and `np.asarray(t)` give the array itself.

Every operator and method below is a one-line call into the ops: primitives in
`ops/elementwise.py`, `reduce.py`, `movement.py`, `linalg.py`, and the operations composed from
them in `ops/composite.py` (methods are grouped by family in `tensor_methods/`).

>>> import tinygrad_norm as tg
>>> x = tg.tensor([[0.2, 0.1]], requires_grad=True)
>>> y = (x * x).sum()
>>> y
tensor(0.0500, grad_fn=<SumBackward>)
>>> y.backward()
>>> x.grad
tensor([[0.4000, 0.2000]])
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .autograd import engine, node
from .autograd.grad import grad as autograd_grad
from .autograd.node import GraphTensor
from .autograd.node_api import HookHandle
from .autograd.output_hooks import hook_output, retain_output
from .broadcast import ShapeError, broadcast_shape
from .convert import to_array
from .dtypes import numeric_dtype
from .learn.steps import backprop_steps
from .ops import composite as C
from .ops import shape as S
from .ops.elementwise import (
    Abs,
    Add,
    Cast,
    Div,
    Mul,
    Neg,
    Pow,
    Sub,
)
from .ops.fused.power import FAST_EXPONENTS, PowScalar
from .ops.movement import Clone, GetItem
from .tensor_methods.comparison import ComparisonMethods
from .tensor_methods.conversion import ConversionMethods, to_arguments
from .tensor_methods.indexing import describe_index, ints_first, normalize_index
from .tensor_methods.inplace import InPlaceMethods
from .tensor_methods.math import MathMethods
from .tensor_methods.memory import MemoryMethods
from .tensor_methods.numpy_interop import NumpyInterop
from .tensor_methods.printing import format_tensor
from .tensor_methods.reductions import ReductionMethods
from .tensor_methods.sampling import SamplingMethods
from .tensor_methods.shape import ShapeMethods
from .tensor_methods.size import Size


class Tensor(
    GraphTensor,
    NumpyInterop,
    MathMethods,
    ReductionMethods,
    ShapeMethods,
    InPlaceMethods,
    SamplingMethods,
    ConversionMethods,
    ComparisonMethods,
    MemoryMethods,
):
    """An n-dimensional array with reverse-mode automatic differentiation.

    `Tensor(data, requires_grad=False, dtype=None, name=None)`: `data` is a number, a nested
    list, an `np.ndarray` or a Tensor (copied). Python floats become the default dtype
    (float32); arrays keep their dtype; integers stay int64 and bools bool; `dtype` overrides.
    """

    __slots__ = ("array", "_grad", "requires_grad", "grad_fn", "name", "_hooks", "__weakref__")
    # the version counter (shared with views); for a view: the viewed tensor and its grad_fn then
    __slots__ += ("_versions", "_base", "_base_grad_fn", "_view_index")

    def __init__(self, data, requires_grad=False, dtype=None, name=None):
        if not isinstance(requires_grad, (bool, np.bool_)):
            raise TypeError(
                f"Tensor: requires_grad must be True or False, got {requires_grad!r}. "
                "Tensor(data, ...) takes the values themselves; for a tensor of a given shape "
                "use tg.zeros(2, 3), tg.empty(2, 3) or tg.randn(2, 3)"
            )
        self.array = to_array(data, dtype)
        self._grad = None
        self.grad_fn = None
        self.name = name
        self._hooks = None  # NOTE: a list once a hook is registered (most tensors never get one)
        self._versions = self._base = self._base_grad_fn = self._view_index = None
        self.requires_grad = False
        if requires_grad:
            self.requires_grad_(True)

    @staticmethod
    def _make(data: np.ndarray, requires_grad=False, grad_fn=None) -> Tensor:
        """The fast path the ops use: wrap an array in a new Tensor, no copy, no checks."""
        t = object.__new__(Tensor)
        t.array, t.requires_grad, t.grad_fn = data, requires_grad, grad_fn
        t._grad = t.name = t._hooks = t._versions = t._base = t._base_grad_fn = t._view_index = None
        return t

    @property
    def data(self) -> Tensor:
        """This tensor's values as a new Tensor that shares the memory, cut from the graph, as
        PyTorch's `.data`: writing through it changes this tensor, and, as in PyTorch, such a
        write is not tracked by the version counter (prefer `with tg.no_grad():`)."""
        return Tensor._make(self.array)

    @data.setter
    def data(self, value) -> None:
        """`t.data = other`: t now holds other's values (its memory, if other is a Tensor or an
        array), as PyTorch allows; the graph does not see it."""
        self.array = value.array if isinstance(value, Tensor) else to_array(value, None)

    @property
    def grad(self) -> Tensor | None:
        """The gradient backward accumulated here (None until one arrives). Later backwards
        add into this same Tensor, so a reference to it stays current, as in PyTorch."""
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        """`t.grad = g`: g must be None or a Tensor of t's shape and dtype (PyTorch's check)."""
        if value is not None:
            node.check_grad_assignment(self, value)
        self._grad = value

    # --- what it is ----------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self.array.shape)

    @property
    def dtype(self) -> dtypes.dtype:
        return dtypes.of(self.array.dtype)

    @property
    def ndim(self) -> int:
        return self.array.ndim

    def dim(self) -> int:
        return self.array.ndim

    def size(self, dim=None):
        """The shape as a tuple (a `Size`), or the size of one dimension."""
        if dim is None:
            return Size(self.array.shape)
        n = self.array.ndim
        if not -n <= dim < n:
            raise IndexError(
                f"size: dimension out of range (expected to be in range of [{-n}, {n - 1}], but "
                f"got {dim}) for a tensor of shape {tuple(self.shape)}"
            )
        return self.array.shape[dim]

    def numel(self) -> int:
        return self.array.size

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def T(self) -> Tensor:
        return S.permute(self, tuple(reversed(range(self.ndim))))

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.array.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(len(self)))

    def __repr__(self) -> str:
        return format_tensor(self)

    __hash__ = object.__hash__  # `==` is elementwise, so hashing is by identity, as in PyTorch

    # --- conversion ----------------------------------------------------------------------------
    def item(self):
        if self.array.size != 1:
            raise ShapeError(  # a RuntimeError, as PyTorch's (and a ValueError)
                f"item: only a tensor with one element can be converted to a Python "
                f"number, this one has shape {self.shape}"
            )
        return self.array.item()

    def tolist(self):
        return self.array.tolist()

    def __bool__(self) -> bool:
        if self.array.size != 1:
            raise RuntimeError(
                f"the truth value of a tensor with {self.array.size} elements is "
                "ambiguous; use .any() or .all()"
            )
        return bool(self.array)

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.array.dtype.kind not in "iu" or self.array.size != 1:
            raise TypeError(
                f"only a one-element integer tensor can be used as an index, got "
                f"shape {self.shape} of {self.dtype}"
            )
        return int(self.array.item())

    def detach(self) -> Tensor:
        """The same data (and version counter), cut from the graph: no grad_fn, no grad."""
        t = Tensor._make(self.array)
        t._versions = self._version_counter()
        return t

    def clone(self, *, memory_format=None) -> Tensor:
        """A copy in the graph (memory_format is accepted; NumPy lays the copy out)."""
        return Clone.apply(self)

    def contiguous(self, memory_format=None) -> Tensor:
        """This tensor if its memory is in row-major order, else a copy that is."""
        return self if self.array.flags.c_contiguous else self.clone()

    def to(self, *args, **kwargs) -> Tensor:
        """Convert to a dtype (differentiably): `to(dtype)`, `to("cpu")`, `to(device, dtype)`,
        `to(other)`, as PyTorch; a device other than the CPU raises a clear error."""
        dtype, copy = to_arguments(self, args, kwargs)
        dtype = self.array.dtype if dtype is None else numeric_dtype(dtype)
        if dtype == self.array.dtype:
            return self.clone() if copy else self
        return Cast.apply(self, dtype)

    def float(self) -> Tensor:
        return self.to(dtypes.float32)

    def double(self) -> Tensor:
        return self.to(dtypes.float64)

    def long(self) -> Tensor:
        return self.to(dtypes.int64)

    def bool(self) -> Tensor:
        return self.to(dtypes.bool)

    def type_as(self, other: Tensor) -> Tensor:
        return self.to(other.dtype)

    # --- autograd ------------------------------------------------------------------------------
    def requires_grad_(self, requires_grad=True) -> Tensor:
        if requires_grad and self.array.dtype.kind != "f":
            raise RuntimeError(
                f"requires_grad: only floating-point tensors can require "
                f"gradients, this one is {self.array.dtype}; create it with "
                "dtype=tg.float32 (or call .float() first)"
            )
        if not requires_grad and self.grad_fn is not None:
            raise RuntimeError("requires_grad_(False): this tensor is not a leaf; use .detach()")
        self.requires_grad = bool(requires_grad)
        return self

    def backward(self, gradient=None, retain_graph=False, create_graph=False, inputs=None) -> None:
        """Add d(self)/d(leaf) into `.grad` of every leaf that requires grad.

        A tensor with more than one element needs `gradient` (the vector in the
        vector-Jacobian product). The graph's saved values are freed afterwards unless
        `retain_graph=True`; `create_graph=True` records the backward pass for higher order.
        """
        gradient = self._initial_gradient("backward", gradient)
        if inputs is not None:  # only these tensors' .grad gets the gradient, as PyTorch
            inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
            grads = autograd_grad(
                [self], inputs, [gradient], retain_graph=retain_graph or create_graph,
                create_graph=create_graph, allow_unused=True,
            )  # fmt: skip
            for t, g in zip(inputs, grads):
                if g is not None:
                    engine.accumulate_grad(t, g, create_graph)
            return
        engine.run_backward(
            [self], [gradient], retain_graph=retain_graph or create_graph, create_graph=create_graph
        )

    def backward_steps(self, gradient=None, retain_graph=False):
        """The backward pass one node at a time: see `tg.backprop_steps`."""
        return backprop_steps(self, gradient, retain_graph)

    def _initial_gradient(self, op: str, gradient) -> Tensor:
        if not self.requires_grad:
            raise RuntimeError(
                f"{op}: this tensor does not require grad and has no grad_fn, so "
                "there is nothing to differentiate; create the leaves with "
                "requires_grad=True (and check no_grad() was not on)"
            )
        if gradient is None:
            if self.array.size != 1:
                raise RuntimeError(
                    f"{op}: gradient can only be implied for a tensor with one "
                    f"element, this one has shape {self.shape}; reduce it first "
                    "(e.g. y.sum().backward()) or pass gradient= of that shape"
                )
            return Tensor._make(np.ones_like(self.array))
        gradient = C.as_tensor(gradient, self)
        if gradient.shape != self.shape:
            raise RuntimeError(
                f"{op}: gradient has shape {gradient.shape} but the tensor has "
                f"shape {self.shape}; they must be equal"
            )
        return gradient if gradient.dtype == self.dtype else gradient.to(self.dtype)

    def retain_grad(self) -> None:
        """Keep `.grad` for this non-leaf tensor too after backward (leaves always keep it)."""
        if self.grad_fn is not None:
            retain_output(self)

    def register_hook(self, hook) -> HookHandle:
        """Call `hook(grad)` when this tensor's gradient is computed; a returned Tensor
        replaces the gradient. Returns a handle whose `.remove()` unregisters it."""
        if not self.requires_grad:
            raise RuntimeError(
                "register_hook: this tensor does not require grad, so no gradient "
                "will ever reach the hook"
            )
        if self.grad_fn is not None:  # on one output of the node (of one or several)
            return hook_output(self, hook)
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(hook)
        return HookHandle(self._hooks, hook)

    # --- operators -----------------------------------------------------------------------------
    def _binary(self, op, other, reverse=False) -> Tensor:
        if isinstance(other, Tensor) and other.array.dtype == self.array.dtype:
            self_ = self  # NOTE: the common case, one dtype: nothing to promote
        elif type(other) in (int, float) and self.array.dtype.kind == "f":
            # NOTE: the next most common, a number beside a float tensor: it takes the
            # tensor's dtype, as `_promote` would decide
            self_, other = self, Tensor._make(np.asarray(other, dtype=self.array.dtype))
        else:
            self_, other = _promote(op, self, other)
        a, b = (other, self_) if reverse else (self_, other)
        try:
            return op.apply(a, b)
        except ValueError:
            broadcast_shape(op.__name__.lower(), a.shape, b.shape)  # names the shapes
            raise

    def __add__(self, other):
        return self._binary(Add, other)

    def __radd__(self, other):
        return self._binary(Add, other, reverse=True)

    def __sub__(self, other):
        dtypes.refuse_bool_subtraction(self.array, other)
        return self._binary(Sub, other)

    def __rsub__(self, other):
        dtypes.refuse_bool_subtraction(self.array, other)
        return self._binary(Sub, other, reverse=True)

    def __mul__(self, other):
        return self._binary(Mul, other)

    def __rmul__(self, other):
        return self._binary(Mul, other, reverse=True)

    def __truediv__(self, other):
        return self._binary(Div, other)

    def __rtruediv__(self, other):
        return self._binary(Div, other, reverse=True)

    def __pow__(self, other):
        integer_tensor = self.array.dtype.kind in "biu"  # (tested first: a float x ** 2 is common)
        if integer_tensor and isinstance(other, (int, np.integer)) and other < 0:
            raise RuntimeError(
                f"pow: integers to negative integer powers are not allowed (as in PyTorch): "
                f"{self.dtype} tensor ** {other}; convert first, e.g. x.float() ** {other}"
            )
        if type(other) in (int, float) and other in FAST_EXPONENTS and self.array.dtype.kind == "f":
            return PowScalar.apply(self, other)  # x ** 3 as x * x * x (ops/fused/power.py)
        if self.array.dtype == np.bool_:  # PyTorch: mask ** True is the mask, ** False all True
            if type(other) is bool:
                return self._binary(Pow, int(other)).bool()
            dtypes.refuse_bool("pow", self, other)
        return self._binary(Pow, other)

    def __rpow__(self, other):
        if self.array.dtype == np.bool_:
            dtypes.refuse_bool("pow", other, self)
        return self._binary(Pow, other, reverse=True)

    def __matmul__(self, other):
        return C.matmul(self, other)

    def __rmatmul__(self, other):
        return C.matmul(other, self)

    def __neg__(self):
        return Neg.apply(self)

    def __abs__(self):
        return Abs.apply(self)

    # Comparisons give bool tensors and are never differentiable.
    def _compare(self, ufunc, other) -> Tensor:
        if isinstance(other, Tensor) and other.array.dtype == self.array.dtype:
            return Tensor._make(np.asarray(ufunc(self.array, other.array)))
        if not isinstance(other, (Tensor, bool, int, float)):
            other = C.as_tensor(other, self)
        a, b = C.as_dtype((self, other), dtypes.result_type(self, other), self)  # as PyTorch
        return Tensor._make(np.asarray(ufunc(a.array, b.array)))

    def __lt__(self, other):
        return self._compare(np.less, other)

    def __le__(self, other):
        return self._compare(np.less_equal, other)

    def __gt__(self, other):
        return self._compare(np.greater, other)

    def __ge__(self, other):
        return self._compare(np.greater_equal, other)

    def __eq__(self, other):
        return self._compare(np.equal, other)

    def __ne__(self, other):
        return self._compare(np.not_equal, other)

    def __invert__(self):
        return Tensor._make(np.invert(self.array))

    def __and__(self, other):
        return self.bitwise_and(other)

    def __or__(self, other):
        return self.bitwise_or(other)

    # --- indexing ------------------------------------------------------------------------------
    def __getitem__(self, index) -> Tensor:
        index = normalize_index(index, self.ndim)
        try:
            ints, rest = ints_first(index)
            if ints:  # PyTorch's order: the integers select, then the arrays index the rest
                return GetItem.apply(GetItem.apply(self, index=ints), index=rest)
            out = GetItem.apply(self, index=index)
        except IndexError as error:
            hint = "; an axis of size n takes indices -n to n - 1" if "bounds" in str(error) else ""
            raise IndexError(
                f"index: {error} (indexing a tensor of shape {self.shape} with "
                f"{describe_index(index)}){hint}"
            ) from None
        if out._base is self:  # a view: an in-place change of it can be written back here
            out._view_index = index
        return out


def _promote(op, a: Tensor, b) -> tuple[Tensor, Tensor]:
    """The two operands of a binary op, converted to the dtype PyTorch gives the result
    (`dtypes.result_type`: bool < integer < floating; tensors with dimensions before 0-d
    tensors before Python numbers). `/` of integers computes in the default float dtype."""
    dtype = dtypes.result_type(a, b)
    if op is Div and dtype.kind in "biu":
        dtype = np.dtype(dtypes.get_default_dtype())
    return C.as_dtype(
        (a, b if isinstance(b, (Tensor, bool, int, float)) else C.as_tensor(b, a)), dtype, a
    )
