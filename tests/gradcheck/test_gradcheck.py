"""gradcheck and gradgradcheck: they pass correct gradients and catch each kind of wrong one.

Every "rejects" test below uses a backward with one realistic bug; the checker is only useful if
it fails there, names the element, and, inside a composed function, names the op.
"""

import numpy as np
import pytest
from helpers import ForgotTheTwo, Square

import tinygrad_norm as tg
from tinygrad_norm.random import get_rng_state


def f64(*shape, requires_grad=True):
    return tg.randn(*shape, dtype=tg.float64, requires_grad=requires_grad)


@pytest.fixture(autouse=True)
def _seed():
    tg.manual_seed(0)


# --- custom ops, each with one bug -------------------------------------------------------------


class BroadcastMul(tg.Function):
    """a * b with b (n,) broadcast over the rows of a (m, n); grad_b takes row 0 instead of
    summing over the broadcast axis: the right shape, the wrong values."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output * b, (grad_output * a)[0]


class TripleWrongAt12(tg.Function):
    """3x: backward is right everywhere except at element (1, 2), where it says 3.5."""

    @staticmethod
    def forward(ctx, x):
        return 3 * x

    @staticmethod
    def backward(ctx, grad_output):
        factor = np.full(ctx.input_shape, 3.0)
        factor[1, 2] = 3.5
        return grad_output * tg.tensor(factor)


def layer_norm(x, w, b):
    """(x - mean) / sqrt(var + 1e-5) * w + b over the last axis, with one buggy op inside."""
    centered = x - x.mean(-1, keepdim=True)
    var = ForgotTheTwo.apply(centered)  # the bug in the middle of layer_norm.mean(-1, keepdim=True)
    return centered / (var + 1e-5).sqrt() * w + b


def layer_norm_ok(x, w, b):
    centered = x - x.mean(-1, keepdim=True)
    var = (centered * centered).mean(-1, keepdim=True)
    return centered / (var + 1e-5).sqrt() * w + b


class NumpySquare(tg.Function):
    """x², whose backward returns a NumPy array: right first derivatives, no second ones."""

    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.numpy() * 2 * ctx.x


class SquareDetachedBackward(tg.Function):
    """x², whose backward reads a copy of x: a constant Tensor, so d(grad)/dx is lost."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x.copy())  # not forward's own input: comes back as a constant
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x


class Dropout(tg.Function):
    """Zero each element with probability p (mask from the global generator), scale by 1/(1-p)."""

    @staticmethod
    def forward(ctx, x, p):
        ctx.mask = (tg.rand(x.shape, dtype=tg.float64).numpy() >= p) / (1 - p)
        return x * ctx.mask

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * tg.tensor(ctx.mask), None


class Jittery(Square):
    """x², whose backward adds 1e-9 times how often it ran: tiny, but not deterministic."""

    calls = 0

    @staticmethod
    def backward(ctx, grad_output):
        Jittery.calls += 1
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x + 1e-9 * Jittery.calls


# --- correct functions pass --------------------------------------------------------------------
COMPOSED = {
    "tanh_times_exp": (lambda x: x.tanh() * x.exp(), [(2, 3)]),
    "softmax_log": (lambda x: (x.softmax(-1) + 1).log().sum(-1), [(3, 4)]),
    "matmul_bias": (lambda a, b, c: (a @ b + c).sigmoid(), [(2, 3), (3, 4), (4,)]),
    "layer_norm": (layer_norm_ok, [(2, 5), (5,), (5,)]),
    "broadcast_div": (lambda x, y: x / (y * y + 1), [(4, 1, 3), (2, 3)]),
}


@pytest.mark.parametrize("name", COMPOSED)
@pytest.mark.parametrize("fast_mode", [False, True])
def test_passes_correct_composed_functions(name, fast_mode):
    fn, shapes = COMPOSED[name]
    inputs = tuple(f64(*s) for s in shapes)
    result = tg.gradcheck(fn, inputs, fast_mode=fast_mode)
    assert result and result.ok
    assert [row.input for row in result.rows] == list(range(len(shapes)))
    assert all(row.status == "ok" and row.max_abs < 1e-7 for row in result.rows)


def test_multiple_outputs_and_inputs_one_row_per_pair():
    x, y = f64(2, 3), f64(3)
    result = tg.gradcheck(lambda x, y: (x * y, (x @ y).exp(), x.sum()), (x, y))
    assert result
    assert [(row.output, row.input) for row in result.rows] == [
        (o, i) for i in range(2) for o in range(3)
    ]
    # d(x.sum())/dy is zero: y is unused by that output, and that is not an error.
    assert result.rows[5].max_abs == 0


