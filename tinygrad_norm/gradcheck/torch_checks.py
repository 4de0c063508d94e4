"""The further checks of PyTorch's gradcheck, run by `torch.autograd.gradcheck` (torch_style.py)
after the Jacobian check, each raising `GradcheckError` with PyTorch's message:

- `check_forward_ad`: the Jacobian by forward mode (forward_mode.py: a custom Function's own
  `jvp`) against finite differences, column by column;
- `check_batched_grad`: for each output, vᵀJ for a batch of two random v through
  `torch.func.vmap` against the same two one at a time (vmap is a loop here, so this finds a
  backward whose result depends on how often it ran, not a vmap-incompatible operation);
- the backward is multiplied by grad_output: zero output gradients give zero input gradients;
- `check_undefined_grad`: backward with undefined output gradients (as PyTorch's UndefinedGrad:
  a built-in op then sends none, a custom Function's backward gets zeros, or None after
  `ctx.set_materialize_grads(False)`) must run and give zero or no input gradients; with
  several outputs, also each one undefined alone.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..autograd.function import Function as ArrayFunction
from ..autograd.grad import grad
from ..autograd.grad_mode import enable_grad
from ..func.vmap import vmap
from ..ops.shape import stack
from ..random import get_rng_state, set_rng_state
from ..tensor import Tensor
from .check import _as_tuple, _fresh_leaves
from .forward_mode import forward_jacobians, refuse_custom_functions_without_jvp
from .numerical import evaluate_moved
from .report import GradcheckError

FAILED_BATCHED_GRAD = (
    "gradcheck or gradgradcheck failed while testing batched gradient computation.\n"
    "(tinygrad_norm: torch.func.vmap is a loop over the batch here; the batched gradients "
    "differ from the same gradients one at a time, so backward depends on more than its "
    "inputs and grad_output. To skip this check, pass check_batched_grad=False.)"
)
NOTES = '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
BC_WARNING = (
    "Backwards compatibility: New undefined gradient support checking feature is enabled by "
    "default, but it may break existing callers of this function. If this is true for you, you "
    'can call this function with "check_undefined_grad=False" to disable the feature'
)


def differentiable(value) -> list:
    """The outputs PyTorch's gradcheck checks: the Tensors that require grad."""
    return [o for o in _as_tuple(value) if isinstance(o, Tensor) and o.requires_grad]


def requiring(inputs: tuple) -> list:
    return [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]


def check_forward_ad(func, inputs: tuple, eps: float, atol: float, rtol: float) -> None:
    """The Jacobian by forward mode against central differences, for each (output, input)."""
    start = get_rng_state()
    try:
        leaves = _fresh_leaves(inputs)
        diff = requiring(leaves)
        set_rng_state(start)
        outputs = _floating(differentiable(refuse_custom_functions_without_jvp(func, leaves, diff)))
        analytic = forward_jacobians(outputs, diff)

        def flat(k: int):
            def evaluate() -> np.ndarray:
                set_rng_state(start)
                with enable_grad():
                    values = _floating(differentiable(func(*leaves)))
                return np.array(values[k].array, dtype=np.float64).ravel()  # a copy, not a view

            return evaluate

        for k in range(len(outputs)):
            for p, x in enumerate(diff):
                numerical = np.stack(
                    [
                        (evaluate_moved(flat(k), x.array, j, eps)
                         - evaluate_moved(flat(k), x.array, j, -eps)) / (2 * eps)
                        for j in range(x.array.size)
                    ],
                    axis=1,
                ).reshape(analytic[k, p].shape)  # fmt: skip
                a = analytic[k, p]
                if not np.allclose(a, numerical, rtol=rtol, atol=atol):
                    raise GradcheckError(_forward_message(k, p, a, numerical))
    finally:
        set_rng_state(start)


def check_no_differentiable_outputs(func, inputs: tuple, eps: float) -> bool:
    """No output requires grad: then every output must be constant in every input that
    requires grad (central differences all zero), as PyTorch checks."""
    start = get_rng_state()
    try:
        leaves = _fresh_leaves(inputs)

        def flat() -> np.ndarray:
            set_rng_state(start)
            with enable_grad():
                values = _floating([o for o in _as_tuple(func(*leaves)) if isinstance(o, Tensor)])
            return np.concatenate([np.array(o.array, dtype=np.float64).ravel() for o in values]
                                  + [np.zeros(0)])  # fmt: skip

        for x in requiring(leaves):
            for j in range(x.array.size):
                if np.any(
                    evaluate_moved(flat, x.array, j, eps) != evaluate_moved(flat, x.array, j, -eps)
                ):
                    raise GradcheckError(
                        "Numerical gradient for function expected to be zero (tinygrad_norm: no "
                        "output requires grad, yet an output changes when an input does: is it "
                        "computed outside the graph, e.g. with .detach() or NumPy?)"
                    )
    finally:
        set_rng_state(start)
    return True


