"""The semantics tables (views or copies, result dtypes, refusals) hold here, and are still
PyTorch's. `python -m tinygrad_norm.testing.semantics_tables` regenerates them from torch."""

import warnings

import pytest

import tinygrad_norm as tg
from tinygrad_norm.testing import semantics_tables as tables

# Differences not fixed yet, each named: the plain test fails on any other difference, and on
# one of these that no longer differs (then take it out of this list).
KNOWN: set = set()


def test_the_tables_hold_here():
    lines = tables.differences(tables.load(), tables.build(tg))
    found = {line.rsplit(": PyTorch", 1)[0] for line in lines}
    unexpected = [line for line in lines if line.rsplit(": PyTorch", 1)[0] not in KNOWN]
    assert not unexpected, "\n".join(unexpected)
    fixed = KNOWN - found
    assert not fixed, f"no longer different, take them out of KNOWN: {sorted(fixed)}"


def test_the_tables_are_large_enough():
    table = tables.load()
    assert len(table["views"]) >= 390 and len(table["dtypes"]) >= 11000
    assert len(table["refusals"]) >= 190  # 81 of ours, 110 from tinygrad's test_ops.py


@pytest.mark.oracle
def test_the_committed_tables_are_pytorchs():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's own warnings (uint8 masks, std of one)
        fresh = tables.build(torch)
    stale = tables.differences(fresh, tables.load()) + tables.differences(tables.load(), fresh)
    hint = "regenerate: python -m tinygrad_norm.testing.semantics_tables\n"
    assert not stale, hint + "\n".join(stale[:20])
