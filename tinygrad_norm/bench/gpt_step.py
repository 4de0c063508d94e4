"""GPT training-step benchmark: tinygrad_norm against hand-written NumPy and PyTorch eager.

One step is forward + backward + AdamW step, float32, dropout 0, on a fixed batch. Three
systems start from the same weights:

- tinygrad: `tg.models.GPT` with `tg.optim.AdamW`;
- numpy: `numpy_gpt.NumpyGPT`, the same model with its backward written by hand (the limit for
  anything built on NumPy; `tests/test_bench_reference.py` checks its gradients);
- torch: `torch_gpt.TorchGPT`, the same model in PyTorch eager on the CPU, when installed, with
  `torch.set_num_threads` set to the number of threads NumPy's BLAS uses.

In one process the systems take turns step by step (the order rotates), after warm-up steps,
so a noisy machine slows all of them alike; the medians are compared. Peak memory per step is
what tracemalloc sees allocated on top of what was live when the step began (it sees NumPy's
arrays, not PyTorch's). `--alone` also times each system in its own fresh process, as a user
would run it: `--rounds` times, the processes taking turns, and the median over the rounds.
glibc's malloc is tuned (`tg.utils.tune_malloc`) for every system alike, untuned, or both ways
(`--malloc`; each way runs in its own process, since tuning cannot be undone).

    python -m tinygrad_norm bench [--sizes tiny,small,medium] [--steps 20] [--alone]
    python -m tinygrad_norm.bench.gpt_step ...     (the same)
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc

import numpy as np

import tinygrad_norm as tg

from ..utils import blas_threads, tune_malloc
from . import NO_TORCH_HINT
from .numpy_gpt import AdamW, NumpyGPT, init_params

# name: (vocab, T, B, d_model, n_layer, n_head)
SIZES = {
    "tiny": (65, 32, 8, 64, 2, 4),
    "small": (65, 64, 16, 128, 4, 4),
    "medium": (256, 128, 8, 256, 4, 8),
}
DEFAULT_SIZES = "tiny,small,medium"
SYSTEMS = ("tinygrad", "numpy", "torch")
WORKER = "tinygrad_norm.bench.gpt_step"  # a child process runs this module (`--alone`)
LR, WEIGHT_DECAY = 1e-3, 1e-2


def has_torch() -> bool:
    return importlib.util.find_spec("torch") is not None


# --- the systems: each a `step()` that trains on the batch once and returns the loss ------------
def make_problem(size: str, seed: int = 0):
    vocab, T, B, d, n_layer, n_head = SIZES[size]
    rng = np.random.default_rng(seed)
    params = init_params(rng, vocab, T, d, n_layer)
    idx = rng.integers(0, vocab, (B, T))
    targets = rng.integers(0, vocab, (B, T))
    return params, idx, targets


def make_tinygrad(size, params, idx, targets):
    vocab, T, B, d, n_layer, n_head = SIZES[size]
    config = tg.models.GPTConfig(
        vocab_size=vocab, n_ctx=T, d_model=d, n_layer=n_layer, n_head=n_head, dropout=0.0
    )
    model = tg.models.GPT(config)
    model.load_state_dict({k: np.array(v, copy=True) for k, v in params.items()})
    optimizer = tg.optim.AdamW(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
    idx, targets = tg.tensor(idx), tg.tensor(targets)

    def step():
        optimizer.zero_grad()
        _, loss = model(idx, targets)
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


def make_numpy(size, params, idx, targets):
    vocab, T, B, d, n_layer, n_head = SIZES[size]
    model = NumpyGPT({k: np.array(v, copy=True) for k, v in params.items()}, n_layer, n_head)
    optimizer = AdamW(model.params, lr=LR, weight_decay=WEIGHT_DECAY)

    def step():
        loss, grads = model.loss_and_grads(idx, targets)
        optimizer.step(grads)
        return loss

    return step


def make_torch(size, params, idx, targets):
    import torch

    # NOTE: the PyTorch GPT's module imports torch (optional), so it is loaded only here
    TorchGPT = importlib.import_module(".torch_gpt", __package__).TorchGPT

    vocab, T, B, d, n_layer, n_head = SIZES[size]
    torch.set_num_threads(blas_threads())
    model = TorchGPT(params, n_layer, n_head)
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
    idx, targets = torch.from_numpy(idx), torch.from_numpy(targets)

    def step():
        optimizer.zero_grad()
        loss = model(idx, targets)
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


MAKERS = {"tinygrad": make_tinygrad, "numpy": make_numpy, "torch": make_torch}


# --- measuring ----------------------------------------------------------------------------------
def time_interleaved(steps: dict, n_steps: int, warmup: int) -> dict:
    """{name: [ms per step]}: the systems take turns, in an order that rotates every step."""
    names = list(steps)
    times = {name: [] for name in names}
    for i in range(warmup + n_steps):
        order = names[i % len(names) :] + names[: i % len(names)]
        for name in order:
            start = time.perf_counter()
            steps[name]()
            elapsed = (time.perf_counter() - start) * 1e3
            if i >= warmup:
                times[name].append(elapsed)
    return times


def peak_memory(step, n_steps: int = 2) -> int:
    """The most bytes a step holds at once on top of what was live when it began (tracemalloc;
    one traced step first, so that what persists across steps is traced too)."""
    gc.collect()
    tracemalloc.start()
    try:
        step()
        peak = 0
        for _ in range(n_steps):
            tracemalloc.reset_peak()
            before = tracemalloc.get_traced_memory()[0]
            step()
            peak = max(peak, tracemalloc.get_traced_memory()[1] - before)
    finally:
        tracemalloc.stop()
    return peak


def measure(size: str, systems, n_steps: int, warmup: int, memory: bool = True) -> dict:
    problem = make_problem(size)
    steps = {name: MAKERS[name](size, *problem) for name in systems}
    times = time_interleaved(steps, n_steps, warmup)
    result = {name: {"ms": statistics.median(times[name])} for name in systems}
    for name in systems:
        if memory and name != "torch":
            result[name]["peak_bytes"] = peak_memory(steps[name])
    return result


def measure_alone(system, size, n_steps: int, warmup: int, malloc: str, threads: int) -> dict:
    """Run one system in a fresh process; its median ms per step."""
    command = [sys.executable, "-m", WORKER, "--worker", system, "--sizes", size,
               "--steps", str(n_steps), "--warmup", str(warmup), "--malloc", malloc,
               "--threads", str(threads)]  # fmt: skip
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def alone_rounds(systems, size: str, args) -> dict:
    """{system: {"ms": ...}}: each system alone in a fresh process, `args.rounds` times, the
    systems taking turns (the order rotating each round) so that a machine slowing down for a
    while slows all of them; the median over the rounds of each process's median."""
    runs = {name: [] for name in systems}
    for r in range(args.rounds):
        for name in systems[r % len(systems) :] + systems[: r % len(systems)]:
            result = measure_alone(name, size, args.steps, args.warmup, args.malloc, args.threads)
            runs[name].append(result["ms"])
    return {name: {"ms": statistics.median(ms)} for name, ms in runs.items()}


