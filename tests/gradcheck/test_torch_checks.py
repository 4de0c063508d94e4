"""`torch.autograd.gradcheck` / `gradgradcheck`'s further checks and corner cases, as PyTorch:
check_undefined_grad (on by default), check_batched_grad, check_forward_ad (a custom
Function's own jvp; NotImplementedError without one), the flags' AssertionErrors, no input
requiring grad, outputs that do not require grad, non-Tensor and int inputs, nondet_tol,
fast_mode. The same script gives the same outcome (True, False, or the exception's class)
here and, in the oracle leg, in PyTorch 2.13."""

import warnings

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.gradcheck import torch_checks
from tinygrad_norm.gradcheck.torch_style import GradcheckError


def functions(torch) -> dict:
    """Custom Functions, right and planted wrong, written with `torch`'s API."""
    Function = torch.autograd.Function

    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x**2

    class CubeWithJvp(Cube):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)  # jvp's ctx.saved_tensors
            return x**3

        @staticmethod
        def jvp(ctx, tangent):
            (x,) = ctx.saved_tensors
            return tangent * 3 * x**2

    class CubeJvpWithoutSaves(Cube):  # jvp reads ctx.saved_tensors: empty there (ValueError)
        jvp = CubeWithJvp.jvp

    class CubeWrongJvp(CubeWithJvp):
        @staticmethod
        def jvp(ctx, tangent):
            (x,) = ctx.saved_tensors
            return tangent * 2 * x**2  # planted: 2 for 3

    class CubeForgetsGrad(Cube):
        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * x**2  # planted: grad_output left out

    class CubeNoneFails(Cube):  # receives None, multiplies it
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(x)
            return x**3

    class CubeNoneGivesOnes(CubeNoneFails):  # planted: undefined in, ones out
        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return torch.ones_like(x) if grad is None else grad * 3 * x**2

    class CubeNoneRaises(CubeNoneFails):  # planted: undefined in, RuntimeError
        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            if grad is None:
                raise RuntimeError("no gradient")
            return grad * 3 * x**2

    class SinCos(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx, grad_sin, grad_cos):
            (x,) = ctx.saved_tensors
            return grad_sin * x.cos() - grad_cos * x.sin()

    class SinCosNone(SinCos):  # set_materialize_grads(False) and handles None
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(x)
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx, grad_sin, grad_cos):
            (x,) = ctx.saved_tensors
            out = torch.zeros_like(x)
            if grad_sin is not None:
                out = out + grad_sin * x.cos()
            if grad_cos is not None:
                out = out - grad_cos * x.sin()
            return out

    class Noisy(Function):  # planted: backward adds a little noise
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2 + torch.rand(grad.shape, dtype=grad.dtype) * 1e-7

    class Float32Grad(Function):  # backward in float32 for a float64 input: the engine casts
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return (grad * 2).float()

    return {name: cls for name, cls in locals().items() if isinstance(cls, type)}


