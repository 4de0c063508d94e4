"""`gradcheck` and `gradgradcheck`: backward against finite differences, element by element.

The analytic Jacobian J (d output / d input) is read from backward one row at a time: the
vector-Jacobian product with the unit vector e_k is row k, eᵀ_k J; the numerical one, a column
at a time: moving input element j by ±eps gives column j by central differences (`numerical.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..autograd.engine import run_backward
from ..autograd.grad import grad
from ..autograd.grad_mode import enable_grad
from ..random import get_rng_state, set_rng_state
from ..tensor import Tensor
from .localise import first_wrong_op, fixes_made
from .numerical import (
    FiniteDifferences,
    compare,
    directional_difference,
    finite_differences,
    kinks,
    precision_help,
    within_slopes,
)
from .report import (
    STATUS_KINK,
    STATUS_NONDET,
    STATUS_OK,
    STATUS_SHAPE,
    STATUS_WRONG,
    GradcheckError,
    GradcheckResult,
    Kink,
    Row,
)


@dataclass(frozen=True)
class Settings:
    eps: float = 1e-6
    atol: float = 1e-5
    rtol: float = 1e-3
    fast_mode: bool = False
    nondet_tol: float = 0.0
    strict: bool = True  # False under PyTorch's name: float32 inputs warned of, dtypes cast


def gradcheck(
    fn,
    inputs,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    raise_exception=True,
    fast_mode=False,
    nondet_tol=0.0,
):
    """Check fn's backward against central differences, for every output and every input.

    `inputs` is a Tensor or a tuple (Tensors that require grad are checked and must be float64;
    other entries are passed to fn as they are); fn returns a Tensor or a tuple of Tensors.
    Entry (k, j) of each Jacobian passes when |analytic - numerical| <= atol + rtol * |numerical|,
    numerical = (f(x + eps e_j) - f(x - eps e_j))_k / (2 eps). Also checked: gradients have their
    input's shape and dtype, backward run twice gives the same result (within `nondet_tol`),
    inputs that do not require grad get no gradient. `fast_mode` compares the scalar vᵀ J u for
    random unit vectors u, v instead of all of J (2 evaluations of fn per input instead of 2
    per element); if that fails, the full check runs to find the element.

    Returns a `GradcheckResult`: truthy on success, printed as a table. On failure it raises
    `GradcheckError` (unless `raise_exception=False`), naming the worst element, or the kink that
    makes the point non-differentiable, and the first op whose own backward is wrong. The global
    random state is restored before every evaluation of fn (so dropout draws the same mask each
    time) and left as it was.

    >>> import tinygrad_norm as tg
    >>> x = tg.randn(2, 3, dtype=tg.float64, requires_grad=True)
    >>> bool(tg.gradcheck(lambda x: (x * x.tanh()).sum(), x))
    True
    """
    settings = Settings(eps, atol, rtol, fast_mode, nondet_tol)
    name = _name(fn)
    where = name if name.isidentifier() else None  # a named Python function, not a lambda
    return run(fn, _as_tuple(inputs), settings, raise_exception, "gradcheck", name, where)


def gradgradcheck(
    fn,
    inputs,
    grad_outputs=None,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    raise_exception=True,
    fast_mode=False,
    nondet_tol=0.0,
):
    """Check second derivatives: gradcheck of g(inputs, grad_outputs) = vᵀJ, the gradient of fn.

    g is computed by `autograd.grad(fn(inputs), inputs, grad_outputs, create_graph=True)` and is
    checked with respect to the inputs and to `grad_outputs` (one per output of fn that requires
    grad; random float64 ones from a fixed local generator when None). This tests that every
    backward is itself differentiable: written with Tensor operations, not NumPy arrays, which
    would be constants. An op whose backward returned an array is named right away.

    >>> import tinygrad_norm as tg
    >>> x = tg.randn(3, dtype=tg.float64, requires_grad=True)
    >>> bool(tg.gradgradcheck(lambda x: x.tanh(), x))
    True
    """
    settings = Settings(eps, atol, rtol, fast_mode, nondet_tol)
    return run_gradgradcheck(fn, inputs, grad_outputs, settings, raise_exception)


def run_gradgradcheck(fn, inputs, grad_outputs, settings: Settings, raise_exception: bool):
    inputs, name = _as_tuple(inputs), _name(fn)
    _require_float64("gradgradcheck", inputs, "input", settings)
    start = get_rng_state()
    try:
        leaves = _fresh_leaves(inputs)
        set_rng_state(start)
        with enable_grad():
            outputs = _differentiable(_outputs(fn(*leaves)))
            grad_outputs = _grad_outputs(grad_outputs, outputs)
            diff = [leaves[p] for p in _requiring(leaves)]
            grad(outputs, diff, grad_outputs, create_graph=True, allow_unused=True)
            culprits = [op for op, fix in fixes_made(outputs) if "NumPy" in fix]
    finally:
        set_rng_state(start)
    if culprits:
        problem = (
            f"{culprits[0]} returned a NumPy array from backward, so its gradient is a constant "
            "and cannot be differentiated again; write backward with Tensor operations (on "
            "ctx.saved_tensors and grad_output)"
        )
        result = GradcheckResult(name, [], problems=[problem], title="gradgradcheck")
        if raise_exception:
            raise GradcheckError(str(result), result, op=culprits[0])
        return result
    first, label = first_derivatives(fn, len(inputs)), f"the gradient of {name}"
    where = label if name.isidentifier() else None
    grad_inputs = inputs + tuple(grad_outputs)
    return run(first, grad_inputs, settings, raise_exception, "gradgradcheck", label, where)


def first_derivatives(fn, n_inputs: int):
    """(inputs..., v...) -> the gradients vᵀJ of fn, differentiable (create_graph)."""

    def first(*args):
        xs, vs = args[:n_inputs], args[n_inputs:]
        outs = _differentiable(_outputs(fn(*xs)))
        diff = [x for x in xs if isinstance(x, Tensor) and x.requires_grad]
        grads = grad(outs, diff, list(vs), create_graph=True, allow_unused=True)
        return tuple(
            Tensor._make(np.zeros_like(x.array)) if g is None else g for x, g in zip(diff, grads)
        )

    return first


# --- the run -----------------------------------------------------------------------------------
def run(fn, inputs: tuple, settings: Settings, raise_exception: bool, title: str, name, where):
    """Check (fast mode first if asked, then the full Jacobian to find the element), restore the
    random state, raise or return."""
    _require_float64(title, inputs, "input", settings)
    start = get_rng_state()
    try:
        result = _check(fn, inputs, settings, start, title, name, where)
        if settings.fast_mode and result.wrong:
            full = _check(fn, inputs, replace(settings, fast_mode=False), start, title, name, where)
            if not full.ok:
                full.notes.append("(fast mode found vᵀJu wrong; the full check above shows where)")
                result = full
    finally:
        set_rng_state(start)
    if not result.ok and raise_exception:
        raise GradcheckError(str(result), result)
    return result


def _check(fn, inputs, settings, start, title, name, where) -> GradcheckResult:
    leaves = _fresh_leaves(inputs)
    diff = _requiring(leaves)
    if not diff:
        raise ValueError(
            f"{title}: no input requires grad, so there is nothing to check; create the "
            "inputs with requires_grad=True"
        )
    set_rng_state(start)
    with enable_grad():
        outputs = _outputs(fn(*leaves))
    checked = [o for o, out in enumerate(outputs) if out.dtype.kind == "f"]  # not int outputs
    if not checked:
        raise ValueError(f"{title}: {name} returned no floating-point output to differentiate")
    _require_float64(title, [outputs[o] for o in checked], "output", settings)

    def all_outputs_flat() -> np.ndarray:
        """fn at the current (perturbed) inputs, at the same random state as every other call."""
        set_rng_state(start)
        with enable_grad():
            values = _outputs(fn(*leaves))
        return np.concatenate([values[o].array.astype(np.float64).ravel() for o in checked])

    result = GradcheckResult(
        name,
        [],
        eps=settings.eps,
        atol=settings.atol,
        rtol=settings.rtol,
        fast_mode=settings.fast_mode,
        title=title,
    )
    _check_constants_get_no_grad(leaves, diff, [outputs[o] for o in checked], result)
    backward = _Backward(leaves, diff)
    compare_all = _fast if settings.fast_mode else _full
    compare_all(leaves, diff, outputs, checked, all_outputs_flat, backward, settings, result)
    for o in checked:
        for p in diff:
            problem = backward.problem(o, p, settings.nondet_tol)
            if problem:
                result.problems.append(problem)
    for op, fix in backward.bad_dtype if settings.strict else ():
        result.problems.append(
            f"{op}: backward {fix} (the engine casts it, but a backward must return each "
            "gradient in its input's dtype)"
        )
    if result.wrong:
        result.culprit = first_wrong_op(
            fn, leaves, _outputs, start, settings.eps, settings.atol, settings.rtol
        )
        if result.culprit is not None:
            result.culprit.where = where
    return result


class _Backward:
    """The analytic side: vᵀJ from `autograd.grad`, each run twice, with what went wrong."""

    def __init__(self, leaves: tuple, diff: list[int]):
        self.inputs = {p: leaves[p] for p in diff}
        self.spread: dict = {}  # (output, input) -> largest difference between the two runs
        self.bad_shape: dict = {}  # (output, input) -> message
        self.bad_dtype: list = []  # what a backward returned in a dtype other than its input's

    def vjp(self, o: int, out, v: np.ndarray) -> dict:
        """{input p: vᵀJ as a flat row} for the inputs out depends on (the rest are zero)."""
        xs = list(self.inputs.values())
        runs = [
            grad(out, xs, Tensor._make(v), retain_graph=True, allow_unused=True) for _ in range(2)
        ]
        for op, fix in fixes_made([out]):
            if "dtype" in fix and (op, fix) not in self.bad_dtype:
                self.bad_dtype.append((op, fix))
        rows = {}
        for (p, x), g, again in zip(self.inputs.items(), *runs):
            if g is None:
                continue
            if g.shape != x.shape or g.dtype != x.dtype:
                self.bad_shape[o, p] = (
                    f"the gradient of output {o} for input {p} has shape {g.shape} and dtype "
                    f"{g.dtype}, but the input has shape {x.shape} and dtype {x.dtype}"
                )
                continue
            spread = np.inf if again is None else float(np.max(np.abs(g.array - again.array)))
            self.spread[o, p] = max(self.spread.get((o, p), 0.0), spread)
            rows[p] = g.array.ravel()
        return rows

    def status(self, o: int, p: int, nondet_tol: float) -> str:
        if (o, p) in self.bad_shape:
            return STATUS_SHAPE
        return STATUS_NONDET if self.spread.get((o, p), 0.0) > nondet_tol else STATUS_OK

    def problem(self, o: int, p: int, nondet_tol: float) -> str | None:
        status = self.status(o, p, nondet_tol)
        if status == STATUS_SHAPE:
            return self.bad_shape[o, p]
        if status == STATUS_NONDET:
            return (
                f"backward is not deterministic: for output {o} and input {p}, two backward "
                f"passes over the same graph differ by up to {self.spread[o, p]:.3g} "
                f"(nondet_tol={nondet_tol:g}). Look for random numbers or state that changes "
                "inside a backward; raise nondet_tol if the difference is expected"
            )
        return None


def _full(leaves, diff, outputs, checked, evaluate, backward, settings, result) -> None:
    """Every entry of every Jacobian: rows from backward, columns from finite differences."""
    sizes = [outputs[o].array.size for o in checked]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    analytic = {p: np.zeros((offsets[-1], leaves[p].array.size)) for p in diff}
    for o, start in zip(checked, offsets):
        out = outputs[o]
        if not out.requires_grad:
            continue  # a constant output: its Jacobian is zero
        for k in range(out.array.size):
            unit = np.zeros_like(out.array)
            unit.flat[k] = 1
            for p, row in backward.vjp(o, out, unit).items():
                analytic[p][start + k] = row  # row k of J = e_kᵀ J
    for p in diff:
        x = leaves[p].array
        fd = finite_differences(evaluate, x, settings.eps)
        kink = kinks(evaluate, x, fd, settings.eps, settings.atol, settings.rtol)
        for o, lo, hi in zip(checked, offsets[:-1], offsets[1:]):
            block = FiniteDifferences(*(m[lo:hi] for m in fd))
            status = backward.status(o, p, settings.nondet_tol)
            row = _compare_block(
                o,
                p,
                leaves[p],
                outputs[o],
                block,
                analytic[p][lo:hi],
                kink[lo:hi],
                status,
                settings,
                result.kinks,
            )
            result.rows.append(row)


def _compare_block(o, p, leaf, out, fd, analytic, kink, status, settings, found_kinks) -> Row:
    """The row for output o and input p: errors, the worst element, kinks, the status."""
    atol, rtol = settings.atol, settings.rtol
    cmp = compare(fd.central, analytic, atol, rtol)
    excused = kink & within_slopes(analytic, fd, atol, rtol)  # a kink, and a valid slope
    wrong = cmp.failing & ~excused
    if wrong.any():
        status, score = STATUS_WRONG, np.where(wrong, cmp.badness, -np.inf)
    elif cmp.failing.any():
        status, score = STATUS_KINK, np.where(cmp.failing, cmp.badness, -np.inf)
    else:
        score = cmp.badness
    for k, j in zip(*np.nonzero(kink)):
        element = _index(j, leaf.shape)
        if not any(seen.input == p and seen.element == element for seen in found_kinks):
            found_kinks.append(
                Kink(
                    input=p,
                    element=element,
                    output=o,
                    output_element=_index(k, out.shape),
                    left=float(fd.left[k, j]),
                    right=float(fd.right[k, j]),
                    analytic=float(analytic[k, j]),
                    failing=bool(cmp.failing[k, j]),
                )
            )
    row = Row(o, p, leaf.name, leaf.shape, status=status)
    if score.size:
        k, j = np.unravel_index(int(np.argmax(score)), score.shape)
        row.max_abs, row.max_rel = float(cmp.abs_err.max()), float(cmp.rel_err.max())
        row.worst, row.worst_output = _index(j, leaf.shape), _index(k, out.shape)
        row.numerical, row.analytic = float(fd.central[k, j]), float(analytic[k, j])
    return row


def _fast(leaves, diff, outputs, checked, evaluate, backward, settings, result) -> None:
    """One number per (output, input): vᵀ J u, by backward (vᵀJ, then · u) and by finite
    differences along u ((f(x + eps u) - f(x - eps u)) / 2 eps ≈ J u, then v ·)."""
    rng = np.random.default_rng(0)  # local: the global generator is not touched
    u = {p: _unit(rng.standard_normal(leaves[p].array.shape)) for p in diff}
    v = {o: _unit(rng.standard_normal(outputs[o].array.shape)) for o in checked}
    analytic = {(o, p): 0.0 for o in checked for p in diff}
    for o in checked:
        if outputs[o].requires_grad:
            for p, row in backward.vjp(o, outputs[o], v[o]).items():
                analytic[o, p] = float(row @ u[p].ravel())
    splits = np.cumsum([outputs[o].array.size for o in checked])[:-1]
    for p in diff:
        ju = directional_difference(evaluate, leaves[p].array, u[p], settings.eps)
        for o, ju_o in zip(checked, np.split(ju, splits)):
            n, a = float(v[o].ravel() @ ju_o), analytic[o, p]
            cmp = compare(np.array(n), np.array(a), settings.atol, settings.rtol)
            status = STATUS_WRONG if cmp.failing else backward.status(o, p, settings.nondet_tol)
            result.rows.append(
                Row(
                    o,
                    p,
                    leaves[p].name,
                    leaves[p].shape,
                    float(cmp.abs_err),
                    float(cmp.rel_err),
                    numerical=n,
                    analytic=a,
                    status=status,
                )
            )


def _check_constants_get_no_grad(leaves, diff, outputs, result) -> None:
    """One ordinary backward(): tensors that do not require grad must not receive a `.grad`."""
    roots = [out for out in outputs if out.requires_grad]
    if not roots:
        return
    with enable_grad():
        run_backward(roots, [Tensor._make(np.ones_like(r.array)) for r in roots], retain_graph=True)
    for p, leaf in enumerate(leaves):
        if isinstance(leaf, Tensor) and p not in diff and leaf.grad is not None:
            result.problems.append(f"input {p} does not require grad but received a .grad")
        if isinstance(leaf, Tensor):
            leaf.grad = None


# --- small helpers -----------------------------------------------------------------------------
def _as_tuple(inputs) -> tuple:
    return (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)


def _name(fn) -> str:
    """`layer_norm`, `<lambda>`, or `Square.apply` for a Function's apply."""
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__name__", type(fn).__name__)
    return f"{owner.__name__}.{name}" if isinstance(owner, type) else name


