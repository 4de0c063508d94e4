"""The exercises from an installed wheel, outside the repository: start, edit, check.

As tests/test_wheel.py: one wheel built offline from a copy of the sources, installed (not
editable) into a temporary directory, the commands run from another one with PYTHONPATH
pointing only at that install. One build for the whole file (about 10 s).
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _check(done: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert done.returncode == 0, f"{done.args}\n{done.stdout}\n{done.stderr}"
    return done


def exercises(installed, *args) -> subprocess.CompletedProcess:
    _, cwd, env = installed
    command = [sys.executable, "-m", "tinygrad_norm", "exercises", *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def test_start_edit_check_from_the_wheel(installed):
    site, cwd, _ = installed
    assert exercises(installed, "start", "softmax").returncode == 0
    path = cwd / "exercises" / "softmax.py"
    text = path.read_text()
    assert "e = np.exp(x - x.max(axis=-1, keepdims=True))" in text  # the forward, from source

    failed = exercises(installed, "check", "softmax")
    assert failed.returncode == 1, failed.stderr
    assert "backward is not implemented yet" in failed.stdout
    assert str(path) in failed.stdout and str(site) not in failed.stdout

    unwritten = 'raise NotImplementedError("softmax: write the backward")'
    answer = "g = grad_output.numpy(); return ctx.y * (g - (g * ctx.y).sum(-1, keepdims=True))"
    path.write_text(text.replace(unwritten, answer))
    passed = exercises(installed, "check", "softmax")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "softmax: passed" in passed.stdout
    listed = exercises(installed, "list").stdout
    assert "11. softmax        passed" in listed
    assert "def backward" in exercises(installed, "solution", "softmax").stdout
