"""Learn backprop by writing it: twenty backward passes, graded by the gradient checker.

    list                    the exercises, numbered, each not started / failing / passed
    start NAME [--dir DIR]  write DIR/NAME.py: the statement, the forward, a backward to write
    check NAME [FILE]       grade FILE (default DIR/NAME.py): exit 0 when it passes, 1 otherwise
    hint NAME               the next of three hints
    solution NAME           the solution, once your backward passes (or with --force)

DIR defaults to ./exercises; your progress is kept in DIR/.progress.json. In FILE, the graded
class is its one tg.Function subclass, or the one named after the exercise (NAME `layer_norm`:
`LayerNorm`) when there are several.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from ..autograd.function import Function
from ..learn.exercises import EXERCISES, check, get, progress
from ..learn.exercises.check import learner_traceback

HELP = "learn backprop by writing it: exercises graded by the gradient checker"
NAMES = [e.name for e in EXERCISES]


def add_arguments(parser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    directory = argparse.ArgumentParser(add_help=False)
    directory.add_argument(
        "--dir", default="exercises", help="where your exercise files are (default: ./exercises)"
    )
    actions.add_parser("list", parents=[directory], help="the exercises and your progress")
    start = actions.add_parser("start", parents=[directory], help="write DIR/NAME.py to edit")
    start.add_argument("name", metavar="NAME", choices=NAMES)
    start.add_argument("--force", action="store_true", help="overwrite an existing file")
    graded = actions.add_parser("check", parents=[directory], help="grade your backward")
    graded.add_argument("name", metavar="NAME", choices=NAMES)
    graded.add_argument("file", metavar="FILE", nargs="?", help="default: DIR/NAME.py")
    hint = actions.add_parser("hint", parents=[directory], help="the next hint")
    hint.add_argument("name", metavar="NAME", choices=NAMES)
    solution = actions.add_parser("solution", parents=[directory], help="the solution")
    solution.add_argument("name", metavar="NAME", choices=NAMES)
    solution.add_argument("--force", action="store_true", help="show it before you pass")


def run(args) -> int:
    return ACTIONS[args.action](args)


def list_exercises(args) -> int:
    for number, exercise in enumerate(EXERCISES, 1):
        print(f"{number:2}. {exercise.name:14} {progress.state(args.dir, exercise.name)}")
    print(f"\nStart one: python -m tinygrad_norm exercises start NAME (writes {args.dir}/NAME.py)")
    return 0


def start(args) -> int:
    path = Path(args.dir) / f"{args.name}.py"
    if path.exists() and not args.force:
        print(f"{path} exists already: edit it, or start again with --force", file=sys.stderr)
        return 1
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(get(args.name).template())
    print(f"wrote {path}: write its backward, then")
    print(f"    python -m tinygrad_norm exercises check {args.name}")
    return 0


def check_file(args) -> int:
    path = Path(args.file) if args.file else Path(args.dir) / f"{args.name}.py"
    if not path.exists():
        print(f"{path}: no such file; `exercises start {args.name}` writes it", file=sys.stderr)
        return 1
    try:
        cls = graded_class(path, args.name)
    except LookupError as error:
        print(error, file=sys.stderr)
        return 1
    except Exception as error:  # noqa: BLE001 - the learner's file failed to run: show where
        print(learner_traceback(error, {str(path.resolve())}), end="", file=sys.stderr)
        return 1
    report = check(args.name, cls)
    print(report)
    if report.passed:
        progress.record(path.parent, args.name, state=progress.PASSED, solved=True)
    else:
        progress.record(path.parent, args.name, state=progress.FAILING)
    if report.passed:
        print(f"\nWell done. Compare: python -m tinygrad_norm exercises solution {args.name}")
    return 0 if report.passed else 1


def graded_class(path: Path, name: str) -> type:
    """The file's one tg.Function subclass, or the one named after the exercise."""
    spec = importlib.util.spec_from_file_location(f"exercise_{name}", path.resolve())
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as an import would (dataclasses, pickle look there)
    spec.loader.exec_module(module)  # runs the learner's file: its errors show their lines
    found = [
        value
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, Function) and value is not Function
        and value.__module__ == module.__name__
    ]  # fmt: skip
    if len(found) == 1:
        return found[0]
    wanted = get(name).class_name
    named = [c for c in found if c.__name__.lower() == wanted.lower()]
    if len(named) == 1:
        return named[0]
    classes = ", ".join(c.__name__ for c in found) or "none"
    raise LookupError(
        f"{path}: cannot tell which class to grade (tg.Function subclasses: {classes}); "
        f"name the one for `{name}` {wanted}"
    )


def hint(args) -> int:
    hints = get(args.name).hints
    shown = progress.hints_shown(args.dir, args.name)
    number = min(shown + 1, len(hints))
    print(f"Hint {number} of {len(hints)} for {args.name}: {hints[number - 1]}")
    if number == len(hints):
        print(f"\nThat was the last. After a pass: exercises solution {args.name}")
    progress.record(args.dir, args.name, hints=number)
    return 0


def solution(args) -> int:
    if not progress.solved(args.dir, args.name) and not args.force:
        print(
            f"{args.name}: the solution opens once `exercises check {args.name}` passes "
            f"(a hint: `exercises hint {args.name}`; or see it now with --force)",
            file=sys.stderr,
        )
        return 1
    print(get(args.name).solution_source())
    return 0


ACTIONS = {
    "list": list_exercises,
    "start": start,
    "check": check_file,
    "hint": hint,
    "solution": solution,
}
