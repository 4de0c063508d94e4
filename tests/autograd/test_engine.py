"""The autograd engine (SPEC §2): what backward() stores where, hooks, the graph and its
release, higher-order gradients, autograd.grad, custom Functions and deep graphs. (Grad modes:
test_grad_mode.py.)

Every expected gradient is worked out by hand in a comment or computed with NumPy.
"""

import gc
import time
import tracemalloc
import weakref

import helpers
import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.autograd import engine

# --- accumulation and where gradients are kept --------------------------------------------------


def test_gradients_accumulate_into_leaves_across_two_backward_calls():
    x = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()  # d/dx sum(x^2) = 2x
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0, 6.0])
    (x * 3.0).sum().backward()  # adds 3 to every element
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 7.0, 9.0])
    assert x.grad.dtype == tg.float32
    assert x.grad.grad_fn is None and not x.grad.requires_grad


def test_first_grad_is_a_copy_never_the_gradient_passed_in():
    for through_a_node in (False, True):
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        seed = tg.tensor([5.0, 7.0])
        # A leaf root receives the seed itself; Add passes grad_output through unchanged.
        (x + 0.0).backward(seed) if through_a_node else x.backward(seed)
        seed.numpy()[...] = 100.0
        np.testing.assert_array_equal(x.grad.numpy(), [5.0, 7.0])
        x.backward(tg.tensor([1.0, 1.0]))
        np.testing.assert_array_equal(seed.numpy(), [100.0, 100.0])  # accumulation: no write


def test_backward_with_an_explicit_gradient_is_a_vector_jacobian_product():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * x  # Jacobian diag(2x)
    y.backward(tg.tensor([1.0, 10.0]))
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 40.0])


def test_an_explicit_gradient_is_converted_to_the_tensors_dtype():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    y.retain_grad()
    y.backward(np.ones(2))  # a float64 array for a float32 tensor
    assert y.grad.dtype == tg.float32 and x.grad.dtype == tg.float32
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


def test_non_leaf_grad_is_none_unless_retain_grad():
    x = tg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x * 2.0
    z = (y * y).sum()  # dz/dy = 2y = 4x, dz/dx = 8x
    z.backward()
    assert x.is_leaf and not y.is_leaf and not z.is_leaf
    assert y.grad is None and z.grad is None
    np.testing.assert_array_equal(x.grad.numpy(), [8.0, -16.0, 24.0])

    x.grad = None
    y = x * 2.0
    z = (y * y + y).sum()  # y used twice: dz/dy = 2y + 1
    y.retain_grad()
    z.retain_grad()
    z.backward()
    np.testing.assert_array_equal(y.grad.numpy(), [5.0, -7.0, 13.0])
    assert z.grad.item() == 1.0
    np.testing.assert_array_equal(x.grad.numpy(), [10.0, -14.0, 26.0])  # 2 * (2y + 1)


def test_backward_on_a_leaf_adds_ones_to_its_own_grad():
    x = tg.tensor(3.0, requires_grad=True)
    x.backward()
    assert x.grad.item() == 1.0
    x.backward()
    assert x.grad.item() == 2.0
    v = tg.tensor([1.0, 2.0], requires_grad=True)
    v.backward(tg.tensor([4.0, 5.0]))
    np.testing.assert_array_equal(v.grad.numpy(), [4.0, 5.0])


# --- hooks ----------------------------------------------------------------------------------------


def test_hook_on_a_leaf_changes_its_grad_until_removed():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    seen = []

    def times_ten(grad):
        seen.append(grad.numpy().copy())
        return grad * 10.0

    handle = x.register_hook(times_ten)
    (x * 3.0).sum().backward()
    np.testing.assert_array_equal(seen[0], [3.0, 3.0])  # the hook sees the true gradient
    np.testing.assert_array_equal(x.grad.numpy(), [30.0, 30.0])  # .grad gets what it returns

    handle.remove()
    x.grad = None
    (x * 3.0).sum().backward()
    assert len(seen) == 1
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


def test_hook_on_a_leaf_used_twice_runs_once_with_the_summed_gradient():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    x.register_hook(lambda grad: seen.append(grad.numpy().copy()))  # returns None: observes
    (x * x + x).sum().backward()  # 2x + 1
    assert len(seen) == 1
    np.testing.assert_array_equal(seen[0], [3.0, 5.0])
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 5.0])


