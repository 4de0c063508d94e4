"""See the graph: `tg.draw_graph(loss)` returns a `graphviz.Digraph` of the computation.

Tensors are boxes (name, shape, a few values, the gradient); ops are ellipses named after
their backward node (`MulBackward`), with the local rule as a tooltip. Arrows run the way
forward ran: input tensor -> op -> output tensor; backward walks them in reverse. Drawn from
a step of `tg.backprop_steps`, the step's node is filled in gold and the arrows into its
inputs carry the gradients it sent them.

Graphs run top to bottom (forward flows down; `rankdir="LR"` for left to right), with a
legend of the colours beside them. In Jupyter the returned graph shows itself; elsewhere
`render(graph, "graph.svg")` writes a file (Graphviz's `dot` program must be installed for
SVG, PNG or PDF; `.dot` writes the source, which needs nothing).

>>> import tinygrad_norm as tg
>>> a = tg.tensor([2.0, 3.0], requires_grad=True, name="a")
>>> b = tg.tensor([4.0, 5.0], requires_grad=True, name="b")
>>> loss = (a * b).sum()
>>> loss.backward()
>>> print(tg.draw_graph(loss).source)  # doctest: +NORMALIZE_WHITESPACE +ELLIPSIS
digraph {
    graph [rankdir=TB]
    node [fontname=Helvetica fontsize=11]
    edge [fontname=Helvetica fontsize=9]
    t0 [label="(scalar)\\n[23]" fillcolor=gray93 shape=box style=filled]
    op1 [label=SumBackward tooltip="grad_a = grad_out broadcast back over the summed axes"]
    op1 -> t0
    t2 [label="(2,)" fillcolor=gray93 shape=box style=filled]
    t2 -> op1
    op3 [label=MulBackward tooltip="grad_a = grad_out * b;  grad_b = grad_out * a"]
    op3 -> t2
    t4 [label="a\\n(2,)\\n[2, 3]\\ngrad [4, 5]" fillcolor=lightblue shape=box style=filled]
    t4 -> op3
    t5 [label="b\\n(2,)\\n[4, 5]\\ngrad [2, 3]" fillcolor=lightblue shape=box style=filled]
    t5 -> op3
    legend [label=<<TABLE ...>leaf (requires_grad)...>op (ellipse)<...> shape=plaintext]
}

The box of `a * b` shows its shape alone: backward freed the values the graph held (pass
`retain_graph=True` to keep them).
"""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

import numpy as np

from ..autograd.node import Context
from ..dtypes import get_default_dtype

HIGHLIGHT = "gold"  # the fill of the node a step's drawing is about
COLOURS = {
    "leaf": "lightblue",  # a tensor you created with requires_grad=True
    "parameter": "darkseagreen1",  # a leaf found in params=
    "constant": "white",  # a leaf that needs no gradient (a number, data, a target)
    "computed": "gray93",  # the output of an op
}
INSTALL_DOT = (
    "Graphviz's `dot` program is not installed, so the graph cannot be {what}. Install it with "
    "`apt-get install graphviz` (Debian, Ubuntu), `brew install graphviz` (macOS) or "
    "`conda install -c conda-forge graphviz`, then try again. Without it, `graph.source` still "
    "holds the graph in the DOT language, and a path ending in .dot writes that source."
)


def draw_graph(
    root,
    *,
    show_data: bool = True,
    show_grad: bool = True,
    params=None,
    rankdir: str = "TB",
    highlight=None,
    max_elements: int = 6,
):
    """The graph that computed `root`, as a `graphviz.Digraph`.

    root: a Tensor (a leaf draws as one box).
    show_data / show_grad: print up to `max_elements` values / gradient values in each box.
        A computed tensor's values are only known while its graph holds them: after a
        backward without retain_graph, those boxes show the shape alone.
    params: the names to label parameters with: a Module, a dict name -> Tensor, or pairs
        (name, Tensor) such as `model.named_parameters()`.
    rankdir: "TB" (top to bottom, the default: forward flows down) or "LR" (left to right).
    highlight: a `BackwardStep` (what `step.draw()` passes) or a graph node: that op is filled
        in gold; for a step, its rule is written under its name and the arrows into its inputs
        carry the gradient it sent each one, the arrow out of it the gradient it received.

    A legend (node `legend`) names the colours used.
    """
    graph, _ = draw_with_ids(
        root,
        show_data=show_data,
        show_grad=show_grad,
        params=params,
        rankdir=rankdir,
        highlight=highlight,
        max_elements=max_elements,
    )
    return graph


class GraphIds:
    """Where each op of a drawing is: what `tg.explore` needs to light it up step by step.

    ops: id(node) -> the DOT name of its ellipse; out_edges: id(node) -> the id of the arrow
    from it to its output; in_edges: id(node) -> the ids of the arrows from its inputs, in
    input order; leaves: (DOT name of its box, Tensor) for each leaf that requires grad.
    """

    def __init__(self):
        self.leaves: list = []
        self.ops: dict[int, str] = {}
        self.out_edges: dict[int, str] = {}
        self.in_edges: dict[int, list[str]] = {}