# --- reporting ----------------------------------------------------------------------------------
def _ratio(a, b) -> str:
    return f"{a / b:.2f}" if a is not None and b else "-"


def _ms(row, name) -> str:
    return f"{row[name]['ms']:.2f}" if name in row else "-"


def print_table(title: str, rows: dict, systems, with_memory: bool) -> None:
    print(title)
    head = f"{'size':<8}" + "".join(f"{name + ' ms':>13}" for name in systems)
    head += f"{'tg/numpy':>10}{'tg/torch':>10}"
    if with_memory:
        head += f"{'tg peak MB':>12}{'np peak MB':>12}{'tg/np mem':>11}"
    print(head)
    for size, row in rows.items():
        tg_ms = row.get("tinygrad", {}).get("ms")
        line = f"{size:<8}" + "".join(f"{_ms(row, name):>13}" for name in systems)
        line += f"{_ratio(tg_ms, row.get('numpy', {}).get('ms')):>10}"
        line += f"{_ratio(tg_ms, row.get('torch', {}).get('ms')):>10}"
        if with_memory:
            tg_mem = row.get("tinygrad", {}).get("peak_bytes")
            np_mem = row.get("numpy", {}).get("peak_bytes")
            for mem in (tg_mem, np_mem):
                line += f"{mem / 2**20 if mem else 0:>12.2f}"
            line += f"{_ratio(tg_mem, np_mem):>11}"
        print(line)


