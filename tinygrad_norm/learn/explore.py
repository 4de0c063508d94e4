"""See backprop in the browser: `tg.explore(loss).save("backprop.html")`.

`explore` runs the backward pass of `loss` one node at a time with `backprop_steps` (the
engine's own loop, so what the page shows is what ran) and writes everything it saw into one
self-contained HTML page: the graph as inline SVG (drawn by Graphviz's `dot`, top to bottom,
forward flowing down), the numbers of every step as JSON, and a little CSS and JavaScript
(`explore_page.css`, `explore_page.js` beside this file). No network, no server: the file
opens from disk in any browser, and shows inline in Jupyter.

On the page, step with the buttons, the left and right arrow keys or the slider; the URL hash
`#step=K` opens step K. At each step the op node is highlighted (class `current`), the arrows
that have carried gradient so far are red (the current step's orange), and a panel shows the
op, its rule, the rule with the actual numbers (small tensors), the incoming `grad_output`,
what it sends to each input and each input's gradient so far; at the last step, every leaf's
`.grad`. The panel's fields have fixed ids (`step-index`, `step-op`, `step-formula`,
`step-grad-output`, ...), which the browser tests read.

>>> import tinygrad_norm as tg
>>> a = tg.tensor([2.0, 3.0], requires_grad=True, name="a")
>>> b = tg.tensor([4.0, 5.0], requires_grad=True, name="b")
>>> explorer = tg.explore((a * b).sum())  # doctest: +SKIP
>>> [step["op"] for step in explorer.steps]  # doctest: +SKIP
['SumBackward', 'MulBackward']
>>> explorer.steps[1]["numbers"]  # doctest: +SKIP
['grad_a = [1, 1] * [4, 5] = [4, 5]', 'grad_b = [1, 1] * [2, 3] = [2, 3]']
>>> path = explorer.save("backprop.html")  # doctest: +SKIP
"""

from __future__ import annotations

import html
import json
import re
from importlib import resources
from pathlib import Path

import numpy as np

from .draw import _parameter_names, draw_with_ids, require_dot
from .steps import backprop_steps

SMALL = 16  # a tensor of at most this many values is written out in full
PREVIEW = 6  # of a larger one, the first few values


class Explorer:
    """The backward pass of one graph, step by step, as a self-contained HTML page.

    title: the page's heading; svg: the graph drawn by Graphviz; steps: one dict per
    `BackwardStep` (index, op, formula, the SVG ids to light up, the numbers as text); leaves:
    one dict per leaf (its name and its final `.grad` as text).
    """

    def __init__(self, title: str, svg: str, steps: list[dict], leaves: list[dict]):
        self.title, self.svg, self.steps, self.leaves = title, svg, steps, leaves

    def __len__(self) -> int:
        return len(self.steps)

    def __repr__(self) -> str:
        return f"<Explorer {self.title!r}: {len(self.steps)} steps>"

    def html(self) -> str:
        """The whole page: inline SVG, CSS, JavaScript and data; no external reference."""
        data = {"title": self.title, "steps": self.steps, "leaves": self.leaves}
        # "</" inside a <script> element would end it early; "<\/" reads the same in JSON.
        data_json = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
        return PAGE.format(
            title=html.escape(self.title),
            css=_asset("explore_page.css"),
            svg=self.svg,
            last=max(len(self.steps) - 1, 0),
            data=data_json,
            js=_asset("explore_page.js"),
        )

    def save(self, path) -> Path:
        """Write the page to `path` (e.g. "backprop.html"); open it in any browser."""
        path = Path(path)
        if not path.parent.is_dir():
            raise FileNotFoundError(
                f"Explorer.save: the folder {path.parent} does not exist; create it first"
            )
        path.write_text(self.html(), encoding="utf-8")
        return path

    def _repr_html_(self) -> str:
        """Jupyter: the page in an iframe, so that its ids, styles and keys stay its own."""
        return (
            f'<iframe srcdoc="{html.escape(self.html(), quote=True)}" '
            'style="width: 100%; height: 760px; border: 1px solid #ccc"></iframe>'
        )


