"""Grade a learner's backward: `tg.exercises.check(name, cls)`.

For each of the exercise's cases (float64 inputs: shapes that broadcast, edge values) the
checker runs the learner's forward through `cls.apply` (so `ctx` is a real node and
`ctx.saved_tensors` works), draws a random grad_output of the output's shape, and calls
`cls.backward(ctx, grad_output)` *directly*: the engine would sum a broadcast gradient back
to its input's shape, hiding the mistake; here a gradient of the wrong shape is reported.

Each gradient is compared with the solution's (the exercise's own backward, tested against
the package's op) to the tolerance of `diagnose.close`; for the first input whose gradient
is wrong, central finite differences of the learner's own forward,
(f(x + eps) - f(x - eps)) / 2 eps per element (`gradcheck.numerical`), give a third opinion
and the Jacobian whose diagonal the diagnosis needs. An exception in the learner's forward or
backward is reported with its traceback from the learner's own file on, never swallowed.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import enable_grad, no_grad
from ...gradcheck.numerical import finite_differences
from ...tensor import Tensor
from .catalog import get
from .diagnose import close, diagnose_shape, diagnose_values, worst_element
from .exercise import Exercise

EPS = 1e-6  # the finite-difference step (float64; see gradcheck/numerical.py)


@dataclass
class Report:
    """What `check` found. True (in `if`, `assert`) when every gradient is right.

    passed: every gradient matched on every case.
    input: position (in forward's arguments) of the first input whose gradient is wrong, or
        None (passed, or nothing could be compared: an exception, a wrong count).
    input_name, case: that input's name and the case (input shapes) it failed on.
    index: the worst element (None when the shape is wrong); expected, got, numerical: the
        right gradient, the learner's and the finite differences' at that element.
    diagnosis: one or two sentences. traceback: the learner's traceback, if one raised.
    """

    name: str
    passed: bool
    diagnosis: str
    input: int | None = None
    input_name: str | None = None
    case: str | None = None
    index: tuple | None = None
    expected: float | None = None
    got: float | None = None
    numerical: float | None = None
    traceback: str | None = None
    expected_grad: np.ndarray | None = field(default=None, repr=False)
    got_grad: np.ndarray | None = field(default=None, repr=False)

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        if self.passed:
            return f"{self.name}: passed. {self.diagnosis}"
        where = f" on {self.case}" if self.case else ""
        which = f", input {self.input} ({self.input_name})" if self.input is not None else ""
        lines = [f"{self.name}: FAILED{where}{which}", f"  {self.diagnosis}"]
        if self.index is not None:
            lines.append(f"  {'element':12} {'expected':>14} {'got':>14} {'finite diff.':>14}")
            values = (self.expected, self.got, self.numerical)
            lines.append(f"  {str(self.index):12} " + " ".join(f"{v:>14.6g}" for v in values))
        elif self.got_grad is not None:
            lines.append(
                f"  shapes: expected {self.expected_grad.shape}, got {self.got_grad.shape}"
            )
        if self.traceback:
            lines.append(self.traceback.rstrip())
        return "\n".join(lines)


class _Raised(Exception):
    """A learner's forward or backward raised: carries the report that says so."""

    def __init__(self, report: Report):
        self.report = report


def check(name: str, cls: type, *, seed: int = 0) -> Report:
    """Grade `cls`, a `tg.Function` subclass written for exercise `name`; return a `Report`.

    >>> import tinygrad_norm as tg
    >>> class Tanh(tg.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.y = y = np.tanh(x)
    ...         return y
    ...     @staticmethod
    ...     def backward(ctx, grad_output):
    ...         return grad_output.numpy() * (1 - ctx.y)    # forgot the square
    >>> report = tg.exercises.check("tanh", Tanh)
    >>> report.passed, report.input
    (False, 0)
    """
    exercise = get(name)
    if not (isinstance(cls, type) and issubclass(cls, Function)):
        raise TypeError(
            f"exercises.check({name!r}, ...): give the class itself, a tg.Function subclass with "
            f"forward(ctx, {', '.join(exercise.inputs)}) and backward(ctx, grad_output); got "
            f"{cls!r}"
        )
    rng = np.random.default_rng(seed)
    labels = []
    for label, args in exercise.cases(rng):  # the first case that goes wrong is reported
        labels.append(label)
        try:
            failure = _check_case(exercise, cls, label, args, rng)
        except _Raised as raised:
            return raised.report
        if failure is not None:
            return _failed(exercise, cls, *failure)
    names = ", ".join(n for n, a in zip(exercise.inputs, args) if needs_grad(a))
    cases = "; ".join(labels)
    return Report(name, True, f"The gradients of {names} match on {len(labels)} cases: {cases}.")


def run_function(cls: type, args: tuple, grad_output=None, seed: int = 0) -> tuple:
    """(output, gradients) of `cls` on `args`, its backward called directly as the checker
    does (one array or None per argument). grad_output defaults to N(0, 1) values."""
    out, ctx = _forward(cls, args)
    if grad_output is None:
        grad_output = np.random.default_rng(seed).normal(size=out.shape)
    return out, _as_tuple(cls, _backward(cls, ctx, grad_output), args)


def needs_grad(value) -> bool:
    """A float array is an input that needs a gradient; indices and labels do not."""
    return isinstance(value, np.ndarray) and value.dtype.kind == "f"


def _check_case(exercise: Exercise, cls: type, label: str, args: tuple, rng) -> tuple | None:
    """Run the solution and the learner on one case: the first input whose gradient is wrong
    (with what `_failed` needs to report it), or None. Raises `_Raised` when the learner's
    code raised, returned the wrong number of gradients or changed forward."""
    solution = exercise.solution
    expected_out, solution_ctx = _forward(solution, args)
    grad_output = rng.normal(size=expected_out.shape)
    expected = _as_tuple(solution, _backward(solution, solution_ctx, grad_output), args)
    try:
        out, ctx = _forward(cls, args)
    except Exception as error:  # noqa: BLE001 - reported with its traceback, not swallowed
        raise _Raised(_raised(exercise, cls, "forward", error, label)) from None
    if not close(out, expected_out):
        raise _Raised(_changed_forward(exercise, label, out, expected_out))
    try:
        returned = _backward(cls, ctx, grad_output)
    except Exception as error:  # noqa: BLE001 - reported with its traceback, not swallowed
        raise _Raised(_raised(exercise, cls, "backward", error, label)) from None
    try:
        got = _as_tuple(cls, returned, args)
    except ValueError as error:
        raise _Raised(Report(exercise.name, False, str(error), case=label)) from None
    for position, arg in enumerate(args):
        if not needs_grad(arg):
            continue
        mine = got[position]
        if mine is None or mine.shape != arg.shape or not close(mine, expected[position]):
            return position, label, args, grad_output, expected[position], mine
    return None


def _forward(cls: type, args: tuple) -> tuple[np.ndarray, object]:
    """forward through `cls.apply` on copies of the float inputs: the output and its node."""
    tensors = [Tensor(a.copy(), requires_grad=True) if needs_grad(a) else a for a in args]
    with enable_grad():
        out = cls.apply(*tensors)
    if out.grad_fn is None:
        raise TypeError(f"{cls.__name__}.forward returned {out.array.dtype} values: no gradient")
    return out.array, out.grad_fn


def _backward(cls: type, ctx, grad_output: np.ndarray):
    """backward called directly, as the engine would but without fixing what it returns."""
    with no_grad():
        return cls.backward(ctx, Tensor(grad_output.copy()))


def _as_tuple(cls: type, returned, args: tuple) -> tuple:
    """One gradient (an array, or None) per argument of forward."""
    grads = returned if isinstance(returned, (tuple, list)) else (returned,)
    grads = tuple(grads) + (None,) * (len(args) - len(grads))  # trailing Nones may be left out
    if len(grads) != len(args):
        raise ValueError(
            f"{cls.__name__}.backward returned {len(grads)} gradients, but forward takes "
            f"{len(args)} inputs: return one per input, in order (None for an integer input)."
        )
    arrays = []
    for position, g in enumerate(grads):
        if g is None:
            arrays.append(None)
            continue
        value = g.array if isinstance(g, Tensor) else g
        try:
            arrays.append(np.asarray(value, dtype=np.float64))
        except (TypeError, ValueError):
            raise ValueError(
                f"{cls.__name__}.backward returned {type(g).__name__} for input {position}: "
                "return a NumPy array or a Tensor"
            ) from None
    return tuple(arrays)


def _failed(exercise, cls, position, label, args, grad_output, expected, got) -> Report:
    """The report of a wrong gradient: its diagnosis, worst element and finite differences."""
    name = exercise.inputs[position]
    report = Report(exercise.name, False, "", position, name, label, expected_grad=expected,
                    got_grad=got)  # fmt: skip
    if got is None:
        report.diagnosis = (
            f"backward returned None for {name}, which needs a gradient: return an array of "
            f"shape {expected.shape} in position {position}."
        )
        return report
    if got.shape != expected.shape:
        report.diagnosis = diagnose_shape(name, got, expected)
        return report
    numerical, diagonal = _finite_differences(cls, args, position, grad_output)
    report.diagnosis = diagnose_values(name, got, expected, diagonal)
    index = worst_element(got, expected)
    report.index, report.expected, report.got = index, expected[index], got[index]
    report.numerical = numerical[index]
    return report


def _finite_differences(cls: type, args: tuple, position: int, grad_output: np.ndarray):
    """dL/dx for L = Σ grad_output * forward(...), by central differences, and what only the
    Jacobian's diagonal gives (None unless the output has as many elements as the input)."""
    arrays = [a.copy() if needs_grad(a) else a for a in args]
    x = arrays[position]

    def evaluate() -> np.ndarray:  # forward alone: nothing recorded
        with no_grad():
            out = cls.apply(*[Tensor(a.copy()) if needs_grad(a) else a for a in arrays])
        return out.array.astype(np.float64).ravel()

    jacobian = finite_differences(evaluate, x, EPS).central  # (output size, x.size)
    numerical = (jacobian.T @ grad_output.ravel()).reshape(x.shape)
    if jacobian.shape[0] != jacobian.shape[1]:
        return numerical, None
    return numerical, (np.diagonal(jacobian) * grad_output.ravel()).reshape(x.shape)


def _changed_forward(exercise: Exercise, label: str, out, expected_out) -> Report:
    if out.shape != expected_out.shape:
        what = f"has shape {out.shape}, the exercise's {expected_out.shape}"
    else:
        index = worst_element(out, expected_out)
        what = f"differs at {index}: {out[index]:.6g}, the exercise's {expected_out[index]:.6g}"
    return Report(exercise.name, False, f"your forward's output {what}. The backward is graded "
                  "against the exercise's forward: keep it as given.", case=label)  # fmt: skip


def _raised(exercise: Exercise, cls: type, phase: str, error: Exception, label: str) -> Report:
    """The report of an exception in the learner's code, with its traceback from their file."""
    mine = {cls.forward.__code__.co_filename, cls.backward.__code__.co_filename}
    text = learner_traceback(error, mine)
    frames = traceback.extract_tb(error.__traceback__)
    place = next((f for f in reversed(frames) if f.filename in mine), frames[-1])
    where = f"{place.filename}, line {place.lineno}"
    if isinstance(error, NotImplementedError) and phase == "backward":
        diagnosis = (
            f"backward is not implemented yet (it raises NotImplementedError at {where}). "
            f"Write it: `python -m tinygrad_norm exercises hint {exercise.name}` gives a hint."
        )
        text = None  # the place is all there is to say
    else:
        kind = type(error).__name__
        diagnosis = f"your {phase} raised {kind}: {error} ({where})"
    return Report(exercise.name, False, diagnosis, case=label, traceback=text)


def learner_traceback(error: BaseException, files: set) -> str:
    """The traceback of `error` from the first frame in one of the learner's `files` on (the
    checker's own frames above it say nothing to them); all of it if none is theirs."""
    frames = traceback.extract_tb(error.__traceback__)
    start = next((i for i, f in enumerate(frames) if f.filename in files), 0)
    text = "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames[start:]))
    return text + "".join(traceback.format_exception_only(type(error), error))
