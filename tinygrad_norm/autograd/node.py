"""One node of the graph: `Context`, what a Function's call leaves for backward.

The same object is `ctx` in `forward(ctx, ...)` and `backward(ctx, grad_output)`, and the output
tensor's `grad_fn`. It keeps what `save_for_backward` was given (as Tensors joined to the graph,
with their versions, to catch in-place changes), where each input's gradient goes (`edges`), and
the inputs' shapes and dtypes (`ctx.input_shape`, `ctx.input_shapes`, `ctx.input_dtypes`), so
that what backward returns can be fitted to them (`backward_call.call_backward`).

This module never imports the Tensor class (tensor.py imports the autograd package, not the
other way round): it knows tensors by their base class `GraphTensor`, and wraps arrays with
`x._make(array)`, a method every Tensor has.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from . import saved_hooks
from .node_api import NodeName, PyTorchNode

HINT = (  # how to backpropagate twice through one graph
    "its saved values were freed after the first backward. Pass retain_graph=True to the first "
    "backward() (or autograd.grad) if you need to backpropagate through the same graph twice."
)


class GraphTensor:
    """What the engine needs of a tensor; `tensor.Tensor` is its one subclass.

    `.array` (the NumPy array), `.requires_grad`, `.grad`, `.grad_fn` (the Context that made
    it, None for a leaf) and `_make(array, requires_grad=False, grad_fn=None)`, which wraps an
    array in a new Tensor.
    """

    __slots__ = ()


def check_grad_assignment(tensor, value) -> None:
    """Refuse a `.grad` that is not a Tensor, or has another shape or dtype than `tensor`."""
    if not isinstance(value, GraphTensor):
        raise TypeError(
            f"assigned grad expected to be a Tensor or None but got grad of type "
            f"{type(value).__name__}; wrap it first, e.g. w.grad = tg.tensor(values)"
        )
    if value.array.shape != tensor.array.shape:
        raise RuntimeError(
            f".grad: attempting to assign a gradient of shape {tuple(value.shape)} to a tensor "
            f"of shape {tuple(tensor.shape)}; a gradient must have the tensor's shape"
        )
    if value.array.dtype != tensor.array.dtype:
        raise RuntimeError(
            f".grad: attempting to assign a gradient of dtype {value.dtype} to a tensor of "
            f"dtype {tensor.dtype}; convert it first, e.g. w.grad = g.to(w.dtype)"
        )


class Context(PyTorchNode):
    """One call of a Function: what forward saved for backward, and the node in the graph.

    The same object is the `ctx` argument of `forward` / `backward` and the output's `grad_fn`.
    `inputs` are the Tensor arguments and `edges` say where each one's gradient goes: the
    input's own `grad_fn`, or the input itself when it is a leaf. Edges outlive everything
    else, so the graph can still be walked and drawn after backward has freed the rest.
    Arrays forward stores as attributes (`ctx.mask = x > 0`) are freed with the saved tensors;
    only what save_for_backward kept is checked for in-place changes, as in PyTorch.
    """

    # NOTE: the engine's own fields are slots; what forward keeps on ctx (`ctx.mask = x > 0`)
    # goes to `__dict__`, where `release` looks for forward's arrays to free.
    __slots__ = ("fn", "needs_input_grad", "saved", "args", "kwargs", "inputs", "edges")
    __slots__ += ("input_shapes", "input_dtypes", "hooks", "retained", "released", "fixes")
    __slots__ += ("versions",)
    __slots__ += ("creation_site", "__dict__", "__weakref__")

    n_outputs = 1  # a PyTorch-style Function with several outputs sets its own (engine.py)
    post_hooks = ()  # `register_hook(fn)`: fn(grad_inputs, grad_outputs) after backward ran
    materialize_grads = True  # an output that received no gradient: zeros (False: None)
    runs_without_gradient = False  # backward runs even when no gradient reached the node

    def __init__(self, fn: type, needs_input_grad: tuple[bool, ...]):
        # What every call has (most calls, e.g. the ops inside a backward, stop here) ...
        self.fn = fn  # the Function subclass that made this node
        self.needs_input_grad = needs_input_grad  # one bool per positional argument
        self.saved = ()  # what save_for_backward kept

    def record(self, args: tuple, kwargs: dict, tensors: tuple, out, returned) -> None:
        """Join this node to the graph after forward ran (called by `Function.apply`).
        `out` is the output Tensor, `returned` what forward returned."""
        # ... and what a node of the graph has.
        self.args, self.kwargs = args, kwargs  # forward's arguments, Tensors kept as Tensors
        self.inputs = tensors  # the Tensor arguments, in order
        # where each input's gradient goes (its grad_fn, or the leaf itself), its shape and dtype
        self.edges = tuple(t if t.grad_fn is None else t.grad_fn for t in tensors)
        self.input_shapes = tuple(t.array.shape for t in tensors)
        self.input_dtypes = tuple(t.array.dtype for t in tensors)
        self.hooks = []  # hooks on the gradient of this node's output
        self.retained = None  # weak reference to the output tensor after retain_grad()
        self.released = False  # True once backward freed the saved values
        self.fixes = _NO_FIXES  # what the engine changed in backward's results (gradcheck reads)
        self.versions = ()  # (version counter, version then) of each tensor backward reads
        if self.saved:
            self.keep_saved(tensors, out, returned)
            if saved_hooks.active():
                self.saved = saved_hooks.pack_all(self)

    def save_for_backward(self, *values) -> None:
        """Keep `values` for backward; read them back as Tensors from `ctx.saved_tensors`.

        Save forward's own input arrays or its output array (the very same objects) to keep the
        gradient differentiable: they come back as the input Tensors, or as the output, joined to
        the graph. Any other array comes back as a constant Tensor.
        """
        self.saved = values

    @property
    def saved_tensors(self) -> tuple:
        if self.released:
            raise RuntimeError(f"{self.name}: backward through the graph a second time: {HINT}")
        output = self.inputs[0]._make  # forward's output is rebuilt, joined to the graph
        return tuple(
            output(s.array, True, self)
            if isinstance(s, _Output)
            else s.unpack()
            if isinstance(s, saved_hooks.Packed)
            else s
            for s in self.saved
        )

    @property
    def input_shape(self) -> tuple:
        """The shape of the first Tensor input (`ctx.input_shapes[0]`)."""
        return self.input_shapes[0]

    @property
    def input_dtype(self) -> np.dtype:
        """The dtype of the first Tensor input (`ctx.input_dtypes[0]`)."""
        return self.input_dtypes[0]

    def __getattr__(self, attr):
        """Only reached when `attr` is not an attribute: forward's arguments are read by name
        (`ctx.dim` is the argument `dim` that forward received, or its default)."""
        if attr in Context.__slots__ or attr.startswith("__"):  # e.g. copy, pickle: no node yet
            raise AttributeError(attr)
        released = getattr(self, "released", None)
        if released is False:
            if attr in self.kwargs:
                return self.kwargs[attr]
            position, default = forward_parameters(self.fn).get(attr, (None, None))
            if position is not None:
                return self.args[position] if position < len(self.args) else default
        hint = f" ({HINT})" if released else ""
        raise AttributeError(f"{self!r} has no attribute {attr!r}{hint}")

    @property
    def name(self) -> str:
        """ "MulBackward": a string, and also callable, as PyTorch's `grad_fn.name()`."""
        return NodeName(f"{self.fn.__name__}Backward")

    @property
    def formula(self) -> str:
        """The local rule in words: the Function's `formula`, or else the first line of its
        docstring (a custom Function that sets no formula still says what it computes)."""
        if self.fn.formula:
            return self.fn.formula
        doc = vars(self.fn).get("__doc__") or ""
        return doc.strip().split("\n")[0]

    @property
    def next_functions(self) -> tuple:
        """PyTorch-style edges: `((node_or_AccumulateGrad_or_None, 0), ...)`."""
        inputs = self.inputs or (None,) * len(self.edges)  # () once released: slot 0
        return tuple(
            (_as_next_function(edge), edge.output_slot(t) if isinstance(edge, Context) else 0)
            for edge, t in zip(self.edges, inputs)
        )

    def output_slot(self, tensor) -> int:
        """Which of this node's outputs `tensor` is (0 for a node with one output; a node with
        several keeps their arrays in `output_arrays`)."""
        if self.n_outputs == 1 or tensor is None:
            return 0
        for k, array in enumerate(self.output_arrays):
            if array is tensor.array:
                return k
        return 0

    def __repr__(self) -> str:
        return f"<{self.fn.__name__}Backward>"

    def keep_saved(self, tensors: tuple, out, returned) -> None:
        """What save_for_backward kept, as Tensors joined to the graph (`_as_saved`), and the
        version of each (as in PyTorch), to catch in-place changes before backward."""
        saved, versions = [], []
        for value in self.saved:
            s = _as_saved(value, tensors, out.array, returned)
            saved.append(s)
            if s is not None:  # not the output tensor itself (it holds this node), its counter
                counter = (out if isinstance(s, _Output) else s)._version_counter()
                versions.append((counter, counter[0]))
        self.saved, self.versions = tuple(saved), versions

    def check_versions(self) -> None:
        """Refuse to run backward if a tensor it reads was changed in place since forward."""
        for counter, version in self.versions:
            if counter[0] != version:
                changed = self._saved_with(counter)
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by "
                    f"an inplace operation: [{changed.dtype} tensor of shape "
                    f"{list(changed.shape)}], saved by "
                    f"{self.name}, is at version {counter[0]}; expected version {version} "
                    "instead. Hint: change a copy (y = x.clone()) or make the change after "
                    "backward(); tg.detect_anomaly() shows where the op was created"
                )

    def _saved_with(self, counter: list):
        """The array that changed: the saved tensor or input whose version counter is
        `counter`, or else forward's output (whose counter only this node holds)."""
        for s in (*self.saved, *self.inputs):
            if getattr(s, "_versions", None) is counter:
                return s.array
        return next(s.array for s in self.saved if isinstance(s, _Output))

    def release(self) -> None:
        """Free what forward saved, after a backward without `retain_graph`."""
        self.saved = self.inputs = self.args = ()
        self.released = True
        if self.__dict__:  # forward also kept something on ctx: free its arrays
            for attr in [k for k, v in self.__dict__.items() if isinstance(v, np.ndarray)]:
                del self.__dict__[attr]