def test_non_tensor_and_constant_inputs_are_passed_through():
    x, c = f64(3), f64(3, requires_grad=False)
    result = tg.gradcheck(lambda x, c, k: x * c * k, (x, c, 2.5))
    assert result
    assert [row.input for row in result.rows] == [0]


def test_leaves_the_callers_tensors_and_random_state_alone():
    x = f64(2, 2)
    before, state = x.numpy().copy(), get_rng_state()
    tg.gradcheck(lambda x: x.exp(), x)
    assert np.array_equal(x.numpy(), before) and x.grad is None
    assert np.array_equal(get_rng_state(), state)


# --- wrong backwards are rejected --------------------------------------------------------------
def test_rejects_a_backward_off_by_a_constant_factor():
    x = f64(2, 3)
    with pytest.raises(tg.GradcheckError) as caught:
        tg.gradcheck(ForgotTheTwo.apply, (x,))
    error = caught.value
    assert error.input_index == 0
    assert error.analytic == pytest.approx(error.numerical / 2)
    assert error.op == "ForgotTheTwoBackward"
    assert "WRONG" in str(error)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_rejects_a_broadcast_gradient_that_is_not_summed(fast_mode):
    a, b = f64(3, 4), f64(4)
    result = tg.gradcheck(BroadcastMul.apply, (a, b), raise_exception=False, fast_mode=fast_mode)
    assert not result
    assert [row.status for row in result.rows] == ["ok", "WRONG"]  # grad_a is right, grad_b not
    assert result.culprit.op == "BroadcastMulBackward" and result.culprit.input == 1
    # the worst element of b: its true gradient sums a's column over all 3 rows
    row = result.rows[1]
    (j,) = row.worst
    assert row.numerical == pytest.approx(a.numpy()[row.worst_output[0], j], abs=1e-8)


def test_names_the_single_wrong_element():
    x = f64(2, 3)
    with pytest.raises(tg.GradcheckError) as caught:
        tg.gradcheck(TripleWrongAt12.apply, x)
    error = caught.value
    assert error.worst_index == (1, 2)
    assert error.numerical == pytest.approx(3.0) and error.analytic == pytest.approx(3.5)
    assert "worst element: (1, 2) of input 0" in str(error)
    assert "numerical 3" in str(error) and "analytic 3.5" in str(error)
    assert error.op == "TripleWrongAt12Backward"
    assert "element (1, 2)" in str(error.result.culprit)


def test_names_the_wrong_op_inside_a_composed_function():
    x, w, b = f64(2, 5), f64(5), f64(5)
    assert tg.gradcheck(layer_norm_ok, (x, w, b))  # the same maths with Mul instead is right
    with pytest.raises(tg.GradcheckError) as caught:
        tg.gradcheck(layer_norm, (x, w, b))
    error = caught.value
    assert error.op == "ForgotTheTwoBackward"
    assert (
        "the first op whose own backward disagrees with finite differences: "
        "ForgotTheTwoBackward in layer_norm (input 0, element" in str(error)
    )


def test_names_the_wrong_op_after_a_random_op():
    """Two dropouts come first in the graph and are right: the report must not blame them,
    although replaying the second one's forward alone draws a different mask."""
    x, b = f64(3, 4), f64(4)

    def dropout_twice_then_bad_mul(x, b):
        return BroadcastMul.apply(Dropout.apply(Dropout.apply(x, 0.3), 0.3), b)

    result = tg.gradcheck(dropout_twice_then_bad_mul, (x, b), raise_exception=False)
    assert not result
    assert result.culprit.op == "BroadcastMulBackward"


def test_a_gradient_lost_outside_the_graph_is_caught_but_no_op_is_blamed():
    x = f64(3)
    result = tg.gradcheck(lambda x: x * tg.tensor(x.numpy()), x, raise_exception=False)
    assert not result and result.culprit is None
    assert "every op's own backward agrees" in str(result)


# --- kinks --------------------------------------------------------------------------------------
def at(*values):
    return tg.tensor(list(values), dtype=tg.float64, requires_grad=True)


def test_relu_at_zero_is_a_kink_not_a_wrong_backward():
    with pytest.raises(tg.GradcheckError) as caught:
        tg.gradcheck(lambda x: x.relu(), at(-1.0, 0.0, 2.0))
    error = caught.value
    assert "not differentiable at element (1,) of input 0 (left slope 0, right slope 1" in str(
        error
    )
    assert "not a wrong backward" in str(error)
    assert error.op is None and "first op whose own backward" not in str(error)
    (kink,) = error.kinks
    assert (kink.input, kink.element, kink.failing) == (0, (1,), True)
    assert kink.left == pytest.approx(0) and kink.right == pytest.approx(1)
    assert error.result.rows[0].status == "kink"


