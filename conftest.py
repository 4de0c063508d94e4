"""pytest at the repository root: `--doctest-modules` imports every module of tinygrad_norm/,
but the benchmark's PyTorch GPT needs PyTorch, an optional dependency. The course models are
never imported as modules of the package: they are course scripts (`import torch`, and `from
gpt_composed import ...` from their own folder) that `bench --suite course` loads itself, once
per library; they hold no doctests (tests/bench/test_bench_suites.py runs them)."""

import importlib.util

collect_ignore = ["tinygrad_norm/bench/course", "tinygrad_norm/compat/torch_shim"]
if not importlib.util.find_spec("torch"):
    collect_ignore.append("tinygrad_norm/bench/torch_gpt.py")
if not importlib.util.find_spec("tensorboard"):  # it raises PyTorch's ImportError without it
    collect_ignore.append("tinygrad_norm/utils/tensorboard.py")
