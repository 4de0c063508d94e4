"""The command line: `python -m tinygrad_norm <command>`."""

import subprocess
import sys

import numpy as np
from helpers import ForgotTheTwo

import tinygrad_norm as tg
from tinygrad_norm.cli import gradcheck as gradcheck_command
from tinygrad_norm.cli import main
from tinygrad_norm.testing.module_cases import CASES as MODULE_CASES
from tinygrad_norm.testing.module_cases import ModuleCase
from tinygrad_norm.testing.op_cases import OpCase


def test_gradcheck_table_passes_for_the_chosen_ops(capsys):
    assert main(["gradcheck", "-k", "mul*"]) == 0
    out = capsys.readouterr().out
    assert "max abs err" in out and "2nd order" in out
    assert "mul_broadcast" in out and "2 ops checked, 2 passed" in out


def test_gradcheck_exits_nonzero_when_an_op_is_wrong(capsys, monkeypatch):
    bad = OpCase("square_bug", lambda lib, x: ForgotTheTwo.apply(x), np.square, ((3,),))
    monkeypatch.setattr(gradcheck_command, "CASES", [bad])
    assert main(["gradcheck", "-k", "square_bug"]) == 1
    assert "FAILED: square_bug" in capsys.readouterr().out


def test_module_entry_point_prints_help():
    result = subprocess.run(
        [sys.executable, "-m", "tinygrad_norm", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "gradcheck" in result.stdout


# --- the module table -------------------------------------------------------------------------
def test_gradcheck_table_has_module_rows(capsys):
    assert main(["gradcheck", "-k", "layernorm*"]) == 0  # any case: LayerNorm(5), ...
    out = capsys.readouterr().out
    assert "module " in out and "1st order" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if "LayerNorm" in line}
    assert set(rows) == {"LayerNorm(5)", "LayerNorm(dimensions=2)"}
    assert rows["LayerNorm(5)"][1] == "2x3x5"
    assert rows["LayerNorm(5)"][4:6] == ["ok", "ok"]  # first and second order
    assert "2 modules checked, 2 passed" in out and "ops checked" not in out


def test_gradcheck_pattern_selects_ops_and_modules_alike(capsys):
    assert main(["gradcheck", "-k", "relu"]) == 0  # the op "relu" and the module "ReLU"
    out = capsys.readouterr().out
    module_row = next(line.split() for line in out.splitlines() if line.startswith("ReLU "))
    assert module_row[4:6] == ["ok", "-"]  # ReLU has a kink: no second-order check
    assert "ops checked" in out and "1 modules checked, 1 passed" in out


def test_gradcheck_with_no_match_says_so(capsys):
    assert main(["gradcheck", "-k", "no_such_thing"]) == 2
    assert "no op or module matches" in capsys.readouterr().out


def test_every_nn_layer_is_in_the_module_table():
    layers = {
        obj
        for obj in vars(tg.nn).values()
        if isinstance(obj, type) and issubclass(obj, tg.nn.Module)
    } - {tg.nn.Module, tg.nn.Sequential, tg.nn.ModuleList, tg.nn.ModuleDict, tg.nn.Identity}
    layers -= {tg.nn.ParameterList, tg.nn.ParameterDict}  # containers of parameters: no forward
    covered = {type(case.module()) for case in MODULE_CASES}
    assert layers - covered == set()
    assert any("weight_norm" in case.name for case in MODULE_CASES)


class Scale(tg.Function):
    """y = x * w. `numpy_grad_w` computes grad_w from arrays: right values, but a constant."""

    numpy_grad_w = False
    forget_two = False
    forget_w = False  # grad_x = grad_output: right only where w is 1

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x * w

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        grad_w = (grad_output * x).sum(0)
        if Scale.numpy_grad_w:
            grad_w = tg.Tensor(grad_w.numpy().copy())
        grad_x = grad_output if Scale.forget_w else grad_output * w
        return grad_x, grad_w * (0.5 if Scale.forget_two else 1.0)


class Scaled(tg.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = tg.nn.Parameter(tg.ones(3))

    def forward(self, x):
        return Scale.apply(x, self.weight).tanh()


def _run_buggy(monkeypatch, capsys, **bug):
    for name, value in bug.items():
        monkeypatch.setattr(Scale, name, value)
    case = ModuleCase("Scaled", Scaled, lambda rng: (rng.standard_normal((2, 3)),))
    monkeypatch.setattr(gradcheck_command, "MODULE_CASES", [case])
    status = main(["gradcheck", "-k", "scaled"])
    row = next(line.split() for line in capsys.readouterr().out.splitlines() if "Scaled " in line)
    return status, row[4:6]


def test_gradcheck_module_rows_pass_a_right_module(monkeypatch, capsys):
    assert _run_buggy(monkeypatch, capsys) == (0, ["ok", "ok"])


def test_gradcheck_catches_a_wrong_parameter_gradient(monkeypatch, capsys):
    assert _run_buggy(monkeypatch, capsys, forget_two=True) == (1, ["FAIL", "FAIL"])


def test_gradcheck_second_order_covers_the_parameters(monkeypatch, capsys):
    """The weight's gradient is right but built from NumPy: only differentiating it again
    (with respect to x) can tell, so the second-order check must include the parameters."""
    assert _run_buggy(monkeypatch, capsys, numpy_grad_w=True) == (1, ["ok", "FAIL"])


def test_gradcheck_moves_parameters_off_their_initial_values(monkeypatch, capsys):
    """Scaled's weight starts at ones, where forgetting w in grad_x changes nothing."""
    assert _run_buggy(monkeypatch, capsys, forget_w=True)[0] == 1


# --- pipes and missing folders: a message, never a traceback --------------------------------
def test_steps_into_a_closed_pipe_exits_quietly():
    """`python -m tinygrad_norm steps | head`: the reader is gone before anything is written."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tinygrad_norm", "steps"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    process.stdout.close()  # every write from now on fails with EPIPE
    stderr = process.stderr.read().decode()
    assert process.wait() != 0
    assert stderr == "", stderr  # no BrokenPipeError, no "Exception ignored"


def test_steps_piped_into_head_exits_quietly():
    command = f'"{sys.executable}" -m tinygrad_norm steps | head -n 2'
    result = subprocess.run(command, shell=True, capture_output=True, text=True)
    assert result.stdout.startswith("LayerNorm composed from primitives")
    assert len(result.stdout.splitlines()) == 2
    assert result.stderr == ""


def test_draw_into_a_missing_folder_says_so(tmp_path):
    out = tmp_path / "no_such_folder" / "graph.svg"
    result = subprocess.run(
        [sys.executable, "-m", "tinygrad_norm", "draw", str(out)], capture_output=True, text=True
    )
    assert result.returncode == 1
    assert f"the folder {out.parent} does not exist" in result.stderr
    assert "Traceback" not in result.stderr and not out.exists()
