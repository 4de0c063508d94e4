"""PyTorch's `torch.autograd.Function`: a custom op whose forward works on Tensors.

`tg.Function` (function.py) is the teaching form: its forward receives the NumPy arrays inside
the Tensors. Scripts written for PyTorch subclass `torch.autograd.Function` instead, whose forward
receives the Tensors themselves and runs with grad mode off (its ops are not recorded: the node
this class records stands for all of them). Both make the same kind of node, a `Context`
(here `FunctionCtx`, which adds PyTorch's ctx methods), walked by the one engine loop, so the
step-through tool and the explorer show it like any other.

Two styles, as in PyTorch:

    class Cube(torch.autograd.Function):            # old style: ctx first
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3
        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x ** 2

    class Cube(torch.autograd.Function):            # new style: forward without ctx
        @staticmethod
        def forward(x):
            return x ** 3
        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
        ...

A forward may return a tuple: backward then receives one gradient per output (zeros for an
output that received none, or None after `ctx.set_materialize_grads(False)`).
`ctx.mark_non_differentiable(t)` makes an output a constant; `ctx.mark_dirty(x)` says forward
changed the input x in place and returns it (x's history then goes through this node).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .anomaly import creation_site, is_anomaly_enabled
from .function import Function as ArrayFunction
from .function import join_view, refuse_stale_view
from .grad_mode import is_grad_enabled, no_grad
from .node import Context, GraphTensor

VMAP_NOT_HERE = (
    "torch.autograd.Function.vmap / generate_vmap_rule: not here. tinygrad_norm's "
    "torch.func.vmap is a loop over the mapped dimension that calls apply once per slice, so a "
    "custom Function needs no vmap rule: leave it out"
)


WATCHERS: list = []  # lists that collect every node `Function.apply` records while present


class FunctionCtx(Context):
    """The `ctx` of a PyTorch-style Function, and its node in the graph (a `Context` with
    PyTorch's ctx methods)."""

    dirty: tuple = ()  # inputs forward changed in place (mark_dirty)
    non_differentiable: tuple = ()  # outputs that are constants (mark_non_differentiable)
    saved_for_forward: tuple = ()  # kept for a jvp rule (forward mode here needs none)
    output_arrays: tuple = ()  # each output's array (None for a non-Tensor output)
    # PyTorch's engine calls a custom Function's backward even when every output's gradient is
    # undefined (zeros, or None after set_materialize_grads(False)); built-in ops then send none
    runs_without_gradient = True

    def mark_dirty(self, *tensors) -> None:
        """Forward changed these inputs in place (and returns them)."""
        self.dirty = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        """These outputs get no gradient (indices from a sort, a mask)."""
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """True (the default): an output that received no gradient gets zeros in backward;
        False: it gets None."""
        self.materialize_grads = bool(value)

    in_jvp = False  # True while jvp runs: saved_tensors are then what save_for_forward kept

    @property
    def saved_tensors(self) -> tuple:
        """What save_for_backward kept; inside `jvp`, what save_for_forward kept (PyTorch)."""
        if self.in_jvp:
            return tuple(self.saved_for_forward)
        return Context.saved_tensors.fget(self)

    def save_for_forward(self, *tensors) -> None:
        """Kept for a `jvp` rule (which may also read `ctx.saved_tensors`)."""
        self.saved_for_forward = tensors

    def no_gradient(self):
        """What backward receives when no output received a gradient: zeros (or None)."""
        grads = self.materialize((None,) * self.n_outputs)
        return grads if self.n_outputs > 1 else grads[0]

    def materialize(self, grad_outputs: tuple) -> tuple:
        """One gradient per output for backward: zeros where none arrived (unless
        `set_materialize_grads(False)`)."""
        if not self.materialize_grads:
            return grad_outputs
        make = self.inputs[0]._make
        return tuple(
            make(np.zeros_like(array)) if g is None and array is not None else g
            for g, array in zip(grad_outputs, self.output_arrays)
        )


class Function:
    """PyTorch's `torch.autograd.Function`: forward on Tensors (grad mode off), backward on
    Tensors. Subclass it and call `.apply(...)`; see the module docstring for both styles.

    `formula` states the local rule for the step-through tool; without it, the first line of
    the subclass's docstring is shown.
    """

    formula = ""
    arguments_by_name = False  # ctx holds only what forward set on it (no `ctx.dim` lookup)
    generate_vmap_rule = False

    @staticmethod
    def forward(*args: Any, **kwargs: Any):
        raise NotImplementedError("a Function subclass must define forward")

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output) -> None:
        raise NotImplementedError("setup_context is only defined by new-style Functions")

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs):
        raise NotImplementedError("a Function subclass must define backward")

    @staticmethod
    def jvp(ctx: FunctionCtx, *grad_inputs):
        """Forward mode's rule: the output's tangent from one tangent per forward argument.
        gradcheck's `check_forward_ad` uses it (and, as PyTorch, refuses a Function without
        it); torch.func.jvp / forward_ad here use the double-vjp identity through backward."""
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError(VMAP_NOT_HERE)

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any):
        """Run forward on the Tensors with grad mode off and, if an input requires grad (and
        grad mode is on), record one node for the whole of it."""
        needs = tuple(isinstance(a, GraphTensor) and a.requires_grad for a in args)
        tensors = tuple(a for a in args if isinstance(a, GraphTensor))
        for t in tensors:
            if t._base is not None:
                refuse_stale_view(t, cls.__name__)
        recording = True in needs and is_grad_enabled()
        ctx = FunctionCtx(cls, needs)
        with no_grad():
            if cls.setup_context is not Function.setup_context:  # new style
                returned = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, returned)
            else:
                returned = cls.forward(ctx, *args, **kwargs)
        if not recording:
            return returned
        outputs = returned if isinstance(returned, tuple) else (returned,)
        first = next((o for o in outputs if isinstance(o, GraphTensor)), None)
        if first is None:
            raise TypeError(f"{cls.__name__}.forward must return a Tensor (or a tuple of them)")
        ctx.record(args, kwargs, tensors, first, first.array)  # edges: the inputs' history now
        for watcher in WATCHERS:  # gradcheck's forward-mode check lists the custom nodes made
            watcher.append(ctx)
        if isinstance(returned, tuple):
            ctx.n_outputs = len(outputs)
        ctx.output_arrays = tuple(o.array if isinstance(o, GraphTensor) else None for o in outputs)
        if is_anomaly_enabled():
            ctx.creation_site = creation_site()
        joined = tuple(_join_output(ctx, o, tensors) for o in outputs)
        return joined if isinstance(returned, tuple) else joined[0]


