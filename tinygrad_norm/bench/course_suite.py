"""`bench --suite course`: PyTorch course code, run unchanged on PyTorch and on tinygrad_norm.

Each file of `tinygrad_norm/bench/course/` is PyTorch code as a course writes it (`import
torch`, `nn.Module`s, `F.*`, `torch.optim`). It is imported twice into fresh module
namespaces: once with real PyTorch as `torch`, once with tinygrad_norm in its place
(`tg.install_as_torch()`, undone after each of its steps so that PyTorch's own lazy imports
find PyTorch). The tinygrad_norm model starts from PyTorch's initial weights (its state_dict,
buffers included) and both train on the same batch, one training step of the file's
`train_step` at a time, the two taking turns (the order alternating), one BLAS thread each
(NumPy's and `torch.set_num_threads(1)`), timed as the CPU time of this thread
(`time.thread_time`: on a shared machine, wall time mostly measured the waits for a core; with
one thread both libraries compute in the calling thread; wall time with `--threads` above 1).
Reported: the median ms per step, the ratio tinygrad_norm / PyTorch, the difference of the
first losses (the same maths from the same weights: it should be ~1e-6), and the peak
resident memory of a process that only builds the model and trains it a few steps (VmHWM, the
library itself included; `--no-memory` skips these processes).

    python -m tinygrad_norm bench --suite course [--models lenet,lstm_lm] [--steps 20]
        [--min-seconds 1] [--tiny]
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import tinygrad_norm as tg

from ..utils import blas_threads
from . import NO_TORCH_HINT
from .course import MODELS
from .gpt_step import picked

COURSE_DIR = Path(__file__).parent / "course"
WORKER = "tinygrad_norm.bench.course_suite"
LIBRARIES = ("torch", "tinygrad_norm")
IS_MAC = sys.platform == "darwin"  # ru_maxrss in bytes there, in KiB on Linux


@contextlib.contextmanager
def torch_is(library: str):
    """`import torch` gives `library` inside the block ("torch": real PyTorch)."""
    if library == "torch":
        yield
        return
    tg.install_as_torch()
    try:
        yield
    finally:
        tg.uninstall_as_torch()


def load(model: str, library: str):
    """The course file `model` imported as a new module with `torch` = `library`."""
    path = COURSE_DIR / f"{model}.py"
    spec = importlib.util.spec_from_file_location(f"_course_{model}_{library}", path)
    module = importlib.util.module_from_spec(spec)
    with torch_is(library), siblings_importable():
        spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def siblings_importable():
    """Inside the block, `from gpt_composed import GPT` in a course file imports that sibling
    file afresh, so under the same `torch` (as a course's scripts import each other from their
    folder): the folder on sys.path, and no course file left in sys.modules before or after
    (each library gets its own copy)."""
    names = [path.stem for path in COURSE_DIR.glob("*.py")]
    kept = {name: sys.modules.pop(name) for name in names if name in sys.modules}
    sys.path.insert(0, str(COURSE_DIR))
    try:
        yield
    finally:
        sys.path.remove(str(COURSE_DIR))
        for name in names:
            sys.modules.pop(name, None)
        sys.modules.update(kept)


class Run:
    """One library's model, optimizer and batch; `step()` trains once and returns the loss."""

    def __init__(self, model: str, library: str, cfg: dict, weights=None):
        self.library = library
        self.module = load(model, library)
        with torch_is(library):
            self.model, self.optimizer = self.module.make(cfg)
            if weights is not None:
                self.model.load_state_dict({k: tg.tensor(v) for k, v in weights.items()})
            self.batch = self.module.make_batch(np.random.default_rng(0), cfg)

    def train_step(self) -> float:
        """The file's training step, once (inside `torch_is(self.library)`)."""
        return self.module.train_step(self.model, self.optimizer, self.batch)

    def step(self) -> float:
        with torch_is(self.library):
            return self.train_step()


def pair(model: str, cfg: dict) -> dict:
    """{library: Run}, tinygrad_norm's model holding PyTorch's initial weights."""
    import torch  # optional dependency: the course suite needs PyTorch

    torch.manual_seed(0)
    theirs = Run(model, "torch", cfg)
    weights = {k: v.detach().numpy().copy() for k, v in theirs.model.state_dict().items()}
    return {"torch": theirs, "tinygrad_norm": Run(model, "tinygrad_norm", cfg, weights)}


