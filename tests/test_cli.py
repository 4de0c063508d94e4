"""The command line: `python -m tinygrad_norm <command>`."""

import subprocess
import sys

import numpy as np

from tinygrad_norm.cli import gradcheck as gradcheck_command
from tinygrad_norm.cli import main
from tinygrad_norm.testing.op_cases import OpCase


def test_gradcheck_table_passes_for_the_chosen_ops(capsys):
    assert main(["gradcheck", "-k", "mul*"]) == 0
    out = capsys.readouterr().out
    assert "max abs err" in out and "2nd order" in out
    assert "mul_broadcast" in out and "2 ops checked, 2 passed" in out


def test_gradcheck_exits_nonzero_when_an_op_is_wrong(capsys, monkeypatch):
    import tinygrad_norm as tg

    class Twice(tg.Function):  # d(x^2)/dx is 2x; this backward forgets the 2
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * x

    bad = OpCase("square_bug", lambda lib, x: Twice.apply(x), np.square, ((3,),))
    monkeypatch.setattr(gradcheck_command, "CASES", [bad])
    assert main(["gradcheck"]) == 1
    assert "FAILED: square_bug" in capsys.readouterr().out


def test_module_entry_point_prints_help():
    result = subprocess.run(
        [sys.executable, "-m", "tinygrad_norm", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "gradcheck" in result.stdout
