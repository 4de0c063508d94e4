"""`bench --suite ops`: every op of the op table, forward + backward, against its NumPy limit
and PyTorch eager.

Each case of `tinygrad_norm/testing/op_cases*.py` (the table the tests use) and the few extra
ones of `ops_cases.py` is run at course shapes ("small" and "course", see `ops_cases.py`) in
float32: its forward, then the backward of a fixed random output gradient. Three systems take
turns, the order alternating: tinygrad_norm, the limit (the best plain-NumPy forward +
backward of the same maths, `limits/`; a generic lower bound where none is written) and
PyTorch eager when installed. One BLAS thread (NumPy's and `torch.set_num_threads(1)`), the
CPU time of this thread, the median of at least `--op-reps` runs and `--op-seconds` per system.
Rows are sorted worst first (tinygrad_norm / PyTorch, else / limit); the summary gives the
geometric mean, the median and the worst ten. `--json` prints the rows as JSON instead.

    python -m tinygrad_norm bench --suite ops [--ops softmax,gelu] [--json] [--tiny]
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import statistics
import time

import numpy as np

import tinygrad_norm as tg

from ..utils import blas_threads
from .ops_cases import SIZES, TINY, bench_cases, limit_for, shape_tries

SYSTEMS = ("tinygrad_norm", "numpy", "torch")


def inputs(case, shapes: tuple, dtype=np.float32, seed: int = 0) -> list[np.ndarray]:
    """Inputs of `shapes` in the case's domain."""
    rng = np.random.default_rng(seed)
    if case.domain == "positive":
        return [rng.uniform(0.5, 2.0, s).astype(dtype) for s in shapes]
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def _outputs(out) -> list:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _differentiable(outs) -> list:
    return [o for o in outs if getattr(o, "requires_grad", False)]


class LibraryRun:
    """The case on `lib` (tinygrad_norm or torch): leaves, output gradients, one fwd + bwd."""

    def __init__(self, lib, case, arrays, grads=None):
        self.lib, self.case = lib, case
        self.leaves = [lib.tensor(a.copy(), requires_grad=True) for a in arrays]
        outs = _differentiable(_outputs(case.fn(lib, *self.leaves)))
        if grads is None:
            rng = np.random.default_rng(3)
            grads = [rng.standard_normal(tuple(o.shape)).astype(arrays[0].dtype) for o in outs]
        self.grads = grads
        self.grad_tensors = [lib.tensor(g) for g in grads]

    def reset(self) -> None:
        for leaf in self.leaves:
            leaf.grad = None

    def __call__(self) -> None:
        outs = _differentiable(_outputs(self.case.fn(self.lib, *self.leaves)))
        if len(outs) == 1:
            outs[0].backward(self.grad_tensors[0])
        elif outs:
            sum((o * g).sum() for o, g in zip(outs, self.grad_tensors)).backward()


class LimitRun:
    def __init__(self, limit, arrays, grads):
        self.limit, self.arrays = limit, arrays
        self.grad = grads[0] if len(grads) == 1 else None
        self.grads = grads

    def reset(self) -> None:
        pass

    def __call__(self) -> None:
        self.limit.fn(self.arrays, self.grad if self.grad is not None else self.grads)


def time_turns(runs: dict, reps: int, seconds: float, clock) -> dict:
    """{system: median ms} of `runs` taking turns, the order alternating, one warm-up each."""
    times = {name: [] for name in runs}
    names = list(runs)
    i = 0
    while i <= reps or min(sum(t) for t in times.values()) < seconds * 1e3:
        for name in names if i % 2 == 0 else names[::-1]:
            runs[name].reset()
            start = clock()
            runs[name]()
            if i > 0:
                times[name].append((clock() - start) * 1e3)
        i += 1
        if i > 50 * reps:
            break
    return {name: statistics.median(t) for name, t in times.items()}