def time_pair(
    runs: dict, steps: int, warmup: int, clock=time.thread_time, min_seconds: float = 0.0
) -> dict:
    """{library: [ms per step]} with the libraries taking turns, the order alternating; the
    first losses under "loss". At least `steps` timed steps each, and more until each library's
    timed steps add up to `min_seconds`: 20 steps of a fast model are a few milliseconds of a
    shared machine, and their median moved from run to run (docs/speed.md)."""
    times = {name: [] for name in runs}
    spent = dict.fromkeys(runs, 0.0)  # ms of timed steps so far
    first = {}
    names = list(runs)
    i = 0
    while i < warmup + steps or min(spent.values()) < min_seconds * 1e3:
        for name in names if i % 2 == 0 else names[::-1]:
            with torch_is(runs[name].library):  # swapping `torch` is not timed
                start = clock()
                loss = runs[name].train_step()
                elapsed = (clock() - start) * 1e3
            first.setdefault(name, loss)
            if i >= warmup:
                times[name].append(elapsed)
                spent[name] += elapsed
        i += 1
    return {"times": times, "loss": first}


def clock_for(threads: int):
    """This thread's CPU time with one thread; wall time when other threads compute too."""
    return time.thread_time if threads == 1 else time.perf_counter


def peak_rss_mb(model: str, library: str, tiny: bool, steps: int = 3) -> float:
    """Peak resident memory (MB) of a fresh process that builds `model` under `library` and
    trains it `steps` times."""
    command = [sys.executable, "-m", WORKER, "--worker", model, library]
    command += ["--tiny"] if tiny else []
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    out = subprocess.run(command, capture_output=True, text=True, check=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])["peak_mb"]


def worker(model: str, library: str, tiny: bool, steps: int = 3) -> None:
    cfg = MODELS[model].tiny if tiny else MODELS[model].config
    run = Run(model, library, cfg)
    if library == "torch":
        import torch

        torch.set_num_threads(1)
    for _ in range(steps):
        run.step()
    print(json.dumps({"peak_mb": high_water_mark_mb()}))


def high_water_mark_mb() -> float:
    """This process's peak resident memory: VmHWM of /proc/self/status on Linux (ru_maxrss
    would count the parent's pages too, as Linux keeps it across fork + exec)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / (1024 if IS_MAC else 1)


def add_arguments(parser) -> None:
    parser.add_argument(
        "--models", default=",".join(MODELS), help="course suite: comma-separated model files"
    )
    parser.add_argument(
        "--tiny",
        action="store_true",
        help="tiny sizes, for tests (course and gpt2 suites; the gpt suite: --sizes tiny)",
    )
    parser.add_argument(
        "--no-memory", action="store_true", help="course suite: skip the peak-memory processes"
    )
    parser.add_argument(
        "--min-seconds", type=float, default=1.0, help="course suite: min timed seconds per library"
    )


def run(args) -> int:
    models = picked(args.models, MODELS, "course model")
    if models is None:
        return 2
    if importlib.util.find_spec("torch") is None:
        print(f"bench --suite course compares against PyTorch. {NO_TORCH_HINT}")
        return 2
    import torch

    threads = blas_threads(set_to=args.threads or 1)
    torch.set_num_threads(threads)
    seconds = 0.0 if args.tiny else args.min_seconds
    more = f" or more, until each library's steps add up to {seconds:g} s," if seconds else ""
    print(
        f"Course models: one training step (forward, backward, optimizer) of the same PyTorch "
        f"source on each library; median of {args.steps} steps{more} after {args.warmup} warm-up, "
        f"taking turns, {'CPU' if threads == 1 else 'wall'} time; NumPy {np.__version__} and "
        f"PyTorch {torch.__version__}, {threads} thread(s), {os.cpu_count()} CPUs, load "
        f"average {os.getloadavg()[0]:.1f}"
    )
    head = f"{'model':<40}{'torch ms':>10}{'tg ms':>10}{'tg/torch':>10}{'loss diff':>11}"
    head += "" if args.no_memory else f"{'torch MB':>10}{'tg MB':>8}"
    print(head)
    for name in models:
        course = MODELS[name]
        cfg = course.tiny if args.tiny else course.config
        result = time_pair(pair(name, cfg), args.steps, args.warmup, clock_for(threads), seconds)
        ms = {lib: statistics.median(result["times"][lib]) for lib in LIBRARIES}
        diff = abs(result["loss"]["tinygrad_norm"] - result["loss"]["torch"])
        line = f"{course.name:<40}{ms['torch']:>10.2f}{ms['tinygrad_norm']:>10.2f}"
        line += f"{ms['tinygrad_norm'] / ms['torch']:>10.2f}{diff:>11.1e}"
        if not args.no_memory:
            line += f"{peak_rss_mb(name, 'torch', args.tiny):>10.0f}"
            line += f"{peak_rss_mb(name, 'tinygrad_norm', args.tiny):>8.0f}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2], sys.argv[3], "--tiny" in sys.argv)
