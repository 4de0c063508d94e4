"""Check the gradients of every op, first and second order, against finite differences.

Each op of `tinygrad_norm.testing.op_cases` runs on float64 inputs; `gradcheck` compares its
backward with central differences and `gradgradcheck` does the same for the backward of the
backward. The exit code is 1 if any check fails.
"""

from __future__ import annotations

import fnmatch
import time

from ..gradcheck import gradcheck, gradgradcheck
from ..tensor import Tensor
from ..testing.op_cases import CASES
from .table import format_table

HELP = "check every op's first and second derivatives; print a table"


def add_arguments(parser) -> None:
    parser.add_argument(
        "-k",
        "--only",
        metavar="PATTERN",
        default="*",
        help="check only the cases whose name matches (shell pattern, e.g. 'sum*')",
    )


def _max_errors(result) -> tuple[float, float]:
    return (
        max((r.max_abs for r in result.rows), default=0.0),
        max((r.max_rel for r in result.rows), default=0.0),
    )


def _verdict(result) -> str:
    if result.ok:
        return "ok"
    return "kink" if result.kinks and not result.wrong else "FAIL"


def check_case(case) -> list:
    """One table row: name, shapes, errors, first- and second-order verdicts, time."""
    start = time.perf_counter()
    inputs = tuple(Tensor(a, requires_grad=True) for a in case.inputs())

    def fn(*xs):
        return case.fn(_lib(), *xs)

    first = gradcheck(fn, inputs, raise_exception=False)
    second = gradgradcheck(fn, inputs, raise_exception=False) if case.second_order else None
    max_abs, max_rel = _max_errors(first)
    shapes = " ".join("x".join(map(str, s)) or "()" for s in case.shapes)
    return [
        case.name,
        shapes,
        f"{max_abs:.1e}",
        f"{max_rel:.1e}",
        _verdict(first),
        _verdict(second) if second is not None else "-",
        f"{(time.perf_counter() - start) * 1e3:.0f} ms",
    ]


def _lib():
    import tinygrad_norm

    return tinygrad_norm


def run(args) -> int:
    rows = [check_case(c) for c in CASES if fnmatch.fnmatch(c.name, args.only)]
    print(
        format_table(
            ["op", "input shapes", "max abs err", "max rel err", "1st order", "2nd order", "time"],
            rows,
            right={2, 3, 6},
        )
    )
    failed = [r[0] for r in rows if "FAIL" in (r[4], r[5])]
    print(
        f"\n{len(rows)} ops checked, {len(rows) - len(failed)} passed"
        + (f", FAILED: {', '.join(failed)}" if failed else "")
    )
    return 1 if failed else 0
