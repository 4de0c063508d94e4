"""Dropout's relatives (F): whole channels at once (`dropout1d`, `dropout2d`), and
`alpha_dropout`, which keeps a SELU network's mean 0 and variance 1.

Like `F.dropout`, each draws its mask from `generator=` (a `tg.Generator`) or the global
generator, is the identity when `training=False` or p = 0, and is differentiable in the input
(the mask is a constant: grad_x = mask-scaled grad_output).
"""

from __future__ import annotations

# SELU's constants: the value SELU tends to for large negative inputs is -scale * alpha.
import warnings

import numpy as np

from ...functions.creation import as_tensor
from ...random import resolve, transforms
from ...tensor import Tensor

SELU_SATURATION = 1.0507009873554805 * 1.6732632423543772


def _check_p(op: str, p: float) -> None:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{op}: p is the probability of dropping and must be in [0, 1], got {p}")


def _channel_dropout(op: str, input, p, training, generator, dims: tuple) -> Tensor:  # noqa: A002
    """Zero whole channels: a keep-mask of shape (N, C, 1, ...) (or (C, 1, ...) unbatched),
    survivors scaled by 1 / (1 - p)."""
    x = as_tensor(input)
    _check_p(op, p)
    if x.ndim == 2 and dims == (3, 4):  # PyTorch warns and drops single elements
        warnings.warn(
            "dropout2d: a 2-D input has no spatial axes, so each element is its own channel: "
            "this is F.dropout (use that instead; PyTorch will make this an error)",
            UserWarning,
            stacklevel=3,
        )
        dims = (2, 2)  # batched (N, C): one mask entry per element
    if x.ndim not in dims:
        raise RuntimeError(
            f"{op}: expected a {' or '.join(f'{d}D' for d in dims)} input (N, C, ...) or "
            f"(C, ...), got a {x.ndim}D input of shape {x.shape}"
        )
    if not training or p == 0.0:
        return x
    batched = x.ndim == dims[-1]
    mask_shape = x.array.shape[: 2 if batched else 1] + (1,) * (x.ndim - (2 if batched else 1))
    if p == 1.0:
        return x * 0.0
    keep = transforms.bernoulli(resolve(generator, op), 1.0 - p, mask_shape, x.array.dtype)
    return x * (keep / x.array.dtype.type(1.0 - p))


def dropout1d(input, p=0.5, training=True, inplace=False, *, generator=None) -> Tensor:  # noqa: A002
    """Zero each channel of an (N, C, L) or (C, L) input with probability p (all L values at
    once), scale the rest by 1 / (1 - p). Tompson et al., 2015 ("spatial dropout")."""
    return _channel_dropout("dropout1d", input, p, training, generator, (2, 3))


def dropout2d(input, p=0.5, training=True, inplace=False, *, generator=None) -> Tensor:  # noqa: A002
    """Zero each channel (feature map) of an (N, C, H, W) or (C, H, W) input with probability
    p, scale the rest by 1 / (1 - p)."""
    return _channel_dropout("dropout2d", input, p, training, generator, (3, 4))


def alpha_dropout(input, p=0.5, training=False, inplace=False, *, generator=None) -> Tensor:  # noqa: A002
    """Dropout for SELU networks (Klambauer et al., 2017): a dropped element becomes SELU's
    saturation value a' = -1.7581, then an affine map a * y + b restores mean 0, variance 1
    for inputs of mean 0, variance 1:

        a = 1 / sqrt((1 - p) * (1 + p * a'^2)),   b = -a * a' * p

    Note PyTorch's default `training=False` for this function (the identity).
    """
    x = as_tensor(input)
    _check_p("alpha_dropout", p)
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return x * 0.0
    gen = resolve(generator, "alpha_dropout")
    keep = transforms.bernoulli(gen, 1.0 - p, x.array.shape, np.float64)
    keep = transforms.like_input(keep, x.array)  # the mask is laid out as the input
    a = 1.0 / np.sqrt((1.0 - p) * (1.0 + p * SELU_SATURATION**2))
    b = a * SELU_SATURATION * p
    scale = (keep * a).astype(x.array.dtype)
    shift = ((keep - 1.0) * SELU_SATURATION * a + b).astype(x.array.dtype)
    return x * scale + shift


def dropout(input, p=0.5, training=True, inplace=False, *, generator=None):  # noqa: A002
    """Inverted dropout: zero each element with probability p, scale the rest by 1 / (1 - p).

    The scaling keeps the expected value of every element unchanged, so nothing needs to
    change at evaluation time, when dropout is the identity (`training=False`, or p = 0).
    p = 1 zeroes everything. The keep-mask is drawn from `generator` (a `tg.Generator`) or the
    global generator (`tg.manual_seed`, `tg.random.fork_rng`). Srivastava et al., 2014, "Dropout".
    `inplace` is accepted for PyTorch's signature; the result is always a new tensor.

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> dropout(tg.ones(6), p=0.5)  # torch.manual_seed(0) gives the same mask
    tensor([0., 0., 2., 0., 0., 0.])
    """
    x = as_tensor(input)
    if not 0.0 <= p <= 1.0:
        raise ValueError(
            f"dropout: p is the probability of zeroing an element and must be in [0, 1], got {p}"
        )
    if not training or p == 0.0:
        return x
    if x.array.dtype.kind not in "fc":  # PyTorch's RuntimeError: 1 / (1 - p) is no integer
        raise RuntimeError(
            f"dropout: the input is {x.dtype}, and dropout scales by 1 / (1 - p), a float; "
            "convert it first, e.g. F.dropout(x.float(), p)"
        )
    if p == 1.0:
        return x * 0.0
    # PyTorch's CPU dropout: a mask of bernoulli(1 - p) draws, divided by 1 - p
    keep = transforms.bernoulli(resolve(generator, "dropout"), 1.0 - p, x.shape, x.array.dtype)
    keep = transforms.like_input(keep, x.array)  # the mask is laid out as the input
    return x * (keep / x.array.dtype.type(1.0 - p))
