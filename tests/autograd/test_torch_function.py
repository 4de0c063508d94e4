"""`torch.autograd.Function` (`tg.autograd.Function`): forward on Tensors with grad mode off,
old and new style, several outputs, mark_dirty, mark_non_differentiable, materialize_grads,
once_differentiable; Node basics; saved_tensors_hooks; anomaly mode under PyTorch's names;
the step-through tool and the explorer show these nodes."""

import shutil

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.autograd import Function, once_differentiable
from tinygrad_norm.cli import main


def leaf(*values):
    return tg.tensor(list(values), dtype=tg.float64, requires_grad=True)


class Cube(Function):
    """y = x ** 3"""

    @staticmethod
    def forward(ctx, x):
        ctx.seen = (type(x), tg.is_grad_enabled())
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2


class CubeNewStyle(Function):
    formula = "grad_x = grad_out * 3 * x**2"

    @staticmethod
    def forward(x, power=3):
        return x**power

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, ctx.power = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * ctx.power * x ** (ctx.power - 1), None


class SinCos(Function):
    @staticmethod
    def forward(ctx, x, materialize):
        ctx.set_materialize_grads(materialize)
        ctx.save_for_backward(x)
        return x.sin(), x.cos()

    @staticmethod
    def backward(ctx, grad_sin, grad_cos):
        ctx.received = (grad_sin, grad_cos)
        (x,) = ctx.saved_tensors
        grad = tg.zeros_like(x)
        if grad_sin is not None:
            grad = grad + grad_sin * x.cos()
        if grad_cos is not None:
            grad = grad - grad_cos * x.sin()
        return grad, None


def test_forward_receives_tensors_with_grad_mode_off_and_records_one_node():
    x = leaf(1.0, 2.0)
    y = Cube.apply(x)
    assert y.grad_fn.seen == (tg.Tensor, False)
    assert y.grad_fn.name() == "CubeBackward" and y.grad_fn.name == "CubeBackward"
    assert y.grad_fn.next_functions[0][0].variable is x
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 12.0])


def test_without_a_tensor_that_requires_grad_nothing_is_recorded():
    y = Cube.apply(tg.tensor([2.0]))
    assert y.grad_fn is None and not y.requires_grad
    with tg.no_grad():
        assert Cube.apply(leaf(2.0)).grad_fn is None


def test_new_style_setup_context_and_a_number_argument():
    x = leaf(1.0, 2.0)
    y = CubeNewStyle.apply(x, 3)
    (g,) = tg.autograd.grad(y.sum(), x, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), [3.0, 12.0])
    g.sum().backward()  # second derivative: 6 x
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 12.0])
    assert y.grad_fn.needs_input_grad == (True, False)


def test_each_output_gets_its_own_gradient_and_missing_ones_are_zeros_or_none():
    x = leaf(0.5, 1.0)
    s, c = SinCos.apply(x, True)
    c.sum().backward(retain_graph=True)
    received = c.grad_fn.received
    np.testing.assert_array_equal(received[0].numpy(), [0.0, 0.0])  # materialized
    np.testing.assert_allclose(x.grad.numpy(), -np.sin([0.5, 1.0]))
    x.grad = None
    s, c = SinCos.apply(x, False)
    (2 * s).sum().backward()
    assert s.grad_fn.received[1] is None
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos([0.5, 1.0]))
    assert s.grad_fn is c.grad_fn
    assert [n for _, n in (s + c).grad_fn.next_functions] == [0, 1]


def test_both_outputs_used_sum_into_one_backward_call():
    x = leaf(0.5)
    s, c = SinCos.apply(x, True)
    (s * 3 + c * s).backward()
    want = 3 * np.cos(0.5) + np.cos(0.5) ** 2 - np.sin(0.5) ** 2
    np.testing.assert_allclose(x.grad.numpy(), [want])
    assert tg.gradcheck(lambda t: SinCos.apply(t, True), leaf(0.3, -0.7))


class Sort(Function):
    @staticmethod
    def forward(ctx, x):
        values, indices = x.sort()
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        return tg.zeros_like(grad_values).index_add(0, indices, grad_values)


