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

`Tensor.backward()` simply runs `backward_steps` to the end; the step-through tool shows the
same steps one at a time, so what a learner steps through is what really runs.
"""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

import numpy as np

from .anomaly import check_gradients, creation_site, is_anomaly_enabled
from .grad_mode import _set_enabled, is_grad_enabled

# Ops whose backward returned NumPy arrays while a graph of the backward pass was being recorded:
# those gradients are constants, so second derivatives through them are wrong. gradgradcheck
# reads this list to name the op.
_numpy_backward_log = threading.local()


def numpy_backward_ops() -> list[str]:
    """Names of ops whose backward returned NumPy arrays under `create_graph` (this thread)."""
    if not hasattr(_numpy_backward_log, "names"):
        _numpy_backward_log.names = []
    return _numpy_backward_log.names


# NOTE: the Tensor class, bound once by tensor.py when it defines it (tensor.py imports this
# module, so this module cannot import tensor.py at the top). Importing it inside the hot
# functions instead cost ~1 us per call, on every op (measured: 15% of Function.apply).
Tensor: type = None  # type: ignore[assignment]

RETAIN_GRAPH_HINT = (
    "its saved values were freed after the first backward. Pass retain_graph=True to the first "
    "backward() (or autograd.grad) if you need to backpropagate through the same graph twice."
)


class Context:
    """One call of a Function: what forward saved for backward, and the node in the graph.

    The same object is the `ctx` argument of `forward` / `backward` and the output's `grad_fn`.

    Attributes
    ----------
    fn : the Function subclass that made this node.
    inputs : the Tensor arguments of the call, in order (freed after backward).
    edges : for each Tensor argument, where its gradient goes: the input's own `grad_fn`, or the
        input itself when it is a leaf. These outlive `inputs`, so the graph can be walked and
        drawn after backward.
    needs_input_grad : one bool per positional argument of forward.

    Arrays that forward stores on ctx as attributes (`ctx.mask = x > 0`) are freed after
    backward, as the saved tensors are (unless `retain_graph=True`); reading one afterwards
    says so. Store them in forward: record() notes them there, and release() frees those.
    """

    # NOTE: the defaults live on the class, and `record` sets them on the nodes it joins to the
    # graph. Most contexts are never recorded (every op run under no_grad, such as the ops of a
    # backward pass, makes one for its forward to write into), and for them `__init__` is two
    # assignments instead of thirteen.
    inputs: tuple | None = ()
    edges: tuple = ()
    input_meta: tuple = ()  # (shape, dtype) of each Tensor argument
    args: tuple | None = ()  # forward's positional arguments (Tensors kept as Tensors)
    arg_is_tensor: tuple = ()
    kwargs: dict = {}  # replaced by record, never changed in place
    hooks: tuple | list = ()  # hooks of the output tensor (a list once recorded)
    retained = None  # weak reference to the output tensor after retain_grad()
    released = False
    _to_save: tuple = ()
    _saved: tuple | None = ()
    _output: np.ndarray | None = None
    _array_attrs: list = []  # names of the arrays forward stored on ctx

    def __init__(self, fn: type, needs_input_grad: tuple[bool, ...]):
        self.fn = fn
        self.needs_input_grad = needs_input_grad

    # --- what forward calls --------------------------------------------------------------------
    def save_for_backward(self, *values) -> None:
        """Keep `values` for backward; read them back as Tensors from `ctx.saved_tensors`.

        Save forward's own input arrays or its output array (the very same objects) to keep the
        gradient differentiable: they come back as the input Tensors, or as the output, joined to
        the graph. Any other array comes back as a constant Tensor.
        """
        self._to_save = values

    @property
    def saved_tensors(self) -> tuple:
        if self._saved is None:
            raise RuntimeError(
                f"{self.name}: trying to backward through the graph a second time: "
                + RETAIN_GRAPH_HINT
            )
        return tuple(self._make_output() if s is _OUTPUT else s for s in self._saved)

    def __getattr__(self, attr):
        # Only reached when `attr` is missing, e.g. an array attribute freed by release().
        if attr.startswith("__") or "fn" not in self.__dict__:
            raise AttributeError(attr)
        if self.__dict__.get("released"):
            raise RuntimeError(f"{self.name}: ctx.{attr} is gone: " + RETAIN_GRAPH_HINT)
        raise AttributeError(f"{type(self).__name__!s} of {self.name} has no attribute {attr!r}")

    # --- the node ------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return f"{self.fn.__name__}Backward"

    @property
    def formula(self) -> str:
        return getattr(self.fn, "formula", "")

    @property
    def next_functions(self) -> tuple:
        """PyTorch-style edges: `((node_or_AccumulateGrad_or_None, 0), ...)`."""
        return tuple((_as_next_function(edge), 0) for edge in self.edges)

    def __repr__(self) -> str:
        return f"<{self.name}>"

    def record(self, args: tuple, kwargs: dict, tensors: tuple, is_tensor: tuple, output, returned):
        """Join this node to the graph after forward ran (called by `Function.apply`)."""
        # Arrays that forward stored as attributes (ctx.mask = ...): release() frees them.
        self._array_attrs = [k for k, v in vars(self).items() if isinstance(v, np.ndarray)]
        self.arg_is_tensor = is_tensor
        self.inputs = tensors
        self.args, self.kwargs = args, kwargs
        edges, meta = [], []
        for t in tensors:
            edges.append(t if t.grad_fn is None else t.grad_fn)
            meta.append((t.data.shape, t.data.dtype))
        self.edges, self.input_meta = tuple(edges), tuple(meta)
        self.hooks = []
        saved = []
        for value in self._to_save:
            if value is None or isinstance(value, Tensor):
                saved.append(value)
            elif value is returned or value is output:
                self._output = output
                saved.append(_OUTPUT)
            else:  # one of forward's inputs (joined to the graph), or a constant
                saved.append(_input_holding(tensors, value))
        self._saved, self._to_save = tuple(saved), ()

    def _make_output(self):
        return Tensor._make(self._output, requires_grad=True, grad_fn=self)

    def release(self) -> None:
        """Free what forward saved, after a backward without `retain_graph`."""
        self._saved = self._output = self.inputs = self.args = None
        self.released = True
        for attr in self._array_attrs:
            self.__dict__.pop(attr, None)

    def run_backward(self, grad_output):
        """Call the Function's backward and tidy its result: one gradient (or None) per Tensor
        input, each with exactly that input's shape and dtype."""
        grads = self.fn.backward(self, grad_output)
        if not isinstance(grads, tuple):
            grads = (grads,)
        n_args = len(self.needs_input_grad)
        if len(grads) < n_args and not any(self.needs_input_grad[len(grads) :]):
            grads = grads + (None,) * (n_args - len(grads))
        if len(grads) != n_args:
            raise RuntimeError(
                f"{self.name}: backward returned {len(grads)} gradients but forward "
                f"took {n_args} arguments; return one per argument (None for those "
                "that need no gradient)"
            )
        out = []
        i = 0
        for needs, g, is_tensor in zip(self.needs_input_grad, grads, self.arg_is_tensor):
            if not is_tensor:
                continue
            shape, dtype = self.input_meta[i]
            i += 1
            if g is None or not needs:
                out.append(None)
                continue
            if not isinstance(g, Tensor):
                if is_grad_enabled():
                    numpy_backward_ops().append(self.name)
                g = Tensor._make(np.asarray(g))
            if g.data.shape != shape:
                if not _expandable(shape, g.data.shape):
                    raise RuntimeError(
                        f"{self.name}: backward returned a gradient of shape {g.data.shape} for "
                        f"input {i - 1} of shape {shape}; a gradient must have the input's shape "
                        "(or a shape the input broadcasts to, which is then summed back)"
                    )
                g = sum_to_shape(g, shape)
            if g.data.dtype != dtype:
                g = g.to(dtype)
            out.append(g)
        return tuple(out)


