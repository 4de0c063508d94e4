"""Drawing the graph: `tg.draw_graph`, `learn.draw.render` and `python -m tinygrad_norm draw`."""

import re
import shutil
import subprocess
import sys

import graphviz
import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm import nn
from tinygrad_norm.autograd.engine import topological_sort
from tinygrad_norm.cli import main
from tinygrad_norm.learn.draw import HIGHLIGHT, render

needs_dot = pytest.mark.skipif(
    shutil.which("dot") is None,
    reason="Graphviz's dot is not installed (make graphviz; CI installs it)",
)


def parse(graph):
    """{DOT name: attribute text} for the nodes and [(tail, head, attribute text)] for edges
    (the legend left out)."""
    nodes, edges = {}, []
    for line in graph.body:
        edge = re.match(r"\s*(\w+) -> (\w+)(?: \[(.*)\])?\s*$", line)
        node = re.match(r"\s*(\w+) \[(.*)\]\s*$", line)
        if edge:
            edges.append((edge[1], edge[2], edge[3] or ""))
        elif node and node[1] != "legend":
            nodes[node[1]] = node[2]
    return nodes, edges


def find(nodes, text):
    """The one node whose attributes contain `text`."""
    (name,) = [name for name, attrs in nodes.items() if text in attrs]
    return name


def a_times_b():
    a = tg.tensor([2.0, 3.0], requires_grad=True, name="a")
    b = tg.tensor([4.0, 5.0], requires_grad=True, name="b")
    return a, b, (a * b).sum()


# --- the graph -------------------------------------------------------------------------------
def test_nodes_and_edges_of_a_small_graph():
    a, b, loss = a_times_b()
    nodes, edges = parse(tg.draw_graph(loss))
    # boxes a, b, a*b, loss and ellipses Mul, Sum; arrows run the way forward ran
    assert len(nodes) == 6 and len(edges) == 5
    box_a, box_b = find(nodes, 'label="a\\n'), find(nodes, 'label="b\\n')
    mul, total = find(nodes, "MulBackward"), find(nodes, "label=SumBackward")
    (product,) = [head for tail, head, _ in edges if tail == mul]
    (out,) = [head for tail, head, _ in edges if tail == total]
    assert {(t, h) for t, h, _ in edges} == {
        (box_a, mul),
        (box_b, mul),
        (mul, product),
        (product, total),
        (total, out),
    }
    assert "shape=box" in nodes[product] and "shape=box" in nodes[out]
    assert "shape=box" not in nodes[mul]
    assert "grad_a = grad_out * b" in nodes[mul]  # the rule, as a tooltip


def test_a_leaf_root_is_one_box():
    x = tg.tensor([1.0, 2.0], requires_grad=True, name="x")
    nodes, edges = parse(tg.draw_graph(x))
    assert len(nodes) == 1 and edges == []
    assert 'label="x\\n(2,)\\n[1, 2]"' in next(iter(nodes.values()))


def test_a_tensor_used_twice_is_drawn_once():
    x = tg.tensor([1.0, 2.0], requires_grad=True, name="x")
    y = x.exp()
    z = y * y + y  # y feeds Mul twice and Add once
    nodes, edges = parse(tg.draw_graph(z))
    # boxes x, y, y*y, z; ops Exp, Mul, Add
    assert len(nodes) == 7
    exp = find(nodes, "label=ExpBackward")
    (box_y,) = [head for tail, head, _ in edges if tail == exp]
    assert sorted(head for tail, head, _ in edges if tail == box_y) == sorted(
        [find(nodes, "MulBackward")] * 2 + [find(nodes, "label=AddBackward")]
    )
    assert len(edges) == 1 + 1 + 3 + 1 + 1 + 1  # x->Exp, Exp->y, y->(Mul, Mul, Add), ...


def test_a_deep_graph_is_drawn_without_recursion():
    x = tg.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(3000):  # deeper than Python's recursion limit
        y = y * 1.0
    nodes, edges = parse(tg.draw_graph(y, show_data=False))
    assert len(nodes) == 1 + 3000 * 3  # x; then per op: its node, its output, the constant 1.0
    assert len(edges) == 3000 * 3


