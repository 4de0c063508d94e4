"""`bench --suite random`: drawing 10**6 float32 normals and uniforms, a randperm of 60000 (an
MNIST epoch's shuffle), and small draws (a makemore step's minibatch, the bigram model's
initial weights, a reseed) through the public functions, against PyTorch's `torch.randn` /
`torch.rand` and NumPy's `default_rng`, one thread, CPU time, the three taking turns (median of
`--steps` after `--warmup`)."""

from __future__ import annotations

import importlib.util
import os
import statistics
import time

import numpy as np

from ..functions.creation import rand, randint, randn
from ..functions.sampling import randperm
from . import manual_seed
from .generator import Generator


def _cases(n: int, torch) -> dict:
    """name -> {library: draw}, each draw a zero-argument function calling the public API."""
    ours, rng = Generator().manual_seed(0), np.random.default_rng(0)
    theirs = torch.Generator().manual_seed(0) if torch else None
    perm = 60000 if n >= 10**6 else 600
    cases = {
        f"randn {n} float32": {
            "tinygrad_norm": lambda: randn(n, generator=ours),
            "numpy": lambda: rng.standard_normal(n, dtype=np.float32),
            "torch": lambda: torch.randn(n, generator=theirs),
        },
        f"rand {n} float32": {
            "tinygrad_norm": lambda: rand(n, generator=ours),
            "numpy": lambda: rng.random(n, dtype=np.float32),
            "torch": lambda: torch.rand(n, generator=theirs),
        },
        f"randperm {perm}": {
            "tinygrad_norm": lambda: randperm(perm, generator=ours),
            "numpy": lambda: rng.permutation(perm),
            "torch": lambda: torch.randperm(perm, generator=theirs),
        },
        "randint 32 (a makemore step)": {
            "tinygrad_norm": lambda: randint(0, 200000, (32,), generator=ours),
            "numpy": lambda: rng.integers(0, 200000, 32),
            "torch": lambda: torch.randint(0, 200000, (32,), generator=theirs),
        },
        "randn 27x27 (the bigram init)": {
            "tinygrad_norm": lambda: randn((27, 27), generator=ours),
            "numpy": lambda: rng.standard_normal((27, 27), dtype=np.float32),
            "torch": lambda: torch.randn((27, 27), generator=theirs),
        },
        "manual_seed": {
            "tinygrad_norm": lambda: manual_seed(0),
            "numpy": lambda: None,
            "torch": lambda: torch.manual_seed(0),
        },
    }
    if not torch:
        for case in cases.values():
            del case["torch"]
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
