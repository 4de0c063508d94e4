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
PROGRAMS = Path(__file__).resolve().parents[1] / "programs"  # tests/programs/


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
    """Same names; tokens, counts and labels equal; floats equal to `rtol`, with an absolute
    floor of rtol times the array's largest entry (at least 1e-3): entries that cancel to
    nearly 0 are rounding noise in both runs (a conv bias before a batch norm has gradient
    exactly 0 in exact arithmetic, and ~1e-16 in either framework)."""
    assert sorted(actual) == sorted(expected)
    for name, want in expected.items():
        got = actual[name]
        assert got.shape == want.shape, name
        if want.dtype.kind in "fc":
            scale = float(np.max(np.abs(want))) if want.size else 0.0
            np.testing.assert_allclose(
                got, want, rtol=rtol, atol=rtol * max(scale, 1e-3), err_msg=name
            )
        else:
            np.testing.assert_array_equal(got, want, err_msg=name)


def test_makemore_bigram_mlp_batchnorm_wavenet(tmp_path):
    expected = run_under_torch("makemore_names.py", tmp_path)
    actual = run_under_tinygrad_norm("makemore_names.py", tmp_path)
    assert {"bigram_losses", "mlp_grad_net.2.weight", "wavenet_samples"} <= set(expected)
    assert {"ninja_grad_C", "ninja_grad_bngain"} <= set(expected)  # the hand-derived backward
    assert_same_results(expected, actual, rtol=1e-9)


@pytest.fixture(scope="module")
def mingpt_reference(tmp_path_factory):
    """The GPT's PyTorch run, shared by the two tests below (its folder holds init.pt)."""
    folder = tmp_path_factory.mktemp("mingpt")
    return folder, run_under_torch("mingpt_chars.py", folder)


def test_mingpt_trainer_dataloader_adamw_groups_clipping_cosine_lr_generate(mingpt_reference):
    tmp_path, expected = mingpt_reference
    actual = run_under_tinygrad_norm("mingpt_chars.py", tmp_path)
    assert {"losses", "grad_transformer.wte.weight", "greedy", "sampled"} <= set(expected)
    assert "grad_lm_head.weight" not in expected  # tied: listed once, under its first name
    assert_same_results(expected, actual, rtol=1e-9)


def test_mingpt_in_this_process_through_install_as_torch(mingpt_reference, monkeypatch):
    """The same program, run in this process after `tg.install_as_torch()` (as a notebook
    would): `import torch` inside it is tinygrad_norm; real PyTorch comes back afterwards."""
    torch = pytest.importorskip("torch")
    tmp_path, expected = mingpt_reference
    out, script = tmp_path / "in_process.npz", str(PROGRAMS / "mingpt_chars.py")
    monkeypatch.setattr(
        sys, "argv", [script, "--init", str(tmp_path / "init.pt"), "--out", str(out)]
    )
    monkeypatch.syspath_prepend(str(PROGRAMS))  # as `python script.py`: for `import oracle_cli`
    default_dtype, rng_state = tg.get_default_dtype(), tg.get_rng_state()
    tg.install_as_torch()
    try:
        namespace = runpy.run_path(script, run_name="__main__")
    finally:  # the program set the default dtype and seeded the global generator
        tg.uninstall_as_torch()
        tg.set_default_dtype(default_dtype)
        tg.set_rng_state(rng_state)
    assert namespace["torch"] is tg and namespace["F"] is tg.nn.functional
    import torch as torch_again  # noqa: PLC0415 - after uninstall: real PyTorch again

    assert torch_again is torch
    assert_same_results(expected, dict(np.load(out)), rtol=1e-9)


def test_cnn_conv_batchnorm2d_maxpool_dropout_sgd_steplr(tmp_path):
    expected = run_under_torch("cnn_shapes.py", tmp_path)
    actual = run_under_tinygrad_norm("cnn_shapes.py", tmp_path)
    assert {"grad_features.0.weight", "state_features.1.running_var", "predictions"} <= set(
        expected
    )
    assert_same_results(expected, actual, rtol=1e-9)


def test_lstm_language_model_truncated_bptt_adam_lambdalr(tmp_path):
    expected = run_under_torch("lstm_chars.py", tmp_path)
    actual = run_under_tinygrad_norm("lstm_chars.py", tmp_path)
    assert {"grad_lstm.weight_hh_l1", "hidden_1", "sample"} <= set(expected)
    assert_same_results(expected, actual, rtol=1e-9)


def test_lstm_language_model_in_float32(tmp_path):
    """float32 throughout: equal to float32 rounding (a few ulps grown over five steps)."""
    expected = run_under_torch("lstm_chars.py", tmp_path, "--dtype", "float32", "--steps", "3")
    actual = run_under_tinygrad_norm(
        "lstm_chars.py", tmp_path, "--dtype", "float32", "--steps", "3"
    )
    assert expected["grad_fc.weight"].dtype == actual["grad_fc.weight"].dtype == np.float32
    assert_same_results(expected, actual, rtol=2e-5)


def test_gpt_from_scratch_heads_estimate_loss_in_float32(tmp_path):
    """The lecture's script as written: float32, module-level code, torch.zeros filled with
    loss.item(), f-strings of 0-d tensors; equal to float32 rounding."""
    expected = run_under_torch("gpt_dev.py", tmp_path)
    actual = run_under_tinygrad_norm("gpt_dev.py", tmp_path)
    assert expected["grad_blocks.1.sa.heads.3.key.weight"].dtype == np.float32
    assert_same_results(expected, actual, rtol=2e-5)


def test_run_names_the_missing_torch_x_and_the_line_that_uses_it(tmp_path):
    """torch.fft (a spectrogram in an audio course) is not in tinygrad_norm: run shows the
    traceback, then one line naming the script line and torch.fft, and exits with 1."""
    script = tmp_path / "spectrum.py"
    script.write_text(
        "import torch\n"
        "\n"
        "signal = torch.sin(torch.linspace(0, 20, 64))\n"
        "spectrum = torch.fft.rfft(signal).abs()\n"
    )
    result = python("-m", "tinygrad_norm", "run", script)
    assert result.returncode == 1
    assert "AttributeError: tinygrad_norm does not implement torch.fft yet" in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert (
        last == f"run: {script}, line 4, uses torch.fft, which tinygrad_norm does not implement yet"
    )
