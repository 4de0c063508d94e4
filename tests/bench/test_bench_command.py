"""`python -m tinygrad_norm bench` runs end to end and prints its tables (a smoke test: the
figures themselves are measured by hand, never asserted)."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository


def test_bench_prints_both_tables_with_ratios_and_memory():
    command = [sys.executable, "-m", "tinygrad_norm", "bench", "--sizes", "tiny", "--steps", "2",
               "--warmup", "1", "--systems", "tinygrad,numpy", "--alone", "--rounds", "2",
               "--threads", "1"]  # fmt: skip
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "In one process, interleaved:" in text
    assert "Each alone in its own process (median of 2 rounds" in text
    number = r"\s+(\d+\.\d+)"
    rows = re.findall(r"^tiny" + number * 3 + r"\s+-", text, flags=re.M)
    assert len(rows) == 2, text  # one row per table: tg ms, numpy ms, tg/numpy, no torch
    for tg_ms, np_ms, ratio in rows:
        assert abs(float(tg_ms) / float(np_ms) - float(ratio)) < 0.01
    memory = re.search(r"^tiny.*\s(\d+\.\d+)\s+(\d+\.\d+)\s+(\d+\.\d+)$", text, flags=re.M)
    assert memory and float(memory.group(1)) > 0 and float(memory.group(2)) > 0, text


def test_bench_refuses_an_unknown_size():
    command = [sys.executable, "-m", "tinygrad_norm", "bench", "--sizes", "huge"]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "unknown size 'huge'" in out.stdout


def test_bench_refuses_zero_steps_or_rounds():
    for option in ("--steps", "--rounds"):
        command = [sys.executable, "-m", "tinygrad_norm", "bench", option, "0"]
        out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert out.returncode == 2
        assert f"argument {option}: expected a whole number of at least 1, got '0'" in out.stderr