def _join_output(ctx: FunctionCtx, output, inputs: tuple):
    """A Tensor forward returned, as an output of the node `ctx` (non-Tensors pass through)."""
    if not isinstance(output, GraphTensor):
        return output
    if _is_in(output, ctx.non_differentiable) or output.array.dtype.kind not in "fc":
        return output
    if _is_in(output, inputs):
        if _is_in(output, ctx.dirty):  # changed in place: its history now goes through ctx
            if output.grad_fn is None and output.requires_grad:
                raise RuntimeError(
                    f"{ctx.fn.__name__}: a leaf Variable that requires grad is being used in an "
                    "in-place operation (mark_dirty); apply it to a copy (x.clone())"
                )
            output.grad_fn, output.requires_grad = ctx, True
            return output
        view = output._make(output.array, True, ctx)  # an input returned as it is: a view
        join_view(view, inputs)
        return view
    output.grad_fn, output.requires_grad = ctx, True
    return output


def _is_in(tensor, tensors) -> bool:
    return any(tensor is t for t in tensors)


class _OnceDifferentiated(ArrayFunction):
    """A gradient made by a backward marked @once_differentiable, when a gradient it received
    requires grad: differentiating it again is an error, not a silent zero (PyTorch's
    DelayedError node)."""

    @staticmethod
    def forward(ctx, grad):
        return grad.copy()

    @staticmethod
    def backward(ctx, grad_output):
        raise RuntimeError(
            "trying to differentiate twice a function that was marked with "
            f"@once_differentiable ({ctx.origin}): its backward runs without recording, so it has "
            "no derivative of its own. Write its backward with Tensor operations and remove "
            "@once_differentiable to take a second derivative"
        )


def once_differentiable(backward):
    """Decorate a Function's backward that is not itself differentiable (it may use NumPy):
    it runs with grad mode off. As in PyTorch, when it runs under `create_graph=True` and a
    gradient it receives requires grad, each gradient it returns is a new leaf's result whose
    node raises if a second derivative goes through it; otherwise its gradients are constants
    (no grad_fn)."""

    @functools.wraps(backward)
    def wrapper(ctx, *grad_outputs):
        with no_grad():
            result = backward(ctx, *grad_outputs)
        if not is_grad_enabled():  # the engine enables grad mode only under create_graph
            return result
        if not any(_requires_grad(g) for g in grad_outputs):
            return result
        results = result if isinstance(result, tuple) else (result,)
        marked = tuple(_mark(ctx, g) for g in results)
        return marked if isinstance(result, tuple) else marked[0]

    return wrapper


def _requires_grad(t) -> bool:
    return isinstance(t, GraphTensor) and t.requires_grad


def _mark(ctx, grad):
    """`grad` as the output of a node that refuses to be differentiated; its input is a new
    leaf (not joined to the graph, as PyTorch's detached alias)."""
    if not isinstance(grad, GraphTensor):
        return grad
    marked = _OnceDifferentiated.apply(grad._make(grad.array, True))
    marked.grad_fn.origin = ctx.name
    return marked
