"""What gradcheck tells you: a table per (output, input) pair, kinks, and the op to blame.

`GradcheckResult` is truthy when every check passed and prints as the table; `GradcheckError`
carries the same text and the worst element as fields, for tests and tools.
"""

from __future__ import annotations

from dataclasses import dataclass, field

STATUS_OK, STATUS_WRONG, STATUS_KINK = "ok", "WRONG", "kink"
STATUS_NONDET, STATUS_SHAPE = "nondet", "shape"

KINK_EXPLANATION = (
    "At a kink the central difference averages the two one-sided slopes, while backward returns "
    "one of them (or a convention, e.g. 0 for relu at 0), so both are fine and the backward is "
    "not blamed. Check at a point away from the kink (no exact zeros, no ties)."
)


def _num(value: float) -> str:
    """A value with 10 significant digits; -0 prints as 0."""
    return f"{value + 0.0:.10g}"


@dataclass
class Row:
    """One (output, input) pair: the largest errors and where the worst one is."""

    output: int
    input: int
    name: str | None  # the input tensor's name, if it has one
    shape: tuple
    max_abs: float = 0.0
    max_rel: float = 0.0
    worst: tuple | None = None  # multi-index of the worst input element (None in fast mode)
    worst_output: tuple | None = None  # multi-index of the output element it affects
    numerical: float = 0.0  # the two values at the worst element (vᵀJu in fast mode)
    analytic: float = 0.0
    status: str = STATUS_OK

    @property
    def label(self) -> str:
        return f"{self.input} ({self.name})" if self.name else str(self.input)


@dataclass
class Kink:
    """A point where one input element puts the function on a kink: not differentiable."""

    input: int
    element: tuple
    output: int
    output_element: tuple
    left: float
    right: float
    analytic: float
    failing: bool  # did this element fail the comparison (and is excused as a kink)?

    def __str__(self) -> str:
        return (
            f"not differentiable at element {self.element} of input {self.input} "
            f"(left slope {self.left + 0.0:.6g}, right slope {self.right + 0.0:.6g}; backward "
            f"gives {self.analytic + 0.0:.6g}, the central difference "
            f"{(self.left + self.right) / 2 + 0.0:.6g})"
        )


@dataclass
class Culprit:
    """The first node whose own backward disagrees with its own finite differences."""

    op: str  # e.g. "MulBackward"
    input: int  # which Tensor input of the op
    element: tuple
    numerical: float
    analytic: float
    where: str | None = None  # the Python function the op was called from, e.g. "layer_norm"

    def __str__(self) -> str:
        where = f" in {self.where}" if self.where else ""
        return (
            f"{self.op}{where} (input {self.input}, element {self.element}): d(vᵀ out)/d input "
            f"is {_num(self.numerical)} by finite differences, {_num(self.analytic)} by backward"
        )


