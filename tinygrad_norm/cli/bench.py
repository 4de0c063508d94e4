"""The GPT training-step benchmark: tinygrad_norm against hand-written NumPy and PyTorch eager.

Forward + backward + AdamW at three sizes (tiny, small, medium), the systems interleaved step
by step in one process; ms per step, the ratios, and peak memory per step against the NumPy
reference; `--alone` also times each system in its own process. The benchmark is
`tinygrad_norm/bench/gpt_step.py`, which describes what is measured and how.
"""

from __future__ import annotations

from ..bench import gpt_step

HELP = "time a GPT training step against hand-written NumPy and PyTorch"


def add_arguments(parser) -> None:
    gpt_step.add_arguments(parser)


def run(args) -> int:
    return gpt_step.run(args)