def explore(root, *, params=None, gradient=None, title=None) -> Explorer:
    """Run `root`'s backward pass step by step and return the `Explorer` page of it.

    root: the Tensor to differentiate (usually a scalar loss; else pass `gradient`).
    params: names for the parameters: a Module, a dict name -> Tensor, or the pairs of
        `model.named_parameters()`; other tensors show their `name=`.
    gradient: the gradient of `root` to start from (default: 1 for a scalar).
    title: the page's heading.

    Like `root.backward(gradient)`, it leaves each leaf's `.grad` filled and frees the graph.
    Graphviz's `dot` program must be installed (it lays the graph out).
    """
    require_dot("drawn for the explorer")
    if root.grad_fn is None:
        raise ValueError(
            "explore: this tensor was not computed by any op (it is a leaf), so there is no "
            "backward pass to step through; pass the result of a computation, e.g. a loss"
        )
    if params is not None and not hasattr(params, "named_parameters"):
        params = dict(params)  # a dict, or pairs such as model.named_parameters(), read once
    names = _parameter_names(params)
    graph, ids = draw_with_ids(
        root, show_grad=False, params=params, max_elements=3, legend=False, element_ids=True
    )
    svg = _clean_svg(graph.pipe(format="svg").decode("utf-8"))
    steps = []
    for step in backprop_steps(root, gradient):
        steps.append(_step_data(step, ids, names))
    leaves = [
        {"box": box, "name": _name(leaf, names) or "a leaf", "grad": _text(leaf.grad)}
        for box, leaf in ids.leaves
    ]
    default_title = f"Backprop through {getattr(root, 'name', None) or 'the graph'}"
    return Explorer(title or default_title, svg, steps, leaves)


# --- one step as data -------------------------------------------------------------------------
def _step_data(step, ids, names) -> dict:
    node = id(step.node)
    inputs = []
    for i, (tensor, sent, total) in enumerate(
        zip(step.inputs or (), step.grad_inputs, step.accumulated)
    ):
        label = _name(tensor, names) or _producer(tensor, i)
        inputs.append(
            {
                "label": f"input {i}: {label}",
                "shape": _shape(tensor.shape),
                "sent": None if sent is None else _text(sent),
                "so_far": None if total is None else _text(total),
                "edge": ids.in_edges[node][i],
            }
        )
    return {
        "index": step.index,
        "op": step.op,
        "formula": step.formula or "",
        "node": ids.ops[node],
        "out_edge": ids.out_edges[node],
        "grad_output": _text(step.grad_output),
        "numbers": _rule_with_numbers(step),
        "inputs": inputs,
    }


def _rule_with_numbers(step) -> list[str]:
    """Each `grad_a = ...` rule with the tensors' values in place of their names, and its
    result: `grad_a = [1, 1] * [4, 5] = [4, 5]`. Empty when a tensor is too large to write
    out or the rule does not name one gradient per input."""
    rules = [rule.strip() for rule in (step.formula or "").split(";") if rule.strip()]
    tensors = [step.grad_output, *(step.inputs or ())]
    if isinstance(step.grad_output, tuple):  # a node with several outputs: no numbers
        return []
    if not rules or any(t is not None and np.size(t.array) > SMALL for t in tensors):
        return []
    # The rule's own names: grad_a, grad_b, ... in input order (grad_x, grad_w, grad_b: linear).
    operands = [re.match(r"grad_(\w+)\s*=", rule) for rule in rules]
    if None in operands or len(rules) != len(step.grad_inputs):
        return []
    values = {"grad_out": step.grad_output}
    values.update({m[1]: x for m, x in zip(operands, step.inputs or ()) if x is not None})
    lines = []
    for rule, sent in zip(rules, step.grad_inputs):
        target, expression = (part.strip() for part in rule.split("=", 1))
        expression = expression.split("  ")[0]  # drop a trailing "(out = exp(a))" note
        pattern = r"\b(" + "|".join(map(re.escape, values)) + r")\b(?!')"
        filled = re.sub(pattern, lambda m: _inline(values[m[1]]), expression)
        result = "nothing (not needed)" if sent is None else _inline(sent)
        lines.append(f"{target} = {filled} = {result}")
    return lines