def test_mark_non_differentiable_outputs_are_constants():
    x = leaf(3.0, 1.0, 2.0)
    values, indices = Sort.apply(x)
    assert indices.tolist() == [1, 2, 0] and not indices.requires_grad
    assert values.requires_grad
    (values * tg.tensor([1.0, 2.0, 3.0], dtype=tg.float64)).sum().backward()
    assert x.grad.tolist() == [3.0, 1.0, 2.0]


class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        x.exp_()
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


def test_mark_dirty_makes_the_changed_input_the_output():
    x = leaf(0.0, 1.0)
    copy = x.clone()
    y = Exp.apply(copy)
    assert y is copy and y.grad_fn.name == "ExpBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.0, 1.0]))
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        Exp.apply(leaf(1.0))


def test_an_input_returned_as_it_is_becomes_a_view_with_this_node():
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * 2

    x = leaf(1.0)
    y = Identity.apply(x)
    assert y is not x and y.grad_fn.name == "IdentityBackward"
    y.backward()
    assert x.grad.tolist() == [2.0]


def test_backward_may_return_more_nones_than_inputs():
    class Twice(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * 2, None, None

    x = leaf(1.0)
    Twice.apply(x).backward()
    assert x.grad.tolist() == [2.0]


class CubeOnce(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        assert not tg.is_grad_enabled()
        return grad_output * 3 * x**2


def once_differentiable_script(torch, CubeOnce) -> list:
    """What a second derivative through a @once_differentiable backward gives (as PyTorch:
    refused when a gradient the backward received requires grad, else a constant)."""
    seen = []
    x = torch.tensor([2.0], dtype=torch.float64, requires_grad=True)
    CubeOnce.apply(x).backward()
    seen.append(x.grad.tolist())
    (g,) = torch.autograd.grad(CubeOnce.apply(x), x, torch.ones(1, dtype=torch.float64),
                               create_graph=True)  # fmt: skip
    seen.append((g.tolist(), g.requires_grad))  # grad_output ones: g is a constant
    (g,) = torch.autograd.grad(CubeOnce.apply(x) ** 2, x, create_graph=True)
    seen.append((g.tolist(), g.requires_grad))  # grad_output 2 y requires grad: g is marked
    try:
        g.backward()
    except RuntimeError as error:
        seen.append(str(error).split(" (")[0])
    (g,) = torch.autograd.grad(CubeOnce.apply(x) ** 2, x, create_graph=True)
    seen.append(torch.autograd.grad(g, x, allow_unused=True))  # the marked node leads not to x
    return seen


def test_once_differentiable_works_once_and_refuses_a_second_time_by_name():
    seen = once_differentiable_script(tg, CubeOnce)
    assert seen[:3] == [[12.0], ([12.0], False), ([192.0], True)]
    assert (
        seen[3]
        == "trying to differentiate twice a function that was marked with @once_differentiable"
    )
    y = CubeOnce.apply(x := leaf(2.0)) ** 2
    (g,) = tg.autograd.grad(y, x, create_graph=True)
    with pytest.raises(RuntimeError, match=r"differentiate twice.*@once_differentiable.*CubeOnce"):
        g.backward()


@pytest.mark.oracle
def test_once_differentiable_refuses_as_pytorch():
    torch = pytest.importorskip("torch")

    class TorchCubeOnce(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        @torch.autograd.function.once_differentiable
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x**2

    assert once_differentiable_script(tg, CubeOnce) == once_differentiable_script(
        torch, TorchCubeOnce
    )


def test_vmap_rule_is_not_here_with_the_reason():
    with pytest.raises(NotImplementedError, match="a loop over the mapped dimension"):
        Cube.vmap(None, (0,), tg.ones(1))
    assert Cube.generate_vmap_rule is False


def test_save_for_forward_is_kept():
    class Keeps(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x)
            ctx.kept = ctx.saved_for_forward
            return x * 1

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output

    x = leaf(1.0)
    assert Keeps.apply(x).grad_fn.kept[0] is x


def test_teaching_function_is_unchanged_and_both_make_the_same_kind_of_node():
    class Square(tg.Function):
        @staticmethod
        def forward(ctx, x):
            assert isinstance(x, np.ndarray)
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 2 * x

    x = leaf(3.0)
    y = Square.apply(x)
    assert isinstance(y.grad_fn, tg.autograd.graph.Node)
    assert isinstance(Cube.apply(x).grad_fn, tg.autograd.graph.Node)
    assert tg.Function is not tg.autograd.Function


def test_node_hooks_see_and_replace_gradients():
    x = leaf(2.0)
    y = Cube.apply(x)
    seen = []
    y.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 10,))
    handle = y.grad_fn.register_hook(lambda gi, go: seen.append((gi[0].item(), go[0].item())))
    y.backward(retain_graph=True)
    assert seen == [(120.0, 10.0)] and x.grad.tolist() == [120.0]
    handle.remove()
    y.backward()
    assert len(seen) == 1


def test_saved_tensors_hooks_pack_and_unpack_what_is_saved():
    log = []
    x = leaf(1.0, 2.0)
    hooks = tg.autograd.graph.saved_tensors_hooks(
        lambda t: log.append("pack") or t.numpy(), lambda a: log.append("unpack") or tg.tensor(a)
    )
    with hooks:
        y = Cube.apply(x)
    assert log == ["pack"]
    y.sum().backward()
    assert log == ["pack", "unpack"]
    assert x.grad.tolist() == [3.0, 12.0]


def test_anomaly_mode_under_pytorchs_names():
    z = tg.zeros(1, dtype=tg.float64, requires_grad=True)
    with np.errstate(all="ignore"):
        with pytest.raises(RuntimeError, match="SqrtBackward returned nan"):
            with tg.autograd.detect_anomaly():
                (z.sqrt() * 0).sum().backward()
        with tg.autograd.detect_anomaly():  # as PyTorch's: an infinity passes
            z.sqrt().sum().backward()
        with pytest.raises(RuntimeError, match="returned inf"), tg.detect_anomaly():
            z.sqrt().sum().backward()  # ours stops there too
        tg.autograd.set_detect_anomaly(True)
        try:
            assert tg.autograd.is_anomaly_enabled()
        finally:
            tg.autograd.set_detect_anomaly(False)
    assert not tg.autograd.is_anomaly_enabled()


def test_backprop_steps_show_the_custom_node_with_its_docstring_as_formula():
    x = leaf(2.0)
    steps = list(tg.backprop_steps(Cube.apply(x).sum()))
    assert [s.op for s in steps] == ["SumBackward", "CubeBackward"]
    assert steps[1].formula == "y = x ** 3"
    assert "CubeBackward" in str(steps[1]) and "y = x ** 3" in str(steps[1])
    assert x.grad.tolist() == [12.0]
    x.grad = None
    s, c = SinCos.apply(x, True)
    steps = list(tg.backprop_steps(s + c))
    assert steps[-1].op == "SinCosBackward" and isinstance(steps[-1].grad_output, tuple)
    assert "SinCosBackward" in str(steps[-1])


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_explore_script_shows_a_custom_function(tmp_path):
    script = tmp_path / "custom.py"
    script.write_text(
        "import tinygrad_norm as torch\n"
        "class Cube(torch.autograd.Function):\n"
        '    """y = x ** 3"""\n'
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        ctx.save_for_backward(x)\n"
        "        return x ** 3\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad_output):\n"
        "        (x,) = ctx.saved_tensors\n"
        "        return grad_output * 3 * x ** 2\n"
        "w = torch.tensor([1.0, -2.0], requires_grad=True)\n"
        "loss = Cube.apply(w).sum()\n"
    )
    out = tmp_path / "custom.html"
    assert main(["explore", "--script", str(script), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "CubeBackward" in page and "y = x ** 3" in page


def test_gradients_with_respect_to_one_output_of_several_and_node_prehooks():
    x = leaf(0.5)
    s, c = SinCos.apply(x, True)
    y = s * 2 + c * 3
    gs, gc = tg.autograd.grad(y, (s, c), retain_graph=True)
    assert gs.tolist() == [2.0] and gc.tolist() == [3.0]
    s.grad_fn.register_prehook(lambda grads: (grads[0] * 0, grads[1]))
    (gx,) = tg.autograd.grad(y, x)
    np.testing.assert_allclose(gx.numpy(), [-3 * np.sin(0.5)])
