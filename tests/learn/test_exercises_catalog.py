"""The twenty exercises: in the track's order, each solution right (against the package's own
op, through autograd, and by the checker), each handing out a file that runs."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.learn.exercises.check import needs_grad, run_function

NAMES = (
    "mul add tanh exp log relu sum mean matmul linear softmax log_softmax cross_entropy "
    "layer_norm batch_norm embedding max_pool2d conv2d attention gelu"
).split()


def test_the_exercises_are_these_in_this_order():
    assert [e.name for e in tg.exercises.EXERCISES] == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_each_exercise_has_a_statement_three_hints_and_named_inputs(name):
    exercise = tg.exercises.get(name)
    assert "forward(ctx, " + ", ".join(exercise.inputs) + ")" in exercise.statement
    assert "NumPy: " in exercise.statement
    assert len(exercise.hints) == 3 and all(len(h) > 10 for h in exercise.hints)


@pytest.mark.parametrize("name", NAMES)
def test_the_solution_matches_the_package_op(name):
    """Forward and every gradient of the solution, called directly (no summing back by the
    engine), equal the package's own op differentiated by autograd."""
    exercise = tg.exercises.get(name)
    rng = np.random.default_rng(1)
    for label, args in exercise.cases(rng):
        grad_output = rng.normal(size=run_function(exercise.solution, args)[0].shape)
        out, grads = run_function(exercise.solution, args, grad_output)
        tensors = [tg.tensor(a, requires_grad=True) if needs_grad(a) else a for a in args]
        reference = exercise.reference(*tensors)
        np.testing.assert_allclose(out, reference.detach().numpy(), rtol=1e-10, atol=1e-12)
        reference.backward(tg.tensor(grad_output))
        for arg, tensor, grad in zip(args, tensors, grads):
            if needs_grad(arg):
                assert grad.shape == arg.shape, (label, grad.shape, arg.shape)
                np.testing.assert_allclose(grad, tensor.grad.numpy(), rtol=1e-9, atol=1e-10,
                                           err_msg=f"{name}: {label}")  # fmt: skip
            else:
                assert grad is None


@pytest.mark.parametrize("name", NAMES)
def test_the_solution_passes_the_checker(name):
    report = tg.exercises.check(name, tg.exercises.get(name).solution)
    assert report.passed and report.input is None, str(report)
    assert str(report).startswith(f"{name}: passed")


@pytest.mark.parametrize("name", NAMES)
def test_the_handed_out_file_runs_and_reports_not_implemented(name):
    """The template's forward is the solution's, and its backward is still to write."""
    namespace = {"__name__": f"exercise_{name}"}
    source = tg.exercises.get(name).template()
    assert max(len(line) for line in source.splitlines()) <= 100  # reads as the package does
    exec(compile(source, f"{name}.py", "exec"), namespace)
    cls = namespace[tg.exercises.get(name).class_name]
    report = tg.exercises.check(name, cls)
    assert not report.passed and report.input is None
    assert report.diagnosis.startswith("backward is not implemented yet"), report.diagnosis
    assert f"{name}.py, line" in report.diagnosis
