"""The committed namespace table (compat/torch_namespace.tsv) against this package: every name
it lists as *here* resolves under install_as_torch, and a name *not here* raises the
AttributeError that gives the table's reason. (tests/oracle/test_oracle_namespace_table.py
regenerates the table from PyTorch and fails when it is stale.)"""

import importlib
from pathlib import Path

import pytest

import tinygrad_norm as tg
from tinygrad_norm.compat import namespace_table
from tinygrad_norm.compat.torch_import import TABLE, table_reasons

ROWS = [line.split("\t") for line in TABLE.read_text().splitlines()[1:]]


@pytest.fixture(scope="module")
def as_torch():
    tg.install_as_torch()
    yield
    tg.uninstall_as_torch()


def test_the_table_covers_every_namespace_and_nothing_is_listed_twice():
    names = [row[0] for row in ROWS]
    assert len(names) == len(set(names)) > 2000
    for path in namespace_table.NAMESPACES:
        assert any(name.rsplit(".", 1)[0] == path for name in names), path
    assert any(name.startswith("torch.nn.modules.linear.") for name in names)


def test_every_row_is_here_or_not_here_with_a_reason():
    for name, status, reason in ROWS:
        assert status in ("here", "not here"), name
        assert (status == "here") == (reason == ""), name


def test_every_name_here_exists_under_install_as_torch(as_torch):
    missing = [
        name
        for name, status, _ in ROWS
        if status == "here" and not namespace_table._resolves(*name.rsplit(".", 1))
    ]
    assert not missing, f"the table says here, but missing: {missing[:20]}"


@pytest.mark.parametrize(
    "name", ["torch.quantize_per_tensor", "torch.cuda.caching_allocator_alloc"]
)
def test_a_module_name_not_here_raises_the_tables_reason(as_torch, name):
    reason = table_reasons()[name]
    path, attribute = name.rsplit(".", 1)
    with pytest.raises(AttributeError) as error:
        getattr(importlib.import_module(path), attribute)
    assert str(error.value) == f"tinygrad_norm does not implement {name} yet ({reason})"


def test_a_tensor_method_not_here_raises_the_tables_reason(as_torch):
    name = next(n for n in table_reasons() if n.startswith("torch.Tensor.") and "sparse" in n)
    with pytest.raises(AttributeError, match="sparse tensors"):
        getattr(tg.zeros(2), name.rsplit(".", 1)[1])
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'no_such'"):
        tg.zeros(2).no_such  # noqa: B018 - a typo gets Python's own message


def test_readme_shows_the_tables_counts():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    for path, (here, missing) in namespace_table.counts(ROWS).items():
        assert f"| `{path}` | {here} | {missing} |" in readme, path