def draw_with_ids(
    root,
    *,
    show_data=True,
    show_grad=True,
    params=None,
    rankdir="TB",
    highlight=None,
    max_elements=6,
    legend=True,
    element_ids=False,
):
    """`draw_graph`, returning `(graph, GraphIds)`; with element_ids=True every op node and
    edge carries an `id` attribute (SVG element id): the DOT name, `<op>_out` and
    `<op>_in<i>`."""
    graphviz = _import_graphviz()
    names = _parameter_names(params)
    ids = GraphIds()
    graph = _graph_class(graphviz)(
        graph_attr={"rankdir": rankdir},
        node_attr={"fontname": "Helvetica", "fontsize": "11"},
        edge_attr={"fontname": "Helvetica", "fontsize": "9"},
    )
    # DOT names in the order things are first met: t0, op1, t2, ... A tensor is keyed by the
    # leaf itself or by the node that computed it (after backward it may exist nowhere else).
    tensors: dict[int, str] = {}
    ops = ids.ops
    kinds: set[str] = set()

    def add_tensor(key, tensor, shape, dtype, kind: str) -> str:
        tensors[id(key)] = name = f"t{len(tensors) + len(ops)}"
        label = _tensor_label(tensor, shape, dtype, names, show_data, show_grad, max_elements)
        style = "filled,dashed" if kind == "constant" else "filled"
        attrs = {"id": name} if element_ids else {}
        graph.node(name, _escape(label), shape="box", style=style, fillcolor=COLOURS[kind], **attrs)
        if kind in ("leaf", "parameter"):
            ids.leaves.append((name, tensor))
        kinds.add(kind)
        return name

    if root.grad_fn is None:
        add_tensor(root, root, root.shape, root.dtype, _leaf_kind(root, names))
        if legend:
            graph.node("legend", _legend(kinds, with_ops=False), shape="plaintext")
        return graph, ids

    focus, sent, received, focus_inputs = _focus(highlight)
    add_tensor(root.grad_fn, root, root.shape, root.dtype, "computed")
    # An explicit stack, not recursion: a graph may be thousands of nodes deep.
    stack = [root.grad_fn]
    while stack:
        node = stack.pop()
        ops[id(node)] = op = f"op{len(tensors) + len(ops)}"
        is_focus = node is focus
        label, attrs = node.name, {"tooltip": _escape(node.formula or node.name)}
        if element_ids:
            attrs["id"] = op
        if is_focus:
            rules = [rule.strip() for rule in node.formula.split(";") if rule.strip()]
            label = "\n".join([node.name, *rules])
            attrs.update(style="filled", fillcolor=HIGHLIGHT, penwidth="2")
        graph.node(op, _escape(label), **attrs)
        out_attrs = {"id": f"{op}_out"} if element_ids else {}
        if is_focus and received is not None:
            shown = received if isinstance(received, tuple) else (received,)  # one per output
            text = "; ".join("None" if g is None else _values(g, max_elements) for g in shown)
            out_attrs["label"] = _escape("grad_out " + text)
        graph.edge(op, tensors[id(node)], **out_attrs)
        ids.out_edges[id(node)] = f"{op}_out"
        ids.in_edges[id(node)] = []

        inputs = focus_inputs if is_focus else node.inputs  # None once backward freed them
        for i, edge in enumerate(node.edges):
            tensor = inputs[i] if inputs else None
            shape, dtype = node.input_shapes[i], node.input_dtypes[i]
            if id(edge) in tensors:
                source = tensors[id(edge)]
            elif isinstance(edge, Context):
                if tensor is None and edge.retained is not None:  # kept by retain_grad()
                    tensor = edge.retained()
                source = add_tensor(edge, tensor, shape, dtype, "computed")
                stack.append(edge)
            else:
                source = add_tensor(edge, edge, shape, dtype, _leaf_kind(edge, names))
            edge_attrs = {"id": f"{op}_in{i}"} if element_ids else {}
            if is_focus and sent is not None and sent[i] is not None:
                text = "grad " + _values(sent[i], max_elements)
                edge_attrs.update(label=_escape(text), color="darkorange")
            graph.edge(source, op, **edge_attrs)
            ids.in_edges[id(node)].append(f"{op}_in{i}")
    if focus is not None and id(focus) not in ops:
        raise ValueError(
            f"draw_graph: highlight={focus!r} is not a node of this graph; pass a step of "
            "backprop_steps(root) (or one of its nodes) for the same root"
        )
    if legend:
        graph.node("legend", _legend(kinds, with_ops=True, focus=focus), shape="plaintext")
    return graph, ids


