"""The notebooks run top to bottom and their asserts hold; the committed copies carry outputs.

Each notebook in notebooks/ is executed with nbclient on the `python3` kernel (ipykernel, from
the dev extra, provides it in the venv and starts it with this same Python), with notebooks/ as
the working directory and a timeout per cell. The run happens on a copy in memory: the files on
disk are left exactly as committed. What the run prints must be what the committed copy shows,
but for what varies from run to run (timings, addresses: tests/notebook_outputs.py), so that the
outputs a reader sees on a code host are never stale.
"""

from __future__ import annotations

import pathlib
import re

import nbformat
import pytest
from nbclient.exceptions import CellExecutionError
from notebook_outputs import differences, execute

NOTEBOOK_DIR = pathlib.Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
MAX_BYTES = 1_000_000  # committed with outputs, but small enough to read on a code host

KERNEL_HINT = (
    "the notebook kernel could not import tinygrad_norm: the `python3` kernel Jupyter found is "
    "not this environment's. Install this environment's kernel with "
    "`python -m ipykernel install --sys-prefix` (or run `make test`, which uses .venv)."
)


def test_there_are_notebooks():
    assert NOTEBOOKS, f"no notebooks found in {NOTEBOOK_DIR}"


# The reading order: the files' numbers, except that 07 and 09 (written after the others) follow 04.
READING_ORDER = [
    "00_first_ten_minutes.ipynb",
    "01_layer_norm_from_scratch.ipynb",
    "02_normalization_zoo.ipynb",
    "03_gpt2_blocks.ipynb",
    "04_stepping_through_backprop.ipynb",
    "07_exploring_backprop.ipynb",
    "09_backprop_by_hand.ipynb",
    "05_gradient_checking.ipynb",
    "06_train_a_tiny_gpt.ipynb",
    "08_convolution_from_scratch.ipynb",
    "10_a_cnn_from_scratch.ipynb",
    "11_write_your_own_backward.ipynb",
]


def test_readme_links_every_notebook_in_reading_order():
    """README's Notebooks section links every notebook once, in READING_ORDER."""
    assert sorted(READING_ORDER) == [path.name for path in NOTEBOOKS], "update READING_ORDER"
    readme = (NOTEBOOK_DIR.parent / "README.md").read_text()
    section = readme.split("## Notebooks", 1)[-1].split("\n## ", 1)[0]
    linked = re.findall(r"\]\(notebooks/([^)]+\.ipynb)\)", section)
    assert linked == READING_ORDER


def test_each_notebook_links_the_next_in_reading_order():
    """The closing "Next:" of each notebook points at the one after it in READING_ORDER."""
    for this, following in zip(READING_ORDER, READING_ORDER[1:]):
        notebook = nbformat.read(NOTEBOOK_DIR / this, as_version=4)
        closing = notebook.cells[-1].source
        assert f"]({following})" in closing.split("Next:", 1)[-1], f"{this} -> {following}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_top_to_bottom(path):
    committed = path.read_bytes()
    notebook = nbformat.reads(committed.decode("utf-8"), as_version=4)
    try:
        execute(notebook, NOTEBOOK_DIR)
    except CellExecutionError as error:
        hint = f"\n\n{KERNEL_HINT}" if "No module named 'tinygrad_norm'" in str(error) else ""
        pytest.fail(f"{path.name}: a cell failed\n{error}{hint}", pytrace=False)
    assert path.read_bytes() == committed, f"running {path.name} changed the file on disk"
    stale = differences(nbformat.reads(committed.decode("utf-8"), as_version=4), notebook)
    assert not stale, (
        f"{path.name}: the committed outputs are stale; a fresh run prints otherwise in "
        f"{len(stale)} cell(s). Refresh them with `make notebooks` and commit the notebook.\n\n"
        + "\n\n".join(stale)
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_notebook_has_its_outputs(path):
    """Committed after a clean run: every code cell executed, in order, without errors."""
    size = path.stat().st_size
    assert size < MAX_BYTES, f"{path.name} is {size:,} bytes; keep outputs small"
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    counts = [cell.execution_count for cell in code]
    assert counts == list(range(1, len(code) + 1)), (
        f"{path.name}: execution counts {counts}; run it top to bottom and save it with outputs"
    )
    for cell in code:
        assert not any(out.output_type == "error" for out in cell.outputs), (
            f"{path.name}: a committed cell shows an error:\n{cell.source}"
        )
        assert "shared/" not in cell.source, f"{path.name} reads outside the project"