_NO_FIXES = frozenset()  # shared by every node until a fix is noted


class _Output:
    """Saved in place of forward's own output: rebuilt on demand, so that the output tensor and
    its grad_fn do not hold each other (no reference cycle)."""

    def __init__(self, data: np.ndarray):
        self.array = data


def _as_saved(value, tensors: tuple, output: np.ndarray, returned):
    """What `save_for_backward(value)` keeps: the input Tensor or the output that holds `value`
    (so the gradient stays joined to the graph), or else a constant Tensor."""
    if value is None or isinstance(value, GraphTensor):
        return value
    if value is output or value is returned:
        return _Output(output)
    for t in tensors:
        if t.array is value:
            return t
    return tensors[0]._make(np.asarray(value))


class AccumulateGrad:
    """PyTorch's name for the edge into a leaf: gradients arriving here add up in `.grad`."""

    def __init__(self, variable):
        self.variable = variable
        self.next_functions = ()

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self) -> str:
        return "<AccumulateGrad>"


def _as_next_function(edge):
    if isinstance(edge, Context):
        return edge
    return AccumulateGrad(edge) if edge.requires_grad else None


@functools.cache
def forward_parameters(fn: type) -> dict:
    """`{name: (position, default)}` of forward's parameters after ctx, for `ctx.name`."""
    if not getattr(fn, "arguments_by_name", True):  # PyTorch-style: ctx has only what was set
        return {}
    parameters = list(inspect.signature(fn.forward).parameters.values())[1:]
    return {p.name: (i, p.default) for i, p in enumerate(parameters) if p.kind <= p.KEYWORD_ONLY}
