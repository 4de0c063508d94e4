"""Gradient clipping, as `torch.nn.utils`: by the total norm, or elementwise by value.

`clip_grad_norm_` treats all the gradients as one long vector g and scales it to length at
most max_norm:

    total = ||g||_p = (sum over parameters of ||g_i||_p^p)^(1/p)   (p = inf: max |g|)
    g_i  <- g_i * min(1, max_norm / (total + 1e-6))

It changes `.grad` in place and returns `total` (before clipping), as a 0-d tensor.
"""

from __future__ import annotations

import math

import numpy as np

from ...tensor import Tensor


def _grads(parameters) -> list:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(
    parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None
) -> Tensor:
    """Scale the gradients so their total `norm_type`-norm is at most `max_norm`; returns the
    total norm before clipping (a 0-d tensor).

    >>> import tinygrad_norm as tg
    >>> w = tg.zeros(2, requires_grad=True)
    >>> w.grad = tg.tensor([3.0, 4.0])
    >>> clip_grad_norm_([w], max_norm=1.0)
    tensor(5.)
    >>> w.grad
    tensor([0.6000, 0.8000])
    """
    grads = _grads(parameters)
    if not grads:
        return Tensor(0.0)
    norm_type = float(norm_type)
    arrays = [g.array.astype(np.float64) for g in grads]
    if math.isinf(norm_type):
        total = max(float(np.abs(a).max(initial=0.0)) for a in arrays)
    else:
        total = sum(float(np.sum(np.abs(a) ** norm_type)) for a in arrays) ** (1.0 / norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(
            f"clip_grad_norm_: the total norm of order {norm_type} of the gradients is {total}, "
            "so they cannot be clipped; pass error_if_nonfinite=False to skip this check"
        )
    coefficient = min(1.0, float(max_norm) / (total + 1e-6))
    for g in grads:
        g.array *= np.asarray(coefficient, dtype=g.array.dtype)
    return Tensor(np.asarray(total, dtype=grads[0].array.dtype))


def clip_grad_value_(parameters, clip_value, foreach=None) -> None:
    """Clamp every gradient element to [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    for g in _grads(parameters):
        np.clip(g.array, -clip_value, clip_value, out=g.array)
