"""The autograd tutorial patterns (tests/programs/autograd_tutorials.py) run unchanged with
`python -m tinygrad_norm run`; in the oracle leg, under real PyTorch too, with the same
booleans and the same float64 gradients to 1e-10."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tinygrad_norm as tg

ROOT = Path(tg.__file__).resolve().parents[1]
PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "autograd_tutorials.py"

# What PyTorch 2.13 answers (the oracle test checks these against it)
ANSWERS = {
    "linear_gradcheck": 1, "linear_no_bias": 1, "cube_gradcheck": 1, "cube_gradgradcheck": 1,
    "cube_node_name": 1, "cube_next_is_leaf": 1, "once_refused": 1, "once_gradgradcheck": 0,
    "exp_gradcheck": 1, "exp_leaf_refused": 1, "sort_indices_requires_grad": 0,
    "sort_gradcheck": 1, "sincos_gradcheck": 1, "wrong_square_quiet": 0,
    "wrong_square_raised": 1, "wrong_square_headline": 1, "wrong_linear_quiet": 0,
    "wrong_linear_raised": 1, "wrong_linear_headline": 1, "anomaly_nan_caught": 1,
    "anomaly_inf_caught": 0, "hooks_packed": 1, "hooks_unpacked": 1, "assert_close_raised": 1,
}  # fmt: skip


def run(*args) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, *map(str, args)], capture_output=True, text=True, env=env, timeout=300
    )


@pytest.fixture(scope="module")
def ours(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("tutorials") / "tinygrad_norm.npz"
    result = run("-m", "tinygrad_norm", "run", PROGRAM, "--out", out)
    assert result.returncode == 0, result.stderr
    return dict(np.load(out))


def test_every_check_gives_pytorchs_answer(ours):
    assert {name: int(ours[name]) for name in ANSWERS} == ANSWERS


def test_the_gradients_follow_the_formulas(ours):
    rng = np.random.default_rng(0)  # the script's first draws: the linear layer's x, w, b
    x, w, b = rng.standard_normal((4, 3)), rng.standard_normal((2, 3)), rng.standard_normal(2)
    grad_out = 2 * (x @ w.T + b)  # d/d out of sum(out ** 2)
    np.testing.assert_allclose(ours["linear_grad_x"], grad_out @ w, rtol=1e-12)
    np.testing.assert_allclose(ours["linear_grad_w"], grad_out.T @ x, rtol=1e-12)
    np.testing.assert_allclose(ours["linear_grad_b"], grad_out.sum(0), rtol=1e-12)
    first, second = ours["cube_first"], ours["cube_second"]
    np.testing.assert_allclose(second**2, 12 * first, rtol=1e-12)  # 36 x² = 12 · 3 x²
    np.testing.assert_allclose(ours["hessian_fwd_rev"], ours["hessian_functional"], rtol=1e-12)
    np.testing.assert_allclose(ours["hessian"], ours["hessian_functional"], rtol=1e-12)
    np.testing.assert_allclose(ours["jacfwd_tanh"], ours["jacrev_tanh"], rtol=1e-12)
    assert ours["per_sample_0.weight"].shape == (6, 4, 3)
    assert ours["per_sample_2.bias"].shape == (6, 2)


@pytest.mark.oracle
def test_pytorch_gives_the_same_results(ours, tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "torch.npz"
    result = run(PROGRAM, "--out", out)
    assert result.returncode == 0, result.stderr
    theirs = dict(np.load(out))
    assert sorted(theirs) == sorted(ours)
    for name, want in theirs.items():
        got = ours[name]
        assert got.shape == want.shape, name
        if want.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10, err_msg=name)
        else:
            np.testing.assert_array_equal(got, want, err_msg=name)