def outcomes(torch) -> dict:
    """{label: True / False / the exception's class name} for each call."""
    fs = functions(torch)
    gradcheck, gradgradcheck = torch.autograd.gradcheck, torch.autograd.gradgradcheck
    x = torch.tensor([0.5, -1.25, 2.0], dtype=torch.float64, requires_grad=True)
    c = torch.tensor([1.5, 2.0, -0.5], dtype=torch.float64)
    calls = {}
    for name in fs:
        for flags in ("", "nu", "fw", "fwonly", "b", "nr", "fast"):
            kwargs = {
                "": {},
                "nu": {"check_undefined_grad": False},
                "fw": {"check_forward_ad": True},
                "fwonly": {"check_forward_ad": True, "check_backward_ad": False},
                "b": {"check_batched_grad": True},
                "nr": {"raise_exception": False},
                "fast": {"fast_mode": True},
            }[flags]
            calls[f"{name} {flags}"] = (gradcheck, fs[name].apply, (x,), kwargs)
    for name in ("Cube", "SinCos", "SinCosNone"):
        calls[f"gg {name}"] = (gradgradcheck, fs[name].apply, (x,), {})
        calls[f"gg {name} b"] = (gradgradcheck, fs[name].apply, (x,), {"check_batched_grad": True})
    for name in ("Cube", "CubeWithJvp", "CubeWrongJvp"):
        calls[f"gg {name} fwd over rev"] = (gradgradcheck, fs[name].apply, (x,),
                                            {"check_fwd_over_rev": True})  # fmt: skip
    calls["gg Cube nu"] = (gradgradcheck, fs["Cube"].apply, (x,), {"check_undefined_grad": False})
    builtin = lambda x, c: (x.sin() * c).tanh() + x.exp().sum()  # noqa: E731
    calls["builtin"] = (gradcheck, builtin, (x, c), {})
    calls["builtin all"] = (gradcheck, builtin, (x, c), {"check_batched_grad": True,
                                                        "check_forward_ad": True})  # fmt: skip
    calls["builtin gg all"] = (gradgradcheck, builtin, (x, c), {"check_batched_grad": True})
    calls["builtin fwd over rev"] = (gradgradcheck, builtin, (x, c), {"check_fwd_over_rev": True})
    calls["single tensor, not a tuple"] = (gradcheck, torch.sin, x, {})
    calls["no input requires grad"] = (gradcheck, torch.sin, (c,), {})
    calls["gg no input requires grad"] = (gradgradcheck, torch.sin, (c,), {})
    calls["neither mode"] = (gradcheck, torch.sin, (x,), {"check_backward_ad": False})
    forward_only = {"check_backward_ad": False, "check_forward_ad": True}
    calls["batched without backward"] = (gradcheck, torch.sin, (x,),
                                         {"check_batched_grad": True, **forward_only})  # fmt: skip
    calls["gg neither"] = (gradgradcheck, torch.sin, (x,), {"check_rev_over_rev": False})
    calls["output detached, constant"] = (gradcheck, lambda x: (x * 0).detach(), (x,), {})
    calls["output detached, varies"] = (gradcheck, lambda x: x.detach() * 2, (x,), {})
    calls["one output detached"] = (gradcheck, lambda x: (x.sin(), x.detach()), (x,), {})
    calls["int and float arguments"] = (gradcheck, lambda x, n, s: x**n * s, (x, 3, 0.5), {})
    ints = torch.tensor([1, 2, 3])
    calls["int tensor argument"] = (gradcheck, lambda x, i: x * i, (x, ints), {})
    calls["int output beside"] = (gradcheck, lambda x: (x.sin(), x.argmax()), (x,), {})
    calls["masked"] = (gradcheck, torch.sin, (x,), {"masked": True})
    calls["nondet_tol"] = (gradcheck, torch.sin, (x,), {"nondet_tol": 1e-8})
    noisy = fs["Noisy"].apply
    calls["backward not reentrant"] = (gradcheck, noisy, (x,), {})
    calls["not reentrant, nondet_tol"] = (gradcheck, noisy, (x,), {"nondet_tol": 1e-5})
    calls["float32 gradient"] = (gradcheck, fs["Float32Grad"].apply, (x,), {})
    calls["float32 gradient, dtypes"] = (gradcheck, fs["Float32Grad"].apply, (x,),
                                         {"check_grad_dtypes": True})  # fmt: skip
    calls["list output"] = (gradcheck, lambda x: [x.sin(), x.cos()], (x,), {})
    calls["non-leaf input"] = (gradcheck, torch.sin, (x * 2,), {})
    ones = torch.ones(3, dtype=torch.float64)
    calls["gg grad_outputs"] = (gradgradcheck, torch.sin, (x,), (ones,), {})
    calls["gg non contiguous"] = (gradgradcheck, torch.sin, (x,),
                                  {"gen_non_contig_grad_outputs": True})  # fmt: skip
    fwd_only = {"check_fwd_over_rev": True, "check_rev_over_rev": False}
    calls["gg forward only"] = (gradgradcheck, torch.sin, (x,),
                                {**fwd_only, "check_undefined_grad": False})  # fmt: skip
    calls["float32"] = (gradcheck, torch.sin, (x.float().detach().requires_grad_(),), {})
    calls["int output only"] = (gradcheck, lambda x: x.argmax(), (x,), {})
    y = x.detach().clone().requires_grad_()
    calls["an input unused"] = (gradcheck, lambda x, y: (x.sin(), x.cos()), (x, y), {})
    scalar = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)
    calls["0-d input"] = (gradcheck, torch.sin, (scalar,), {})
    empty = torch.zeros(0, dtype=torch.float64, requires_grad=True)
    calls["empty input"] = (gradcheck, torch.sin, (empty,), {})
    expanded = torch.tensor([1.0], dtype=torch.float64).expand(3).requires_grad_()
    calls["expanded input"] = (gradcheck, torch.sin, (expanded,), {})
    seen = {}
    for label, call in calls.items():
        check, fn, inputs, kwargs = call[0], call[1], call[2], call[-1]
        if len(call) == 5:  # gradgradcheck's grad_outputs
            inputs = (inputs, call[3])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                seen[label] = (
                    check(fn, *inputs, **kwargs) if len(call) == 5 else check(fn, inputs, **kwargs)
                )
            except Exception as error:  # noqa: BLE001 (the class is the outcome)
                seen[label] = type(error).__name__
    return seen


