"""What a newcomer meets on the command line: help that points at files that exist, a
--version, example names that `draw` and `explore` both take, a finished run that says so,
`explore --script` that runs PyTorch code as `run` does, and bench options that work at tiny
sizes or say why not (also when PyTorch is missing)."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import ForgotTheTwo

import tinygrad_norm as tg
from tinygrad_norm.bench import NO_TORCH_HINT, TORCH_PIN, TRANSFORMERS_PIN, gpt2_suite, gpt_step
from tinygrad_norm.cli import COMMANDS, build_parser, main
from tinygrad_norm.cli import gradcheck as gradcheck_command
from tinygrad_norm.testing.op_cases import OpCase

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = (ROOT / "pyproject.toml").read_text()
TINY_GPT = ["--d-model", "16", "--n-layer", "1", "--n-head", "2", "--no-progress"]


def _help(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(argv)
    assert exit_info.value.code == 0
    return capsys.readouterr().out


# --- help and version -----------------------------------------------------------------------------
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_path_a_command_help_names_exists(command, capsys):
    text = _help([command, "--help"], capsys)
    text = re.sub(r"\s+", " ", text)  # argparse wraps long paths' sentences, never a path
    for path in re.findall(r"(?:tinygrad_norm|tests|docs)/[\w/.-]*\w", text):
        assert (ROOT / path).exists(), f"`{command} --help` points to {path}, which is missing"


def test_version_names_the_package_version(capsys):
    out = _help(["--version"], capsys)
    version = re.search(r'^version = "(.+)"$', PYPROJECT, flags=re.M).group(1)
    assert out.startswith(f"tinygrad_norm {version} ") and tg.__version__ == version


def test_version_from_the_command_line():
    out = subprocess.run(
        [sys.executable, "-m", "tinygrad_norm", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0 and out.stdout.startswith("tinygrad_norm "), out.stderr


# --- example names --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["layernorm", "layer_norm"])
def test_draw_and_explore_take_both_spellings_of_layernorm(name, tmp_path, capsys):
    assert main(["draw", str(tmp_path / "graph.dot"), "--example", name]) == 0
    assert "the layernorm example" in capsys.readouterr().out
    assert main(["explore", "--example", name, "-o", str(tmp_path / "ln.html")]) == 0
    assert "LayerNorm" in (tmp_path / "ln.html").read_text()


def test_an_unknown_example_still_lists_the_choices(capsys):
    with pytest.raises(SystemExit):
        main(["explore", "--example", "layer norm"])
    assert "choose from 'layernorm', 'mlp'" in capsys.readouterr().err


# --- train --resume of a finished run -------------------------------------------------------------
def test_resume_of_a_finished_run_says_so_and_how_to_go_on(tmp_path, capsys):
    path = str(tmp_path / "done.npz")
    run = ["train", *TINY_GPT, "--steps", "2", "--eval-size", "4", "--samples", "0"]
    assert main([*run, "--save", path]) == 0
    capsys.readouterr()
    before = (tmp_path / "done.npz").read_bytes()
    assert main(["train", "--resume", path]) == 0
    out = capsys.readouterr().out
    assert "the run is finished (2 steps done, total 2); nothing to train" in out
    assert "held-out accuracy" not in out and "training:" not in out
    assert (tmp_path / "done.npz").read_bytes() == before
    further = [line for line in out.splitlines() if "--steps" in line][0]
    argv = shlex.split(further.split(": ", 1)[1])[3:]
    assert argv == ["train", "--resume", path, "--steps", "4"]
    assert main([*argv, "--no-progress", "--eval-size", "4", "--samples", "0"]) == 0
    assert "resumed at step 2" in capsys.readouterr().out


# --- explore --script runs PyTorch code -----------------------------------------------------------
def test_explore_script_maps_import_torch_as_run_does(tmp_path, capsys):
    (tmp_path / "helper_layers.py").write_text(
        "import torch.nn as nn\n\ndef make():\n    return nn.Linear(3, 2)\n"
    )
    script = tmp_path / "my_model.py"
    script.write_text(
        "import torch\n"
        "from helper_layers import make\n\n"
        "torch.manual_seed(0)\n"
        "model = make()\n"
        "x = torch.randn(4, 3)\n"
        "loss = model(x).pow(2).mean()\n"
        "params = model\n"
    )
    out = tmp_path / "mine.html"
    assert main(["explore", "--script", str(script), "-o", str(out)]) == 0, capsys.readouterr()
    assert "weight" in out.read_text()
    assert "torch" not in sys.modules or not sys.modules["torch"].__name__.startswith(
        "tinygrad_norm"
    ), "explore --script left `import torch` pointing at tinygrad_norm"


# --- bench ----------------------------------------------------------------------------------------
def test_the_pins_in_hints_are_the_makefile_and_pyproject_pins():
    makefile = (ROOT / "Makefile").read_text()
    assert f"TORCH_PIN := {TORCH_PIN}" in makefile
    assert f"TRANSFORMERS_PIN := {TRANSFORMERS_PIN}" in makefile
    oracle = re.search(r"^oracle = (\[.*\])$", PYPROJECT, flags=re.M).group(1)
    assert f'"{TORCH_PIN}"' in oracle and f'"{TRANSFORMERS_PIN}"' in oracle
    assert f"pip install {TORCH_PIN}" in NO_TORCH_HINT


def test_no_bench_hint_installs_an_unpinned_torch():
    for path in (ROOT / "tinygrad_norm").rglob("*.py"):
        assert not re.search(r"pip install torch(?!=)", path.read_text()), path


def _gpt2_args(*argv):
    return build_parser().parse_args(["bench", "--suite", "gpt2", *argv])


def test_gpt2_tiny_defaults_fit_the_tiny_context():
    args = _gpt2_args("--tiny")
    shapes = gpt2_suite.checked_shapes(args, gpt2_suite.TINY)
    assert isinstance(shapes, list), shapes
    n_ctx = gpt2_suite.TINY["n_ctx"]
    assert all(T <= n_ctx for _, T in shapes) and args.prompt + args.new <= n_ctx
    full = _gpt2_args()
    assert gpt2_suite.checked_shapes(full, gpt2_suite.GPT2) == [(1, 128), (2, 256)]
    assert (full.prompt, full.new) == (32, 64)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--shapes", "1x64"], "T 64 of 1x64 must be from 1 to the model's n_ctx 32"),
        (["--shapes", "1by8"], "'1by8' is not BxT"),
        (["--shapes", "1x8", "--prompt", "30"], "--prompt 30 and --new 16"),
    ],
)
def test_gpt2_tiny_refuses_lengths_beyond_the_context_before_anything_runs(argv, message, capsys):
    assert main(["bench", "--suite", "gpt2", "--tiny", *argv]) == 2
    out = capsys.readouterr().out
    assert out.startswith("bench --suite gpt2 --tiny: ") and message in out, out


def test_gpt2_tiny_runs_with_its_defaults():
    pytest.importorskip("torch")
    command = [sys.executable, "-m", "tinygrad_norm", "bench", "--suite", "gpt2", "--tiny",
               "--steps", "1", "--warmup", "0", "--threads", "1"]  # fmt: skip
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert re.search(r"^1x16\s", out.stdout, flags=re.M) and "NO" not in out.stdout, out.stdout


def test_tiny_is_honoured_by_the_default_suite(capsys, monkeypatch):
    measured = []
    monkeypatch.setattr(gpt_step, "measure", lambda size, *a, **k: measured.append(size) or {})
    assert main(["bench", "--tiny", "--steps", "1", "--warmup", "0", "--threads", "1"]) == 0
    assert measured == ["tiny"]
    assert main(["bench", "--tiny", "--sizes", "small"]) == 2
    assert "--tiny means --sizes tiny here" in capsys.readouterr().out


def test_bench_without_torch_says_why_its_column_is_empty(capsys, monkeypatch):
    monkeypatch.setattr(gpt_step, "has_torch", lambda: False)
    argv = ["bench", "--sizes", "tiny", "--steps", "1", "--warmup", "0", "--threads", "1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert re.search(r"^tiny\s.*\s-\s", out, flags=re.M), out  # tg/torch: "-"
    assert f"tg/torch is '-': PyTorch is not installed: pip install {TORCH_PIN}" in out


# --- gradcheck --output: the tables to a file, a summary on the screen ---------------------------
def test_gradcheck_output_writes_the_tables_and_prints_a_summary(tmp_path, capsys):
    table = tmp_path / "gradcheck.txt"
    assert main(["gradcheck", "-k", "*layer*norm*", "--output", str(table)]) == 0
    out = capsys.readouterr().out
    (line,) = out.strip().splitlines()
    assert re.fullmatch(
        r"gradient checks: \d+ ops?, \d+ modules?, all passed \(\d+ s\); the tables: " + str(table),
        line,
    )
    text = table.read_text()
    assert "max abs err" in text and "layer_norm" in text and "LayerNorm" in text
    assert text.rstrip().splitlines()[-1].endswith(" s)")  # the counts line, as without -o


def test_gradcheck_output_still_shows_what_failed(tmp_path, capsys, monkeypatch):
    bad = OpCase("square_bug", lambda lib, x: ForgotTheTwo.apply(x), np.square, ((3,),))
    monkeypatch.setattr(gradcheck_command, "CASES", [bad])
    table = tmp_path / "gradcheck.txt"
    assert main(["gradcheck", "-k", "square_bug", "-o", str(table)]) == 1
    out = capsys.readouterr().out
    assert "square_bug" in out and "FAIL" in out
    assert "gradient checks: 1 op, 1 FAILED" in out and "FAILED: square_bug" in table.read_text()


def test_gradcheck_output_refuses_a_missing_folder_and_leaves_no_empty_file(tmp_path, capsys):
    assert main(["gradcheck", "-o", str(tmp_path / "no" / "gc.txt")]) == 2
    assert "does not exist" in capsys.readouterr().out
    assert main(["gradcheck", "-k", "no-such-op", "-o", str(tmp_path / "gc.txt")]) == 2
    assert not (tmp_path / "gc.txt").exists()