def _input_holding(tensors: tuple, value):
    """The input Tensor whose array is `value` (saved: joined to the graph), or a constant."""
    for t in tensors:
        if t.data is value:
            return t
    return Tensor._make(np.asarray(value))


class _Output:
    """Marker in `ctx._saved` for forward's own output (rebuilt on demand: no reference cycle)."""


_OUTPUT = _Output()


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


def _expandable(shape: tuple, target: tuple) -> bool:
    """Can an array of `shape` be broadcast to `target` (so a gradient can be summed back)?"""
    if len(shape) > len(target):
        return False
    return all(n == 1 or n == m for n, m in zip(shape[::-1], target[::-1]))


def sum_to_shape(grad, shape: tuple):
    """Undo broadcasting: sum `grad` over the axes that broadcasting added or stretched.

    If `x` of shape (3, 1) was broadcast to (2, 3, 4) in forward, every element of `x` was used
    2 * 4 times, so its gradient is the sum over axis 0 (added) and axis 2 (stretched from 1):
    `grad.sum(dim=(0, 2), keepdim=True).reshape(3, 1)`. This is the only place in tinygrad_norm
    where broadcasting is undone; the engine calls it on every gradient whose shape differs
    from its input's, so no op's backward has to.
    """
    lead = grad.ndim - len(shape)
    stretched = tuple(lead + i for i, n in enumerate(shape) if n == 1 and grad.shape[lead + i] != 1)
    axes = tuple(range(lead)) + stretched
    if axes:
        grad = grad.sum(dim=axes, keepdim=True)
    return grad.reshape(shape) if grad.shape != tuple(shape) else grad


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
        # NOTE: one plain loop over the arguments, not three generator expressions.
        arrays, needs, is_tensor, tensors = [], [], [], []
        for a in args:
            if isinstance(a, Tensor):
                arrays.append(a.data)
                needs.append(a.requires_grad)
                is_tensor.append(True)
                tensors.append(a)
            else:
                arrays.append(a)
                needs.append(False)
                is_tensor.append(False)
        ctx = Context(cls, tuple(needs))
        returned = cls.forward(ctx, *arrays, **kwargs)
        output = returned if type(returned) is np.ndarray else _as_output(cls, returned)
        if not (True in needs and is_grad_enabled()):
            return Tensor._make(output)
        ctx.record(args, kwargs, tuple(tensors), tuple(is_tensor), output, returned)
        if is_anomaly_enabled():
            ctx.creation_site = creation_site()
        return Tensor._make(output, requires_grad=True, grad_fn=ctx)


