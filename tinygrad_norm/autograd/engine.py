"""The autograd engine: `Function`, its `Context` (one node of the graph) and the backward loop.

How reverse mode works here, in four sentences:

1. Every differentiable operation is a `Function` subclass with `forward(ctx, *arrays)` on NumPy
   arrays and `backward(ctx, grad_output)` written with Tensor operations.
2. `Function.apply` runs forward and, when an input requires grad, records a `Context` as the
   output's `grad_fn`: the node remembers its inputs and what forward saved for backward.
3. `backward_steps` sorts the nodes reachable from the output so that every node comes after all
   nodes that use its result (reverse topological order), then visits each node once: it hands
   the node the sum of the gradients its output received, calls the node's backward, and passes
   each returned gradient on to the input's node, or adds it into a leaf's `.grad`.
4. Because backward is made of Tensor operations, running it with grad enabled
   (`create_graph=True`) records a graph of the backward pass itself: gradients of gradients.
   (The ops' own backwards are written so that the same lines also run on the bare arrays when
   nothing is recorded, which is faster: `ops/xp.py`. A backward may return arrays then.)

`Tensor.backward()` runs `backward_steps` to the end; the step-through tool shows the same steps
one at a time, so what a learner steps through is what really runs. The small features the loop
calls (hooks, `retain_grad`, `autograd.grad`'s capture, anomaly checks, freeing saved values)
live in `autograd/features.py`.

The engine never imports the Tensor class (tensor.py imports this module, not the other way
round): it knows tensors by their base class `GraphTensor` below, and wraps arrays with
`x._make(array)`, a method every Tensor has.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import numpy as np

from ..broadcast import broadcasts_to, sum_to_shape
from .anomaly import check_gradients, creation_site, is_anomaly_enabled
from .features import (
    HINT,
    add_gradient,
    deliver_to_leaf,
    join_view,
    output_gradient_ready,
    refuse_stale_view,
    take_gradient,
)
from .grad_mode import enable_grad, is_grad_enabled, no_grad


class GraphTensor:
    """What the engine needs of a tensor; `tensor.Tensor` is its one subclass.

    `.array` (the NumPy array), `.requires_grad`, `.grad`, `.grad_fn` (the Context that made
    it, None for a leaf) and `_make(array, requires_grad=False, grad_fn=None)`, which wraps an
    array in a new Tensor.
    """

    __slots__ = ()


class Context:
    """One call of a Function: what forward saved for backward, and the node in the graph.

    The same object is the `ctx` argument of `forward` / `backward` and the output's `grad_fn`.
    `inputs` are the Tensor arguments and `edges` say where each one's gradient goes: the
    input's own `grad_fn`, or the input itself when it is a leaf. Edges outlive everything
    else, so the graph can still be walked and drawn after backward has freed the rest.
    Arrays forward stores as attributes (`ctx.mask = x > 0`) are freed with the saved tensors;
    only what save_for_backward kept is checked for in-place changes, as in PyTorch.
    """

    # NOTE: the engine's own fields are slots, what forward keeps on ctx (`ctx.axis = axis`) goes
    # to `__dict__`: faster to set and read, and `release` looks for forward's arrays only there
    # (with versions only of what save_for_backward kept: recording a Tanh, 1.6 -> 1.15 us).
    __slots__ = ("fn", "needs_input_grad", "saved", "args", "kwargs", "inputs", "edges")
    __slots__ += ("input_meta", "hooks", "retained", "released", "fixes", "versions")
    __slots__ += ("creation_site", "__dict__", "__weakref__")

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
        # where each input's gradient goes (its grad_fn, or the leaf itself), and its shape
        edges, meta = [], []  # NOTE: one loop, not two generators (0.4 us per op)
        for t in tensors:
            edges.append(t if t.grad_fn is None else t.grad_fn)
            meta.append((t.array.shape, t.array.dtype))
        self.edges, self.input_meta = tuple(edges), tuple(meta)
        self.hooks = []  # hooks on the gradient of this node's output
        self.retained = None  # weak reference to the output tensor after retain_grad()
        self.released = False  # True once backward freed the saved values
        self.fixes = _NO_FIXES  # what the engine changed in backward's results (gradcheck reads)
        self.versions = ()  # (version counter, version then) of each tensor backward reads
        if self.saved:
            self.keep_saved(tensors, out, returned)

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
        tensors = []  # NOTE: a loop, not a comprehension (see call_backward)
        for s in self.saved:
            tensors.append(output(s.array, True, self) if isinstance(s, _Output) else s)
        return tuple(tensors)

    def __getattr__(self, attr):
        # Only reached when `attr` is missing, e.g. an array attribute that backward freed.
        if attr in Context.__slots__ or attr.startswith("__"):  # e.g. copy, pickle: no node yet
            raise AttributeError(attr)
        hint = f" ({HINT})" if getattr(self, "released", False) else ""
        raise AttributeError(f"{self!r} has no attribute {attr!r}{hint}")

    @property
    def name(self) -> str:
        return f"{self.fn.__name__}Backward"

    @property
    def formula(self) -> str:
        return self.fn.formula

    @property
    def next_functions(self) -> tuple:
        """PyTorch-style edges: `((node_or_AccumulateGrad_or_None, 0), ...)`."""
        return tuple((_as_next_function(edge), 0) for edge in self.edges)

    def __repr__(self) -> str:
        return f"<{self.fn.__name__}Backward>"

    def keep_saved(self, tensors: tuple, out, returned) -> None:
        """What save_for_backward kept, as Tensors joined to the graph (`_as_saved`), and the
        version of each (as in PyTorch), to catch in-place changes before backward."""
        saved, versions = [], []  # NOTE: one loop for both (saving two inputs: 2.79 -> 2.57 us)
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

    def call_backward(self, grad_output) -> tuple:
        """Call the Function's backward: one gradient (or None) per Tensor input, each with
        exactly that input's shape and dtype."""
        if self.versions:
            self.check_versions()
        grads, needs = self.fn.backward(self, grad_output), self.needs_input_grad
        grads = grads if type(grads) is tuple else (grads,)
        if len(grads) != len(needs):  # NOTE: only then (tanh: 115.5k -> 113.6k instructions)
            grads = self._one_per_argument(grads)
        if len(grads) > len(self.inputs):  # keep those of the Tensor arguments, in order
            tensor_grads, tensor_needs = [], []  # NOTE: one loop, not three (0.25 us less)
            for a, g, n in zip(self.args, grads, needs):
                if isinstance(a, GraphTensor):
                    tensor_grads.append(g)
                    tensor_needs.append(n)
            grads, needs = tensor_grads, tensor_needs
        fitted = []  # NOTE: a loop: before 3.12 a comprehension is a call (Add: 1.13 -> 0.78 us)
        for i, g in enumerate(grads):
            needed = needs[i] and g is not None
            fitted.append(self._as_input_gradient(i, g, grad_output) if needed else None)
        return tuple(fitted)

    def _one_per_argument(self, grads) -> tuple:
        """What backward returned (as a tuple), as one gradient (or None) per positional
        argument of forward; trailing Nones for arguments that need no gradient may be left out."""
        n_args = len(self.needs_input_grad)
        if len(grads) < n_args and not any(self.needs_input_grad[len(grads) :]):
            grads += (None,) * (n_args - len(grads))
        if len(grads) != n_args:
            raise RuntimeError(
                f"{self.name}: backward returned {len(grads)} gradients but forward took "
                f"{n_args} arguments; return one per argument (None for those that need none)"
            )
        return grads

    def _as_input_gradient(self, i: int, g, like):
        """A gradient backward returned for input `i`, as a Tensor of that input's shape and
        dtype. What had to change is noted in `self.fixes`, so gradcheck can report it."""
        shape, dtype = self.input_meta[i]
        if isinstance(g, GraphTensor):
            values = g.array
        else:  # an array: an `ops/xp.py` formula ran on arrays (nothing recorded), or a slip
            if is_grad_enabled():  # recording the backward pass: this gradient is a constant
                self.fixes |= {f"returned a NumPy array for input {i}"}
            g = values = np.asarray(g)
        if values.shape != shape:
            if not broadcasts_to(shape, values.shape):
                raise RuntimeError(
                    f"{self.name}: backward returned a gradient of shape {values.shape} for "
                    f"input {i} of shape {shape}; a gradient must have the input's shape "
                    "(or a shape the input broadcasts to, which is then summed back)"
                )
            g = sum_to_shape(g, shape)  # a Tensor or an array, as g was
        if values.dtype != dtype:
            self.fixes |= {f"returned {values.dtype} for input {i} of dtype {dtype}"}
            g = g.astype(dtype) if isinstance(g, np.ndarray) else g.to(dtype)
        return like._make(g) if isinstance(g, np.ndarray) else g