def _fresh_leaves(inputs: tuple) -> tuple:
    """Copies of the Tensor inputs as new leaves (perturbed in place; the caller's stay intact)."""
    leaves = []
    for x in inputs:
        if isinstance(x, Tensor):
            leaf = Tensor._make(np.array(x.array), requires_grad=x.requires_grad)
            leaf.name = x.name
            x = leaf
        leaves.append(x)
    return tuple(leaves)


def _requiring(leaves: tuple) -> list[int]:
    return [p for p, x in enumerate(leaves) if isinstance(x, Tensor) and x.requires_grad]


def _outputs(value) -> list:
    """What fn returned, as a list of Tensors."""
    if not isinstance(value, (Tensor, tuple, list)):
        raise TypeError(
            f"gradcheck: fn must return a Tensor or a tuple of Tensors, but it returned "
            f"{type(value).__name__} ({value!r:.40}); build the output with Tensor operations "
            "on the inputs (a Python float or None carries no gradient to check)"
        )
    values = [value] if isinstance(value, Tensor) else list(value)
    for i, v in enumerate(values):
        if not isinstance(v, Tensor):
            raise TypeError(
                f"gradcheck: fn must return a Tensor or a tuple of Tensors; output {i} is "
                f"{type(v).__name__}"
            )
    return values


