"""The GPT training-step benchmark: tinygrad_norm against hand-written NumPy and PyTorch eager.

Forward + backward + AdamW at three sizes (tiny, small, medium), the systems interleaved step
by step in one process; ms per step, the ratios, and peak memory per step against the NumPy
reference; `--alone` also times each system in its own process. The benchmark lives in
`benchmarks/gpt_step.py` at the root of the repository (a source checkout), which describes
what is measured and how.
"""

from __future__ import annotations

import sys
from pathlib import Path

HELP = "time a GPT training step against hand-written NumPy and PyTorch"
ROOT = Path(__file__).resolve().parents[2]  # the repository: tinygrad_norm/cli/ -> ../..


def _benchmark():
    """`benchmarks.gpt_step`, found beside the package in a source checkout (or None)."""
    if not (ROOT / "benchmarks" / "gpt_step.py").exists():
        return None
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from benchmarks import gpt_step

    return gpt_step


def add_arguments(parser) -> None:
    gpt_step = _benchmark()
    if gpt_step is not None:
        gpt_step.add_arguments(parser)


def run(args) -> int:
    gpt_step = _benchmark()
    if gpt_step is None:
        print(
            "bench: the benchmark lives in benchmarks/ of the source repository, which this "
            f"installation does not have (looked in {ROOT}); run it from a clone: "
            "`pip install -e .` there, then `python -m tinygrad_norm bench`"
        )
        return 2
    return gpt_step.run(args)
