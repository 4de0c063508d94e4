"""In-place changes, as PyTorch: `x.add_(y)`, `x += y`, `x[idx] = v`, `x.zero_()`, ...

Every in-place change writes into the tensor's own array (so every view of it sees the change)
and bumps its **version counter**, which the tensor shares with its views. A node that saved a
tensor for backward remembers its version then, and backward through that node after the
tensor changed raises PyTorch's error instead of computing with the new values
(`autograd/engine.py`, `Context.check_versions`).

What happens depends on the tensor:

- nothing requires grad, or inside `tg.no_grad()` (an optimizer step, an initialisation):
  the array is simply changed;
- a leaf that requires grad, with grad mode on: PyTorch's error (the change would not be
  recorded, and the leaf's gradient would be about values it no longer holds);
- a tensor inside the graph (or changed with a value that requires grad): the change is
  recorded. The tensor's old value, kept at its place in the graph, goes through the
  out-of-place op, and the tensor's `grad_fn` becomes that op's node, as in PyTorch;
- a view (`x[i]`, `x.T`, `x.diagonal()`, ...) of a tensor in the graph: the change is written
  into the base as a recorded index-put, and the view is taken again from the new base, as
  PyTorch's CopySlices; an expanded view (one memory location for many elements) is refused.

>>> import tinygrad_norm as tg
>>> w = tg.tensor([1.0, 2.0], requires_grad=True)
>>> y = w * 3
>>> y.add_(1)
tensor([4., 7.], grad_fn=<AddBackward>)
>>> y.sum().backward()
>>> w.grad
tensor([3., 3.])
"""

from __future__ import annotations

import numpy as np

from ..autograd.function import OneOfManyViews, refuse_stale_view
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..autograd.node import GraphTensor
from ..autograd.output_hooks import move_retained
from ..broadcast import ShapeError, broadcasts_to
from ..convert import number_as
from ..ops import composite as C
from ..ops.elementwise import Where
from ..ops.movement import IndexPut, has_array_index
from ..random import resolve, transforms
from .indexing import describe_index, ints_first, normalize_index
from .math import _refuse_integer_division


def _in_place(op: str, out_of_place):
    """The method `x.op()` of no arguments: `out_of_place(x)`, written back into x."""

    def method(self):
        return self._change_in_place(op, out_of_place)

    method.__name__, method.__qualname__ = op, f"Tensor.{op}"
    return method


