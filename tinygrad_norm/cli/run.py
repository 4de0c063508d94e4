"""Run a PyTorch script unchanged, with `import torch` resolved to tinygrad_norm.

    python -m tinygrad_norm run train.py --steps 100

The script sees `sys.argv == ["train.py", "--steps", "100"]` and runs as `__main__`, as under
`python train.py`. Where it uses something tinygrad_norm lacks, the error names it
("tinygrad_norm does not implement torch.fft yet").

    python -m tinygrad_norm run --tune-malloc train.py

first calls `tg.utils.tune_malloc()`, so that a training loop reuses its freed activations
instead of taking fresh pages from the OS every step (glibc only; docs/speed.md, "malloc").
"""

from __future__ import annotations

import argparse
import os
import re
import runpy
import sys
import traceback

from ..compat.torch_import import install_as_torch
from ..utils import tune_malloc

HELP = "run a PyTorch script unchanged, with import torch resolved to tinygrad_norm"
MISSING = re.compile(r"tinygrad_norm does not implement (torch[\w.]*) yet")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tune-malloc",
        action="store_true",
        help="keep freed memory for reuse (tg.utils.tune_malloc): faster training loops on glibc",
    )
    parser.add_argument("script", help="the Python file to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")


def run(args: argparse.Namespace) -> int:
    if not os.path.isfile(args.script):
        print(f"run: no such file: {args.script}", file=sys.stderr)
        return 2
    if args.tune_malloc and not tune_malloc():
        print("run: --tune-malloc needs glibc (Linux); malloc is left as it is", file=sys.stderr)
    install_as_torch()
    sys.argv = [args.script, *args.args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.script)))  # as `python script.py`
    try:
        runpy.run_path(args.script, run_name="__main__")
    except (AttributeError, ImportError) as error:
        missing = MISSING.search(str(error))
        if missing is None:
            raise
        traceback.print_exc()
        print(f"\nrun: {where_in(args.script, error)} uses {missing.group(1)}, which "
              "tinygrad_norm does not implement yet", file=sys.stderr)  # fmt: skip
        return 1
    return 0


def where_in(script: str, error: BaseException) -> str:
    """`train.py, line 12`: the last line of the script itself in the error's traceback."""
    path = os.path.abspath(script)
    frames = traceback.extract_tb(error.__traceback__)
    lines = [f.lineno for f in frames if os.path.abspath(f.filename) == path]
    return f"{script}, line {lines[-1]}," if lines else f"{script}"
