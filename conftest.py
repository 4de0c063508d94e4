"""pytest at the repository root: `--doctest-modules` imports every module of tinygrad_norm/,
but the benchmark's PyTorch GPT needs PyTorch (an optional dependency)."""

import importlib.util

collect_ignore = [] if importlib.util.find_spec("torch") else ["tinygrad_norm/bench/torch_gpt.py"]