class InPlaceMethods:
    __slots__ = ()

    # --- the version counter ------------------------------------------------------------------
    @property
    def _version(self) -> int:
        """How many times this tensor (or a view of it) was changed in place."""
        return 0 if self._versions is None else self._versions[0]

    def _version_counter(self) -> list:
        """The one-element list holding the version, shared with every view of this tensor."""
        if self._versions is None:
            self._versions = [0]
        return self._versions

    def _bump_version(self) -> None:
        self._version_counter()[0] += 1

    # --- the one place where a tensor changes -------------------------------------------------
    def _change_in_place(self, op: str, compute, *others):
        """Set this tensor to `compute(self)` in place; see the module docstring for when the
        change is recorded. `others` are the Tensors `compute` also reads."""
        if op != "setitem":  # (x[i] = v writes only x[i]: `h[0] += v` reads h[0] itself)
            _refuse_partial_overlap(op, self, others)
        recording = is_grad_enabled() and (
            self.requires_grad
            or any(isinstance(o, GraphTensor) and o.requires_grad for o in others)
        )
        if recording and isinstance(self._view_index, OneOfManyViews):
            raise RuntimeError(
                f"{op}: this tensor is one of the views that {self._view_index.op} returned, and "
                "PyTorch does not allow changing such a view in place inside a graph; change a "
                "clone() of it, or change the tensor it was cut from"
            )
        if recording and self._view_index is not None:
            return _change_a_slice(self, compute)
        if recording:
            _refuse_leaf_or_view(self, op)
            old = self._make(self.array.copy(), self.requires_grad, self.grad_fn)
            new = compute(old)
        else:
            with no_grad():
                new = compute(self)
        _write(self, op, new.array)
        if recording:
            if self.grad_fn is not None:  # retain_grad() moves with the tensor to its new node
                move_retained(self.grad_fn, new.grad_fn, self)
            self.grad_fn, self.requires_grad = new.grad_fn, new.requires_grad
        return self

    # --- the in-place ops ---------------------------------------------------------------------
    def add_(self, other, *, alpha=1):
        other = other if alpha == 1 else other * alpha
        return self._change_in_place("add_", lambda t: t + other, other)

    def sub_(self, other, *, alpha=1):
        other = other if alpha == 1 else other * alpha
        return self._change_in_place("sub_", lambda t: t - other, other)

    def mul_(self, other):
        return self._change_in_place("mul_", lambda t: t * other, other)

    def div_(self, other):
        return self._change_in_place("div_", lambda t: t / other, other)

    def pow_(self, exponent):
        return self._change_in_place("pow_", lambda t: t**exponent, exponent)

    def clamp_(self, min=None, max=None):  # noqa: A002 - PyTorch's names
        return self._change_in_place("clamp_", lambda t: t.clamp(min, max), min, max)

    clip_ = clamp_

    def masked_fill_(self, mask, value):
        return self._change_in_place("masked_fill_", lambda t: t.masked_fill(mask, value), value)

    def copy_(self, src):
        """Copy `src` (broadcast to this shape, cast to this dtype) into this tensor."""
        src = C.as_tensor(src, self)
        if not broadcasts_to(src.array.shape, self.array.shape):
            raise ShapeError(
                f"copy_: the source of shape {tuple(src.shape)} cannot be copied into this tensor "
                f"of shape {tuple(self.shape)}: it must have that shape or broadcast to it; "
                "reshape the source, or copy into a slice of matching shape"
            )
        return self._change_in_place("copy_", lambda t: _replace(t, src.to(t.dtype)), src)

    def fill_(self, value):
        if isinstance(value, GraphTensor) and value.ndim:
            raise RuntimeError(
                f"fill_ only supports a number or a 0-dimension value tensor, but got one of "
                f"shape {tuple(value.shape)}; to copy a tensor in, use copy_"
            )
        return self._fill("fill_", value)

    def zero_(self):
        return self._fill("zero_", 0)

    def _fill(self, op: str, value):
        if isinstance(value, (bool, int, float)):  # -1 fills a uint8 tensor with 255, as PyTorch
            value = self._make(number_as(op, value, self.array.dtype))
        value = C.as_tensor(value, self)
        return self._change_in_place(op, lambda t: _replace(t, value.to(t.dtype)), value)

    def uniform_(self, a=0.0, b=1.0, *, generator=None):
        """Fill with values drawn uniformly from [a, b) by `generator` (or the global one)."""
        if a > b:
            raise RuntimeError(
                f"uniform_: expects to return a [from, to) range, but from={a} > to={b}"
            )

        def draw(t):
            gen = resolve(generator, "uniform_")
            values = transforms.uniform(gen, t.shape, t.dtype, a, b)
            return _replace(t, transforms.in_memory_order(values, t.array))

        return self._change_in_place("uniform_", draw)

    uniform = uniform_  # giagrad's spelling: Tensor.empty(2, 3).uniform()

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        """Fill with values drawn from N(mean, std²) by `generator` (or the global one)."""

        def draw(t):
            gen, contiguous = resolve(generator, "normal_"), t.array.flags.c_contiguous
            values = transforms.normal(gen, t.shape, t.dtype, mean, std, contiguous)
            return _replace(t, transforms.in_memory_order(values, t.array))

        return self._change_in_place("normal_", draw)

    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __itruediv__(self, other):
        return self.div_(other)

    def __setitem__(self, index, value) -> None:
        """`x[index] = value`: an index-put, recorded when it must be (see the module docs)."""
        if value is None or isinstance(value, (str, bytes, dict, set)):  # np.asarray would take it
            raise TypeError(
                f"x[index] = value: can't assign a {type(value).__name__} to a {self.dtype} "
                "tensor; assign a number, a tensor or a (nested) list of numbers"
            )
        ints, rest = ints_first(normalize_index(index, self.ndim))
        if isinstance(value, GraphTensor):
            value = value.to(self.dtype) if value.dtype != self.dtype else value
        elif isinstance(value, (bool, int, float)) and self.array.dtype.kind in "biu":
            value = number_as("x[index] = value", value, self.array.dtype)  # -1 in uint8: 255
            # (a float tensor takes any float, as PyTorch: -1e9 in float16 is -inf)
        else:
            value = np.asarray(value, dtype=self.dtype)

        is_tensor = isinstance(value, GraphTensor)
        try:
            if not is_grad_enabled() or not (
                self.requires_grad or is_tensor and value.requires_grad
            ):
                # NOTE: nothing to record: write the places themselves, not a copy of the whole
                # tensor (x[i] = row costs the row, not the tensor).
                target = self.array[ints] if ints else self.array
                refuse_overlap(
                    "x[index] = value", target if has_array_index(rest) else target[rest]
                )
                target[rest] = value.array if is_tensor else value
                self._bump_version()
                return

            def put(t):
                return IndexPut.apply(t, value, ints=ints, rest=rest)

            self._change_in_place("setitem", put, value)
        except ValueError as error:  # NumPy's words: say which write, and the shapes
            places = np.empty(self.array.shape, dtype=bool)[(ints or ()) + rest].shape
            raise ShapeError(
                f"x[index] = value: cannot write a value of shape {tuple(np.shape(value))} into "
                f"the places {describe_index((ints or ()) + rest)} select in a tensor of shape "
                f"{tuple(self.shape)} (they form shape {places}; a mask selects as many places "
                f"as it has True entries); give a value of that shape or one that broadcasts "
                f"to it ({error})"
            ) from None

    # --- in place: out-of-place op, written back -------------------------------------------
    exp_ = _in_place("exp_", lambda t: t.exp())

    log_ = _in_place("log_", lambda t: t.log())

    sqrt_ = _in_place("sqrt_", lambda t: t.sqrt())

    abs_ = _in_place("abs_", lambda t: t.abs())

    neg_ = _in_place("neg_", lambda t: -t)

    sigmoid_ = _in_place("sigmoid_", lambda t: t.sigmoid())

    tanh_ = _in_place("tanh_", lambda t: t.tanh())

    relu_ = _in_place("relu_", lambda t: t.relu())

    def clamp_min_(self, min):  # noqa: A002 - PyTorch's name
        return self._change_in_place("clamp_min_", lambda t: t.clamp(min=min), min)

    def clamp_max_(self, max):  # noqa: A002 - PyTorch's name
        return self._change_in_place("clamp_max_", lambda t: t.clamp(max=max), max)

    def addcmul_(self, tensor1, tensor2, *, value=1):
        """self += value * tensor1 * tensor2 (Adam's second moment: `v.addcmul_(g, g, 1 - b2)`)."""
        return self._change_in_place(
            "addcmul_", lambda t: t + value * (tensor1 * tensor2), tensor1, tensor2
        )

    def addcdiv_(self, tensor1, tensor2, *, value=1):
        """self += value * tensor1 / tensor2 (Adam's update: `p.addcdiv_(m, denom, value=-lr)`)."""
        _refuse_integer_division("addcdiv_", tensor1, tensor2)
        return self._change_in_place(
            "addcdiv_", lambda t: t + value * (tensor1 / tensor2), tensor1, tensor2
        )

    # --- in place, changing the shape (the tensor takes the view's shape and history) ---------
    def _become(self, out):
        self.array = out.array
        if out.grad_fn is not None:
            self.grad_fn, self.requires_grad = out.grad_fn, out.requires_grad
        return self

    def squeeze_(self, dim=None):
        return self._become(self.squeeze() if dim is None else self.squeeze(dim))

    def unsqueeze_(self, dim):
        return self._become(self.unsqueeze(dim))

    def t_(self):
        return self._become(self.t())

    def transpose_(self, dim0, dim1):
        return self._become(self.transpose(dim0, dim1))

    def detach_(self):
        """Cut this tensor from the graph, in place: it becomes a leaf that needs no grad."""
        self.grad_fn, self.requires_grad = None, False
        return self

    def index_fill_(self, dim, index, value):
        """self[..., index, ...] = value along `dim` (index: a 1-D integer tensor)."""
        places = _along(self, "index_fill_", dim, index)
        if isinstance(value, (bool, int, float)):
            value = self._make(number_as("index_fill_", value, self.array.dtype))
        return self._change_in_place(
            "index_fill_",
            lambda t: IndexPut.apply(t, value.to(t.dtype), ints=(), rest=places),
            value,
        )

    def index_copy_(self, dim, index, source):
        """self[..., index[i], ...] = source[..., i, ...] along `dim`."""
        places = _along(self, "index_copy_", dim, index)
        return self._change_in_place(
            "index_copy_",
            lambda t: IndexPut.apply(t, source.to(t.dtype), ints=(), rest=places),
            source,
        )

    def fill_diagonal_(self, fill_value, wrap=False):
        """Fill the main diagonal (all dims equal for ndim > 2). With `wrap`, the diagonal of a
        tall matrix starts again after a blank row (every (columns + 1)-th element of the flat
        matrix, as PyTorch and NumPy); without, it stops at the last column."""
        if self.ndim < 2 or (self.ndim > 2 and len(set(self.shape)) != 1):
            raise RuntimeError(
                f"fill_diagonal_: needs a matrix, or all dimensions of equal length, got "
                f"{tuple(self.shape)}"
            )
        i = np.arange(min(self.shape))
        places = (i,) * self.ndim
        if wrap and self.ndim == 2 and self.shape[0] > self.shape[1]:
            rows, columns = self.shape
            places = np.divmod(np.arange(0, rows * columns, columns + 1), columns)
        value = self._make(number_as("fill_diagonal_", fill_value, self.array.dtype))
        return self._change_in_place(
            "fill_diagonal_", lambda t: IndexPut.apply(t, value, ints=(), rest=tuple(places))
        )

    def lerp_(self, end, weight):
        """self += weight * (end - self) (an exponential moving average: `m.lerp_(g, 1 - b1)`)."""
        return self._change_in_place("lerp_", lambda t: t.lerp(end, weight), end, weight)