def test_hook_on_a_non_leaf_changes_what_flows_to_the_leaves():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    seen = []

    def record_and_scale(grad):
        seen.append(grad.numpy().copy())
        return grad * 10.0

    handle = y.register_hook(record_and_scale)
    (y * y).sum().backward()  # dz/dy = 2y = 4x; the hook makes it 40x; dz/dx = 2 * 40x
    np.testing.assert_array_equal(seen[0], [4.0, 8.0])
    np.testing.assert_array_equal(x.grad.numpy(), [80.0, 160.0])

    handle.remove()
    x.grad = None
    y2 = x * 2.0
    y2.register_hook(lambda grad: None)  # a hook that returns None changes nothing
    (y2 * y2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [8.0, 16.0])


def test_register_hook_on_a_tensor_without_grad_is_an_error():
    with pytest.raises(RuntimeError, match="does not require grad"):
        tg.ones(2).register_hook(lambda grad: grad)


# --- the graph: each node once, shared inputs summed -------------------------------------------


def _counting_double():
    """A custom Function y = 2a that records every call of its backward."""

    class Double(tg.Function):
        received = []

        @staticmethod
        def forward(ctx, a):
            return 2 * a

        @staticmethod
        def backward(ctx, grad_output):
            Double.received.append(grad_output.numpy().copy())
            return grad_output * 2.0

    return Double


def test_diamond_graph_sums_both_paths_and_runs_each_node_once():
    Double = _counting_double()
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = Double.apply(x)  # y = 2x, then used by two branches
    z = (y * y + y * 3.0).sum()  # dz/dy = 2y + 3 = 4x + 3
    z.backward()
    assert len(Double.received) == 1
    np.testing.assert_array_equal(Double.received[0], [7.0, 11.0])
    np.testing.assert_array_equal(x.grad.numpy(), [14.0, 22.0])  # 2 * (4x + 3)


def test_input_used_twice_gets_the_sum_of_both_gradients():
    x = tg.tensor([0.5, -1.0, 2.0], dtype=tg.float64, requires_grad=True)
    z = ((x * 3.0) * x.exp()).sum()  # d/dx 3x e^x = 3 e^x (1 + x)
    z.backward()
    xs = x.numpy()
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.exp(xs) * (1 + xs), rtol=1e-12)


def test_backward_steps_visit_every_node_once_consumers_first():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = (y * y + y).sum()
    steps = list(z.backward_steps())
    nodes = [step.node for step in steps]
    assert len({id(n) for n in nodes}) == len(nodes) == 4  # Sum, Add, Mul, Exp
    assert repr(nodes[0]) == "<SumBackward>" and repr(nodes[-1]) == "<ExpBackward>"
    e = np.exp(np.array([1.0, 2.0], dtype=np.float32))
    np.testing.assert_allclose(x.grad.numpy(), (2 * e + 1) * e, rtol=1e-6)


def test_a_step_shows_the_gradient_so_far_as_it_was_then():
    # y is used three times; its gradient is summed as the uses' nodes run. What a step says
    # "so far" must stay what it was at that step, even though later uses add into the sum.
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = (y * 2.0 + y * 3.0 + y * 4.0).sum()
    so_far = [
        step.so_far()[0]  # the gradient of y so far, kept (not copied) until the end
        for step in engine.backward_steps([z], [tg.tensor(1.0)])
        if step.node.fn.__name__ == "Mul"
    ]
    firsts = [float(g.numpy()[0]) for g in so_far]  # 2, 3 and 4 added up, in the visit order
    assert len(set(firsts)) == 3 and firsts == sorted(firsts) and firsts[-1] == 9.0


def test_grad_fn_repr_next_functions_and_inputs_walk_the_graph():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    w = tg.tensor([3.0, 4.0])
    y = x * w
    loss = y.exp().sum()
    assert repr(y.grad_fn) == "<MulBackward>"
    assert repr(loss.grad_fn) == "<SumBackward>"
    assert x.grad_fn is None

    assert y.grad_fn.inputs[0] is x and y.grad_fn.inputs[1] is w
    (accumulate, _), (constant, _) = y.grad_fn.next_functions
    assert repr(accumulate) == "<AccumulateGrad>" and accumulate.variable is x
    assert constant is None  # w does not require grad

    def names(node):
        found, stack = [], [node]
        while stack:
            node = stack.pop()
            found.append(repr(node))
            stack.extend(n for n, _ in node.next_functions if n is not None)
        return found

    expected = ["<SumBackward>", "<ExpBackward>", "<MulBackward>", "<AccumulateGrad>"]
    assert names(loss.grad_fn) == expected
    loss.backward()
    assert names(loss.grad_fn) == expected  # the edges outlive the saved values


