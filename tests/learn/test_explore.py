"""The backprop explorer's page, read as text: `tg.explore` and `python -m tinygrad_norm explore`.

What a browser does with the page is tested in test_explore_browser.py.
"""

import re
import shutil

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.cli import main
from tinygrad_norm.cli.draw import mlp_example
from tinygrad_norm.cli.explore import EXAMPLES, gpt_block_example
from tinygrad_norm.learn.explore import _text

needs_dot = pytest.mark.skipif(
    shutil.which("dot") is None,
    reason="Graphviz's dot is not installed (make graphviz; CI installs it)",
)
# The only URLs a page may hold: the SVG namespaces, which are names, never fetched.
NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


def a_times_b():
    a = tg.tensor([2.0, 3.0], requires_grad=True, name="a")
    b = tg.tensor([4.0, 5.0], requires_grad=True, name="b")
    return a, b, (a * b).sum()


@needs_dot
def test_one_entry_per_step_of_backprop_steps_and_the_grads_of_backward():
    loss, model = mlp_example()
    explorer = tg.explore(loss, params=model)
    fresh_loss, fresh_model = mlp_example()
    expected = list(tg.backprop_steps(fresh_loss))
    assert [s["index"] for s in explorer.steps] == list(range(len(expected)))
    assert [s["op"] for s in explorer.steps] == [s.op for s in expected]
    assert [s["formula"] for s in explorer.steps] == [s.formula for s in expected]
    for mine, theirs in zip(explorer.steps, expected):
        assert mine["grad_output"] == _text(theirs.grad_output)
        assert [i["sent"] for i in mine["inputs"]] == [
            None if g is None else _text(g) for g in theirs.grad_inputs
        ]
    for (name, mine), (_, theirs) in zip(model.named_parameters(), fresh_model.named_parameters()):
        assert np.array_equal(mine.grad.numpy(), theirs.grad.numpy()), name  # as backward()
    assert {leaf["name"] for leaf in explorer.leaves} == {n for n, _ in model.named_parameters()}


@needs_dot
def test_the_rule_with_numbers_and_what_each_input_gets():
    a, b, loss = a_times_b()
    explorer = tg.explore(loss)
    sum_step, mul_step = explorer.steps
    assert mul_step["numbers"] == [
        "grad_a = [1, 1] * [4, 5] = [4, 5]",
        "grad_b = [1, 1] * [2, 3] = [2, 3]",
    ]
    assert sum_step["numbers"] == ["grad_a = 1 broadcast back over the summed axes = [1, 1]"]
    assert [i["label"] for i in mul_step["inputs"]] == ["input 0: a", "input 1: b"]
    assert mul_step["inputs"][0]["sent"] == "(2,)\n[4, 5]"
    assert a.grad.tolist() == [4.0, 5.0] and b.grad.tolist() == [2.0, 3.0]


@needs_dot
def test_large_tensors_are_summarised_and_get_no_rule_with_numbers():
    x = tg.randn(10, 10, requires_grad=True)
    explorer = tg.explore((x * x).sum())
    mul = explorer.steps[1]
    assert mul["numbers"] == []
    assert "100 values" in mul["grad_output"] and "mean 1" in mul["grad_output"]


@needs_dot
def test_parameter_names_from_named_parameters_a_module_or_a_dict():
    for params in (
        lambda model: model.named_parameters(),  # a generator, read once
        lambda model: model,
        lambda model: dict(model.named_parameters()),
    ):
        loss, model = mlp_example()
        explorer = tg.explore(loss, params=params(model))
        for name in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"):
            assert f">{name}</text>" in explorer.svg
        labels = [i["label"] for s in explorer.steps for i in s["inputs"]]
        assert "input 1: fc2.bias" in labels or "input 2: fc2.bias" in labels


@needs_dot
def test_the_page_is_self_contained():
    loss, block = gpt_block_example()
    explorer = tg.explore(loss, params=block)
    page = explorer.html()
    assert len(page.encode()) < 2_000_000
    assert set(re.findall(r"https?://[^\s\"'<>]*", page)) <= NAMESPACES
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import|url\(", page)
    for element_id in ("step-index", "step-op", "step-formula", "step-grad-output"):
        assert f'id="{element_id}"' in page
    for step in explorer.steps:  # every step's op node and arrows are in the SVG
        assert f'id="{step["node"]}"' in page and f'id="{step["out_edge"]}"' in page
    assert "<?xml" not in page and "<!DOCTYPE svg" not in page
    assert "</script>" not in page.split('id="explorer-data">', 1)[1].split("</script>", 1)[0]


@needs_dot
def test_a_name_with_a_closing_script_tag_cannot_end_the_data_early():
    a = tg.tensor([1.0], requires_grad=True, name="</script><b>")
    page = tg.explore((a * 2).sum(), title="<i>").html()
    data = page.split('id="explorer-data">', 1)[1].split("</script>", 1)[0]
    assert "<\\/script>" in data
    assert "<title>&lt;i&gt;</title>" in page


@needs_dot
def test_save_and_jupyter(tmp_path):
    _, _, loss = a_times_b()
    explorer = tg.explore(loss, title="a times b")
    path = explorer.save(tmp_path / "page.html")
    assert path.read_text(encoding="utf-8") == explorer.html()
    frame = explorer._repr_html_()
    assert frame.startswith("<iframe srcdoc=") and "&lt;svg" in frame
    with pytest.raises(FileNotFoundError, match="does not exist"):
        explorer.save(tmp_path / "missing" / "page.html")


def test_without_dot_explore_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    _, _, loss = a_times_b()
    with pytest.raises(RuntimeError, match="apt-get install graphviz"):
        tg.explore(loss)
    assert loss.grad_fn is not None  # nothing ran


def test_a_leaf_has_no_backward_pass_to_explore():
    with pytest.raises(ValueError, match="it is a leaf"):
        tg.explore(tg.tensor([1.0], requires_grad=True))


# --- the command line ------------------------------------------------------------------------
@needs_dot
@pytest.mark.parametrize("example", list(EXAMPLES))
def test_cli_explore_writes_each_example(example, tmp_path, capsys):
    out = tmp_path / f"{example}.html"
    assert main(["explore", "--example", example, "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"wrote {out.resolve()}" in printed and out.resolve().as_uri() in printed
    page = out.read_text(encoding="utf-8")
    assert "<svg" in page and 'id="step-formula"' in page
    assert len(page.encode()) < 2_000_000


@needs_dot
def test_cli_explore_a_script(tmp_path, capsys):
    script = tmp_path / "my_loss.py"
    script.write_text(
        "import tinygrad_norm as tg\n"
        "w = tg.nn.Parameter(tg.tensor([1.0, -2.0]))\n"
        "x = tg.tensor([3.0, 4.0])\n"
        "loss = (w * x).relu().sum()\n"
        "params = {'my_weight': w}\n"
    )
    out = tmp_path / "mine.html"
    assert main(["explore", "--script", str(script), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "my_weight" in page and "ReluBackward" in page and "my_loss.py" in page


def test_cli_explore_refuses_a_script_without_loss_and_a_missing_folder(tmp_path, capsys):
    script = tmp_path / "nothing.py"
    script.write_text("x = 1\n")
    assert main(["explore", "--script", str(script), "-o", str(tmp_path / "a.html")]) == 1
    assert "defines no `loss`" in capsys.readouterr().err
    assert main(["explore", "-o", str(tmp_path / "missing" / "a.html")]) == 1
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "a.html").exists()
