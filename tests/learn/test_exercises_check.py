"""The checker: every exercise's solution passes; planted wrong solutions fail, naming the
right input and the right kind of mistake; the learner's exceptions keep their traceback."""

import inspect

import numpy as np
import pytest

import tinygrad_norm as tg

NAMES = [e.name for e in tg.exercises.EXERCISES]


def planted(name, change):
    """The solution with `change(grads)` applied to what its backward returns (as a list)."""
    solution = tg.exercises.get(name).solution

    class Wrong(solution):
        @staticmethod
        def backward(ctx, grad_output):
            grads = solution.backward(ctx, grad_output)
            return tuple(change(list(grads) if isinstance(grads, tuple) else [grads]))

    return Wrong


def positions(name):
    """The positions of the inputs that need a gradient (float arrays)."""
    _, args = tg.exercises.get(name).cases(np.random.default_rng(0))[0]
    return [i for i, a in enumerate(args) if a.dtype.kind == "f"]


def _set(grads, position, value):
    grads[position] = value
    return grads


# ---- three planted mistakes for every exercise ------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_not_implemented_is_named(name):
    class Unwritten(tg.exercises.get(name).solution):
        @staticmethod
        def backward(ctx, grad_output):
            raise NotImplementedError("later")

    report = tg.exercises.check(name, Unwritten)
    assert not report.passed and report.input is None
    assert report.diagnosis.startswith("backward is not implemented yet"), report.diagnosis
    assert f"{__file__}, line" in report.diagnosis


@pytest.mark.parametrize("name", NAMES)
def test_a_flipped_sign_on_the_last_input_is_named(name):
    last = positions(name)[-1]
    report = tg.exercises.check(name, planted(name, lambda g: _set(g, last, -g[last])))
    assert not report.passed and report.input == last, str(report)
    assert report.input_name == tg.exercises.get(name).inputs[last]
    assert "sign flipped" in report.diagnosis, report.diagnosis


@pytest.mark.parametrize("name", NAMES)
def test_a_factor_of_two_on_the_first_input_is_named(name):
    first = positions(name)[0]
    report = tg.exercises.check(name, planted(name, lambda g: _set(g, first, 2 * g[first])))
    assert not report.passed and report.input == first, str(report)
    assert "constant factor: it is 2 times" in report.diagnosis, report.diagnosis


@pytest.mark.parametrize("name", NAMES)
def test_none_for_an_input_that_needs_a_gradient_is_named(name):
    last = positions(name)[-1]
    report = tg.exercises.check(name, planted(name, lambda g: _set(g, last, None)))
    assert not report.passed and report.input == last
    assert report.diagnosis.startswith("backward returned None for"), report.diagnosis


# ---- mistakes learners make, written as they would write them ---------------------------------


def test_add_without_the_broadcast_sum_names_b_and_the_axis():
    report = tg.exercises.check("add", planted("add", lambda g: [g[0], g[0]]))
    assert report.input == 1 and report.input_name == "b"
    assert "not summed back to its shape. Sum it over axis 0" in report.diagnosis, report.diagnosis
    assert "shapes: expected (4,), got (3, 4)" in str(report)


def test_linear_bias_not_summed_and_weight_transposed():
    class BiasNotSummed(tg.exercises.get("linear").solution):
        @staticmethod
        def backward(ctx, grad_output):
            g = grad_output.numpy()
            return g @ ctx.weight, g.T @ ctx.x, g

    report = tg.exercises.check("linear", BiasNotSummed)
    assert report.input == 2 and "Sum it over axis 0 (grad.sum(axis=0))" in report.diagnosis

    class Transposed(tg.exercises.get("linear").solution):
        @staticmethod
        def backward(ctx, grad_output):
            g = grad_output.numpy()
            return g @ ctx.weight, ctx.x.T @ g, g.sum(axis=0)

    report = tg.exercises.check("linear", Transposed)
    assert report.input == 1 and "the right gradient transposed" in report.diagnosis


def test_matmul_grad_b_transposed():
    class Matmul(tg.exercises.get("matmul").solution):
        @staticmethod
        def backward(ctx, grad_output):
            g = grad_output.numpy()
            return g @ ctx.b.T, g.T @ ctx.a

    report = tg.exercises.check("matmul", Matmul)
    assert report.input == 1 and "transposed" in report.diagnosis, report.diagnosis


def test_sum_without_putting_the_axis_back():
    report = tg.exercises.check("sum", planted("sum", lambda g: [g[0][:, 0]]))
    assert report.input == 0 and "axis 1 (of size 4) is missing" in report.diagnosis


def test_mean_without_dividing_by_n_is_a_factor_of_n():
    report = tg.exercises.check("mean", planted("mean", lambda g: [g[0] * 4]))
    assert "it is 4 times the right one" in report.diagnosis, report.diagnosis


def test_attention_without_the_scale_is_a_factor_of_root_d():
    unscaled = planted("attention", lambda g: [g[0] * 3**0.5, *g[1:]])  # d = 3
    report = tg.exercises.check("attention", unscaled)
    assert report.input == 0 and "it is √3 times" in report.diagnosis, report.diagnosis


class SoftmaxDiagonal(tg.exercises.get("softmax").solution):
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.numpy() * ctx.y * (1 - ctx.y)  # dy_i/dx_i only