def _along(t, op: str, dim: int, index) -> tuple:
    """The index that selects the entries `index` (1-D integers) along `dim` of t."""
    d = dim + t.ndim if dim < 0 else dim
    if not 0 <= d < max(t.ndim, 1):
        raise IndexError(f"{op}: dim {dim} is out of range for a tensor of shape {t.shape}")
    places = np.asarray(getattr(index, "array", index))
    if places.dtype.kind not in "iu" or places.ndim > 1:
        raise IndexError(f"{op}: index must be a 1-D integer tensor, got {places.dtype}")
    return (slice(None),) * d + (places.reshape(-1),)


def _change_a_slice(view, compute):
    """A recorded in-place change of a view (`base[index]`, `base.diagonal()`, a transpose, ...):
    the new values are written into the base, recorded there as an index-put (what PyTorch's
    CopySlices does), and the view is taken again from the changed base. So `x[i] += v`,
    `row = h[0]; row.mul_(2)` and `y.diagonal().mul_(3)` give PyTorch's gradients for the base
    and the view."""
    base, index = view._base, view._view_index
    refuse_stale_view(view, "in-place change")
    old = view._make(view.array.copy(), view.requires_grad, view.grad_fn)
    if isinstance(index, tuple):
        base[index] = compute(old)  # Tensor.__setitem__: refuses a leaf that requires grad
        fresh = base[index]
    else:  # taken by a ViewReplay: write at the places of the base the view reads
        with no_grad():
            places = index(view._make(np.arange(base.array.size).reshape(base.array.shape)))
        if np.unique(places.array).size != places.array.size:
            raise RuntimeError(
                "in-place change: more than one element of this view refers to a single memory "
                "location (an expanded tensor); clone() it before changing it in place"
            )
        base[np.unravel_index(places.array, base.array.shape)] = compute(old)
        fresh = index(base)
    view.grad_fn, view.requires_grad = fresh.grad_fn, fresh.requires_grad
    view._base_grad_fn = base.grad_fn
    return view