def _as_output(fn: type, returned) -> np.ndarray:
    """What forward returned, as an array (a NumPy scalar becomes a 0-d array)."""
    if isinstance(returned, Tensor):
        raise TypeError(f"{fn.__name__}.forward must return a NumPy array, not a Tensor")
    return np.asarray(returned)


class Step(NamedTuple):
    """What the engine did at one node: the step-through tool shows these."""

    index: int
    node: Context
    grad_output: Any  # Tensor: the gradient of the node's output, summed over all its uses
    grad_inputs: tuple  # what the node sent to each of its Tensor inputs (None: nothing)
    inputs: tuple  # the node's input Tensors
    accumulated: tuple  # each input's gradient so far (a leaf's: its .grad once complete)


def topological_sort(roots: list[Context]) -> list[Context]:
    """Nodes reachable from `roots`, each after every node that consumes its output.

    An iterative depth-first search (no recursion limit): a node is appended once all of its
    inputs' nodes are finished; reversing that post-order puts consumers first.
    """
    order: list[Context] = []
    visited: set[int] = set()
    for root in roots:
        if id(root) in visited:
            continue
        visited.add(id(root))
        stack = [(root, iter(root.edges))]
        while stack:
            node, children = stack[-1]
            for child in children:
                if isinstance(child, Context) and id(child) not in visited:
                    visited.add(id(child))
                    stack.append((child, iter(child.edges)))
                    break
            else:
                stack.pop()
                order.append(node)
    order.reverse()
    return order