def _floating(outputs: list) -> list:
    return [o for o in outputs if o.array.dtype.kind == "f"]


def _forward_message(k: int, p: int, analytic: np.ndarray, numerical: np.ndarray) -> str:
    """PyTorch's first line, then the worst element with both values."""
    worst = np.unravel_index(np.argmax(np.abs(analytic - numerical)), analytic.shape)
    return (
        f"Jacobian computed with forward mode mismatch for output {k} with respect to input "
        f"{p},\nnumerical:{numerical.T}\nanalytical:{analytic.T}\n\n"
        f"tinygrad_norm: the worst entry is d output[{worst[0]}] / d input[{worst[1]}]: "
        f"numerical {numerical[worst]:.6g}, forward mode {analytic[worst]:.6g}. Forward mode "
        "uses each custom Function's jvp: check it against its backward."
    )


def check_batched_grad(inputs: tuple, output, k: int) -> None:
    """vᵀJ for two random v, batched by vmap against one at a time (PyTorch's message)."""
    diff = requiring(inputs)

    def vjp(v):
        grads = grad(output, diff, v, retain_graph=True, allow_unused=True)
        return tuple(
            Tensor._make(np.zeros_like(x.array)) if g is None else g for g, x in zip(grads, diff)
        )

    rng = np.random.default_rng(0)  # local: the global generators are not touched
    vectors = [Tensor._make(rng.standard_normal(output.shape).astype(output.array.dtype))
               for _ in range(2)]  # fmt: skip
    expected = [stack(shards) for shards in zip(*(vjp(v) for v in vectors))]
    try:
        result = vmap(vjp)(stack(vectors))
    except RuntimeError as error:
        raise GradcheckError(
            f"While computing batched gradients, got: {error}\n\n{FAILED_BATCHED_GRAD}"
        ) from error
    for p, (got, want) in enumerate(zip(result, expected)):
        if not np.allclose(got.array, want.array):
            raise GradcheckError(
                f"For output {k} and input {p}:\n\n{FAILED_BATCHED_GRAD}\n\n"
                f"Got:\n{got}\n\nExpected:\n{want}"
            )


def check_multiplied_by_grad_output(outputs: list, inputs: tuple) -> None:
    """Zero output gradients must give zero input gradients."""
    diff = requiring(inputs)
    zeros = [Tensor._make(np.zeros_like(o.array)) for o in outputs]
    for g, x in zip(grad(outputs, diff, zeros, allow_unused=True), diff):
        if g is None:
            continue
        if np.any(g.array != 0):
            raise GradcheckError(
                "backward not multiplied by grad_output (tinygrad_norm: with every output "
                "gradient zero, an input gradient is not zero: backward adds a term that "
                "does not contain grad_output)"
            )
        if g.dtype != x.dtype:
            raise GradcheckError("grad is incorrect type")
        if tuple(g.shape) != tuple(x.shape):
            raise GradcheckError("grad is incorrect size")


class UndefinedGrad(ArrayFunction):
    """The identity whose backward sends no gradient: what follows gets an undefined one."""

    @staticmethod
    def forward(ctx, x):
        return x.copy()

    @staticmethod
    def backward(ctx, grad_output):
        return None


def check_undefined_grad(func, inputs: tuple) -> None:
    """Backward must handle undefined output gradients: all at once, then (with several
    outputs) each alone; the input gradients must be zero or undefined."""
    diff = requiring(inputs)
    with enable_grad():
        outputs = differentiable(func(*inputs))
    cases = [[UndefinedGrad.apply(o) for o in outputs]]
    if len(outputs) > 1:
        for k in range(len(outputs)):
            with enable_grad():
                again = differentiable(func(*inputs))
            cases.append([UndefinedGrad.apply(o) if i == k else o for i, o in enumerate(again)])
    for case in cases:
        zeros = [Tensor._make(np.zeros_like(o.array)) for o in case]
        try:
            grads = grad(case, diff, zeros, allow_unused=True)
        except RuntimeError as error:
            warnings.warn(BC_WARNING, stacklevel=3)
            raise GradcheckError(
                f"Expected backward function to handle undefined output grads. Please look at "
                f"{NOTES}\n(tinygrad_norm: backward raised {type(error).__name__}: {error})"
            ) from error
        if any(g is not None and np.any(g.array != 0) for g in grads):
            warnings.warn(BC_WARNING, stacklevel=3)
            raise GradcheckError(
                "Expected all input grads to be undefined or zero when all output grads are "
                f"undefined or zero. Please look at {NOTES}"
            )
