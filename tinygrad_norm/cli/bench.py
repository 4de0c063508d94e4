"""The benchmarks: `python -m tinygrad_norm bench [--suite gpt|course|gpt2|random|ops]`.

- `gpt` (the default): a GPT training step, tinygrad_norm against hand-written NumPy and
  PyTorch eager, at three sizes (`tinygrad_norm/bench/gpt_step.py` describes what is measured);
- `course`: PyTorch course code (GPTs, a makemore MLP, a LeNet CNN, an LSTM, an MLP on 2-D
  points) run unchanged on PyTorch and on tinygrad_norm (`tinygrad_norm/bench/course_suite.py`);
- `gpt2`: GPT-2 small's training step and greedy generation against PyTorch and Hugging Face
  transformers (`tinygrad_norm/bench/gpt2_suite.py`);
- `random`: 10**6 normals and uniforms, and small draws, against `torch.randn` / `torch.rand`
  and NumPy's `default_rng` (`tinygrad_norm/random/bench.py`).
- `ops`: every op of the op table, forward + backward at course shapes, against its best
  plain-NumPy forward + backward and PyTorch eager (`tinygrad_norm/bench/ops_suite.py`).
"""

from __future__ import annotations

from ..bench import course_suite, gpt2_suite, gpt_step, ops_suite
from ..random import bench as random_suite
from ..utils import tune_malloc

HELP = "time training steps against NumPy and PyTorch (--suite gpt, course, gpt2, random, ops)"
SUITES = {"course": course_suite, "gpt2": gpt2_suite, "random": random_suite, "ops": ops_suite}


def add_arguments(parser) -> None:
    parser.add_argument(
        "--suite", choices=("gpt", *SUITES), default="gpt", help="which benchmark (default gpt)"
    )
    gpt_step.add_arguments(parser)
    course_suite.add_arguments(parser)
    gpt2_suite.add_arguments(parser)
    ops_suite.add_arguments(parser)


def run(args) -> int:
    if args.suite == "gpt":
        return gpt_step.run(args)
    if args.malloc == "tuned":  # as for --suite gpt: every library alike
        tune_malloc()
    return SUITES[args.suite].run(args)