# --- releasing the graph -----------------------------------------------------------------------


def _exp_graph(shape):
    """x -> y = exp(x) (Exp saves its output) -> z = sum(2y); returns x, z and a weak
    reference to the array ExpBackward saved, with every other reference to it dropped."""
    x = tg.randn(*shape, requires_grad=True)
    y = x.exp()
    (saved,) = y.grad_fn.saved_tensors
    assert saved.numpy() is y.numpy()  # Exp saved its own output, not a copy
    ref = weakref.ref(saved.numpy())
    z = (y * 2.0).sum()
    del y, saved
    gc.collect()
    return x, z, ref


def test_backward_releases_the_saved_arrays():
    x, z, ref = _exp_graph((50,))
    assert ref() is not None  # the graph holds it until backward
    z.backward()
    gc.collect()
    assert ref() is None
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(x.numpy()), rtol=1e-6)


def test_retain_graph_keeps_the_saved_arrays_and_a_second_backward_doubles_grad():
    x, z, ref = _exp_graph((50,))
    z.backward(retain_graph=True)
    gc.collect()
    assert ref() is not None
    z.backward()  # works, and accumulates: 2 * 2e^x
    np.testing.assert_allclose(x.grad.numpy(), 4 * np.exp(x.numpy()), rtol=1e-6)
    gc.collect()
    assert ref() is None  # that second backward did not retain


@pytest.mark.parametrize("retain", [False, True])
def test_memory_held_by_the_graph_is_freed_by_backward(retain):
    """Traced memory: x, y = exp(x) and 2y are 4 MB each before backward. Afterwards x and
    x.grad remain, so memory drops by one array; with retain_graph it grows by one (x.grad)."""
    nbytes = 1000 * 1000 * 4
    gc.collect()
    tracemalloc.start()
    try:
        x, z, _ = _exp_graph((1000, 1000))
        before = tracemalloc.get_traced_memory()[0]
        z.backward(retain_graph=retain)
        gc.collect()
        change = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    if retain:
        assert 0.9 * nbytes < change < 1.1 * nbytes
    else:
        assert -1.1 * nbytes < change < -0.9 * nbytes


def test_second_backward_through_ops_that_saved_nothing_also_says_so():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    z = (x + 1.0).sum()  # neither Add nor Sum saves an array
    z.backward()
    with pytest.raises(RuntimeError, match=r"retain_graph=True"):
        z.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])


def test_second_backward_without_retain_graph_says_to_pass_it():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    z = (x.exp() * 2.0).sum()
    z.backward()
    with pytest.raises(RuntimeError, match=r"retain_graph=True") as info:
        z.backward()
    assert "Backward" in str(info.value)  # names the node it could not run
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp([1.0, 2.0]), rtol=1e-6)


# --- higher order -------------------------------------------------------------------------------


def test_grad_of_grad_of_x_cubed():
    x = tg.tensor(2.0, requires_grad=True)
    (dy,) = tg.autograd.grad(x**3, x, create_graph=True)  # 3x^2 = 12
    assert dy.item() == 12.0 and dy.requires_grad
    (d2y,) = tg.autograd.grad(dy, x, create_graph=True)  # 6x = 12
    assert d2y.item() == 12.0
    (d3y,) = tg.autograd.grad(d2y, x)  # 6
    assert d3y.item() == 6.0


def test_backward_with_create_graph_makes_grad_differentiable():
    x = tg.tensor(2.0, requires_grad=True)
    (x**3).backward(create_graph=True)
    g = x.grad
    assert g.item() == 12.0 and g.grad_fn is not None
    x.grad = None
    g.backward()
    assert x.grad.item() == 12.0