def _differentiable(outputs: list) -> list:
    return [out for out in outputs if out.dtype.kind == "f" and out.requires_grad]


def _grad_outputs(grad_outputs, outputs: list) -> list:
    """The vectors v of vᵀJ, as float64 leaves that require grad (g is checked in them too)."""
    if grad_outputs is None:
        rng = np.random.default_rng(0)  # local: the global generator is not touched
        values = [rng.standard_normal(out.shape) for out in outputs]
    else:
        given = _as_tuple(grad_outputs)
        if len(given) != len(outputs):
            raise ValueError(
                f"gradgradcheck: {len(given)} grad_outputs for {len(outputs)} outputs that "
                "require grad; give one per output"
            )
        values = [np.array(getattr(g, "array", g), dtype=np.float64) for g in given]
    result = []
    for k, value in enumerate(values):
        leaf = Tensor._make(value, requires_grad=True)
        leaf.name = f"grad_output[{k}]"
        result.append(leaf)
    return result


def _require_float64(title: str, tensors, what: str, settings: Settings) -> None:
    for p, x in enumerate(tensors if settings.strict else ()):
        if isinstance(x, Tensor) and x.requires_grad and x.dtype != np.float64:
            raise TypeError(
                f"{title}: {what} {p} is {x.dtype} (shape {x.shape}), but "
                + precision_help(settings.eps)
            )


def _unit(a: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(a)
    return a / norm if norm > 0 else a


def _index(flat: int, shape: tuple) -> tuple:
    """Flat position -> multi-index as plain ints, e.g. (1, 2)."""
    return tuple(int(i) for i in np.unravel_index(int(flat), shape)) if shape else ()