@dataclass
class GradcheckResult:
    """The outcome of gradcheck: truthy when it passed; `str()` gives the table and details.

    Attributes: `ok`, `rows` (one `Row` per output and input), `kinks` (`Kink`s found),
    `problems` (messages: non-determinism, gradient shape or dtype), `culprit` (a `Culprit`
    or None), `worst` (the worst failing row), and the settings used.
    """

    fn_name: str
    rows: list[Row]
    kinks: list[Kink] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    culprit: Culprit | None = None
    notes: list[str] = field(default_factory=list)
    eps: float = 1e-6
    atol: float = 1e-5
    rtol: float = 1e-3
    fast_mode: bool = False
    title: str = "gradcheck"

    @property
    def ok(self) -> bool:
        return not self.problems and all(row.status == STATUS_OK for row in self.rows)

    def __bool__(self) -> bool:
        return self.ok

    @property
    def wrong(self) -> bool:
        """Did some element fail that is not excused as a kink (so a backward is to blame)?"""
        return any(row.status == STATUS_WRONG for row in self.rows)

    @property
    def worst(self) -> Row | None:
        """The row to report: a wrong one with the largest error, else a kink, else any bad."""
        for status in (STATUS_WRONG, STATUS_KINK, STATUS_SHAPE, STATUS_NONDET):
            rows = [row for row in self.rows if row.status == status]
            if rows:
                return max(rows, key=lambda row: row.max_abs)
        return None

    def headline(self) -> str:
        name, tol = self.fn_name, f"atol={self.atol:g}, rtol={self.rtol:g}, eps={self.eps:g}"
        how = "fast mode: vᵀJu for random unit u, v" if self.fast_mode else "every element"
        if self.ok:
            return (
                f"{self.title} passed for {name}: backward matches central differences "
                f"({how}; {tol})."
            )
        if self.wrong:
            return (
                f"{self.title} failed for {name}: backward disagrees with central differences; "
                f"an element fails when |analytic - numerical| > atol + rtol * |numerical| "
                f"({tol})."
            )
        if any(row.status == STATUS_KINK for row in self.rows):
            return (
                f"{self.title} failed for {name}: the function is not differentiable at the "
                "point checked, so its gradient cannot be checked there; this is a kink, "
                "not a wrong backward."
            )
        return f"{self.title} failed for {name}:"

    def table(self) -> str:
        header = ("output", "input", "shape", "max abs err", "max rel err", "worst element")
        lines = [header + ("status",)]
        for row in self.rows:
            worst = "-" if row.worst is None else str(row.worst)
            lines.append(
                (
                    str(row.output),
                    row.label,
                    str(tuple(row.shape)),
                    f"{row.max_abs:.2e}",
                    f"{row.max_rel:.2e}",
                    worst,
                    row.status,
                )
            )
        widths = [max(len(line[c]) for line in lines) for c in range(len(header) + 1)]
        return "\n".join(
            "  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip() for line in lines
        )

    def details(self) -> list[str]:
        lines = []
        row = self.worst
        if row is not None and row.status in (STATUS_WRONG, STATUS_KINK):
            if row.worst is None:
                lines.append(
                    f"output {row.output}, input {row.label}: vᵀJu is {_num(row.numerical)} by "
                    f"finite differences, {_num(row.analytic)} by backward"
                )
            else:
                lines.append(
                    f"worst element: {row.worst} of input {row.label}, for element "
                    f"{row.worst_output} of output {row.output}: numerical {_num(row.numerical)}, "
                    f"analytic {_num(row.analytic)}"
                )
        if self.wrong:
            if self.culprit is not None:
                lines.append(
                    "the first op whose own backward disagrees with finite differences: "
                    f"{self.culprit}"
                )
            else:
                lines.append(
                    "every op's own backward agrees with its own finite differences, so the "
                    "mismatch comes from how they are put together: look for code outside the "
                    "graph (arithmetic on .data, NumPy calls, in-place writes) or a gradient hook"
                )
        failing_kinks = [k for k in self.kinks if k.failing]
        for kink in failing_kinks:
            lines.append(str(kink))
        if failing_kinks and not self.wrong:
            lines.append(KINK_EXPLANATION)
        for kink in self.kinks:
            if not kink.failing:
                lines.append(f"note: {kink} (the check passed: backward matches the average)")
        return lines + self.problems + self.notes

    def __str__(self) -> str:
        table = ["", self.table()] if self.rows else []
        return "\n".join([self.headline(), *table, *self.details()])

    __repr__ = __str__


class GradcheckError(RuntimeError):
    """gradcheck failed. The message is the result's table and details; the fields say where.

    Fields: `result` (the `GradcheckResult`), `input_index`, `output_index`, `worst_index` (the
    worst element's multi-index in its input), `numerical`, `analytic` (the two values there),
    `op` (the first op whose own backward is wrong, e.g. "MulBackward"), `kinks`.
    """

    def __init__(self, message: str, result: GradcheckResult | None = None, op: str | None = None):
        super().__init__(message)
        self.result = result
        row = result.worst if result is not None else None
        self.input_index = row.input if row else None
        self.output_index = row.output if row else None
        self.worst_index = row.worst if row else None
        self.numerical = row.numerical if row else None
        self.analytic = row.analytic if row else None
        culprit = result.culprit if result is not None else None
        self.op = op if op is not None else (culprit.op if culprit else None)
        self.kinks = result.kinks if result is not None else []
