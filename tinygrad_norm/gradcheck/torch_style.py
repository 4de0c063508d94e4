"""`torch.autograd.gradcheck` / `gradgradcheck`: PyTorch's signature, defaults and results.

Scripts written for PyTorch call these and test their result: `True`, or a `GradcheckError`
(a RuntimeError) whose message begins as PyTorch's,

    Jacobian mismatch for output 0 with respect to input 0,
    numerical:3.0000
    analytical:5.0000

and then gives tinygrad_norm's report: the table, the worst element's index with both values,
the kind of mistake (a wrong backward, a kink, a shape) and the first op whose own backward is
wrong. With `raise_exception=False` the answer is `False`. Input and output indices count, as in
PyTorch, only the inputs that require grad and the floating-point outputs.

PyTorch's rule for float32 inputs applies here too: a warning, then the check (which usually
fails: finite differences need float64). `tg.gradcheck` instead refuses float32 with an error
that explains why. `check_undefined_grad` (on by default, as in PyTorch), `check_batched_grad`
and `check_forward_ad` run their checks (torch_checks.py); `check_batched_forward_grad` and
`masked` are accepted and change nothing.

This module is also `torch.autograd.gradcheck` as a module path
(`from torch.autograd.gradcheck import GradcheckError`).
"""

from __future__ import annotations

import warnings
from dataclasses import replace

from ..autograd.grad_mode import enable_grad
from ..random import get_rng_state, set_rng_state
from ..tensor import Tensor
from . import torch_checks
from .check import (
    Settings,
    _as_tuple,
    _grad_outputs,
    _name,
    first_derivatives,
    run,
    run_gradgradcheck,
)
from .report import STATUS_NONDET, STATUS_SHAPE, GradcheckError, GradcheckResult

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


def gradcheck(
    func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
    check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
    check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
    fast_mode=False, masked=None,
) -> bool:  # fmt: skip
    """PyTorch's gradcheck: True, or GradcheckError (False with raise_exception=False).

    In PyTorch's order: the Jacobian from backward against finite differences, the Jacobian
    from forward mode (`check_forward_ad`), then, from backward, batched gradients
    (`check_batched_grad`), zero gradients for zero grad_outputs, and undefined output
    gradients (`check_undefined_grad`): torch_checks.py."""
    _refuse_flags(check_forward_ad, check_backward_ad, check_batched_grad,
                  check_batched_forward_grad)  # fmt: skip
    inputs = _as_tuple(inputs)
    _require_an_input_requiring_grad(inputs)
    settings = _settings(inputs, eps, atol, rtol, fast_mode, nondet_tol)
    name = _name(func)
    where = name if name.isidentifier() else None
    try:
        checked = _differentiable_outputs_only(func, inputs)
        if checked is None:  # no output requires grad: PyTorch's one check
            return torch_checks.check_no_differentiable_outputs(func, inputs, eps)
        if check_backward_ad:
            result = run(checked, inputs, settings, False, "gradcheck", name, where)
            _answer(result, inputs, True)
        if check_forward_ad:
            torch_checks.check_forward_ad(func, inputs, eps, atol, rtol)
        if check_backward_ad:
            _further(func, inputs, check_batched_grad, check_undefined_grad)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def gradgradcheck(
    func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
    gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
    check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
    check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False,
) -> bool:  # fmt: skip
    """PyTorch's gradgradcheck: second derivatives; True, or GradcheckError. As in PyTorch,
    the further checks (`check_undefined_grad`, `check_batched_grad`, `check_fwd_over_rev`)
    run on the function that gives the first derivatives."""
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError(
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True"
        )
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True"
        )
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_rev_over_rev to be True"
        )
    inputs = _as_tuple(inputs)
    _require_an_input_requiring_grad(inputs)
    settings = _settings(inputs, eps, atol, rtol, fast_mode, nondet_tol)
    try:
        if check_rev_over_rev:
            result = run_gradgradcheck(func, inputs, grad_outputs, settings, False)
            _answer(result, inputs, True)
        first = first_derivatives(func, len(inputs))
        with enable_grad():
            outputs = [
                o for o in torch_checks.differentiable(func(*inputs)) if o.array.dtype.kind == "f"
            ]
        grad_inputs = inputs + tuple(_grad_outputs(grad_outputs, outputs))
        if check_fwd_over_rev:
            torch_checks.check_forward_ad(first, grad_inputs, eps, atol, rtol)
        if check_rev_over_rev:
            _further(first, grad_inputs, check_batched_grad, check_undefined_grad)
        return True
    except RuntimeError as error:
        if not isinstance(error, GradcheckError) and "once_differentiable" not in str(error):
            raise
        # PyTorch finds the second derivative zero there and reports a mismatch; here the
        # node says why
        if not raise_exception:
            return False
        if isinstance(error, GradcheckError):
            raise
        headline = "Jacobian mismatch for output 0 with respect to input 0,\n"
        raise GradcheckError(headline + str(error)) from error


