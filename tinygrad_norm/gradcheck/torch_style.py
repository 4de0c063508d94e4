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
that explains why. The checks PyTorch runs through vmap or forward mode
(`check_batched_grad`, `check_forward_ad`, ...) are not run; their arguments are accepted.

This module is also `torch.autograd.gradcheck` as a module path
(`from torch.autograd.gradcheck import GradcheckError`).
"""

from __future__ import annotations

import warnings
from dataclasses import replace

from ..tensor import Tensor
from .check import Settings, _as_tuple, _name, run, run_gradgradcheck
from .report import STATUS_NONDET, STATUS_SHAPE, GradcheckError, GradcheckResult

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


def gradcheck(
    func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
    check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
    check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
    fast_mode=False, masked=None,
) -> bool:  # fmt: skip
    """PyTorch's gradcheck: True, or GradcheckError (False with raise_exception=False)."""
    inputs = _as_tuple(inputs)
    settings = _settings(inputs, eps, atol, rtol, fast_mode, nondet_tol)
    name = _name(func)
    where = name if name.isidentifier() else None
    result = run(func, inputs, settings, False, "gradcheck", name, where)
    return _answer(result, inputs, raise_exception)


def gradgradcheck(
    func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
    gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
    check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
    check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False,
) -> bool:  # fmt: skip
    """PyTorch's gradgradcheck: second derivatives; True, or GradcheckError."""
    inputs = _as_tuple(inputs)
    settings = _settings(inputs, eps, atol, rtol, fast_mode, nondet_tol)
    try:
        result = run_gradgradcheck(func, inputs, grad_outputs, settings, False)
    except RuntimeError as error:
        if "once_differentiable" not in str(error):
            raise
        # PyTorch finds the second derivative zero there and reports a mismatch; here the
        # node says why
        if not raise_exception:
            return False
        headline = "Jacobian mismatch for output 0 with respect to input 0,\n"
        raise GradcheckError(headline + str(error)) from error
    return _answer(result, inputs, raise_exception)


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
    return replace(settings, float64_only=False)


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
