"""Stepping through backprop (`tg.backprop_steps`) and finding NaNs (`tg.detect_anomaly`)."""

import inspect
import os

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.autograd import backward_call
from tinygrad_norm.autograd.engine import topological_sort
from tinygrad_norm.cli import main
from tinygrad_norm.cli.steps import layer_norm_example
from tinygrad_norm.nn import functional as F

RNG = np.random.default_rng(0)
LN_DATA = {
    "x": RNG.standard_normal((2, 3)),
    "weight": RNG.standard_normal(3),
    "bias": RNG.standard_normal(3),
    "c": RNG.standard_normal((2, 3)),
}
MLP_DATA = {
    "x": RNG.standard_normal((4, 3)),
    "w1": RNG.standard_normal((3, 5)),
    "b1": RNG.standard_normal(5),
    "w2": RNG.standard_normal((5, 2)),
    "b2": RNG.standard_normal(2),
    "target": RNG.standard_normal((4, 2)),
}


def layer_norm_graph(eps=1e-5):
    """loss = sum(LayerNorm(x) * weight + bias) * c), composed from primitives."""
    x, weight, bias = (
        tg.tensor(LN_DATA[k], requires_grad=True, name=k) for k in ("x", "weight", "bias")
    )
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, unbiased=False, keepdim=True)
    y = (x - mean) / (var + eps).sqrt() * weight + bias
    loss = (y * tg.tensor(LN_DATA["c"])).sum()
    return loss, {"x": x, "weight": weight, "bias": bias}


def mlp_graph():
    """loss = mean((relu(x @ w1 + b1) @ w2 + b2 - target)^2); x needs a gradient too."""
    leaves = {
        k: tg.tensor(MLP_DATA[k], requires_grad=True, name=k) for k in ("x", "w1", "b1", "w2", "b2")
    }
    hidden = (leaves["x"] @ leaves["w1"] + leaves["b1"]).relu()
    out = hidden @ leaves["w2"] + leaves["b2"]
    loss = ((out - tg.tensor(MLP_DATA["target"])) ** 2).mean()
    return loss, leaves


GRAPHS = {"layer_norm": layer_norm_graph, "mlp": mlp_graph}


# --- the steps are the engine's own ----------------------------------------------------------
@pytest.mark.parametrize("graph", GRAPHS)
def test_running_all_steps_leaves_exactly_the_grads_of_backward(graph):
    stepped_loss, stepped = GRAPHS[graph]()
    fresh_loss, fresh = GRAPHS[graph]()
    steps = list(tg.backprop_steps(stepped_loss))
    fresh_loss.backward()
    assert len(steps) > 5
    for name, leaf in stepped.items():
        assert np.abs(fresh[name].grad.numpy()).max() > 0  # a real gradient, not an empty one
        np.testing.assert_array_equal(leaf.grad.numpy(), fresh[name].grad.numpy(), err_msg=name)


