"""`bench --suite random`: drawing 10**6 float32 normals and uniforms, and a makemore step's
small draws, against PyTorch's `torch.randn` / `torch.rand` and NumPy's `default_rng`, one
thread, CPU time, the three taking turns (median of `--steps` after `--warmup`)."""

from __future__ import annotations

import importlib.util
import os
import statistics
import time

import numpy as np

from . import manual_seed, transforms
from .generator import Generator


def _cases(n: int, torch) -> dict:
    """name -> {library: draw}, each draw a zero-argument function."""
    ours, rng = Generator().manual_seed(0), np.random.default_rng(0)
    theirs = torch.Generator().manual_seed(0) if torch else None
    cases = {
        f"randn {n} float32": {
            "tinygrad_norm": lambda: transforms.normal(ours, (n,), np.float32),
            "numpy": lambda: rng.standard_normal(n, dtype=np.float32),
        },
        f"rand {n} float32": {
            "tinygrad_norm": lambda: transforms.uniform(ours, (n,), np.float32),
            "numpy": lambda: rng.random(n, dtype=np.float32),
        },
        "randint 32 (a makemore step)": {
            "tinygrad_norm": lambda: transforms.integers(ours, 0, 200000, (32,)),
            "numpy": lambda: rng.integers(0, 200000, 32),
        },
        "manual_seed": {"tinygrad_norm": lambda: manual_seed(0), "numpy": lambda: None},
    }
    if torch:
        draws = [lambda: torch.randn(n, generator=theirs), lambda: torch.rand(n, generator=theirs)]
        draws += [lambda: torch.randint(0, 200000, (32,), generator=theirs)]
        draws += [lambda: torch.manual_seed(0)]
        for case, draw in zip(cases.values(), draws):
            case["torch"] = draw
    return cases


def run(args) -> int:
    torch = None
    if importlib.util.find_spec("torch") is not None:
        import torch

        torch.set_num_threads(1)
    n = 10**4 if args.tiny else 10**6
    print(f"Random draws, one thread, CPU time, median of {args.steps} after {args.warmup} "
          f"warm-up, taking turns; NumPy {np.__version__}, PyTorch "
          f"{torch.__version__ if torch else '(not installed)'}, load average "
          f"{os.getloadavg()[0]:.1f}")  # fmt: skip
    libraries = ["tinygrad_norm", "torch", "numpy"] if torch else ["tinygrad_norm", "numpy"]
    print(f"{'draw':<30}" + "".join(f"{name:>15}" for name in libraries) + f"{'tg/torch':>10}")
    for name, draws in _cases(n, torch).items():
        times = {library: [] for library in draws}
        for step in range(args.warmup + args.steps):
            for library, draw in draws.items():
                start = time.thread_time()
                draw()
                if step >= args.warmup:
                    times[library].append(time.thread_time() - start)
        us = {library: statistics.median(t) * 1e6 for library, t in times.items()}
        cells = "".join(f"{us[library]:>12.1f} us" for library in libraries)
        ratio = f"{us['tinygrad_norm'] / us['torch']:>10.2f}" if torch else ""
        print(f"{name:<30}{cells}{ratio}")
    return 0
