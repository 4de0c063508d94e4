"""pytest at the repository root: `--doctest-modules` imports every module of tinygrad_norm/,
but the benchmark's PyTorch files (its PyTorch GPT, and the course models, which `import torch`)
need PyTorch, an optional dependency."""

import importlib.util

_NEED_TORCH = ["tinygrad_norm/bench/torch_gpt.py", "tinygrad_norm/bench/course"]
collect_ignore = [] if importlib.util.find_spec("torch") else _NEED_TORCH
