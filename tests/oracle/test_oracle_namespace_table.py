"""The committed namespace table is what PyTorch 2.13 and this package give today: regenerate
it (`python -m tinygrad_norm.compat.namespace_table`) after adding or removing a name."""

import pytest

from tinygrad_norm.compat import namespace_table
from tinygrad_norm.compat.torch_import import TABLE


@pytest.mark.oracle
def test_the_committed_namespace_table_is_up_to_date():
    torch = pytest.importorskip("torch")
    assert torch.__version__.startswith("2.13"), torch.__version__
    fresh = namespace_table.render(namespace_table.build_rows())
    committed = TABLE.read_text()
    if fresh != committed:
        old, new = set(committed.splitlines()), set(fresh.splitlines())
        changed = sorted(old ^ new)[:20]
        pytest.fail(
            "compat/torch_namespace.tsv is stale; run "
            "python -m tinygrad_norm.compat.namespace_table"
            f" (first differing lines: {changed})"
        )