def prepare(case, size: str, torch):
    """(shape label, {system: run}, limit kind) at the first shapes the case accepts."""
    error = None
    tries = [(how, shapes, np.float32) for how, shapes in shape_tries(case, size)]
    # NOTE float64 last: a case whose constants are float64 arrays (a loss weight) mixes dtypes
    tries += [(how, shapes, np.float64) for how, shapes, _ in tries[-1:]]
    for how, shapes, dtype in tries:
        try:
            arrays = inputs(case, shapes, dtype)
            mine = LibraryRun(tg, case, arrays)
            mine()
            runs = {"tinygrad_norm": mine}
            if torch is not None and case.torch:
                runs["torch"] = LibraryRun(torch, case, arrays, mine.grads)
                runs["torch"]()
            limit = limit_for(case, arrays)
            runs["numpy"] = LimitRun(limit, arrays, mine.grads)
            runs["numpy"]()  # the table's NumPy formula may hold the table's sizes too
        except Exception as exc:  # noqa: BLE001 - a shape the case's constants refuse: next try
            error = exc
            continue
        label = "x".join(map(str, shapes[0])) + (" (table shape)" if how == TINY else "")
        label += " float64" if dtype == np.float64 else ""
        return label, runs, limit.kind
    raise RuntimeError(f"bench --suite ops: {case.name} runs at none of its shapes: {error}")


def measure(cases, sizes, torch, reps: int, seconds: float, clock) -> list[dict]:
    rows = []
    for case in cases:
        for size in sizes:
            try:
                label, runs, kind = prepare(case, size, torch)
            except RuntimeError as exc:  # said in the row, the other ops still measured
                rows.append({"op": case.name, "size": size, "error": str(exc)[:300]})
                continue
            ms = time_turns(runs, reps, seconds, clock)
            row = {"op": case.name, "size": size, "shape": label, "limit": kind}
            row.update({f"{name}_ms": ms.get(name) for name in SYSTEMS})
            row["tg_vs_limit"] = _ratio(ms.get("tinygrad_norm"), ms.get("numpy"))
            row["tg_vs_torch"] = _ratio(ms.get("tinygrad_norm"), ms.get("torch"))
            row["limit_vs_torch"] = _ratio(ms.get("numpy"), ms.get("torch"))
            rows.append(row)
    key = "tg_vs_torch" if torch is not None else "tg_vs_limit"
    rows.sort(key=lambda r: -(r.get(key) or 0.0))
    return rows


def _ratio(a, b):
    return a / b if a is not None and b else None


def geometric_mean(values) -> float | None:
    values = [v for v in values if v]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def summary(rows: list[dict]) -> dict:
    out = {}
    errors = [r for r in rows if "error" in r]
    rows = [r for r in rows if "error" not in r]
    for key in ("tg_vs_torch", "tg_vs_limit"):
        values = [r[key] for r in rows if r[key]]
        if key == "tg_vs_limit":
            values = [r[key] for r in rows if r[key] and r["limit"] == "hand"]
        if values:
            out[key] = {
                "geometric_mean": geometric_mean(values),
                "median": statistics.median(values),
                "rows": len(values),
                "above_1.2": sum(v > 1.2 for v in values),
                "above_1.5": sum(v > 1.5 for v in values),
                "above_2.5": sum(v > 2.5 for v in values),
            }
    out["generic_limit_rows"] = sum(r["limit"] == "generic" for r in rows)
    out["errors"] = [f"{r['op']} ({r['size']}): {r['error']}" for r in errors]
    return out


def _fmt(value, width: int, digits: int = 2) -> str:
    return f"{value:>{width}.{digits}f}" if value is not None else f"{'-':>{width}}"


