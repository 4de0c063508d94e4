"""The per-op overhead script runs and prints one row per op (a smoke test: no timings checked)."""

from tinygrad_norm.utils import overhead


def test_overhead_prints_one_row_per_op(capsys):
    overhead.main(["--ops", "add", "matmul", "--repeat", "2", "--length", "3"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("us per op")
    assert [line.split()[0] for line in lines[2:4]] == ["add", "matmul"]


def test_every_op_runs_forward_and_backward():
    x, w = overhead.leaves(overhead.tg, 3)
    for op in overhead.OPS.values():
        overhead.run_chain(overhead.tg, op, x, w, 2)
    assert x.grad is not None and x.grad.shape == (3, 3)
