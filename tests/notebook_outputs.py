"""Run the notebooks, compare their outputs with the committed ones, and refresh them.

A committed notebook is stale when a fresh run prints something else. What legitimately
differs from run to run is taken out before the comparison (`normalised`):

- durations: `0.8 s`, `12 ms`, `3.5 us`, `2 seconds` become `<time>`;
- memory addresses: `<... at 0x7f3f30827ad0>` loses its ` at 0x...`;
- progress bars: tqdm's lines (`42%|####   | 5/12 [...]`) become `<progress>`, and of a line
  rewritten with carriage returns only its last state is kept;
- rounding noise: a number in exponent notation below 1e-6 in size (`3.5e-18`, `0.0e+00`,
  `9.536743e-07`) becomes `<tiny>`: how many ulps two float64 results differ by depends on
  the BLAS and the CPU, not on the code a notebook shows;
- how a cell's prints were split into stream outputs (consecutive ones are joined).

Everything else in the text outputs (streams, `text/plain`, errors) is compared exactly, but
for the cells tagged `depends-on-torch` (they print PyTorch's numbers beside ours when PyTorch
is installed): those are compared only where PyTorch is installed, as the committed outputs
are made with it (`make notebooks` after `make test-oracle`).
Pictures (PNG, SVG, HTML) are not compared: the code that makes them is tested elsewhere.

Refresh the committed outputs after changing what a notebook prints:

    .venv/bin/python tests/notebook_outputs.py notebooks/*.ipynb

(`make notebooks` does this). It writes each notebook as run, without the execution
timestamps and without memory addresses, so that an unchanged notebook gives an unchanged file.
"""

from __future__ import annotations

import difflib
import importlib.util
import pathlib
import re
import sys

import nbformat
from nbclient import NotebookClient

CELL_TIMEOUT = 120  # seconds; every notebook takes a few seconds in all, training one ~30

DURATION = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s?(?:s|ms|us|µs|seconds)\b")
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
PROGRESS = re.compile(r"^.*\d+%\|.*\|.*$", flags=re.M)
EXPONENT = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?e[-+]\d+\b")
TORCH_TAG = "depends-on-torch"  # a cell that prints PyTorch's results when it is installed
HAVE_TORCH = importlib.util.find_spec("torch") is not None


def execute(notebook: nbformat.NotebookNode, folder: pathlib.Path) -> None:
    """Run `notebook` top to bottom in place, in `folder`, on the `python3` kernel."""
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()


def _tiny(match: re.Match) -> str:
    return "<tiny>" if abs(float(match.group())) < 1e-6 else match.group()


def normalised(text: str) -> str:
    """`text` with what varies between two runs of the same code replaced (module docstring)."""
    text = "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))
    text = PROGRESS.sub("<progress>", text)
    text = ADDRESS.sub("", text)
    text = DURATION.sub("<time>", text)
    return EXPONENT.sub(_tiny, text)


def text_outputs(cell) -> list[str]:
    """The text a code cell showed, one string per output (consecutive streams of one name
    joined), normalised."""
    shown: list[tuple[str, str]] = []
    for output in cell.get("outputs", []):
        kind = output.output_type
        if kind == "stream":
            if shown and shown[-1][0] == f"stream {output.name}":
                shown[-1] = (shown[-1][0], shown[-1][1] + output.text)
            else:
                shown.append((f"stream {output.name}", output.text))
        elif kind in ("execute_result", "display_data"):
            text = output.get("data", {}).get("text/plain", "")
            shown.append((kind, text if isinstance(text, str) else "".join(text)))
        elif kind == "error":
            shown.append((kind, f"{output.ename}: {output.evalue}"))
    return [f"[{kind}]\n{normalised(text)}" for kind, text in shown]


def differences(committed: nbformat.NotebookNode, fresh: nbformat.NotebookNode) -> list[str]:
    """One report per code cell whose text outputs differ: its first line and a diff."""
    reports = []
    pairs = zip(committed.cells, fresh.cells)
    for number, (old, new) in enumerate(pairs, start=1):
        if old.cell_type != "code":
            continue
        if TORCH_TAG in old.metadata.get("tags", []) and not HAVE_TORCH:
            continue
        before, after = text_outputs(old), text_outputs(new)
        if before != after:
            first_line = old.source.strip().split("\n", 1)[0]
            diff = difflib.unified_diff(
                "\n".join(before).splitlines(),
                "\n".join(after).splitlines(),
                "committed",
                "fresh run",
                lineterm="",
                n=1,
            )
            reports.append(f"cell {number} ({first_line}):\n" + "\n".join(diff))
    return reports


def clean(notebook: nbformat.NotebookNode) -> None:
    """Drop what differs between two runs and says nothing: memory addresses in text outputs
    and the execution timestamps in the cells' metadata."""
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if isinstance(data.get("text/plain"), str):
                data["text/plain"] = ADDRESS.sub("", data["text/plain"])


def refresh(path: pathlib.Path) -> list[str]:
    """Run the notebook at `path` and write it back with its fresh outputs; the differences
    from what was committed."""
    committed = nbformat.read(path, as_version=4)
    fresh = nbformat.read(path, as_version=4)
    execute(fresh, path.parent)
    clean(fresh)
    nbformat.write(fresh, path)
    return differences(committed, fresh)


def main(paths: list[str]) -> int:
    if not paths:
        print("usage: python tests/notebook_outputs.py NOTEBOOK.ipynb ...", file=sys.stderr)
        return 2
    for name in paths:
        changed = refresh(pathlib.Path(name).resolve())
        print(f"{name}: {len(changed)} cell(s) print something new" if changed else f"{name}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