_NO_FIXES = frozenset()  # shared by every node until a fix is noted (a set each: 0.1 us)


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

    def __repr__(self) -> str:
        return "<AccumulateGrad>"


def _as_next_function(edge):
    if isinstance(edge, Context):
        return edge
    return AccumulateGrad(edge) if edge.requires_grad else None


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
        if recording:
            ctx.record(args, kwargs, tensors, out, returned)
            if is_anomaly_enabled():
                ctx.creation_site = creation_site()
        return out


def _split_arguments(fn: type, args: tuple) -> tuple[tuple, tuple, list]:
    """The Tensor arguments, whether each argument requires grad, and forward's arguments
    (arrays in place of Tensors). One loop, not three generators: 1.5 us less per op."""
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


class Step(NamedTuple):
    """What the engine did at one node: the step-through tool shows these."""

    index: int
    node: Context
    grad_output: Any  # Tensor: the gradient of the node's output, summed over all its uses
    grad_inputs: tuple  # what the node sent to each of its Tensor inputs (None: nothing)
    inputs: tuple  # the node's input Tensors
    grads: dict  # the loop's sums of gradients so far (features.add_gradient), and
    capture: Any  # autograd.grad's capture (or None): what `so_far` reads

    def so_far(self) -> tuple:
        """Each input's gradient so far (a leaf's: its .grad once complete). Only the
        step-through tool asks; call it before the next step runs."""
        return tuple(_gradient_so_far(e, self.grads, self.capture) for e in self.node.edges)


