"""The staleness check of tests/test_notebooks.py: what it forgives (what varies from run to
run) and what it catches (anything a changed library prints otherwise)."""

import nbformat
import pytest
from notebook_outputs import clean, differences, normalised, text_outputs


def _notebook(*outputs_per_cell):
    cells = []
    for outputs in outputs_per_cell:
        cell = nbformat.v4.new_code_cell("print(x)")
        cell.outputs = [nbformat.v4.new_output(**o) for o in outputs]
        cells.append(cell)
    return nbformat.v4.new_notebook(cells=cells)


def _stream(text, name="stdout"):
    return {"output_type": "stream", "name": name, "text": text}


def _result(text):
    return {"output_type": "execute_result", "data": {"text/plain": text}, "execution_count": 1}


@pytest.mark.parametrize(
    "committed, fresh",
    [
        ("120 steps in 0.8 s; loss 2.194 -> 0.0454", "120 steps in 6.1 s; loss 2.194 -> 0.0454"),
        ("use_cache=True: 0.29 s", "use_cache=True: 3.21 s"),
        ("a step: 45 ms, an op: 6.5 us", "a step: 52 ms, an op: 7.1 us"),
        ("<graphviz.Digraph at 0x7fbe832fe910>", "<graphviz.Digraph at 0x7fdade5bcf10>"),
        ("<graphviz.Digraph>", "<graphviz.Digraph at 0x7fdade5bcf10>"),
        ("maxdiff: 3.5e-18", "maxdiff: 4.3e-18"),
        ("max |by hand - autograd| = 0.0e+00", "max |by hand - autograd| = 1.8e-15"),
        ("difference: 9.536743e-07", "difference: 8.34465e-07"),
        (" 10%|#         | 1/10 [00:01<00:09]\r100%|##########| 10/10 [00:09<00:00]\ndone",
         "100%|##########| 10/10 [00:04<00:00,  2.11it/s]\ndone"),
    ],
)  # fmt: skip
def test_what_varies_from_run_to_run_is_forgiven(committed, fresh):
    assert normalised(committed) == normalised(fresh)


@pytest.mark.parametrize(
    "committed, fresh",
    [
        ("(2, 1, 3) tinygrad_norm.tensor", "torch.Size([2, 1, 3]) tinygrad_norm.tensor"),
        ("<Explorer 'MLP': 9 steps>", "<Explorer 'MLP': 7 steps>"),
        ("held-out accuracy: 96.0% (chance: 25%)", "held-out accuracy: 96.4% (chance: 25%)"),
        ("best eps 3.2e-06", "best eps 1.0e-05"),
        ("loss 1.536 -> 0.080", "loss 1.536 -> 0.079"),
        ("dtype=float64", "dtype=torch.float64"),
        ("a step: 45 ms", "a step: 45 ms, 2 steps"),
    ],
)
def test_what_the_code_prints_differently_is_caught(committed, fresh):
    assert normalised(committed) != normalised(fresh)
    old, new = _notebook([_stream(committed)]), _notebook([_stream(fresh)])
    (report,) = differences(old, new)
    assert report.startswith("cell 1 (print(x)):") and "-" + normalised(committed) in report


def test_how_prints_were_split_into_outputs_is_forgiven():
    one = _notebook([_stream("weight_g (3, 1)\n"), _result("(3, 1)")])
    two = _notebook([_stream("weight_g"), _stream(" (3, 1)\n"), _result("(3, 1)")])
    assert differences(one, two) == []
    stderr = _notebook(
        [_stream("weight_g"), _stream(" (3, 1)\n", name="stderr"), _result("(3, 1)")]
    )
    assert len(differences(one, stderr)) == 1


def test_a_missing_or_extra_output_is_caught():
    shown = _notebook([_stream("7\n"), _result("7")])
    assert len(differences(shown, _notebook([_stream("7\n")]))) == 1
    assert len(differences(_notebook([]), _notebook([]))) == 0
    error = {"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": []}
    assert text_outputs(_notebook([error]).cells[0]) == ["[error]\nValueError: bad"]


def test_clean_drops_addresses_and_timestamps():
    notebook = _notebook([_result("<Digraph at 0x7f874c20b550>")])
    notebook.cells[0].metadata["execution"] = {"iopub.status.busy": "2026-11-25T12:36:41Z"}
    clean(notebook)
    assert notebook.cells[0].outputs[0].data["text/plain"] == "<Digraph>"
    assert "execution" not in notebook.cells[0].metadata