class SoftmaxFirstRow(tg.exercises.get("softmax").solution):
    @staticmethod
    def backward(ctx, grad_output):
        y = ctx.y[0]  # the first row's Jacobian, used for every row
        return grad_output.numpy() @ (np.diag(y) - np.outer(y, y))


def test_softmax_right_only_on_the_diagonal():
    report = tg.exercises.check("softmax", SoftmaxDiagonal)
    assert report.input == 0 and "right only on the Jacobian's diagonal" in report.diagnosis


def test_softmax_right_only_for_one_element_of_the_batch():
    report = tg.exercises.check("softmax", SoftmaxFirstRow)
    assert "right only for element 0 of the batch" in report.diagnosis, report.diagnosis


class LayerNormWithoutVariance(tg.exercises.get("layer_norm").solution):
    @staticmethod
    def backward(ctx, grad_output):
        g = grad_output.numpy()
        grad_x_hat = g * ctx.weight
        grad_x = ctx.rstd * (grad_x_hat - grad_x_hat.mean(axis=-1, keepdims=True))
        return grad_x, (g * ctx.x_hat).sum(axis=0), g.sum(axis=0)


def test_a_missing_term_shows_as_the_worst_element():
    report = tg.exercises.check("layer_norm", LayerNormWithoutVariance)
    assert report.input == 0 and report.diagnosis.startswith("the gradient for x is wrong at")
    assert "of its 20 elements, worst at" in report.diagnosis
    i = report.index
    assert report.expected == report.expected_grad[i] and report.got == report.got_grad[i]
    assert abs(report.numerical - report.expected) < 1e-6  # finite differences agree
    assert "finite diff." in str(report) and str(i) in str(report)


def test_embedding_without_adding_repeats():
    class Embedding(tg.exercises.get("embedding").solution):
        @staticmethod
        def backward(ctx, grad_output):
            grad_weight = np.zeros(ctx.weight_shape)
            grad_weight[ctx.indices] += grad_output.numpy()  # keeps one of the repeats
            return grad_weight, None

    report = tg.exercises.check("embedding", Embedding)
    assert report.input == 0 and report.index[0] == 1  # row 1 is picked twice
    assert "wrong at 3 of its 15 elements" in report.diagnosis  # that row only


def test_tanh_missing_the_square():
    class Tanh(tg.exercises.get("tanh").solution):
        @staticmethod
        def backward(ctx, grad_output):
            return grad_output.numpy() * (1 - ctx.y)

    report = tg.exercises.check("tanh", Tanh)
    assert report.input == 0 and "wrong at" in report.diagnosis


# ---- the learner's exceptions and other slips -----------------------------------------------


class Broken(tg.exercises.get("exp").solution):
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.numpy() * ctx.y_typo


def test_an_exception_in_backward_keeps_its_file_and_line():
    report = tg.exercises.check("exp", Broken)
    line = inspect.getsourcelines(Broken.backward)[1] + 2
    assert not report.passed and "raised AttributeError" in report.diagnosis
    assert f"{__file__}, line {line}" in report.diagnosis
    assert f'File "{__file__}", line {line}' in report.traceback
    assert "ctx.y_typo" in str(report)  # the line itself, printed


def test_an_exception_in_forward_keeps_its_file_and_line():
    class BadForward(tg.exercises.get("exp").solution):
        @staticmethod
        def forward(ctx, x):
            return np.exp(x) @ np.ones(7)

    report = tg.exercises.check("exp", BadForward)
    assert "your forward raised ValueError" in report.diagnosis and __file__ in report.traceback


def test_a_changed_forward_is_reported():
    class Changed(tg.exercises.get("exp").solution):
        @staticmethod
        def forward(ctx, x):
            ctx.y = np.exp(x) + 1
            return ctx.y

    report = tg.exercises.check("exp", Changed)
    assert "your forward's output differs" in report.diagnosis


def test_too_many_gradients_and_a_wrong_class_are_explained():
    report = tg.exercises.check("exp", planted("exp", lambda g: [g[0], g[0]]))
    assert "returned 2 gradients, but forward takes 1 inputs" in report.diagnosis
    with pytest.raises(TypeError, match="tg.Function subclass"):
        tg.exercises.check("exp", np.exp)
    with pytest.raises(KeyError, match="the exercises are: mul, add"):
        tg.exercises.check("expp", Broken)


def test_a_backward_written_with_tensor_ops_passes():
    class Tanh(tg.Function):
        @staticmethod
        def forward(ctx, x):
            y = np.tanh(x)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad_output):
            (y,) = ctx.saved_tensors
            return grad_output * (1 - y * y)

    assert tg.exercises.check("tanh", Tanh).passed


def test_matmul_right_only_on_the_diagonal():
    class Matmul(tg.exercises.get("matmul").solution):
        @staticmethod
        def backward(ctx, grad_output):
            g = grad_output.numpy()
            grad_a = g @ ctx.b.T
            off = ~np.eye(*grad_a.shape, dtype=bool)
            grad_a[off] = 0.0  # only the diagonal elements (i, i) kept
            return grad_a, ctx.a.T @ g

    report = tg.exercises.check("matmul", Matmul)
    assert (
        report.input == 0
        and "right only on the diagonal, at the elements (i, i)" in report.diagnosis
    )
