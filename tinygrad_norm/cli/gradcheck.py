"""Check the gradients of every op and every nn module, first and second order, against
finite differences.

Each op of `tinygrad_norm.testing.op_cases` runs on float64 inputs; `gradcheck` compares its
backward with central differences and `gradgradcheck` does the same for the backward of the
backward. Each module of `tinygrad_norm.testing.module_cases` is checked with `check_module`
(its inputs and every parameter, in train and eval mode) and, where it is smooth, with
`gradgradcheck` (inputs and parameters, train mode). The exit code is 1 if any check fails.

`--output FILE` writes the tables to FILE and prints only a summary ("gradient checks: N ops,
M modules, all passed") and the rows of any check that failed.
"""

from __future__ import annotations

import fnmatch
import sys
import time
from pathlib import Path

import tinygrad_norm

from ..gradcheck import gradcheck, gradgradcheck
from ..tensor import Tensor
from ..testing.module_cases import CASES as MODULE_CASES
from ..testing.module_cases import check_module_case
from ..testing.op_cases import CASES
from .table import format_table

HELP = "check every op's and module's first and second derivatives; print a table"
HEADERS = ["input shapes", "max abs err", "max rel err", "1st order", "2nd order", "time"]


def add_arguments(parser) -> None:
    parser.add_argument(
        "-k",
        "--only",
        metavar="PATTERN",
        default="*",
        help="check only the ops and modules whose name matches (shell pattern, any case, "
        "e.g. 'sum*' or '*norm*')",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the tables to FILE; print only a summary and the rows of failed checks",
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


def _verdicts(results) -> str:
    """One verdict for several results (a module's train and eval modes): the worst."""
    verdicts = [_verdict(r) for r in results]
    for worst in ("FAIL", "kink"):
        if worst in verdicts:
            return worst
    return "ok"


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


def check_module_row(case) -> list:
    """One row of the module table: the errors are the largest of train and eval mode."""
    check = check_module_case(case)
    first = list(check.first.results.values())
    max_abs = max(_max_errors(r)[0] for r in first)
    max_rel = max(_max_errors(r)[1] for r in first)
    return [
        case.name,
        check.shapes,
        f"{max_abs:.1e}",
        f"{max_rel:.1e}",
        _verdicts(first),
        _verdict(check.second) if check.second is not None else "-",
        f"{check.seconds * 1e3:.0f} ms",
    ]


def _lib():
    return tinygrad_norm


def _matches(name: str, pattern: str) -> bool:
    return fnmatch.fnmatchcase(name.lower(), pattern.lower())


def run(args) -> int:
    if args.output and not Path(args.output).resolve().parent.is_dir():
        print(f"gradcheck: the folder of {args.output} does not exist; create it first")
        return 2
    if args.output:
        with open(args.output, "w", encoding="utf-8") as out:
            status, tables, seconds = _check_all(args.only, out)
        return _summary(status, tables, seconds, args.output)
    status, _, _ = _check_all(args.only, sys.stdout)
    return status


def _summary(status: int, tables: list, seconds: float, path: str) -> int:
    """The few lines of `--output`: the failed rows, the counts, where the tables are."""
    if status == 2:  # nothing matched, and _check_all said so: no empty file left behind
        Path(path).unlink()
        return 2
    failed = [(kind, r) for kind, rows in tables for r in rows if "FAIL" in (r[4], r[5])]
    for kind in ("op", "module"):
        rows = [r for k, r in failed if k == kind]
        if rows:
            print(format_table([kind, *HEADERS], rows, right={2, 3, 6}) + "\n")
    counts = ", ".join(
        f"{len(rows)} {kind}{'s' * (len(rows) != 1)}" for kind, rows in tables if rows
    )
    verdict = f"{len(failed)} FAILED" if failed else "all passed"
    print(f"gradient checks: {counts}, {verdict} ({seconds:.0f} s); the tables: {path}")
    return status


def _check_all(pattern: str, out) -> tuple[int, list, float]:
    """Check every op and module matching `pattern`, writing the tables to `out`: the exit
    code, [(kind, rows)] and the seconds taken."""
    start = time.perf_counter()
    tables = []
    for kind, cases, check in (
        ("op", CASES, check_case),
        ("module", MODULE_CASES, check_module_row),
    ):
        rows = [check(c) for c in cases if _matches(c.name, pattern)]
        if rows:
            print(format_table([kind, *HEADERS], rows, right={2, 3, 6}) + "\n", file=out)
        tables.append((kind, rows))
    if not any(rows for _, rows in tables):
        print(f"no op or module matches {pattern!r} (see the names with -k '*')")
        return 2, tables, time.perf_counter() - start
    if any(r[3] == "inf" for _, rows in tables for r in rows):
        print(
            "max rel err = inf: a derivative that is exactly zero in theory (e.g. with respect\n"
            "to attention's key bias: softmax ignores a shift shared by all keys) leaves both\n"
            "values at rounding noise, and a finite difference of exactly 0 makes the relative\n"
            "error infinite. Such an entry passes on |analytic - numerical| <= atol alone.\n",
            file=out,
        )
    failed = [r[0] for _, rows in tables for r in rows if "FAIL" in (r[4], r[5])]
    counts = "; ".join(
        f"{len(rows)} {kind}s checked, {sum(r[0] not in failed for r in rows)} passed"
        for kind, rows in tables
        if rows
    )
    print(
        f"{counts} ({time.perf_counter() - start:.1f} s)"
        + (f", FAILED: {', '.join(failed)}" if failed else ""),
        file=out,
    )
    return (1 if failed else 0), tables, time.perf_counter() - start
