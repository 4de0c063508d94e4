"""`Function`: an operation with a hand-written gradient, and `apply`, which runs it.

`apply` runs forward on the arrays inside the arguments and, when an input requires grad (and
grad mode is on), records a `Context` (autograd/node.py) as the output's `grad_fn`. An output
that is a view of an input shares its version counter (`join_view`), so an in-place change of
either is seen by both.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .anomaly import creation_site, is_anomaly_enabled
from .grad_mode import is_grad_enabled
from .node import Context, GraphTensor


class Function:
    """An operation with a hand-written gradient. Subclass it and call `.apply(...)`.

    `forward(ctx, *args, **kwargs)` receives NumPy arrays in place of Tensor arguments (other
    arguments as they are) and returns one array. `backward(ctx, grad_output)` receives the
    gradient of the output as a Tensor and returns one gradient per positional argument (a
    Tensor, an array, or None). Write backward with Tensor operations so that it can itself be
    differentiated (`create_graph=True`); a backward that returns arrays gives correct first
    derivatives only.

    `formula` states the local rule in words; the step-through tool shows it.

    >>> import tinygrad_norm as tg
    >>> class Square(tg.Function):
    ...     formula = "grad_x = grad_out * 2 * x"
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     def backward(ctx, grad_output):
    ...         (x,) = ctx.saved_tensors
    ...         return grad_output * 2 * x
    >>> x = tg.tensor([3.0], requires_grad=True)
    >>> Square.apply(x).sum().backward()
    >>> x.grad
    tensor([6.])
    """

    formula = ""

    @staticmethod
    def forward(ctx: Context, *args: Any, **kwargs: Any) -> np.ndarray:
        raise NotImplementedError("a Function subclass must define forward(ctx, *args)")

    @staticmethod
    def backward(ctx: Context, grad_output):
        raise NotImplementedError("a Function subclass must define backward(ctx, grad_output)")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any):
        """Run forward on the arrays inside `args` and, if any input requires grad (and grad
        mode is on), record the node that backward will visit."""
        tensors, needs, arrays = _split_arguments(cls, args)
        ctx = Context(cls, needs)
        returned = cls.forward(ctx, *arrays, **kwargs)
        output = returned if isinstance(returned, np.ndarray) else _as_array(cls, returned)
        # An integer or bool output has no gradient (a cast to int, an argmax, a comparison).
        recording = True in needs and is_grad_enabled() and output.dtype.kind in "fc"
        out = tensors[0]._make(output, recording, ctx if recording else None)
        if output.base is not None or _is_one_of(output, tensors):
            join_view(out, tensors)
            # a built-in view of one tensor: remember how to take it again (ViewReplay)
            if len(tensors) == 1 and out._base is not None and cls.__module__.startswith(_OPS):
                out._view_index = view_replay(cls, args, kwargs, tensors[0])
        if recording:
            ctx.record(args, kwargs, tensors, out, returned)
            if is_anomaly_enabled():
                ctx.creation_site = creation_site()
        return out


def _split_arguments(fn: type, args: tuple) -> tuple[tuple, tuple, list]:
    """The Tensor arguments, whether each argument requires grad, and forward's arguments
    (arrays in place of Tensors), in one loop over the arguments."""
    tensors, needs, arrays = [], [], []
    for a in args:
        if isinstance(a, GraphTensor):
            if a._base is not None:
                refuse_stale_view(a, fn.__name__)
            tensors.append(a)
            needs.append(a.requires_grad)
            arrays.append(a.array)
        else:
            needs.append(False)
            arrays.append(a)
    if not tensors:
        raise TypeError(f"{fn.__name__}.apply: give at least one Tensor argument")
    return tuple(tensors), tuple(needs), arrays


def _is_one_of(output: np.ndarray, tensors: tuple) -> bool:
    """Did forward return one of its input arrays itself (an identity, as a view)?"""
    for t in tensors:
        if output is t.array:
            return True
    return False


def _as_array(fn: type, returned) -> np.ndarray:
    """What forward returned, as an array (a NumPy scalar becomes a 0-d array)."""
    if isinstance(returned, GraphTensor):
        raise TypeError(f"{fn.__name__}.forward must return a NumPy array, not a Tensor")
    return np.asarray(returned)


def join_view(out, inputs) -> None:
    """If `out`'s array is a view into an input's memory, `out` shares that input's version
    counter (an in-place change of either is a change of both) and remembers it as `_base`."""
    root = _root(out.array)
    for t in inputs:
        # NOTE: a view's base is most often the owner itself: tested before walking to the root
        base = t.array.base
        if (
            t.array is root
            or base is root
            or (base is not None and _root(t.array) is root)
            or (root is out.array and np.may_share_memory(root, t.array))  # as_strided's view
        ):
            out._versions = t._version_counter()
            out._base = t if t._base is None else t._base
            out._base_grad_fn = out._base.grad_fn
            return


_OPS = __package__.rsplit(".", 1)[0] + ".ops"  # the built-in ops (their views can be retaken)


class ViewReplay:
    """How a view was taken from the tensor its memory belongs to (its `_base`): calling it on
    that base takes the view again, joined to the base's graph. A recorded in-place change of
    the view is written into the base through it (`tensor_methods/inplace.py`), as PyTorch's
    CopySlices does: `y.diagonal().mul_(3)` then gives PyTorch's gradients."""

    __slots__ = ("fn", "args", "kwargs", "parent")

    def __init__(self, fn, args, kwargs, parent):
        self.fn, self.args, self.kwargs, self.parent = fn, args, kwargs, parent

    def __call__(self, base):
        source = base
        if isinstance(self.parent, tuple):  # the input was base[index]
            source = base[self.parent]
        elif self.parent is not None:  # the input was itself a view taken some other way
            source = self.parent(base)
        args = tuple(source if isinstance(a, GraphTensor) else a for a in self.args)
        return self.fn.apply(*args, **self.kwargs)