def test_abs_at_zero_passes_with_a_note_and_near_zero_is_a_kink():
    # At exactly 0 the central difference (|eps| - |-eps|) / 2 eps = 0 equals sign(0) = 0.
    result = tg.gradcheck(lambda x: x.abs(), at(-1.0, 0.0, 2.0))
    assert result
    assert [(k.element, k.failing) for k in result.kinks] == [((1,), False)]
    assert "not differentiable at element (1,)" in str(result)
    # 3e-7 is closer to the kink than eps: the stencil straddles it and the check fails.
    result = tg.gradcheck(lambda x: x.abs(), at(-1.0, 3e-7, 2.0), raise_exception=False)
    assert not result and not result.wrong
    assert [k.element for k in result.kinks] == [(1,)]


def test_max_with_ties_is_a_kink():
    result = tg.gradcheck(lambda x: x.max(dim=0).values, at(1.0, 1.0, 1.0), raise_exception=False)
    assert not result and not result.wrong and result.culprit is None
    assert result.kinks and all(k.left != pytest.approx(k.right) for k in result.kinks)
    assert "not differentiable at element" in str(result)


def test_maximum_with_ties_is_a_kink_whose_half_shares_match_the_average():
    """maximum splits the gradient 0.5 / 0.5 at a tie (PyTorch), which is exactly the central
    difference there: the check passes and notes the kinks."""
    fn = lambda x: tg.maximum(x[:2], x[1:])  # noqa: E731
    result = tg.gradcheck(fn, at(1.0, 1.0, 1.0), raise_exception=False)
    assert result and not result.wrong
    assert result.kinks and all(k.analytic == 0.5 for k in result.kinks)
    assert "not differentiable at element" in str(result)


def test_a_wrong_backward_at_a_kink_is_still_blamed():
    """At a kink backward may return either one-sided slope (or one between), nothing else."""

    class ReluFiveAtZero(tg.Function):  # relu, but backward says slope 5 at exactly 0
        @staticmethod
        def forward(ctx, x):
            ctx.slope = (x > 0) + 5.0 * (x == 0)
            return np.maximum(x, 0)

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * tg.tensor(ctx.slope)

    result = tg.gradcheck(ReluFiveAtZero.apply, at(-1.0, 0.0, 2.0), raise_exception=False)
    assert result.wrong and result.rows[0].status == "WRONG" and result.rows[0].worst == (1,)
    assert result.culprit.op == "ReluFiveAtZeroBackward" and result.culprit.element == (1,)


def test_smooth_functions_with_large_curvature_have_no_kinks():
    """(30 x)² at 0: the one-sided slopes ∓eps * 1800 differ by more than atol, as at a kink,
    but the difference grows with the step: curvature, not a kink."""
    result = tg.gradcheck(lambda x: (30 * x) ** 2, at(0.0, -2.0, 2.5))
    assert result and result.kinks == []
    assert tg.gradcheck(lambda x: (4 * x).exp() + x**3, at(0.0, -2.0, 2.5)).kinks == []


# --- gradgradcheck ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "fn, shapes",
    [
        (lambda x: x.tanh(), [(2, 3)]),
        (lambda x: x**3, [(2, 3)]),
        (lambda a, b: a @ b, [(2, 3), (3, 4)]),
        (lambda x: x.softmax(-1), [(2, 4)]),
        (layer_norm_ok, [(2, 5), (5,), (5,)]),
    ],
    ids=["tanh", "cube", "matmul", "softmax", "layer_norm"],
)
def test_gradgradcheck_passes_correct_ops(fn, shapes):
    inputs = tuple(f64(*s) for s in shapes)
    result = tg.gradgradcheck(fn, inputs)
    assert result
    # every first derivative, checked against the inputs and the grad_output
    pairs = {(row.output, row.input) for row in result.rows}
    assert pairs == {(o, i) for o in range(len(shapes)) for i in range(len(shapes) + 1)}


def test_gradgradcheck_names_an_op_whose_backward_returned_numpy():
    x = f64(2, 3)
    assert tg.gradcheck(NumpySquare.apply, x)  # first derivatives are right
    with pytest.raises(tg.GradcheckError) as caught:
        tg.gradgradcheck(NumpySquare.apply, x)
    assert caught.value.op == "NumpySquareBackward"
    assert "NumpySquareBackward returned a NumPy array from backward" in str(caught.value)
    assert "write backward with Tensor operations" in str(caught.value)


def test_gradgradcheck_catches_a_backward_that_is_not_differentiable():
    x = f64(2, 3)
    assert tg.gradcheck(SquareDetachedBackward.apply, x)
    result = tg.gradgradcheck(SquareDetachedBackward.apply, x, raise_exception=False)
    assert not result
    assert [row.status for row in result.rows] == ["WRONG", "ok"]  # wrt x wrong, wrt v right