def _replace(t, values):
    """`values` (broadcast to t's shape), recorded as a change of t: t gets no gradient."""
    return Where.apply(np.zeros((), dtype=bool), t, values)


def _refuse_leaf_or_view(t, op: str) -> None:
    """A recorded in-place change is not allowed on a leaf that requires grad, or on a view of
    a tensor that requires grad."""
    if t.grad_fn is None and t.requires_grad:
        raise RuntimeError(
            f"{op}: a leaf tensor that requires grad is being used in an in-place operation "
            "(as PyTorch says: a leaf Variable that requires grad is being used in an in-place "
            "operation). Change it inside `with tg.no_grad():` (as an optimizer does), or write "
            "x = x + y to make a new tensor"
        )
    if t._base is not None:
        raise RuntimeError(
            f"{op}: this tensor is a view of another tensor, and a recorded in-place change of "
            "it would change that tensor behind the graph's back; change a copy (y = x.clone(); "
            "y[...] = ...), write the base itself (x[idx] = x[idx] + v), or build the new tensor "
            "with tg.where / masked_fill"
        )


def _refuse_partial_overlap(op: str, t, others) -> None:
    """PyTorch refuses an in-place op that reads a tensor whose memory partly overlaps the one
    it writes (`y[2:5].add_(y[0:3])`: which values would it read?); the same tensor is fine."""
    for o in others:
        if not isinstance(o, GraphTensor) or o.array is t.array:
            continue
        a, b = t.array, o.array
        if not np.may_share_memory(a, b):
            continue
        same = a.__array_interface__ == b.__array_interface__
        if not same and np.shares_memory(a, b, max_work=10**6):
            raise RuntimeError(
                f"{op}: unsupported operation: some elements of the input tensor (shape "
                f"{tuple(o.shape)}) and the written-to tensor (shape {tuple(t.shape)}) refer to "
                "a single memory location; clone() the input first"
            )


