"""Course-style PyTorch programs (tests/programs/) run twice, from the same initial weights:
under real PyTorch (`python prog.py`) and under tinygrad_norm (`python -m tinygrad_norm run
prog.py`, or in this process after `install_as_torch()`). Each program saves its losses per
step, every parameter's gradient after the first step and the tokens it sampled; the two runs
must agree: exactly for tokens and counts, to rtol 1e-9 for float64 numbers.

The programs do not know which framework runs them: the torch run writes the initial weights
with `torch.save` (`--init`), the tinygrad_norm run reads that `.pt` file with `torch.load`
(which is `tg.load`), and data, batch order and sampling draws come from NumPy's generator.
"""

import os
import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tinygrad_norm as tg

pytestmark = pytest.mark.oracle

ROOT = Path(tg.__file__).resolve().parents[1]
PROGRAMS = Path(__file__).parent / "programs"


def python(*args) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, *map(str, args)], capture_output=True, text=True, env=env, timeout=300
    )


def run_under_torch(program, tmp_path, *args):
    """The reference run: real PyTorch; it writes the initial weights to tmp_path/init.pt."""
    pytest.importorskip("torch")
    out = tmp_path / "torch.npz"
    result = python(PROGRAMS / program, "--init", tmp_path / "init.pt", "--out", out, *args)
    assert result.returncode == 0, result.stderr
    return dict(np.load(out))


def run_under_tinygrad_norm(program, tmp_path, *args):
    out = tmp_path / "tinygrad_norm.npz"
    script = PROGRAMS / program
    result = python("-m", "tinygrad_norm", "run", script, "--init", tmp_path / "init.pt",
                    "--out", out, *args)  # fmt: skip
    assert result.returncode == 0, result.stderr
    return dict(np.load(out))


def assert_same_results(expected: dict, actual: dict, rtol: float) -> None:
    """Same names; tokens, counts and labels equal; floats equal to `rtol` (with an absolute
    floor of rtol times the array's largest entry, for entries that cancel to nearly 0)."""
    assert sorted(actual) == sorted(expected)
    for name, want in expected.items():
        got = actual[name]
        assert got.shape == want.shape, name
        if want.dtype.kind in "fc":
            scale = float(np.max(np.abs(want))) if want.size else 0.0
            np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, err_msg=name)
        else:
            np.testing.assert_array_equal(got, want, err_msg=name)


def test_makemore_bigram_mlp_batchnorm_wavenet(tmp_path):
    expected = run_under_torch("makemore_names.py", tmp_path)
    actual = run_under_tinygrad_norm("makemore_names.py", tmp_path)
    assert {"bigram_losses", "mlp_grad_net.2.weight", "wavenet_samples"} <= set(expected)
    assert_same_results(expected, actual, rtol=1e-9)
