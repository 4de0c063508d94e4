"""Installed from a wheel, not run from the repository, every command works: the package
carries everything it needs, the benchmark included (`tinygrad_norm/bench/`).

The wheel is built offline from a copy of the sources (`pip wheel --no-deps
--no-build-isolation`: this environment's setuptools, no network, nothing written into the
repository), installed (not editable) into a temporary directory, and the commands are run from
another temporary directory with PYTHONPATH pointing only at that install. About 10 s.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ("train", "gradcheck", "steps", "draw", "bench")


def _check(done: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert done.returncode == 0, f"{done.args}\n{done.stdout}\n{done.stderr}"
    return done


def _run(installed, *args, timeout=120) -> subprocess.CompletedProcess:
    _, cwd, env = installed
    command = [sys.executable, *args]
    return _check(subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                                 timeout=timeout))  # fmt: skip


def test_the_wheel_is_what_gets_imported(installed):
    site = installed[0]
    out = _run(installed, "-c", "import tinygrad_norm; print(tinygrad_norm.__file__)").stdout
    assert Path(out.strip()).is_relative_to(site), out
    assert (site / "tinygrad_norm" / "bench" / "gpt_step.py").exists()


def test_every_command_has_help_from_the_wheel(installed):
    for command in COMMANDS:
        out = _run(installed, "-m", "tinygrad_norm", command, "--help").stdout
        assert f"python -m tinygrad_norm {command}" in out, out


def test_bench_runs_from_the_wheel(installed):
    args = ("--sizes", "tiny", "--steps", "1", "--warmup", "0", "--threads", "1")
    out = _run(installed, "-m", "tinygrad_norm", "bench", *args).stdout
    assert "In one process, interleaved:" in out, out
    assert any(line.startswith("tiny ") for line in out.splitlines()), out