def backward_steps(
    roots, grad_roots, *, retain_graph=False, create_graph=False, capture=None, details=True
):
    """Run the backward pass from `roots` (Tensors) seeded with `grad_roots`, one node at a time.

    Yields a `Step` after each node. Leaves that require grad receive the sum of their
    gradients in `.grad` (after their hooks run) as soon as the last of them has arrived. With
    `capture` (a dict keyed by `id(tensor)` of the tensors `autograd.grad` asked for), gradients
    are stored there instead and no `.grad` is touched. `details=False` (what `backward()`
    passes, as nobody looks at the steps) leaves `Step.accumulated` empty, which lets the loop
    add gradients into the sums it owns in place.
    """
    create_graph = bool(create_graph)  # it becomes the grad mode inside each backward
    grads: dict[int, Any] = {}  # id(node or leaf) -> gradient received so far
    # ids whose sum in `grads` is an array this loop made (and nobody else has seen), so the
    # next gradient can be added into it in place; None: always make a new sum.
    owned: set[int] | None = None if details or create_graph else set()
    pending: dict[int, int] = {}  # id(leaf) -> how many edges into it are still to run
    root_nodes = []
    for root, grad in zip(roots, grad_roots):
        key = root.grad_fn if root.grad_fn is not None else root
        grads[id(key)] = grads[id(key)] + grad if id(key) in grads else grad
        if root.grad_fn is not None:
            root_nodes.append(root.grad_fn)
        else:
            pending[id(root)] = pending.get(id(root), 0)
    order = topological_sort(root_nodes)
    for node in order:
        for edge in node.edges:
            if not isinstance(edge, Context) and edge.requires_grad:
                pending[id(edge)] = pending.get(id(edge), 0) + 1
    for root in roots:
        # A leaf given twice as a root received both seeds above and is delivered once.
        if root.grad_fn is None and pending[id(root)] == 0 and id(root) in grads:
            _deliver_to_leaf(root, grads.pop(id(root)), capture, create_graph)

    for index, node in enumerate(order):
        grad_output = grads.pop(id(node), None)
        grad_inputs: tuple = (None,) * len(node.edges)
        if grad_output is not None:
            if node.released:
                raise RuntimeError(
                    f"{node.name}: trying to backward through the graph a second "
                    "time: " + RETAIN_GRAPH_HINT
                )
            for hook in node.hooks:
                result = hook(grad_output)
                grad_output = grad_output if result is None else result
            if capture is not None and id(node) in capture:
                capture[id(node)] = grad_output
            elif capture is None and node.retained is not None:
                _retain(node.retained(), grad_output, create_graph)
            # NOTE: the same as `with set_grad_enabled(create_graph):`, a little cheaper for
            # every node; the mode is put back before anything else runs (or we yield).
            previous = is_grad_enabled()
            _set_enabled(create_graph)
            try:
                grad_inputs = node.run_backward(grad_output)
            finally:
                _set_enabled(previous)
            if is_anomaly_enabled():
                check_gradients(node, grad_inputs)
        for edge, grad in zip(node.edges, grad_inputs):
            if isinstance(edge, Context):
                if grad is not None:
                    _add_gradient(grads, owned, id(edge), grad)
            elif edge.requires_grad:
                key = id(edge)
                if grad is not None:
                    _add_gradient(grads, owned, key, grad)
                pending[key] -= 1
                if pending[key] == 0 and key in grads:
                    _deliver_to_leaf(edge, grads.pop(key), capture, create_graph)
        inputs = node.inputs
        accumulated = ()
        if details:
            accumulated = tuple(_so_far(edge, grads, capture) for edge in node.edges)
        if not retain_graph:
            node.release()
        yield Step(index, node, grad_output, grad_inputs, inputs, accumulated)


def _add_gradient(grads: dict, owned: set | None, key: int, grad) -> None:
    """grads[key] += grad, for one more use of a node's output or a leaf.

    NOTE: without `owned` (create_graph, or the step-through) every sum is a new Tensor, made
    by a recorded Add when create_graph. Otherwise nothing is recorded, so the sum is made in
    NumPy (no op overhead), and from the second addition on it goes in place into the array
    the first one made, which no one else has seen: no new array per extra use.
    """
    if key not in grads:
        grads[key] = grad
    elif owned is None:
        grads[key] = grads[key] + grad
    elif key in owned:
        np.add(grads[key].data, grad.data, out=grads[key].data)
    else:
        grads[key] = Tensor._make(np.asarray(grads[key].data + grad.data))  # 0-d stays an array
        owned.add(key)


def _so_far(edge, grads: dict, capture):
    """The gradient an input has received so far: still being summed, or delivered."""
    if id(edge) in grads:
        return grads[id(edge)]
    if isinstance(edge, Context) or capture is not None or not edge.requires_grad:
        return None
    return edge.grad


def _deliver_to_leaf(leaf, grad, capture, create_graph) -> None:
    """A leaf's gradient is complete: run its hooks, then store or accumulate it."""
    if capture is not None and id(leaf) not in capture:
        return  # autograd.grad did not ask for this leaf: no hook runs, no .grad changes
    for hook in leaf._hooks:
        result = hook(grad)
        grad = grad if result is None else result
    if capture is not None:
        capture[id(leaf)] = grad
        return
    _retain(leaf, grad, create_graph)


def _retain(tensor, grad, create_graph) -> None:
    """Add `grad` into `tensor.grad` (a fresh array the first time: never an alias)."""
    if tensor is None:
        return
    if not create_graph:
        grad = Tensor._make(np.array(grad.data, copy=True)) if tensor.grad is None else grad
    if tensor.grad is None:
        tensor.grad = grad
    elif create_graph:
        tensor.grad = tensor.grad + grad
    else:
        tensor.grad = Tensor._make(tensor.grad.data + grad.data)


def run_backward(roots, grad_roots, *, retain_graph=False, create_graph=False, capture=None):
    """Run every step of `backward_steps`: what `Tensor.backward()` does."""
    steps = backward_steps(
        roots,
        grad_roots,
        retain_graph=retain_graph,
        create_graph=create_graph,
        capture=capture,
        details=False,
    )
    for _ in steps:
        pass