def refuse_overlap(op: str, array: np.ndarray) -> None:
    """PyTorch refuses to write into a tensor where several elements share one memory
    location (an expand()ed tensor): which of the values would be kept?"""
    if any(s == 0 and n > 1 for s, n in zip(array.strides, array.shape)):
        raise RuntimeError(
            f"{op}: unsupported operation: more than one element of the written-to tensor "
            f"refers to a single memory location (an expand()ed tensor of shape {array.shape}); "
            "write into a clone() instead"
        )


def _write(t, op: str, values: np.ndarray) -> None:
    """Write `values` into t's own array and bump t's version."""
    refuse_overlap(op, t.array)
    if values.shape != t.array.shape:
        raise RuntimeError(
            f"{op}: the result has shape {values.shape}, which does not match this tensor's "
            f"shape {t.array.shape}; an in-place op cannot change a shape (broadcast the other "
            "way, or write y = x + z)"
        )
    if not np.can_cast(values.dtype, t.array.dtype, casting="same_kind"):
        raise RuntimeError(
            f"{op}: result type {values.dtype} can't be cast to the desired output type "
            f"{t.array.dtype} of this tensor; convert first, e.g. x = x.float()"
        )
    try:
        np.copyto(t.array, values, casting="unsafe")
    except ValueError as error:  # a read-only array, e.g. the view that expand() makes
        raise RuntimeError(
            f"{op}: this tensor cannot be written in place ({error}): an expanded tensor holds "
            "one memory location for many elements; write into a clone() instead"
        ) from None
    t._bump_version()