def test_hessian_vector_product_by_double_backward():
    """f(x) = |x|^2 * S with S = sum(x): grad f = 2 S x + |x|^2 1 and
    H v = 2 S v + 2 x (1.v) + 2 (x.v) 1."""
    xs = np.array([0.5, -1.0, 2.0])
    vs = np.array([1.0, 2.0, -3.0])
    x = tg.tensor(xs, requires_grad=True)
    f = (x * x).sum() * x.sum()
    (g,) = tg.autograd.grad(f, x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), 2 * xs.sum() * xs + (xs @ xs), rtol=1e-12)
    (hv,) = tg.autograd.grad((g * tg.tensor(vs)).sum(), x)
    expected = 2 * xs.sum() * vs + 2 * xs * vs.sum() + 2 * (xs @ vs)
    np.testing.assert_allclose(hv.numpy(), expected, rtol=1e-12)
    assert x.grad is None


# --- autograd.grad ------------------------------------------------------------------------------


def test_autograd_grad_returns_gradients_and_leaves_grad_alone():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    x.grad = tg.tensor([100.0, 100.0])
    y = x * x
    z = (y * 3.0).sum()
    gy, gx = tg.autograd.grad(z, [y, x])  # a non-leaf input too
    np.testing.assert_array_equal(gy.numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(gx.numpy(), [6.0, 12.0])
    np.testing.assert_array_equal(x.grad.numpy(), [100.0, 100.0])
    assert y.grad is None


def test_autograd_grad_with_grad_outputs_and_several_outputs():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    (g,) = tg.autograd.grad([x * 2.0, x * x], x, [tg.tensor([1.0, 1.0]), tg.tensor([1.0, 10.0])])
    np.testing.assert_array_equal(g.numpy(), [2.0 + 2.0, 2.0 + 40.0])
    (g,) = tg.autograd.grad([x, x], x, [tg.ones(2), tg.ones(2)])  # one leaf as two outputs
    np.testing.assert_array_equal(g.numpy(), [2.0, 2.0])


def test_autograd_grad_runs_hooks_only_of_the_inputs_it_was_asked_for():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    w = tg.tensor([3.0, 4.0], requires_grad=True)
    calls = []
    x.register_hook(lambda grad: calls.append("x") or grad * 10.0)
    w.register_hook(lambda grad: calls.append("w"))
    (gx,) = tg.autograd.grad((x * w).sum(), x)
    np.testing.assert_array_equal(gx.numpy(), [30.0, 40.0])  # x's hook applies to its result
    assert calls == ["x"] and w.grad is None


def test_autograd_grad_unused_input_needs_allow_unused():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    unused = tg.tensor([5.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        tg.autograd.grad((x * 2.0).sum(), [x, unused])
    gx, gu = tg.autograd.grad((x * 2.0).sum(), [x, unused], allow_unused=True)
    np.testing.assert_array_equal(gx.numpy(), [2.0, 2.0])
    assert gu is None


def test_autograd_grad_frees_the_graph_unless_asked():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    z = x.exp().sum()
    tg.autograd.grad(z, x, retain_graph=True)
    (g,) = tg.autograd.grad(z, x)
    np.testing.assert_allclose(g.numpy(), np.exp([1.0, 2.0]), rtol=1e-6)
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        tg.autograd.grad(z, x)


# --- custom Functions ---------------------------------------------------------------------------


class Square(helpers.Square):
    """helpers.Square, whose backward also checks that saved values come back as Tensors."""

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        assert isinstance(x, tg.Tensor)
        return grad_output * 2.0 * x


def test_custom_function_saves_tensors_and_is_twice_differentiable():
    x = tg.tensor([3.0, -1.0], requires_grad=True)
    y = Square.apply(x)
    assert repr(y.grad_fn) == "<SquareBackward>"
    np.testing.assert_array_equal(y.numpy(), [9.0, 1.0])
    (g,) = tg.autograd.grad(y.sum(), x, create_graph=True)  # 2x
    np.testing.assert_array_equal(g.numpy(), [6.0, -2.0])
    (gg,) = tg.autograd.grad(g.sum(), x)  # 2: the saved x came back joined to the graph
    np.testing.assert_array_equal(gg.numpy(), [2.0, 2.0])


def test_custom_function_needs_input_grad_and_none_for_the_rest():
    seen = {}

    class ScaledMul(tg.Function):
        @staticmethod
        def forward(ctx, a, b, scale):
            ctx.save_for_backward(a, b)
            ctx.scale = scale
            return a * b * scale

        @staticmethod
        def backward(ctx, grad_output):
            seen["needs"] = ctx.needs_input_grad
            a, b = ctx.saved_tensors
            grad_a = grad_output * b * ctx.scale if ctx.needs_input_grad[0] else None
            grad_b = grad_output * a * ctx.scale if ctx.needs_input_grad[1] else None
            return grad_a, grad_b, None

    a = tg.tensor([1.0, 2.0], requires_grad=True)
    b = tg.tensor([3.0, 4.0])
    ScaledMul.apply(a, b, 10.0).sum().backward()
    assert seen["needs"] == (True, False, False)
    np.testing.assert_array_equal(a.grad.numpy(), [30.0, 40.0])
    assert b.grad is None


def test_custom_function_gradient_of_a_broadcast_input_is_summed_back():
    """As in PyTorch: backward may return the output's shape for an input that forward
    broadcast; the engine sums it back to the input's shape."""

    class BroadcastAdd(tg.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output, grad_output  # both of the output's shape (2, 3)

    row = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)  # (3,)
    column = tg.tensor([[1.0], [2.0]], requires_grad=True)  # (2, 1)
    out = BroadcastAdd.apply(row, column)
    assert out.shape == (2, 3)
    out.backward(tg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    np.testing.assert_array_equal(row.grad.numpy(), [5.0, 7.0, 9.0])
    np.testing.assert_array_equal(column.grad.numpy(), [[6.0], [15.0]])


@pytest.mark.parametrize("shape", [(3,), (1, 3), (3, 2)])
def test_custom_function_wrong_gradient_shape_names_the_op(shape):
    """A gradient the input does not broadcast to (here also one smaller than the input,
    which PyTorch refuses too) is an error that names the op and both shapes."""

    class Twice(tg.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, grad_output):
            return tg.ones(*shape)

    x = tg.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="TwiceBackward") as info:
        Twice.apply(x).sum().backward()
    assert str(shape) in str(info.value) and "(2, 3)" in str(info.value)


def test_custom_function_backward_may_return_numpy_arrays():
    class Cube(tg.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return 3.0 * grad_output.numpy() * x.numpy() ** 2  # float64 math on arrays

    x = tg.tensor([1.0, 2.0], requires_grad=True)
    Cube.apply(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 12.0])
    assert x.grad.dtype == tg.float32  # converted back to the input's dtype


# --- deep graphs --------------------------------------------------------------------------------


def test_a_chain_of_100_000_ops_backpropagates():
    n = 100_000
    x = tg.tensor(1.0, dtype=tg.float64, requires_grad=True)
    start = time.perf_counter()
    y = x
    for _ in range(n):
        y = y * 1.0001
    built = time.perf_counter() - start
    start = time.perf_counter()
    y.backward()
    backpropagated = time.perf_counter() - start
    assert x.grad.item() == pytest.approx(1.0001**n, rel=1e-9)  # about e^10
    assert built < 60 and backpropagated < 60, (built, backpropagated)
    del y
    gc.collect()


def test_a_deep_unreleased_graph_can_be_dropped():
    x = tg.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y + 1.0
    del y  # freeing 100 000 nested nodes must not overflow the stack
    gc.collect()
    assert x.grad is None


# --- arrays a Function stores on ctx are freed with the graph -------------------------------------


class _KeepsPositive(tg.Function):
    """x * (x > 0), with the mask stored on ctx as an attribute rather than saved."""

    @staticmethod
    def forward(ctx, x):
        ctx.mask = x > 0
        return x * ctx.mask

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * tg.tensor(ctx.mask)


def test_an_array_forward_stored_on_ctx_is_freed_after_backward():
    y = _KeepsPositive.apply(tg.tensor([-1.0, 2.0], requires_grad=True))
    mask = weakref.ref(y.grad_fn.mask)
    y.sum().backward()
    gc.collect()
    assert mask() is None
    with pytest.raises(
        AttributeError,
        match=r"no attribute 'mask' \(its saved values were freed.*retain_graph=True",
    ):
        _ = y.grad_fn.mask
    # An AttributeError, so generic code that probes attributes gets its default back.
    assert getattr(y.grad_fn, "mask", None) is None
    assert getattr(y.grad_fn, "anything", "default") == "default"
    assert not hasattr(y.grad_fn, "creation_site")


def test_with_retain_graph_an_array_on_ctx_stays_for_the_second_backward():
    x = tg.tensor([-1.0, 2.0], requires_grad=True)
    y = _KeepsPositive.apply(x)
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 2.0]
