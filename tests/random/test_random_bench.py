"""`bench --suite random` runs end to end at a tiny size and prints its table (a smoke test:
the figures are measured by hand and written in docs/speed.md, never asserted)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_random_suite_prints_one_row_per_draw():
    command = [sys.executable, "-m", "tinygrad_norm", "bench", "--suite", "random", "--tiny"]
    command += ["--steps", "2", "--warmup", "0"]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    for row in (
        "randn 10000 float32",
        "rand 10000 float32",
        "randperm 600",
        "randint 32",
        "randn 27x27",
        "manual_seed",
    ):
        assert row in out.stdout