def test_tensor_names_and_parameter_names_appear():
    class Affine(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(tg.tensor([2.0, 3.0]))

    model = Affine()
    x = tg.tensor([1.0, 1.0], requires_grad=True, name="input_x")
    loss = (x * model.scale).sum()
    assert "input_x" in tg.draw_graph(loss).source
    assert "scale" not in tg.draw_graph(loss).source
    for params, name in (
        (model, "scale"),
        (dict(model.named_parameters()), "scale"),
        ({"my.weight": model.scale}, "my.weight"),
    ):
        nodes, _ = parse(tg.draw_graph(loss, params=params))
        box = find(nodes, f'label="{name}\\n')
        assert "fillcolor=darkseagreen1" in nodes[box]  # parameters have their own colour
        assert "input_x" in tg.draw_graph(loss, params=params).source


def test_values_and_grads_appear_only_when_asked():
    a, b, loss = a_times_b()
    assert "[2, 3]" in tg.draw_graph(loss).source
    assert "grad [" not in tg.draw_graph(loss).source  # no backward yet
    loss.backward()
    source = tg.draw_graph(loss).source
    assert 'label="a\\n(2,)\\n[2, 3]\\ngrad [4, 5]"' in source
    assert 'label="b\\n(2,)\\n[4, 5]\\ngrad [2, 3]"' in source
    no_data = tg.draw_graph(loss, show_data=False).source
    assert 'label="a\\n(2,)\\ngrad [4, 5]"' in no_data
    assert "\\n[2, 3]" not in no_data and "\\n[4, 5]" not in no_data  # no value lines
    no_grad = tg.draw_graph(loss, show_grad=False).source
    assert 'label="a\\n(2,)\\n[2, 3]"' in no_grad and "grad [" not in no_grad


def test_at_most_max_elements_values_and_the_dtype_when_not_the_default():
    x = tg.tensor(np.arange(10.0), requires_grad=True, name="x")  # float64
    source = tg.draw_graph(x, max_elements=3).source
    assert 'label="x\\n(10,) float64\\n[0, 1, 2, ...]"' in source
    assert "float32" not in tg.draw_graph(tg.tensor([1.0], requires_grad=True)).source


def test_computed_values_show_while_the_graph_holds_them():
    a, b, loss = a_times_b()
    loss.backward(retain_graph=True)
    assert "[8, 15]" in tg.draw_graph(loss).source  # the box of a * b
    a, b, loss = a_times_b()
    loss.backward()  # frees them: the box shows its shape alone
    nodes, _ = parse(tg.draw_graph(loss))
    assert "[8, 15]" not in tg.draw_graph(loss).source
    assert 'label="(2,)"' in nodes[find(nodes, 'label="(2,)"')]


# --- a step's drawing ------------------------------------------------------------------------
def test_a_steps_drawing_highlights_its_node_and_labels_its_edges():
    a, b, loss = a_times_b()
    steps = list(tg.backprop_steps(loss))
    mul_step = steps[1]
    assert mul_step.op == "MulBackward"
    graph = mul_step.draw()
    assert graph.source == tg.draw_graph(loss, highlight=mul_step).source
    nodes, edges = parse(graph)
    mul = find(nodes, "MulBackward")
    assert [name for name, attrs in nodes.items() if HIGHLIGHT in attrs] == [mul]
    assert "fillcolor=gold" in nodes[mul]
    assert "grad_a = grad_out * b\\ngrad_b = grad_out * a" in nodes[mul]  # the rule, shown
    labels = {tail: attrs for tail, head, attrs in edges if head == mul}
    assert 'label="grad [4, 5]"' in labels[find(nodes, 'label="a\\n')]  # grad_out * b
    assert 'label="grad [2, 3]"' in labels[find(nodes, 'label="b\\n')]  # grad_out * a
    (out_edge,) = [attrs for tail, head, attrs in edges if tail == mul]
    assert 'label="grad_out [1, 1]"' in out_edge
    others = [attrs for tail, head, attrs in edges if mul not in (tail, head)]
    assert all("label=" not in attrs for attrs in others)

    plain = parse(tg.draw_graph(loss))
    assert not any(HIGHLIGHT in attrs for attrs in plain[0].values())
    assert not any("label=" in attrs for _, _, attrs in plain[1])


def test_a_steps_drawing_while_stepping_shows_its_inputs_values():
    a = tg.tensor([2.0, 3.0], requires_grad=True)
    b = tg.tensor([4.0, 5.0], requires_grad=True)
    loss = (a * b * 2).sum()
    for step in tg.backprop_steps(loss):  # each node's values are freed as it is passed
        if step.index == 1:
            source = step.draw().source
    assert "[8, 15]" in source  # a * b, an input of the highlighted node


def test_highlight_a_node_and_a_node_of_another_graph():
    a, b, loss = a_times_b()
    mul = loss.grad_fn.edges[0]
    nodes, _ = parse(tg.draw_graph(loss, highlight=mul))
    assert [name for name, attrs in nodes.items() if HIGHLIGHT in attrs] == [
        find(nodes, "MulBackward")
    ]
    _, _, other = a_times_b()
    with pytest.raises(ValueError, match="not a node of this graph"):
        tg.draw_graph(other, highlight=mul)


# --- rendering -------------------------------------------------------------------------------
def test_importing_tinygrad_norm_does_not_import_graphviz():
    code = "import sys, tinygrad_norm; print('graphviz' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _layer_norm_loss():
    x = tg.randn(2, 3, requires_grad=True)
    x.name = "x"
    params = {"ln.weight": nn.Parameter(tg.ones(3)), "ln.bias": nn.Parameter(tg.zeros(3))}
    mean = x.mean(dim=-1, keepdim=True)
    y = (x - mean) / (x.var(dim=-1, unbiased=False, keepdim=True) + 1e-5).sqrt()
    loss = (y * params["ln.weight"] + params["ln.bias"]).sum()
    loss.backward()
    return loss, params


@needs_dot
def test_a_layer_norm_renders_to_svg(tmp_path):
    loss, params = _layer_norm_loss()
    graph = tg.draw_graph(loss, params=params)
    assert isinstance(graph, graphviz.Digraph)
    assert 'label="ln.weight\\n' in graph.source and 'label="ln.bias\\n' in graph.source
    path = render(graph, tmp_path / "layer_norm.svg")
    text = path.read_text()
    assert path == tmp_path / "layer_norm.svg"
    assert text.startswith("<?xml") and "<svg" in text
    assert "SqrtBackward" in text and "ln.weight" in text
    png = render(graph, tmp_path / "layer_norm.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    assert "image/svg+xml" in graph._repr_mimebundle_()  # what Jupyter shows


@needs_dot
def test_a_gpt_block_renders_to_svg(tmp_path):
    models = pytest.importorskip("tinygrad_norm.models", reason="tinygrad_norm.models is missing")
    config = models.GPTConfig(vocab_size=11, n_ctx=4, d_model=8, n_layer=1, n_head=2, dropout=0.0)
    tg.manual_seed(0)
    block = models.Block(config)
    x = tg.randn(1, 4, 8, requires_grad=True)
    loss = block(x).sum()
    loss.backward()
    graph = tg.draw_graph(loss, params=block, show_data=False)
    for name, _ in block.named_parameters():
        assert f'label="{name}\\n' in graph.source
    nodes, _ = parse(graph)
    n_ops = sum("shape=box" not in attrs for attrs in nodes.values())
    assert n_ops == len(topological_sort([loss.grad_fn]))
    text = render(graph, tmp_path / "block.svg").read_text()
    assert text.startswith("<?xml") and "<svg" in text and "attn.c_attn.weight" in text


def test_without_dot_render_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    _, _, loss = a_times_b()
    graph = tg.draw_graph(loss)  # still made: the DOT source needs no Graphviz
    assert graph.source.startswith("digraph {")
    for show in (
        lambda: render(graph, tmp_path / "g.svg"),
        lambda: graph.render(tmp_path / "g", format="svg"),
    ):
        with pytest.raises(RuntimeError) as info:
            show()
        message = str(info.value)
        assert "`dot` program is not installed" in message
        assert "apt-get install graphviz" in message and "brew install graphviz" in message
    assert not (tmp_path / "g.svg").exists()
    bundle = graph._repr_mimebundle_()  # Jupyter: the message and the source, no traceback
    assert set(bundle) == {"text/plain"}
    assert "apt-get install graphviz" in bundle["text/plain"]
    assert graph.source in bundle["text/plain"]
    assert render(graph, tmp_path / "g.dot").read_text() == graph.source


def test_render_refuses_a_suffix_it_cannot_tell_the_format_from(tmp_path):
    _, _, loss = a_times_b()
    with pytest.raises(ValueError, match=r"\.svg, \.png or \.pdf"):
        render(tg.draw_graph(loss), tmp_path / "graph.txt")


# --- the command line ------------------------------------------------------------------------
def test_cli_draw_writes_the_dot_source(tmp_path, capsys):
    out = tmp_path / "layer_norm.dot"
    assert main(["draw", str(out)]) == 0
    source = out.read_text()
    assert source.startswith("digraph {") and "SqrtBackward" in source
    for name in ("x", "weight", "bias", "x_hat", "loss"):
        assert f'label="{name}\\n' in source
    assert "grad [" in source  # drawn after backward
    assert f"wrote {out}" in capsys.readouterr().out


def test_cli_draw_mlp_labels_the_parameters(tmp_path):
    out = tmp_path / "mlp.dot"
    assert main(["draw", "--example", "mlp", "--no-data", str(out)]) == 0
    source = out.read_text()
    for name in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"):
        assert f'label="{name}\\n' in source
    assert "ReluBackward" in source


@needs_dot
def test_cli_draw_writes_svg(tmp_path):
    out = tmp_path / "graph.svg"
    assert main(["draw", "--fused", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("<?xml") and "LayerNormBackward" in text


def test_cli_draw_without_dot_fails_with_the_install_message(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    assert main(["draw", str(tmp_path / "graph.svg")]) == 1
    assert "apt-get install graphviz" in capsys.readouterr().err
    assert not (tmp_path / "graph.svg").exists()


def test_cli_draw_help(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["draw", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "--example" in out and "layer_norm" in out and "mlp" in out