def render(graph, path) -> Path:
    """Write `graph` to `path` in the format its suffix names: .svg, .png, .pdf, ... or .dot.

    Every format but .dot (or .gv, the DOT source itself) needs Graphviz's `dot` program; if
    it is missing, the RuntimeError says how to install it.
    """
    path = Path(path)
    fmt = path.suffix.lstrip(".").lower()
    if fmt in ("dot", "gv"):
        path.write_text(graph.source)
        return path
    graphviz = _import_graphviz()
    if fmt not in graphviz.FORMATS:
        raise ValueError(
            f"render: cannot tell the format from {path.name!r}; end the file name with "
            ".svg, .png or .pdf (rendered by Graphviz) or .dot (the DOT source)"
        )
    require_dot(f"rendered to {fmt.upper()}")
    path.write_bytes(graph.pipe(format=fmt))
    return path


def require_dot(what: str = "rendered") -> None:
    """Raise a RuntimeError saying how to install Graphviz if its `dot` program is missing."""
    if shutil.which("dot") is None:
        raise RuntimeError(INSTALL_DOT.format(what=what))


# --- helpers ----------------------------------------------------------------------------------
def _import_graphviz():
    try:
        import graphviz
    except ImportError as error:  # a dependency of tinygrad_norm, but pip may have skipped it
        raise ImportError(
            "draw_graph needs the graphviz Python package: pip install graphviz "
            "(and Graphviz's `dot` program to render: apt-get / brew install graphviz)"
        ) from error
    return graphviz


@functools.cache
def _graph_class(graphviz):
    """`graphviz.Digraph`, except that showing or rendering it without `dot` says how to
    install `dot` (and still shows the DOT source) instead of failing with a bare error."""

    class Digraph(graphviz.Digraph):
        def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
            if shutil.which("dot") is None:  # Jupyter shows this text instead of the picture
                return {"text/plain": INSTALL_DOT.format(what="drawn") + "\n\n" + self.source}
            return super()._repr_mimebundle_(include, exclude, **kwargs)

        def render(self, *args, **kwargs):
            require_dot()
            return super().render(*args, **kwargs)

    Digraph.__module__ = __name__
    return Digraph


def _parameter_names(params) -> dict[int, str]:
    """id(tensor) -> name, from a Module, a dict name -> Tensor or pairs (name, Tensor)."""
    if params is None:
        return {}
    if hasattr(params, "named_parameters"):
        items = params.named_parameters()
    elif hasattr(params, "items"):
        items = params.items()
    else:
        items = params  # e.g. the generator model.named_parameters()
    return {id(tensor): name for name, tensor in items}


LEGEND_TEXT = {
    "leaf": "leaf (requires_grad)",
    "parameter": "parameter",
    "constant": "constant (no grad)",
    "computed": "computed tensor",
}


def _legend(kinds: set[str], with_ops: bool, focus=None) -> str:
    """An HTML-like Graphviz label: one coloured cell per kind of box drawn."""
    cells = [
        f'<TD BGCOLOR="{COLOURS[kind]}">{LEGEND_TEXT[kind]}</TD>'
        for kind in COLOURS
        if kind in kinds
    ]
    if with_ops:
        cells.append("<TD>op (ellipse)</TD>")
    if focus is not None:
        cells.append(f'<TD BGCOLOR="{HIGHLIGHT}">this step</TD>')
    rows = "".join(f"<TR>{cell}</TR>" for cell in cells)  # a column, beside a tall graph
    return f'<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="2">{rows}</TABLE>>'


def _leaf_kind(tensor, names: dict[int, str]) -> str:
    if id(tensor) in names:
        return "parameter"
    return "leaf" if tensor.requires_grad else "constant"


def _tensor_label(tensor, shape, dtype, names, show_data, show_grad, max_elements) -> str:
    """name, shape (and dtype if not the default), a few values, a few gradient values."""
    name = names.get(id(tensor)) or getattr(tensor, "name", None)
    shape_text = str(tuple(shape)) if len(shape) else "(scalar)"
    if dtype != get_default_dtype():
        shape_text += f" {dtype}"
    lines = [name, shape_text] if name else [shape_text]
    if show_data and tensor is not None:
        lines.append(_values(tensor.array, max_elements))
    if show_grad and tensor is not None and tensor.grad is not None:
        lines.append("grad " + _values(tensor.grad.array, max_elements))
    return "\n".join(lines)


def _values(array, max_elements: int) -> str:
    """`[0.1, -1.2, 3, ...]`: the first `max_elements` values, 4 significant digits."""
    flat = np.asarray(getattr(array, "array", array)).ravel()
    fmt = "{:.4g}" if flat.dtype.kind in "fc" else "{}"
    shown = ", ".join(fmt.format(v) for v in flat[:max_elements])
    return "[" + shown + (", ..." if flat.size > max_elements else "") + "]"


def _escape(text: str) -> str:
    """Plain text as a DOT label: backslashes kept, line breaks as DOT's centred `\\n`."""
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _focus(highlight):
    """(node, gradients sent to each input, gradient received, its inputs) to highlight."""
    if highlight is None:
        return None, None, None, None
    if isinstance(highlight, Context):
        return highlight, None, None, highlight.inputs
    return highlight.node, highlight.grad_inputs, highlight.grad_output, highlight.inputs
