"""Shared pytest set-up. Tests that need PyTorch use ``torch = pytest.importorskip("torch")``."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from test_layout import MAX_LINES, files_longer_than_a_sitting

import tinygrad_norm as tg

# tests/programs/ holds PyTorch scripts that tests run in subprocesses; importing one (for
# --doctest-modules) would run it.
collect_ignore = ["programs"]


@pytest.fixture(autouse=True)
def _restore_numpy_printoptions():
    """Undo any ``np.set_printoptions`` a test makes, so output never depends on test order."""
    with np.printoptions():
        yield


@pytest.fixture
def default_float64():
    """Make float64 the default dtype for one test, and always put float32 back."""
    tg.set_default_dtype(tg.float64)
    try:
        yield
    finally:
        tg.set_default_dtype(tg.float32)


# --- Hypothesis profiles (tests/ops/test_properties.py) -----------------------------------------
# "ci", the default: a fixed, small set of examples, the same on every run, so `make test` stays
# fast and reproducible. "fuzz" (`make fuzz` sets HYPOTHESIS_PROFILE=fuzz): many more random
# examples, a new draw each run.
settings.register_profile(
    "ci",
    max_examples=40,
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "fuzz",
    max_examples=1000,
    deadline=None,
    database=None,  # nothing written into the repository; a failure prints its reproduction
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# --- the end of the run: why tests were skipped, and which files are too long ---------------------
def pytest_terminal_summary(terminalreporter):
    """End the run with the reasons for skips, counted: "381 oracle tests skipped: PyTorch not
    installed; `make test-oracle` runs them" instead of a bare "381 skipped"; then, when the run
    included tests/test_layout.py (`make test` does, `pytest tests/nn` does not), the package's
    files longer than a sitting, as a warning (not a failure)."""
    _write_skip_reasons(terminalreporter)
    reports = [r for kind in terminalreporter.stats.values() for r in kind]
    if any("test_layout.py::" in getattr(r, "nodeid", "") for r in reports):
        _write_long_files(terminalreporter)


def _write_long_files(terminalreporter):
    long = files_longer_than_a_sitting()
    if not long:
        return
    terminalreporter.write_line(
        f"WARNING: {len(long)} file(s) longer than a sitting ({MAX_LINES} lines); "
        "split each where its concepts part:",
        yellow=True,
        bold=True,
    )
    for path, lines in sorted(long.items(), key=lambda item: -item[1]):
        terminalreporter.write_line(f"  {path}: {lines} lines", yellow=True)


def _write_skip_reasons(terminalreporter):
    reasons: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        reason = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else "skipped"
        reason = reason.removeprefix("Skipped: ")
        if "could not import 'torch'" in reason or "No module named 'torch'" in reason:
            reason = "oracle tests skipped: PyTorch not installed; `make test-oracle` runs them"
        elif any(f"could not import '{name}" in reason for name in ("transformers", "safetensors")):
            reason = "GPT-2 oracle tests skipped: transformers not installed (`make test-oracle`)"
        reasons[reason] = reasons.get(reason, 0) + 1
    for reason, count in sorted(reasons.items(), key=lambda item: -item[1]):
        terminalreporter.write_line(f"{count} {reason}" if "tests skipped" in reason else
                                    f"{count} skipped: {reason}")  # fmt: skip


# --- the package as a user installs it: one wheel, built once ------------------------------------
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    """(site, cwd, env): a non-editable install of a freshly built wheel, a directory outside
    the repository, and an environment whose PYTHONPATH is only the install. Built once for
    the tests that run the package as a user installs it (test_wheel, the exercises' wheel
    test)."""
    pytest.importorskip("setuptools", reason="building the wheel offline needs setuptools")
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "tinygrad_norm", source / "tinygrad_norm", ignore=ignore)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    build = pip + ["wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp / "dist"), "."]
    _succeeded(subprocess.run(build, cwd=source, capture_output=True, text=True, timeout=120))
    (wheel,) = (tmp / "dist").glob("tinygrad_norm-*.whl")
    site = tmp / "site"
    install = pip + ["install", "--no-deps", "--no-index", "--target", str(site), str(wheel)]
    _succeeded(subprocess.run(install, capture_output=True, text=True, timeout=120))
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site), "OPENBLAS_NUM_THREADS": "1"}
    return site, elsewhere, env


def _succeeded(done: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert done.returncode == 0, f"{done.args}\n{done.stdout}\n{done.stderr}"
    return done
