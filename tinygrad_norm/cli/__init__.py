"""The command line: `python -m tinygrad_norm <command> --help`.

Each command is a module here with `add_arguments(parser)` and `run(args) -> exit code`.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys

import numpy as np

from .. import __version__
from . import bench, draw, exercises, explore, generate, gradcheck, run, sample, steps, train

COMMANDS = {
    "train": train,
    "sample": sample,
    "generate": generate,
    "gradcheck": gradcheck,
    "steps": steps,
    "draw": draw,
    "explore": explore,
    "bench": bench,
    "run": run,
    "exercises": exercises,
}


def build_parser() -> argparse.ArgumentParser:
    """The whole command line: one sub-command per module of COMMANDS."""
    parser = argparse.ArgumentParser(
        prog="python -m tinygrad_norm",
        description="tinygrad_norm: a small autograd framework on NumPy, written to be read.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"tinygrad_norm {__version__} (Python {platform.python_version()}, "
        f"NumPy {np.__version__})",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in COMMANDS.items():
        sub = commands.add_parser(name, help=module.HELP, description=module.__doc__)
        module.add_arguments(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        status = COMMANDS[args.command].run(args)
        sys.stdout.flush()  # inside the try: a closed pipe shows up here at the latest
    except BrokenPipeError:
        # The reader went away (`steps | head`): stop quietly, as Unix tools do. Point stdout
        # at /dev/null so that Python's own flush at exit cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status
