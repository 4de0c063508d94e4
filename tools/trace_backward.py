"""Follow one gradient from `loss.backward()` to `optimizer.step()`: which files does it pass?

One Linear layer, a mean-squared loss, one SGD step. `sys.settrace` sees every Python function
call in between; this script counts the package files entered and how often the path comes back
into a file it had left (a re-entry: the reader has to jump back there). Few files and few
re-entries mean a reader can follow the gradient by reading a few files top to bottom.

    python tools/trace_backward.py            # the counts, then the files in order of entry
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import tinygrad_norm as tg

PACKAGE = Path(tg.__file__).resolve().parent


def trace(fn) -> list[tuple[str, bool]]:
    """(package file, called from another file?) of every Python function call made while
    `fn()` runs, in call order."""
    files: list[tuple[str, bool]] = []

    def tracer(frame, event, arg):
        if event == "call" and not frame.f_code.co_name.startswith("<"):  # no comprehensions
            path = Path(frame.f_code.co_filename).resolve()
            if PACKAGE in path.parents:
                caller = Path(frame.f_back.f_code.co_filename).resolve()
                files.append((str(path.relative_to(PACKAGE.parent)), caller != path))
        return None

    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(None)
    return files


def main() -> None:
    tg.manual_seed(0)
    model = tg.nn.Linear(4, 3)
    optimizer = tg.optim.SGD(model.parameters(), lr=0.1)
    x, target = tg.randn(8, 4), tg.randn(8, 3)
    loss = tg.nn.functional.mse_loss(model(x), target)

    def backward_then_step():
        loss.backward()
        optimizer.step()

    calls = trace(backward_then_step)
    files = [f for f, _ in calls]
    runs = [f for i, f in enumerate(files) if i == 0 or files[i - 1] != f]  # consecutive merged
    entries = Counter(runs)
    re_entries = sum(n - 1 for n in entries.values())
    print(f"files entered: {len(entries)}")
    print(f"re-entries (coming back into a file left before): {re_entries}")
    print(f"calls from one file into another: {sum(cross for _, cross in calls)}")
    print(f"python function calls: {len(calls)}")
    for name, n in entries.most_common():
        print(f"  {n:3d}  {name}")


if __name__ == "__main__":
    main()
