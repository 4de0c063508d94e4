"""Every limit of `bench --suite ops` (`bench/limits/`, `bench/ops_limits.py`) computes the
op's gradients: in float64, each input's gradient equals tinygrad_norm's backward of the same
case (itself gradchecked by the op table's tests) for the same output gradient. A limit with
wrong maths would time a different program, so a mismatch is a defect.

Each case runs at shapes the table's scaled up (a few thousand numbers, so broadcasting and
reductions see sizes above the table's tiny ones), else at the table's own shapes, as the
suite itself falls back.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.bench import ops_suite
from tinygrad_norm.bench.limits import LIMITS
from tinygrad_norm.bench.ops_cases import TINY, bench_cases, limit_for, scaled, shape_tries

CASES = bench_cases()


def _tries(case):
    table = shape_tries(case, TINY)
    if not case.shapes:
        return table
    return [("scaled", scaled(case.shapes, 4096)), *table]


def _run(case):
    """(tinygrad_norm's run, the limit, its gradients) at the first shapes both accept."""
    error = None
    for _, shapes in _tries(case):
        try:
            arrays = ops_suite.inputs(case, shapes, np.float64)
            mine = ops_suite.LibraryRun(tg, case, arrays)
            mine()
            limit = limit_for(case, arrays)
            grads = mine.grads[0] if len(mine.grads) == 1 else mine.grads
            return mine, limit, limit.fn([a.copy() for a in arrays], grads)
        except Exception as exc:  # noqa: BLE001 - shapes the case's constants refuse: next try
            error = exc
    raise AssertionError(f"{case.name} runs at none of its shapes: {error}")


def test_every_case_has_a_written_limit():
    """No row is timed against the generic lower bound."""
    generic = [c.name for c in CASES if limit_for(c, _tiny_inputs(c)).kind != "hand"]
    assert generic == []


def test_every_registered_limit_is_a_case():
    assert set(LIMITS) <= {c.name for c in CASES}


def _tiny_inputs(case):
    _, shapes = shape_tries(case, TINY)[0]
    return ops_suite.inputs(case, shapes, np.float64)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_limit_gradients_equal_tinygrad_norms(case):
    mine, limit, theirs = _run(case)
    assert limit.kind == "hand"
    assert len(theirs) == len(mine.leaves)
    for i, (leaf, grad) in enumerate(zip(mine.leaves, theirs)):
        expected = leaf.grad.numpy() if leaf.grad is not None else np.zeros(tuple(leaf.shape))
        assert np.shape(grad) == expected.shape, f"input {i}"
        assert np.asarray(grad).dtype == np.float64, f"input {i}"
        np.testing.assert_allclose(grad, expected, rtol=1e-6, atol=1e-9, err_msg=f"input {i}")


def test_a_wrong_limit_is_caught():
    """The comparison is not vacuous: sigmoid's gradient without the factor (1 - s) differs."""
    case = next(c for c in CASES if c.name == "sigmoid")
    mine, _, _ = _run(case)
    x = mine.leaves[0].detach().numpy()
    wrong = mine.grads[0] / (1 + np.exp(-x))
    assert not np.allclose(wrong, mine.leaves[0].grad.numpy(), rtol=1e-6)
    assert math.isfinite(float(wrong.sum()))