def describe(systems, malloc: str) -> str:
    parts = [f"NumPy {np.__version__} ({blas_threads()} BLAS threads)"]
    if "torch" in systems:
        import torch

        parts.append(f"PyTorch {torch.__version__} (torch.set_num_threads({blas_threads()}))")
    parts.append(f"Python {platform.python_version()}, {os.cpu_count()} CPUs")
    parts.append("malloc " + ("tuned (tg.utils.tune_malloc)" if malloc == "tuned" else "untuned"))
    return "; ".join(parts)


# --- the command ----------------------------------------------------------------------------------
def add_arguments(parser) -> None:
    parser.add_argument(
        "--sizes", help=f"comma-separated: tiny, small, medium (default {DEFAULT_SIZES})"
    )
    parser.add_argument(
        "--steps", type=_positive, default=20, help="timed steps per system (median)"
    )
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps first")
    parser.add_argument(
        "--systems", default=",".join(SYSTEMS), help="comma-separated: tinygrad, numpy, torch"
    )
    parser.add_argument(
        "--alone", action="store_true", help="also time each system in its own process"
    )
    parser.add_argument(
        "--rounds",
        type=_positive,
        default=5,
        help="with --alone: fresh processes per system (median)",
    )
    parser.add_argument(
        "--malloc",
        choices=("tuned", "default", "both"),
        default="tuned",
        help="tune glibc malloc for all systems (tg.utils.tune_malloc), leave it, or both",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=0,
        help="BLAS threads for NumPy, and torch.set_num_threads for PyTorch (default: "
        "NumPy's own choice, usually one per CPU)",
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)


def _positive(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


def picked(text: str, known, what: str) -> list[str] | None:
    """The comma-separated names in `text`; None, once said, when one is not in `known`."""
    names = [s.strip() for s in text.split(",") if s.strip()]
    unknown = [s for s in names if s not in known]
    if unknown:
        print(f"bench: unknown {what} {unknown[0]!r}; choose from {', '.join(known)}")
        return None
    return names


def run(args) -> int:
    if getattr(args, "tiny", False):  # `bench --tiny`, as for the other suites: the tiny size
        if args.sizes not in (None, "tiny"):
            print(f"bench: --tiny means --sizes tiny here; it contradicts --sizes {args.sizes}")
            return 2
        args.sizes = "tiny"
    args.sizes = args.sizes or DEFAULT_SIZES
    sizes = picked(args.sizes, SIZES, "size")
    if sizes is None:
        return 2
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    no_torch = "torch" in systems and not has_torch()
    if no_torch:
        systems.remove("torch")
    if args.malloc == "both":  # each way in a fresh process: tuning cannot be undone
        status = 0
        for malloc in ("default", "tuned"):
            command = [sys.executable, "-m", WORKER, *_forward(args)]
            command += ["--malloc", malloc]
            status |= subprocess.run(command).returncode
        return status
    if args.malloc == "tuned":
        tune_malloc()
    blas_threads(set_to=args.threads)
    if args.worker:  # one system alone, in this (fresh) process: print its result as JSON
        result = measure(sizes[0], [args.worker], args.steps, args.warmup, memory=False)
        print(json.dumps(result[args.worker]))
        return 0

    print(
        f"GPT training step (forward + backward + AdamW), float32, dropout 0; median of "
        f"{args.steps} steps after {args.warmup} warm-up"
    )
    print(describe(systems, args.malloc))
    rows = {}
    for size in sizes:
        rows[size] = measure(size, systems, args.steps, args.warmup)
    print()
    print_table("In one process, interleaved:", rows, systems, with_memory=True)
    if args.alone:
        alone = {size: alone_rounds(systems, size, args) for size in sizes}
        print()
        print_table(
            f"Each alone in its own process (median of {args.rounds} rounds, the processes "
            "taking turns):",
            alone,
            systems,
            with_memory=False,
        )
    if no_torch:
        print(f"\ntg/torch is '-': {NO_TORCH_HINT}")
    return 0


def _forward(args) -> list:
    """The command-line arguments of `args` other than --malloc (for a child process)."""
    out = ["--sizes", args.sizes, "--steps", str(args.steps), "--warmup", str(args.warmup)]
    out += ["--systems", args.systems, "--threads", str(args.threads)]
    out += ["--alone", "--rounds", str(args.rounds)] if args.alone else []
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m {WORKER}", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