# --- text of tensors --------------------------------------------------------------------------
def _inline(tensor) -> str:
    """All the values on one line, 4 significant digits: `[[1, 2], [3, 4]]`."""
    array = np.asarray(tensor.array)
    text = np.array2string(array, separator=", ", formatter={"float_kind": "{:.4g}".format})
    return " ".join(text.split())


def _text(tensor) -> str:
    """Shape and values: all of them for a small tensor, else the first few and a summary."""
    if tensor is None:
        return "None"
    if isinstance(tensor, tuple):  # a node with several outputs: one gradient each
        return "\n".join(f"output {k}: {_text(t)}" for k, t in enumerate(tensor))
    array = np.asarray(tensor.array)
    head = _shape(array.shape)
    if array.size <= SMALL:
        body = np.array2string(
            array, separator=", ", max_line_width=72, formatter={"float_kind": "{:.4g}".format}
        )
        return f"{head}\n{body}"
    flat = array.ravel()
    first = ", ".join(f"{v:.4g}" for v in flat[:PREVIEW])
    summary = f"mean {flat.mean():.4g}, min {flat.min():.4g}, max {flat.max():.4g}"
    return f"{head}, {array.size} values\n[{first}, ...]\n{summary}"


def _shape(shape) -> str:
    return str(tuple(shape)) if len(shape) else "(scalar)"


def _name(tensor, names) -> str | None:
    return names.get(id(tensor)) or getattr(tensor, "name", None)


def _producer(tensor, i: int) -> str:
    node = getattr(tensor, "grad_fn", None)
    return f"the output of {node.name}" if node is not None else "a tensor"


def _clean_svg(svg: str) -> str:
    """Graphviz's SVG made fit to inline: no XML prolog, DOCTYPE (it names a URL) or
    comments, and no `<title>` tooltips repeating the DOT names (op7) over every node."""
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.S)
    svg = re.sub(r"<title>[^<]*</title>", "", svg)
    return re.sub(r"\n\s*\n", "\n", svg)


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
{css}
</style>
</head>
<body>
<header>
  <h1>{title}</h1>
  <nav id="controls">
    <button id="step-prev" title="previous step (left arrow)">&larr; previous</button>
    <input id="step-slider" type="range" min="0" max="{last}" value="0" aria-label="step">
    <button id="step-next" title="next step (right arrow)">next &rarr;</button>
    <span>step <b id="step-index">0</b> / <span id="step-last">{last}</span></span>
  </nav>
</header>
<main>
  <section id="graph">{svg}</section>
  <aside id="panel">
    <h2><code id="step-op"></code></h2>
    <p class="label">local rule</p>
    <pre id="step-formula"></pre>
    <div id="step-numbers-box"><p class="label">the rule with the numbers</p>
      <pre id="step-numbers"></pre></div>
    <p class="label">grad_output: the gradient that reached this op's output</p>
    <pre id="step-grad-output"></pre>
    <div id="step-inputs"></div>
    <div id="leaf-grads" hidden><h3>Done: every leaf's .grad</h3><div id="leaf-list"></div></div>
    <ul id="legend">
      <li><span class="swatch leaf"></span>leaf (requires_grad)</li>
      <li><span class="swatch parameter"></span>parameter</li>
      <li><span class="swatch constant"></span>constant (no grad)</li>
      <li><span class="swatch computed"></span>computed tensor</li>
      <li><span class="swatch op"></span>op</li>
      <li><span class="swatch now"></span>the current step's op</li>
      <li><span class="line was"></span>has carried gradient</li>
      <li><span class="line now"></span>carries gradient now</li>
    </ul>
  </aside>
</main>
<script type="application/json" id="explorer-data">{data}</script>
<script>
{js}
</script>
</body>
</html>
"""
