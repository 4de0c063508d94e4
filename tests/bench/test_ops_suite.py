"""`bench --suite ops`: it runs in seconds at tiny sizes, its JSON has every op of the op table,
and each hand-written NumPy limit computes the same gradients as tinygrad_norm."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.bench import ops_suite
from tinygrad_norm.bench.ops_cases import TINY, bench_cases, limit_for, shape_tries
from tinygrad_norm.testing.op_cases import CASES

ROOT = Path(__file__).resolve().parents[2]


def test_tiny_json_has_every_op_of_the_table():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-m", "tinygrad_norm", "bench", "--suite", "ops", "--tiny", "--json"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=300,
    ).stdout
    result = json.loads(out.strip().splitlines()[-1])
    names = {row["op"] for row in result["rows"]}
    assert {case.name for case in CASES} <= names
    assert all(row["tinygrad_norm_ms"] > 0 and row["numpy_ms"] > 0 for row in result["rows"])
    assert result["summary"]["generic_limit_rows"] > 0


def test_unknown_op_is_refused(capsys):
    args = type("Args", (), {"ops": "no_such_op", "json": False, "tiny": True, "threads": 1})
    assert ops_suite.run(args) == 2
    assert "unknown op 'no_such_op'" in capsys.readouterr().out


def _tiny_inputs(case):
    _, shapes = shape_tries(case, TINY)[0]
    return ops_suite.inputs(case, shapes, np.float64)


HAND = [c for c in bench_cases() if limit_for(c, _tiny_inputs(c)).kind == "hand"]


@pytest.mark.parametrize("case", HAND, ids=lambda c: c.name)
def test_hand_limit_has_tinygrad_norms_gradients(case):
    """The limit is the same maths: its gradients equal tinygrad_norm's, in float64."""
    arrays = _tiny_inputs(case)
    limit = limit_for(case, arrays)
    assert limit.kind == "hand"
    mine = ops_suite.LibraryRun(tg, case, arrays)
    mine()
    theirs = limit.fn([a.copy() for a in arrays], mine.grads[0])
    for leaf, grad in zip(mine.leaves, theirs):
        np.testing.assert_allclose(grad, leaf.grad.numpy(), rtol=1e-6, atol=1e-9)