class OneOfManyViews(tuple):
    """The index of a view that an op returning several views made (split, chunk, unbind):
    PyTorch refuses a recorded in-place change of such a view (`op` names it)."""

    op = ""


def mark_one_of_many(views, op: str):
    """Mark each view of `views` (taken by an index of its base) as one of `op`'s outputs."""
    for v in views:
        if isinstance(v._view_index, tuple):
            v._view_index = OneOfManyViews(v._view_index)
            v._view_index.op = op
    return views


def view_replay(fn, args, kwargs, source):
    """A `ViewReplay` for a view of `source` made by `fn(*args, **kwargs)`, or None when how
    `source` itself was taken from its base is unknown."""
    if source._base is not None and source._view_index is None:
        return None
    return ViewReplay(fn, args, kwargs, source._view_index)


def _root(array):
    """The array that owns the memory `array` looks into."""
    while isinstance(array.base, type(array)):
        array = array.base
    return array


def refuse_stale_view(view, op: str) -> None:
    """A view's values follow its base's memory, but its grad_fn was fixed when it was taken:
    after a recorded in-place change of the base, the view's history is rebuilt from the
    base's new one (taken again by its `_view_index`, as PyTorch regenerates a view's grad_fn),
    so `v = y[:, 1]; y.mul_(2); v.sum().backward()` sends gradients through the change. A view
    taken some way that cannot be retaken is refused."""
    if view._base.grad_fn is view._base_grad_fn or not is_grad_enabled():
        return
    index = view._view_index
    if index is not None:
        fresh = view._base[index] if isinstance(index, tuple) else index(view._base)
        view.grad_fn, view.requires_grad = fresh.grad_fn, fresh.requires_grad
        view._base_grad_fn = view._base.grad_fn
        return
    raise RuntimeError(
        f"{op}: this tensor is a view taken before its base was changed in place (the "
        "change is recorded in the base's history, not in the view's); take the view "
        "again after the in-place change, e.g. v = y[:2] once more"
    )
