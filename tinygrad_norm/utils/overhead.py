"""Per-op overhead: microseconds per operation (forward + its backward visit) on tiny tensors,
for tinygrad_norm and, when it is installed, PyTorch eager, measured side by side.

On a 4x4 tensor the arithmetic costs nothing; what is left is the framework: building the
output Tensor, recording the node, and visiting it in backward. Each op runs in a chain of
`length` applications (`y = op(y, w)`), the chain's sum is backpropagated, and the time of the
whole is divided by the length. The two libraries run interleaved, one repetition each in turn,
so a noisy machine slows both alike; the figures are medians of CPU time (`time.thread_time`).

    python -m tinygrad_norm.utils.overhead            # all ops, 200 repetitions
    python -m tinygrad_norm.utils.overhead --ops add mul --repeat 50

It prints one row per op (tinygrad_norm's microseconds, PyTorch's, their ratio) and the
geometric mean of the ratios over the ops; `measure` returns the rows, for a script that
compares two trees. What it has measured over the project's history, and where a node's time
goes, is in docs/speed.md.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import tinygrad_norm as tg

OPS = {  # name -> op(y, w) on two (n, n) tensors; written once, run with either library
    "add": lambda y, w: y + w,
    "mul": lambda y, w: y * w,
    "add scalar": lambda y, w: y + 1.0,
    "matmul": lambda y, w: y @ w,
    "tanh": lambda y, w: y.tanh(),
    "relu": lambda y, w: y.relu(),
    "reshape": lambda y, w: y.reshape(-1).reshape(w.shape),
    "transpose": lambda y, w: y.transpose(0, 1),
    "sum keepdim": lambda y, w: y.sum(-1, keepdim=True) * w,
    "softmax": lambda y, w: y.softmax(-1),
}


def run_chain(lib, op, x, w, length: int) -> None:
    """`length` applications of op from x, then backward from the sum."""
    y = x
    for _ in range(length):
        y = op(y, w)
    y.sum().backward()
    del lib


def leaves(lib, n: int):
    """Two (n, n) float32 leaves that require grad, with the same values in either library."""
    values = np.random.default_rng(0).uniform(-0.5, 0.5, (2, n, n)).astype(np.float32)
    return [lib.tensor(v, requires_grad=True) for v in values]


def measure(ops: list[str], repeat: int, length: int, n: int) -> list[tuple]:
    """(op, tinygrad_norm us, torch us or None) per op: median CPU time per op application."""
    libs = {"tinygrad_norm": tg}
    try:
        import torch  # optional: the comparison

        torch.set_num_threads(1)
        libs["torch"] = torch
    except ImportError:
        pass
    rows = []
    for name in ops:
        times = {lib: [] for lib in libs}
        inputs = {lib: leaves(module, n) for lib, module in libs.items()}
        for _ in range(repeat):
            for lib, module in libs.items():
                x, w = inputs[lib]
                start = time.thread_time()
                run_chain(module, OPS[name], x, w, length)
                times[lib].append(time.thread_time() - start)
        per_op = {lib: float(np.median(t)) / length * 1e6 for lib, t in times.items()}
        rows.append((name, per_op["tinygrad_norm"], per_op.get("torch")))
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", nargs="+", default=list(OPS), choices=list(OPS))
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--length", type=int, default=20, help="ops per chain")
    parser.add_argument("--n", type=int, default=4, help="tensors are n x n")
    args = parser.parse_args(argv)
    rows = measure(args.ops, args.repeat, args.length, args.n)
    print(f"us per op (forward + backward), {args.n}x{args.n} float32, median of {args.repeat}")
    print(f"{'op':<12} {'tinygrad_norm':>14} {'torch':>8} {'ratio':>6}")
    for name, ours, theirs in rows:
        torch_text = f"{theirs:8.1f} {ours / theirs:6.2f}" if theirs else f"{'-':>8} {'-':>6}"
        print(f"{name:<12} {ours:14.1f} {torch_text}")
    ratios = [ours / theirs for _, ours, theirs in rows if theirs]
    if ratios:
        print(f"geometric mean ratio: {np.exp(np.mean(np.log(ratios))):.2f}")


if __name__ == "__main__":
    main()
