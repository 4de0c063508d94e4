"""`bench --suite ops`: it runs in seconds at tiny sizes and its JSON has every op of the op
table, each with its written limit (the limits' gradients: test_ops_limits.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tinygrad_norm.bench import ops_suite
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
    assert result["summary"]["generic_limit_rows"] == 0


def test_unknown_op_is_refused(capsys):
    args = type("Args", (), {"ops": "no_such_op", "json": False, "tiny": True, "threads": 1})
    assert ops_suite.run(args) == 2
    assert "unknown op 'no_such_op'" in capsys.readouterr().out