EXPECTED = {  # ours; the oracle leg checks that PyTorch gives the same
    "Cube ": True, "Cube fw": "NotImplementedError", "Cube fwonly": "NotImplementedError",
    "CubeWithJvp fw": True, "CubeWithJvp fwonly": True, "CubeJvpWithoutSaves fw": "ValueError",
    "CubeWrongJvp ": True, "CubeWrongJvp fw": "GradcheckError", "CubeWrongJvp nr": True,
    "CubeForgetsGrad ": "GradcheckError", "CubeForgetsGrad nr": False,
    "CubeForgetsGrad fast": "GradcheckError",
    "CubeNoneFails ": "TypeError", "CubeNoneFails nu": True,
    "CubeNoneGivesOnes ": "GradcheckError", "CubeNoneGivesOnes nu": True,
    "CubeNoneGivesOnes nr": False,
    "CubeNoneRaises ": "GradcheckError", "CubeNoneRaises nu": True,
    "SinCos ": True, "SinCos b": True, "SinCosNone ": True,
    "gg Cube": True, "gg Cube b": True, "builtin all": True, "builtin gg all": True,
    "builtin fwd over rev": True,
    "no input requires grad": "ValueError", "neither mode": "AssertionError",
    "batched without backward": "AssertionError", "gg neither": "AssertionError",
    "output detached, constant": True, "output detached, varies": "GradcheckError",
    "int and float arguments": True, "int tensor argument": True,
    "backward not reentrant": "GradcheckError", "not reentrant, nondet_tol": "GradcheckError",
    "int output only": True, "expanded input": "RuntimeError", "gg forward only": True,
    "float32": "GradcheckError", "empty input": True, "float32 gradient": True,
    "float32 gradient, dtypes": True,
    "gg Cube fwd over rev": "NotImplementedError", "gg CubeWithJvp fwd over rev": True,
}  # fmt: skip


def test_the_further_checks_and_corner_cases():
    seen = outcomes(tg)
    for label, want in EXPECTED.items():
        assert seen[label] == want, (label, seen[label], want)


@pytest.mark.oracle
def test_the_further_checks_and_corner_cases_as_pytorch():
    torch = pytest.importorskip("torch")
    ours, theirs = outcomes(tg), outcomes(torch)
    differ = {k: (ours[k], theirs[k]) for k in theirs if ours[k] != theirs[k]}
    assert not differ


def test_messages_begin_as_pytorchs():
    fs = functions(tg)
    x = tg.tensor([0.5, -1.25], dtype=tg.float64, requires_grad=True)
    gradcheck = tg.autograd.gradcheck
    with pytest.raises(GradcheckError) as info:
        gradcheck(fs["CubeWrongJvp"].apply, (x,), check_forward_ad=True)
    message = str(info.value)
    assert message.startswith("Jacobian computed with forward mode mismatch for output 0 with "
                              "respect to input 0,\nnumerical:")  # fmt: skip
    assert "d output[1] / d input[1]: numerical 4.6875, forward mode 3.125" in message
    with pytest.warns(UserWarning, match="Backwards compatibility"):
        expected = "^Expected all input grads to be undefined or zero when all output grads"
        with pytest.raises(GradcheckError, match=expected):
            gradcheck(fs["CubeNoneGivesOnes"].apply, (x,))
    with pytest.warns(UserWarning, match="Backwards compatibility"):
        expected = "^Expected backward function to handle undefined output grads.(?s:.*)no gradient"
        with pytest.raises(GradcheckError, match=expected):
            gradcheck(fs["CubeNoneRaises"].apply, (x,))
    with pytest.raises(NotImplementedError, match="^You must implement the jvp function"):
        gradcheck(fs["Cube"].apply, (x,), check_forward_ad=True)
    with pytest.raises(ValueError, match="^gradcheck expects at least one input tensor"):
        gradcheck(tg.sin, (x.detach(),))


def test_batched_check_finds_a_backward_that_depends_on_more_than_its_inputs():
    calls = []

    class Counting(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            calls.append(1)
            return grad * (2 + len(calls) // 3)  # planted: changes after a few calls

    x = tg.tensor([0.5, -1.25], dtype=tg.float64, requires_grad=True)
    out = Counting.apply(x)
    with pytest.raises(GradcheckError) as info:
        torch_checks.check_batched_grad((x,), out, 0)
    expected = "For output 0 and input 0:\n\ngradcheck or gradgradcheck failed while testing"
    assert str(info.value).startswith(expected + " batched gradient computation.")
    np.testing.assert_equal(len(calls), 4)