# NOTE: one Step per node: tuple.__new__ (in C), not NamedTuple's own __new__ (0.31 -> 0.14 us)
new_step = functools.partial(tuple.__new__, Step)


def topological_sort(roots: list[Context]) -> list[Context]:
    """Nodes reachable from `roots`, each after every node that consumes its output.

    An iterative depth-first search (no recursion limit): a node is appended once all of its
    inputs' nodes are finished; reversing that post-order puts consumers first.
    """
    order: list[Context] = []
    visited: set[Context] = set()  # NOTE: nodes hash by identity: no id() (add -1% instr.)
    for root in roots:
        if root in visited:
            continue
        visited.add(root)
        stack = [(root, iter(root.edges))]
        while stack:
            node, children = stack[-1]
            for child in children:
                if isinstance(child, Context) and child not in visited:
                    visited.add(child)
                    stack.append((child, iter(child.edges)))
                    break
            else:
                stack.pop()
                order.append(node)
    order.reverse()
    return order


def backward_steps(roots, grad_roots, *, retain_graph=False, create_graph=False, capture=None):
    """Run the backward pass from `roots` (Tensors) seeded with `grad_roots`, one node at a time.

    Yields a `Step` after each node. `grads` holds, for every node and leaf, the sum of the
    gradients it has received so far. A leaf's sum is delivered (hooks, then
    `.grad`) as soon as the last edge into it has run: `pending` counts those edges. With
    `capture` (a dict keyed by `id` of the tensors `autograd.grad` asked for), gradients go there
    instead of `.grad`.
    """
    create_graph = bool(create_graph)
    grad_mode = enable_grad() if create_graph else no_grad()  # the mode inside each backward
    grads: dict[int, list] = {}  # id(node or leaf) -> the sum of its gradients so far
    for root, grad in zip(roots, grad_roots):
        add_gradient(grads, id(root.grad_fn or root), grad, create_graph)
    order = topological_sort([r.grad_fn for r in roots if r.grad_fn is not None])
    pending = count_edges_into_leaves(roots, order)
    for root in {id(r): r for r in roots if r.grad_fn is None}.values():
        if pending[id(root)] == 0:  # a leaf that is itself a root, used by no node
            grad = take_gradient(grads, id(root))
            deliver_to_leaf(root, grad, capture, create_graph)

    for index, node in enumerate(order):
        grad_output = take_gradient(grads, id(node))
        grad_inputs: tuple = (None,) * len(node.edges)
        if grad_output is not None:
            if node.released:
                raise RuntimeError(f"{node.name}: backward through the graph a second time: {HINT}")
            grad_output = output_gradient_ready(node, grad_output, capture, create_graph)
            with grad_mode:
                grad_inputs = node.call_backward(grad_output)
            if is_anomaly_enabled():
                check_gradients(node, grad_inputs)
        for edge, grad in zip(node.edges, grad_inputs):
            key = id(edge)
            if grad is not None:
                add_gradient(grads, key, grad, create_graph)
            if key in pending:  # a leaf that requires grad: was this the last edge into it?
                pending[key] -= 1
                if pending[key] == 0 and key in grads:
                    deliver_to_leaf(edge, take_gradient(grads, key), capture, create_graph)
        inputs = node.inputs
        if not retain_graph:
            node.release()
        yield new_step((index, node, grad_output, grad_inputs, inputs, grads, capture))


def _gradient_so_far(edge, grads: dict, capture: dict | None):
    """The gradient `edge` has received so far: still being summed, or delivered."""
    if id(edge) in grads:
        total = grads[id(edge)][0]
        return total._make(total.array.copy())  # a snapshot: later uses may add into the sum
    if isinstance(edge, Context) or capture is not None or not edge.requires_grad:
        return None  # a node's sum was handed on already; a captured or constant input
    return edge.grad


def count_edges_into_leaves(roots, order: list[Context]) -> dict[int, int]:
    """For each leaf that requires grad: how many edges of the graph lead into it."""
    pending = {id(r): 0 for r in roots if r.grad_fn is None}
    for node in order:
        for edge in node.edges:
            if not isinstance(edge, Context) and edge.requires_grad:
                pending[id(edge)] = pending.get(id(edge), 0) + 1
    return pending


def run_backward(roots, grad_roots, *, retain_graph=False, create_graph=False, capture=None):
    """Run every step of `backward_steps`: what `Tensor.backward()` does."""
    for _ in backward_steps(
        roots, grad_roots, retain_graph=retain_graph, create_graph=create_graph, capture=capture
    ):
        pass