def _further(first, grad_inputs: tuple, batched: bool, undefined: bool) -> bool:
    """The checks after the Jacobian (gradcheck's on `func`, gradgradcheck's on the
    first-derivative function): batched, multiplied by grad_output, undefined gradients."""
    with enable_grad():
        outputs = torch_checks.differentiable(first(*grad_inputs))
    if batched:
        for k, output in enumerate(outputs):
            torch_checks.check_batched_grad(grad_inputs, output, k)
    if outputs:
        torch_checks.check_multiplied_by_grad_output(outputs, grad_inputs)
    if undefined and outputs:
        torch_checks.check_undefined_grad(first, grad_inputs)
    return True


def _differentiable_outputs_only(func, inputs: tuple):
    """func, or func keeping only its outputs that require grad when some do not: PyTorch
    checks only those; None when none does."""
    start = get_rng_state()
    with enable_grad():
        returned = func(*inputs)
    set_rng_state(start)
    if not isinstance(returned, (Tensor, tuple, list)):
        return func  # the check says what fn must return
    outputs = _as_tuple(returned)
    keep = [k for k, o in enumerate(outputs) if _requires_grad(o)]
    if not keep:
        return None
    if len(keep) == len(outputs):
        return func

    def differentiable_outputs(*args):
        returned = _as_tuple(func(*args))
        return tuple(returned[k] for k in keep)

    return differentiable_outputs


def _refuse_flags(forward_ad: bool, backward_ad: bool, batched: bool, batched_forward: bool):
    """PyTorch's AssertionErrors for flags that cannot go together."""
    if not (forward_ad or backward_ad):
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True"
        )
    if batched and not backward_ad:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_backward_ad to be True"
        )
    if batched_forward and not forward_ad:
        raise AssertionError(
            "Setting check_batched_forward_grad=True requires check_forward_ad to be True"
        )


def _require_an_input_requiring_grad(inputs: tuple) -> None:
    """PyTorch's refusals of the inputs: none requires grad; one has a dimension of stride 0
    (an expanded tensor: moving one element would move several)."""
    for p, x in enumerate(inputs):
        if _requires_grad(x) and any(
            st == 0 and n > 1 for st, n in zip(x.array.strides, x.array.shape)
        ):
            raise RuntimeError(
                f"The {p}th input has a dimension with stride 0. gradcheck only supports "
                "inputs that are non-overlapping to be able to compute the numerical gradients "
                "correctly. You should call .contiguous on the input before passing it to "
                "gradcheck."
            )
    if not any(_requires_grad(x) for x in inputs):
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of "
            "them have requires_grad=True. (tinygrad_norm: create the inputs with "
            "requires_grad=True)"
        )


def _settings(inputs: tuple, eps, atol, rtol, fast_mode, nondet_tol) -> Settings:
    """The check's settings; PyTorch's warning for each input that is not float64."""
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad and x.dtype.itemsize < 8:
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. (tinygrad_norm: finite differences with "
                "eps=1e-6 need float64; call .double() on the inputs)",
                UserWarning,
                stacklevel=3,
            )
    settings = Settings(eps, atol, rtol, fast_mode, nondet_tol)
    return replace(settings, strict=False)


def _answer(result: GradcheckResult, inputs: tuple, raise_exception: bool) -> bool:
    if result.ok:
        return True
    if not raise_exception:
        return False
    raise GradcheckError(_headline(result, inputs) + "\n\n" + str(result), result)


def _headline(result: GradcheckResult, inputs: tuple) -> str:
    """The first lines of PyTorch's message for the same failure."""
    row = result.worst
    if row is None:  # a problem found before any Jacobian (e.g. a NumPy backward)
        return "Gradcheck failed (tinygrad_norm's report follows)"
    if row.status == STATUS_NONDET:
        return (
            "Backward is not reentrant, i.e., running backward with same input and grad_output "
            "multiple times gives different values, although analytical gradient matches "
            "numerical gradient."
        )
    if row.status == STATUS_SHAPE:
        return "Gradient has dtype or shape mismatch (tinygrad_norm's report follows)"
    differentiable = [i for i, x in enumerate(inputs) if _requires_grad(x)]
    position = differentiable.index(row.input) if row.input in differentiable else row.input
    floating = sorted({r.output for r in result.rows})
    output = floating.index(row.output) if row.output in floating else row.output
    at = "" if row.worst is None else f" at input element {row.worst}"
    return (
        f"Jacobian mismatch for output {output} with respect to input {position},\n"
        f"numerical:{row.numerical:.6g}\nanalytical:{row.analytic:.6g}{at}"
    )


def _requires_grad(x) -> bool:
    return isinstance(x, Tensor) and x.requires_grad
