"""Each exercise's solution against PyTorch 2.13: forward and every gradient, float64."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.learn.exercises.check import needs_grad, run_function

pytestmark = pytest.mark.oracle
torch = pytest.importorskip("torch")
F = torch.nn.functional

TORCH = {
    "mul": lambda a, b: a * b,
    "add": lambda a, b: a + b,
    "tanh": torch.tanh,
    "exp": torch.exp,
    "log": torch.log,
    "relu": torch.relu,
    "sum": lambda x: x.sum(dim=1),
    "mean": lambda x: x.mean(dim=-1),
    "matmul": lambda a, b: a @ b,
    "linear": F.linear,
    "softmax": lambda x: F.softmax(x, dim=-1),
    "log_softmax": lambda x: F.log_softmax(x, dim=-1),
    "cross_entropy": lambda logits, target: F.cross_entropy(logits, torch.from_numpy(target)),
    "layer_norm": lambda x, w, b: F.layer_norm(x, x.shape[-1:], w, b, eps=1e-5),
    "batch_norm": lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True, eps=1e-5),
    "embedding": lambda w, indices: F.embedding(torch.from_numpy(indices), w),
    "max_pool2d": lambda x: F.max_pool2d(x, 2),
    "conv2d": F.conv2d,
    "attention": lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
    "gelu": F.gelu,
}


def test_every_exercise_has_a_pytorch_reference():
    assert list(TORCH) == [e.name for e in tg.exercises.EXERCISES]


@pytest.mark.parametrize("name", list(TORCH))
def test_the_solution_matches_pytorch(name):
    exercise = tg.exercises.get(name)
    rng = np.random.default_rng(2)
    for label, args in exercise.cases(rng):
        grad_output = rng.normal(size=run_function(exercise.solution, args)[0].shape)
        out, grads = run_function(exercise.solution, args, grad_output)
        tensors = [torch.tensor(a, requires_grad=True) if needs_grad(a) else a for a in args]
        reference = TORCH[name](*tensors)
        np.testing.assert_allclose(out, reference.detach().numpy(), rtol=1e-10, atol=1e-12)
        reference.backward(torch.from_numpy(grad_output))
        for arg, tensor, grad in zip(args, tensors, grads):
            if needs_grad(arg):
                np.testing.assert_allclose(grad, tensor.grad.numpy(), rtol=1e-9, atol=1e-10,
                                           err_msg=f"{name}: {label}")  # fmt: skip