def test_the_stepped_layer_norm_grads_are_those_of_the_fused_layer_norm():
    loss, leaves = layer_norm_graph()
    for _ in tg.backprop_steps(loss):
        pass
    x, weight, bias = (tg.tensor(LN_DATA[k], requires_grad=True) for k in ("x", "weight", "bias"))
    (F.layer_norm(x, (3,), weight, bias, eps=1e-5) * tg.tensor(LN_DATA["c"])).sum().backward()
    for name, fused in (("x", x), ("weight", weight), ("bias", bias)):
        np.testing.assert_allclose(leaves[name].grad.numpy(), fused.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("graph", GRAPHS)
def test_one_step_per_op_node_in_the_engines_order(graph):
    loss, leaves = GRAPHS[graph]()
    nodes = topological_sort([loss.grad_fn])
    steps = list(loss.backward_steps())
    assert [id(step.node) for step in steps] == [id(node) for node in nodes]
    assert [step.index for step in steps] == list(range(len(nodes)))
    assert [step.op for step in steps] == [node.name for node in nodes]
    assert steps[0].node is loss.grad_fn
    leaf_ids = {id(leaf) for leaf in leaves.values()}
    assert not any(id(step.node) in leaf_ids for step in steps)  # leaves get no step


@pytest.mark.parametrize("graph", GRAPHS)
def test_each_steps_grad_inputs_are_what_the_ops_own_backward_returns(graph):
    loss, _ = GRAPHS[graph]()
    steps = list(tg.backprop_steps(loss, retain_graph=True))
    with tg.no_grad():
        for step in steps:
            expected = backward_call.call_backward(step.node, step.grad_output)
            assert len(expected) == len(step.grad_inputs) == len(step.inputs)
            for sent, own in zip(step.grad_inputs, expected):
                assert (sent is None) == (own is None), step.op
                if sent is not None:
                    np.testing.assert_array_equal(sent.numpy(), own.numpy(), err_msg=step.op)


def test_a_mul_step_sends_grad_out_times_the_other_input():
    a = tg.tensor([2.0, 3.0], requires_grad=True, name="a")
    b = tg.tensor([4.0, 5.0], requires_grad=True, name="b")
    g = np.array([10.0, -1.0], dtype=np.float32)
    (step,) = tg.backprop_steps(a * b, gradient=tg.tensor(g))
    assert (
        step.op == "MulBackward" and step.formula == "grad_a = grad_out * b;  grad_b = grad_out * a"
    )
    np.testing.assert_array_equal(step.grad_output.numpy(), g)
    np.testing.assert_array_equal(step.grad_inputs[0].numpy(), g * b.numpy())
    np.testing.assert_array_equal(step.grad_inputs[1].numpy(), g * a.numpy())
    assert step.inputs[0] is a and step.inputs[1] is b


def test_str_of_a_step_shows_the_op_the_shapes_and_the_rule():
    loss, _ = layer_norm_graph()
    steps = list(tg.backprop_steps(loss))
    for step in steps:
        text = str(step)
        assert text.startswith(f"step {step.index}: {step.op}")
        assert step.formula and step.formula in text  # every op of this graph states its rule
        for x in step.inputs:
            assert str(tuple(x.shape)) in text
    (div,) = [s for s in steps if s.op == "DivBackward" and s.inputs[1].shape == (2, 1)]
    text = str(div)
    assert "grad_a = grad_out / b;  grad_b = -grad_out * a / b**2" in text
    assert "(2, 3)" in text and "(2, 1)" in text
    assert f"{div.grad_inputs[1].numpy().ravel()[0]:.4g}" in text  # a value it sent
    final = str(steps[-1])
    assert "'x'" in final  # the leaf's name


def test_tensor_backward_steps_is_backprop_steps():
    loss_a, leaves_a = mlp_graph()
    loss_b, leaves_b = mlp_graph()
    steps_a = list(loss_a.backward_steps())
    steps_b = list(tg.backprop_steps(loss_b))
    assert [s.op for s in steps_a] == [s.op for s in steps_b]
    for sa, sb in zip(steps_a, steps_b):
        np.testing.assert_array_equal(sa.grad_output.numpy(), sb.grad_output.numpy())
    for name in leaves_a:
        np.testing.assert_array_equal(leaves_a[name].grad.numpy(), leaves_b[name].grad.numpy())


def test_accumulated_shows_the_sum_after_a_leafs_second_use():
    x = tg.tensor([1.0, 2.0], requires_grad=True, name="x")
    u = tg.tensor([3.0, 4.0])
    v = tg.tensor([10.0, 20.0])
    loss = (x * u).sum() + (x * v).sum()
    uses = [(s, i) for s in tg.backprop_steps(loss) for i, t in enumerate(s.inputs) if t is x]
    assert len(uses) == 2
    (first, i), (second, j) = uses
    np.testing.assert_array_equal(first.accumulated[i].numpy(), first.grad_inputs[i].numpy())
    total = first.grad_inputs[i].numpy() + second.grad_inputs[j].numpy()
    np.testing.assert_array_equal(second.accumulated[j].numpy(), total)
    np.testing.assert_array_equal(total, u.numpy() + v.numpy())
    np.testing.assert_array_equal(x.grad.numpy(), total)


def test_accumulated_of_a_leaf_used_twice_by_one_op():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    (step,) = tg.backprop_steps(x * x, gradient=tg.ones(2))
    np.testing.assert_array_equal(step.grad_inputs[0].numpy(), x.numpy())
    np.testing.assert_array_equal(step.accumulated[0].numpy(), 2 * x.numpy())
    np.testing.assert_array_equal(step.accumulated[1].numpy(), 2 * x.numpy())


# --- detect_anomaly --------------------------------------------------------------------------
def _line_above() -> int:
    return inspect.currentframe().f_back.f_lineno - 1


def _site(line: int) -> str:
    return f'{os.path.basename(__file__)}", line {line}'


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy on sqrt'(0) = 1/0
def test_detect_anomaly_turned_on_between_steps_checks_the_steps_after_it():
    """The mode is read at each node, as PyTorch does: a learner who steps once, then turns
    anomaly detection on, gets the inf that sqrt'(0) sends back from the next steps."""
    x = tg.tensor([0.0, 1.0], requires_grad=True)
    steps = iter(tg.backprop_steps((x.sqrt() * 2).sum()))
    next(steps)  # SumBackward: finite
    with tg.detect_anomaly(), pytest.raises(RuntimeError, match="SqrtBackward returned inf"):
        for _ in steps:
            pass


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy on log(-1), 0 * inf
def test_detect_anomaly_names_the_op_and_line_of_a_nan_from_a_log_of_a_negative():
    x = tg.tensor([-1.0, 2.0], requires_grad=True)
    with tg.detect_anomaly():
        squared_log = x.log() ** 2  # log(-1) is nan; d(u^2)/du = 2u carries it into backward
        line = _line_above()
        loss = squared_log.sum()
        with pytest.raises(RuntimeError) as info:
            loss.backward()
    message = str(info.value)
    assert "PowScalarBackward returned nan" in message
    assert _site(line) in message and "squared_log = x.log() ** 2" in message


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy on log(-1), 0 * inf
def test_detect_anomaly_names_the_op_and_line_of_zero_times_inf():
    x = tg.tensor([1000.0], requires_grad=True)  # exp(1000) overflows to inf
    with tg.detect_anomaly():
        big = x.exp()
        line = _line_above()
        loss = (big * 0.0).sum()  # Mul sends 0 back; ExpBackward makes 0 * exp(x) = 0 * inf
        with pytest.raises(RuntimeError) as info:
            loss.backward()
    message = str(info.value)
    assert "ExpBackward returned nan" in message and "MulBackward" not in message
    assert _site(line) in message and "big = x.exp()" in message


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy on log(-1), 0 * inf
def test_detect_anomaly_names_the_op_and_line_of_an_inf_made_in_backward():
    x = tg.tensor([0.0, 4.0], requires_grad=True)
    with tg.detect_anomaly():
        root = x.sqrt()  # finite forward, infinite slope 1 / (2 sqrt(x)) at 0
        line = _line_above()
        with pytest.raises(RuntimeError) as info:
            root.sum().backward()
    message = str(info.value)
    assert "SqrtBackward returned inf" in message and "input 0" in message
    assert _site(line) in message and "root = x.sqrt()" in message


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy on log(-1), 0 * inf
def test_detect_anomaly_does_nothing_outside_its_block():
    x = tg.tensor([0.0, 4.0], requires_grad=True)
    with tg.detect_anomaly():
        pass
    x.sqrt().sum().backward()  # no error: the inf simply lands in .grad
    assert np.isinf(x.grad.numpy()[0]) and x.grad.numpy()[1] == 0.25
    assert not hasattr(x.sqrt().grad_fn, "creation_site")


# --- the command line ------------------------------------------------------------------------
def test_the_cli_example_is_layer_norm():
    composed, leaves = layer_norm_example()
    fused, fused_leaves = layer_norm_example(fused=True)
    assert "LayerNormBackward" not in {n.name for n in topological_sort([composed.grad_fn])}
    assert "LayerNormBackward" in {n.name for n in topological_sort([fused.grad_fn])}
    np.testing.assert_allclose(composed.item(), fused.item(), rtol=1e-6)
    composed.backward()
    fused.backward()
    for name in leaves:
        np.testing.assert_allclose(
            leaves[name].grad.numpy(), fused_leaves[name].grad.numpy(), atol=1e-5
        )


def test_cli_steps_walks_every_node_and_checks_against_backward(capsys):
    assert main(["steps"]) == 0
    out = capsys.readouterr().out
    loss, _ = layer_norm_example()
    names = [node.name for node in topological_sort([loss.grad_fn])]
    headers = [line for line in out.splitlines() if line.startswith("step ")]
    assert headers == [f"step {i}: {name}" for i, name in enumerate(names)]
    assert "SqrtBackward" in names and "grad_a = grad_out / (2 * out)" in out
    assert "input 0 'x_hat' (2, 3):" in out
    assert "equal those of loss.backward() on a fresh copy" in out


def test_cli_steps_fused(capsys):
    assert main(["steps", "--fused"]) == 0
    out = capsys.readouterr().out
    assert "step 2: LayerNormBackward" in out and "SqrtBackward" not in out
    assert "equal those of loss.backward()" in out


def test_cli_steps_help(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["steps", "--help"])
    assert exit_info.value.code == 0
    assert "--fused" in capsys.readouterr().out
