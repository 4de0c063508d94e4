"""`bench --suite course` and `bench --suite gpt2` run end to end at tiny sizes and print their
tables (smoke tests: the figures are measured by hand, never asserted). The same course source
from the same weights must give the same first loss on both libraries."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tinygrad_norm.bench.course import MODELS
from tinygrad_norm.bench.course_suite import time_pair

ROOT = Path(__file__).resolve().parents[2]  # the repository
NUMBER = r"\s+(\d+\.\d+)"


def bench(*options, timeout=300):
    command = [sys.executable, "-m", "tinygrad_norm", "bench", *options, "--threads", "1"]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    return out


@pytest.mark.oracle
def test_course_suite_runs_every_model_on_both_libraries():
    pytest.importorskip("torch")
    out = bench("--suite", "course", "--tiny", "--steps", "1", "--warmup", "1", "--no-memory")
    assert out.returncode == 0, out.stderr
    rows = re.findall(r"^(.+?)" + NUMBER * 3 + r"\s+(\S+)$", out.stdout, flags=re.M)
    assert len(rows) == len(MODELS), out.stdout
    for name, torch_ms, tg_ms, ratio, loss_diff in rows:
        smallest = min(float(tg_ms), float(torch_ms))  # printed to 0.01 ms
        assert (
            abs(float(tg_ms) / float(torch_ms) - float(ratio))
            <= 0.01 + float(ratio) * 0.01 / smallest
        )
        assert float(loss_diff) < 1e-4, f"{name}: the first losses differ by {loss_diff}"


@pytest.mark.oracle
def test_course_suite_reports_peak_memory_of_each_library():
    pytest.importorskip("torch")
    out = bench("--suite", "course", "--tiny", "--steps", "1", "--warmup", "0",
                "--models", "mlp_2d")  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "torch MB" in out.stdout and "tg MB" in out.stdout
    row = re.search(r"^MLP on 2-D points.*\s(\d+)\s+(\d+)$", out.stdout, flags=re.M)
    assert row and int(row.group(1)) > int(row.group(2)) > 0, out.stdout  # torch is bigger


@pytest.mark.oracle
def test_gpt2_suite_times_training_and_generation():
    pytest.importorskip("torch")
    out = bench("--suite", "gpt2", "--tiny", "--shapes", "1x8", "--steps", "1", "--warmup", "1",
                "--prompt", "3", "--new", "3")  # fmt: skip
    assert out.returncode == 0, out.stderr
    training = re.search(r"^1x8" + NUMBER * 3 + "$", out.stdout, flags=re.M)
    assert training, out.stdout
    torch_ms, tg_ms, ratio = (float(g) for g in training.groups())
    assert ratio > 0 and abs(tg_ms / torch_ms - ratio) <= 0.01 + ratio * 0.01 / min(tg_ms, torch_ms)
    generation = re.findall(r"^(tinygrad_norm \S+ ?\S*|transformers.*?)\s+(\d+\.\d)\s.*(yes|NO)$",
                            out.stdout, flags=re.M)  # fmt: skip
    assert {name.split()[1] for name, _, _ in generation if "tinygrad" in name} == {"cache", "no"}
    assert all(same == "yes" for *_, same in generation), out.stdout


def test_bench_refuses_an_unknown_course_model():
    out = bench("--suite", "course", "--models", "resnet")
    assert out.returncode == 2
    assert "unknown course model 'resnet'" in out.stdout


def test_time_pair_times_more_steps_until_each_library_has_min_seconds():
    """`--min-seconds`: at least `steps` timed steps each, and more until each library's timed
    steps add up to min_seconds (a fake clock: the steps take 1 ms and 2 ms)."""
    now = [0.0]

    class FakeRun:
        library = "torch"  # no swapping of `torch` for a fake

        def __init__(self, seconds):
            self.seconds = seconds

        def train_step(self):
            now[0] += self.seconds
            return 1.0

    runs = {"torch": FakeRun(0.001), "tinygrad_norm": FakeRun(0.002)}
    clock = lambda: now[0]  # noqa: E731
    plain = time_pair(runs, steps=5, warmup=2, clock=clock)["times"]
    assert [len(t) for t in plain.values()] == [5, 5]
    longer = time_pair(runs, steps=5, warmup=2, clock=clock, min_seconds=0.05)["times"]
    assert [len(t) for t in longer.values()] == [50, 50]  # the 1 ms library needs 50 steps
    assert sum(longer["torch"]) >= 50 and longer["tinygrad_norm"][0] == pytest.approx(2.0)
