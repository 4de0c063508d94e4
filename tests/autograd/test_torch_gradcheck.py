"""`torch.autograd.gradcheck` / `gradgradcheck`: PyTorch's signature, defaults and results
(True, or GradcheckError whose message starts as PyTorch's and goes on with our report)."""

import importlib
import inspect
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.autograd import Function
from tinygrad_norm.gradcheck import torch_style

ROOT = Path(tg.__file__).resolve().parents[1]


class WrongAt12(Function):
    """y = 3 x, but backward says 5 at element (1, 2)"""

    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    def backward(ctx, grad_output):
        slope = tg.full(grad_output.shape, 3.0, dtype=tg.float64)
        slope[1, 2] = 5.0
        return grad_output * slope


class WrongSecondInput(Function):
    """y = a * b * scale, but b's gradient uses 2 for scale"""

    @staticmethod
    def forward(ctx, a, scale, b):
        ctx.save_for_backward(a, b)
        ctx.scale = scale
        return a * b * scale

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output * b * ctx.scale, None, grad_output * a * 2


def x64(*shape, requires_grad=True):
    return tg.randn(*shape, dtype=tg.float64, requires_grad=requires_grad)


def test_a_right_backward_gives_true():
    assert torch_style.gradcheck(lambda t: (t * t.tanh()).sum(), (x64(2, 3),)) is True
    assert torch_style.gradgradcheck(lambda t: t.tanh(), (x64(3),)) is True


def test_a_wrong_backward_raises_with_pytorchs_headline_and_our_report():
    with pytest.raises(torch_style.GradcheckError) as caught:
        tg.autograd.gradcheck(WrongAt12.apply, (x64(2, 3),), eps=1e-6, atol=1e-4)
    message = str(caught.value)
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 0,\n")
    assert "numerical:3\nanalytical:5 at input element (1, 2)" in message
    assert "WrongAt12Backward" in message and "WRONG" in message
    assert caught.value.worst_index == (1, 2)
    assert isinstance(caught.value, RuntimeError) and isinstance(caught.value, tg.GradcheckError)


def test_raise_exception_false_gives_false():
    assert tg.autograd.gradcheck(WrongAt12.apply, (x64(2, 3),), raise_exception=False) is False


def test_input_indices_count_only_the_inputs_that_require_grad():
    a, b = x64(3), x64(3)
    with pytest.raises(torch_style.GradcheckError, match="for output 0 with respect to input 1,"):
        tg.autograd.gradcheck(WrongSecondInput.apply, (a, 0.5, b))  # b: argument 2, input 1
    assert tg.autograd.gradcheck(WrongSecondInput.apply, (a, 2.0, b)) is True  # 2 is right


def test_float32_inputs_warn_as_pytorch_then_are_checked():
    x = tg.tensor([0.5, -1.0, 2.0], requires_grad=True)  # float32
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double"):
        answer = tg.autograd.gradcheck(lambda t: t * 2, (x,), eps=1e-2, atol=1e-3, rtol=1e-3)
    assert answer is True
    with pytest.raises(TypeError, match="float64"):  # tg.gradcheck keeps its explaining error
        tg.gradcheck(lambda t: t * 2, (x,))


def test_the_signatures_are_pytorchs():
    check = inspect.signature(torch_style.gradcheck).parameters
    assert list(check)[:2] == ["func", "inputs"]
    defaults = {"eps": 1e-6, "atol": 1e-5, "rtol": 1e-3, "raise_exception": True,
                "nondet_tol": 0.0, "check_undefined_grad": True, "check_grad_dtypes": False,
                "check_batched_grad": False, "fast_mode": False, "masked": None}  # fmt: skip
    for name, default in defaults.items():
        assert check[name].default == default, name
    second = inspect.signature(torch_style.gradgradcheck).parameters
    assert list(second)[:3] == ["func", "inputs", "grad_outputs"]
    assert second["gen_non_contig_grad_outputs"].default is False


def test_gradgradcheck_of_a_once_differentiable_backward_fails_as_pytorch():
    class CubeOnce(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        @tg.autograd.once_differentiable
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x**2

    x = x64(2)
    assert tg.autograd.gradgradcheck(CubeOnce.apply, (x,), raise_exception=False) is False
    with pytest.raises(torch_style.GradcheckError, match=r"(?s)^Jacobian mismatch.*twice"):
        tg.autograd.gradgradcheck(CubeOnce.apply, (x,))


def test_a_script_imports_everything_under_pytorchs_paths():
    code = """
        import tinygrad_norm as tg
        tg.install_as_torch()
        import torch
        from torch.autograd import gradcheck, gradgradcheck, Function
        from torch.autograd.gradcheck import GradcheckError
        from torch.autograd.function import once_differentiable, FunctionCtx
        from torch.autograd.graph import saved_tensors_hooks, Node
        from torch.func import grad, vmap, jacrev, jacfwd, hessian, functional_call
        import torch.autograd.forward_ad as fwAD
        from torch.testing import make_tensor, assert_close
        assert gradcheck is torch.autograd.gradcheck and callable(gradcheck)
        assert issubclass(GradcheckError, RuntimeError)
        assert torch.autograd.Function is Function is not torch.Function
        x = torch.randn(3, dtype=torch.float64, requires_grad=True)
        print(gradcheck(torch.sin, (x,)), gradgradcheck(torch.sin, (x,)))
        try:
            torch.func.linearize
        except AttributeError as error:
            print(error)
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                            text=True, env=env, timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "True True"
    assert "does not implement torch.func.linearize" in lines[1]


@pytest.mark.oracle
def test_pytorch_answers_the_same_and_its_message_starts_as_ours():
    torch = pytest.importorskip("torch")

    class TheirWrong(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def backward(ctx, grad_output):
            slope = torch.full(grad_output.shape, 3.0, dtype=torch.float64)
            slope[1, 2] = 5.0
            return grad_output * slope

    values = np.random.default_rng(0).standard_normal((2, 3))
    theirs = torch.tensor(values, requires_grad=True)
    their_error = importlib.import_module("torch.autograd.gradcheck").GradcheckError
    with pytest.raises(their_error) as caught:
        torch.autograd.gradcheck(TheirWrong.apply, (theirs,))
    headline = str(caught.value).splitlines()[0]
    ours = tg.tensor(values, requires_grad=True)
    with pytest.raises(tg.GradcheckError) as ours_caught:
        tg.autograd.gradcheck(WrongAt12.apply, (ours,))
    assert str(ours_caught.value).splitlines()[0] == headline
    assert torch.autograd.gradcheck(TheirWrong.apply, (theirs,), raise_exception=False) is False