def test_gradgradcheck_with_given_grad_outputs():
    x = f64(3)
    v = tg.tensor([1.0, -2.0, 0.5], dtype=tg.float64)
    assert tg.gradgradcheck(lambda x: x.tanh() * x.exp(), x, v)
    assert tg.gradgradcheck(lambda x: x.tanh() * x.exp(), x, (v,), fast_mode=True)


# --- precision, randomness, determinism --------------------------------------------------------
def test_float32_inputs_get_an_explanation():
    x = tg.randn(3, requires_grad=True)  # float32, the default
    with pytest.raises(TypeError) as caught:
        tg.gradcheck(lambda x: x * x, x)
    message = str(caught.value)
    assert "input 0 is float32" in message and "float64" in message
    assert "machine epsilon" in message and "0.12 relative" in message
    assert ".double()" in message and "dtype=tg.float64" in message
    assert tg.gradcheck(lambda x: x * x, x.double())  # the advice works


def test_a_random_op_passes_because_every_evaluation_replays_the_random_state():
    x = f64(4, 5)
    state = get_rng_state()
    assert tg.gradcheck(lambda x: Dropout.apply(x, 0.5).tanh(), x)
    assert tg.gradcheck(lambda x: Dropout.apply(x, 0.5).tanh(), x, fast_mode=True)
    assert np.array_equal(get_rng_state(), state)


def test_a_non_deterministic_backward_is_caught():
    x = f64(2, 2)
    result = tg.gradcheck(Jittery.apply, x, raise_exception=False)
    assert not result and not result.wrong  # the values are within tolerance...
    assert result.rows[0].status == "nondet"  # ...but two backward passes differ
    assert "backward is not deterministic" in str(result)
    assert tg.gradcheck(Jittery.apply, x, nondet_tol=1e-6)


# --- the report ---------------------------------------------------------------------------------
def test_the_result_prints_as_a_table():
    x, y = f64(2, 3), f64(3)
    x.name = "x"
    result = tg.gradcheck(lambda x, y: x * y, (x, y))
    text = str(result)
    assert text.startswith("gradcheck passed for <lambda>")
    for column in ("output", "input", "shape", "max abs err", "max rel err", "worst element"):
        assert column in text
    for row in result.rows:
        assert f"{row.max_abs:.2e}" in text and f"{row.max_rel:.2e}" in text
    assert "0 (x)" in text and "(2, 3)" in text and "(3,)" in text


def test_raise_exception_false_returns_a_falsy_result_with_the_same_table():
    x = f64(2, 3)
    result = tg.gradcheck(ForgotTheTwo.apply, x, raise_exception=False)
    with pytest.raises(tg.GradcheckError) as caught:
        tg.gradcheck(ForgotTheTwo.apply, x)
    assert not result and str(result) == str(caught.value)
    assert isinstance(caught.value, RuntimeError)


class _Float32Gradient(Square):
    """x², whose backward returns its gradient in float32 whatever the input's dtype."""

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return (grad_output * 2 * x).numpy().astype(np.float32)


def test_gradcheck_sees_a_backward_that_returns_the_wrong_dtype():
    # The engine casts every gradient to its input's dtype (as PyTorch does), so the values
    # agree; gradcheck must still report what the backward itself returned.
    x = tg.tensor([0.5, -1.5], dtype=tg.float64, requires_grad=True)
    result = tg.gradcheck(_Float32Gradient.apply, x, raise_exception=False, atol=1e-3)
    assert not result.ok
    assert any(
        "_Float32GradientBackward: backward returned float32 for input 0 of dtype float64" in p
        for p in result.problems
    )


class CountsItsRuns(tg.Function):
    """out = 2 x, with a wrong backward (3 grad); forward counts its runs in an array argument,
    as BatchNorm's forward moves the running statistics it is given."""

    @staticmethod
    def forward(ctx, x, runs):
        runs[0] += 1
        return 2 * x

    @staticmethod
    def backward(ctx, grad_output):
        return 3 * grad_output, None


def test_finding_the_culprit_leaves_array_arguments_alone():
    # The search for the wrong node runs each node's forward again; it must run it on copies
    # of the arguments, or a forward that changes one (a running mean) changes it again.
    runs, calls = np.zeros(1), []

    def f(x):
        calls.append(1)
        return CountsItsRuns.apply(x, runs)

    result = tg.gradcheck(f, (f64(3),), raise_exception=False)
    assert result.culprit.op == "CountsItsRunsBackward"
    assert runs[0] == len(calls)  # one run per call of f, none from the search