def print_table(rows: list[dict], stats: dict) -> None:
    print(
        f"{'op':<38}{'shape':<26}{'tg ms':>9}{'limit ms':>10}{'torch ms':>10}"
        f"{'tg/limit':>10}{'tg/torch':>10}{'lim/torch':>10}  limit"
    )
    for r in rows:
        if "error" in r:
            continue
        print(
            f"{r['op']:<38}{r['shape']:<26}{_fmt(r['tinygrad_norm_ms'], 9, 3)}"
            f"{_fmt(r['numpy_ms'], 10, 3)}{_fmt(r['torch_ms'], 10, 3)}{_fmt(r['tg_vs_limit'], 10)}"
            f"{_fmt(r['tg_vs_torch'], 10)}{_fmt(r['limit_vs_torch'], 10)}  {r['limit']}"
        )
    for key, what in (
        ("tg_vs_torch", "tinygrad_norm / PyTorch"),
        ("tg_vs_limit", "tinygrad_norm / hand-written NumPy limit"),
    ):
        if key in stats:
            s = stats[key]
            print(
                f"{what}: geometric mean {s['geometric_mean']:.2f}, median {s['median']:.2f} "
                f"over {s['rows']} rows; above 1.2x: {s['above_1.2']}, 1.5x: {s['above_1.5']}, "
                f"2.5x: {s['above_2.5']}"
            )
    key = "tg_vs_torch" if "tg_vs_torch" in stats else "tg_vs_limit"
    worst = ", ".join(f"{r['op']} {r[key]:.2f}" for r in rows[:10] if r.get(key))
    print(f"worst ten ({key}): {worst}")
    if stats["generic_limit_rows"]:
        print(
            f"{stats['generic_limit_rows']} rows have no hand-written limit: their 'generic' "
            "limit is the table's NumPy forward plus one pass per input gradient (a lower "
            "bound, not a backward)"
        )
    for error in stats["errors"]:
        print(f"not measured: {error}")


def add_arguments(parser) -> None:
    parser.add_argument("--ops", default="", help="ops suite: comma-separated op names (all)")
    parser.add_argument("--json", action="store_true", help="ops suite: print JSON rows")
    parser.add_argument(
        "--op-sizes", default=",".join(SIZES), help="ops suite: comma-separated small, course"
    )
    parser.add_argument("--op-reps", type=int, default=5, help="ops suite: min runs per system")
    parser.add_argument(
        "--op-seconds", type=float, default=0.05, help="ops suite: min timed seconds per system"
    )


def run(args) -> int:
    cases = bench_cases()
    wanted = [s.strip() for s in args.ops.split(",") if s.strip()]
    unknown = sorted(set(wanted) - {c.name for c in cases})
    if unknown:
        print(f"bench --suite ops: unknown op {unknown[0]!r}; the names are the op table's")
        return 2
    cases = [c for c in cases if not wanted or c.name in wanted]
    torch = None
    if importlib.util.find_spec("torch") is not None:
        import torch  # optional dependency: the PyTorch column

        torch.set_num_threads(1)
    threads = blas_threads(set_to=args.threads or 1)
    clock = time.thread_time if threads == 1 else time.perf_counter
    sizes = [TINY] if args.tiny else [s.strip() for s in args.op_sizes.split(",") if s.strip()]
    if not set(sizes) <= set(SIZES) | {TINY}:
        print(f"bench --suite ops: --op-sizes takes {', '.join(SIZES)}, got {args.op_sizes!r}")
        return 2
    reps, seconds = (1, 0.0) if args.tiny else (args.op_reps, args.op_seconds)
    if not args.json:
        print(
            f"Ops, forward + backward in float32, {len(cases)} ops at {', '.join(sizes)} shapes; "
            f"taking turns, median of >= {reps} runs and {seconds:g} s per system, "
            f"{'CPU' if threads == 1 else 'wall'} time, {threads} thread(s); NumPy "
            f"{np.__version__}, PyTorch {torch.__version__ if torch else 'not installed'}; "
            f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs",
            flush=True,
        )
    rows = measure(cases, sizes, torch, reps, seconds, clock)
    stats = summary(rows)
    if args.json:
        print(json.dumps({"rows": rows, "summary": stats, "sizes": sizes}))
    else:
        print_table(rows, stats)
    return 0
