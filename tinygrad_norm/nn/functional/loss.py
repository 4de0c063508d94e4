"""nn.functional's losses and distances, composed from primitives (autograd derives every
gradient, so all are twice differentiable where the maths is).

Each loss computes one value per element (or per sample) and then reduces it: "mean" (the
default), "sum", or "none" (keep them all). Names, arguments and defaults are PyTorch's;
`size_average` / `reduce` are PyTorch's deprecated spellings of `reduction` and are accepted.
`nll_loss`, `cross_entropy` and `mse_loss` live in functional.py; `ctc_loss` in
functional_ctc.py.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ...broadcast import broadcast_shape
from ...functions.creation import as_tensor
from ...ops import composite as C
from ...ops import fused
from ...ops.binary_cross_entropy import binary_cross_entropy as _binary_cross_entropy
from ...ops.fused.cross_entropy import cross_entropy as _fused_cross_entropy
from ...ops.fused.cross_entropy import require_index_target
from ...ops.xp import softplus
from ...tensor import Tensor

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "margin_ranking_loss",
    "poisson_nll_loss",
    "smooth_l1_loss",
    "soft_margin_loss",
]

REDUCTIONS = ("none", "mean", "sum")


def legacy_reduction(size_average, reduce, reduction: str) -> str:
    """PyTorch's old `size_average` / `reduce` flags as a `reduction` (they win when given)."""
    if size_average is None and reduce is None:
        return reduction
    if reduce is False:
        return "none"
    return "sum" if size_average is False else "mean"


def reduce_loss(op: str, loss, reduction: str):
    check_reduction(op, reduction)
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()


def check_reduction(op: str, reduction: str) -> None:
    if reduction not in REDUCTIONS:
        raise ValueError(f"{op}: reduction must be one of {REDUCTIONS}, got {reduction!r}")


def _pair(op: str, input, target, strict=False):  # noqa: A002 - PyTorch's name
    """input and target as tensors of one shape.

    Different shapes are an error when `strict` (PyTorch's binary cross-entropies) or when
    they do not broadcast; otherwise they broadcast with PyTorch's warning, since that is
    almost always a mistake ((N, 1) against (N,) gives an (N, N) loss).
    """
    x = as_tensor(input)
    check_loss_input(op, x)
    t = C.as_tensor(target, x)
    if t.dtype != x.dtype:  # an integer or bool target counts in the input's dtype, as PyTorch's
        t = t.to(x.dtype)
    if t.shape == x.shape:
        return x, t
    if strict:
        raise ValueError(
            f"{op}: target of shape {t.shape} differs from input of shape {x.shape}; give "
            "them the same shape (e.g. target.reshape(input.shape))"
        )
    shape = check_loss_shapes(op, x.shape, t.shape, stacklevel=4)
    return x.expand(*shape), t.expand(*shape)


def check_loss_input(op: str, *inputs) -> None:
    """Refuse an integer or bool input, as PyTorch's losses do (NotImplementedError, or its
    base RuntimeError): uint8 differences wrap around (1 - 2 = 255) and bools do not subtract.
    A dtype test, no pass over the data. Two inputs are input1 and input2."""
    names = ["input"] if len(inputs) == 1 else [f"input{i + 1}" for i in range(len(inputs))]
    fix = f"F.{op}({', '.join(f'{name}.float()' for name in names)}, target)"
    for name, x in zip(names, inputs):
        C.require_floating(op, x, NotImplementedError, fix, name)


def check_loss_shapes(op: str, input_shape: tuple, target_shape: tuple, stacklevel=3) -> tuple:
    """The shape input and target of different shapes broadcast to, with PyTorch's warning
    (broadcasting them is almost always a mistake: (N, 1) against (N,) gives an (N, N) loss),
    or a ShapeError if they do not broadcast. `stacklevel` points the warning at the user's
    call of the loss."""
    shape = broadcast_shape(
        op,
        input_shape,
        target_shape,
        names=("input", "target"),
        fix="give the target the input's shape (e.g. target.reshape(input.shape))",
    )
    warnings.warn(
        f"{op}: target of shape {target_shape} differs from input of shape {input_shape}; "
        f"they broadcast to {shape}, which is likely wrong. Give them one shape, e.g. "
        "target.reshape(input.shape)",
        stacklevel=stacklevel,
    )
    return shape


def _constant(value, like):
    """A tensor of `like`'s dtype holding value (a number, array or tensor)."""
    t = C.as_tensor(value, like)
    return t.to(like.dtype) if t.dtype != like.dtype else t


def _identity_clamp_min(x, low: float):
    """max(x, low) in value, with the gradient of x itself (PyTorch clamps such terms under
    no_grad: the clamp only guards the value)."""
    return x + C.as_tensor(np.maximum(x.array, low) - x.array, x)


# --- probabilities ------------------------------------------------------------------------------
def binary_cross_entropy(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):  # noqa: A002 - PyTorch's names
    """-weight · (t · log(p) + (1 - t) · log(1 - p)) for probabilities p in [0, 1].

    Each log is clamped at -100, as PyTorch does, so p = 0 or 1 gives a finite loss. For
    logits, binary_cross_entropy_with_logits is the stable choice.

    >>> import tinygrad_norm as tg
    >>> binary_cross_entropy(tg.tensor([0.5, 0.5]), tg.tensor([1.0, 0.0]))   # log 2
    tensor(0.6931)
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    p, t = _pair("binary_cross_entropy", input, target, strict=True)
    if ((p.array < 0) | (p.array > 1)).any():
        raise RuntimeError(
            "binary_cross_entropy: every input must be a probability in [0, 1]; for "
            "unbounded scores (logits) use binary_cross_entropy_with_logits"
        )
    if ((t.array < 0) | (t.array > 1)).any():
        raise RuntimeError(
            "binary_cross_entropy: every target must be between 0 and 1 (a probability or a "
            "0/1 label); check the labels, e.g. map {-1, 1} to {0, 1} with (y + 1) / 2"
        )
    loss = _binary_cross_entropy(p, t)  # log clamped at -100 and finite gradients, as PyTorch
    if weight is not None:
        loss = loss * _constant(weight, p)
    return reduce_loss("binary_cross_entropy", loss, reduction)


def binary_cross_entropy_with_logits(  # noqa: A002 - PyTorch's names
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    """Binary cross-entropy of sigmoid(x), computed stably from the logits x:

        loss = (1 - t) · x + (1 + (pos_weight - 1) · t) · log(1 + exp(-x))

    pos_weight (one per class, broadcast over the last axis) weighs the positive targets,
    weight each element. log(1 + exp(-x)) = max(-x, 0) + log(1 + exp(-|x|)) never overflows.

    >>> import tinygrad_norm as tg
    >>> binary_cross_entropy_with_logits(tg.tensor([0.0]), tg.tensor([1.0]))
    tensor(0.6931)
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    x, t = _pair("binary_cross_entropy_with_logits", input, target, strict=True)
    check_reduction("binary_cross_entropy_with_logits", reduction)
    constants = [None if c is None else _constant(c, x) for c in (pos_weight, weight)]
    if x.array.size == 0 or any(c is not None and c.requires_grad for c in constants):
        # composed: an empty mean (NaN, as PyTorch), or a weight whose gradient is wanted
        pos_weight, weight = constants
        return fused.bce_with_logits_reference(x, t, pos_weight, weight, reduction)
    pos_weight, weight = (None if c is None else c.array for c in constants)
    return fused.bce_with_logits(x, t, pos_weight, weight, reduction)  # one node


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):  # noqa: A002 - PyTorch's names
    """Kullback-Leibler divergence KL(target || q), input = log q, PyTorch's formula:
    xlogy(t, t) - t · input, or exp(t) · (t - input) when log_target. xlogy(t, t) = t · log t,
    and 0 at t = 0, so a zero target adds 0 (unless input is ±inf: 0 · inf is NaN, as in
    PyTorch); a negative or NaN target gives NaN.

    reduction "batchmean" divides the sum by the batch size (the true KL per sample); "mean",
    PyTorch's default, divides by the number of elements.

    >>> import tinygrad_norm as tg
    >>> kl_div(tg.tensor([[0.5, 0.5]]).log(), tg.tensor([[0.5, 0.5]]), reduction="batchmean")
    tensor(0.)
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    x, t = _pair("kl_div", input, target)
    if log_target:
        loss = t.exp() * (t - x)
    else:
        safe = t.masked_fill(t.array == 0, 1.0)  # log(1) = 0: no -inf, no NaN gradient at 0
        with np.errstate(invalid="ignore"):  # log(t < 0) and 0 · inf: NaN, silently as PyTorch
            loss = t * safe.log() - t * x
    if reduction == "batchmean":
        return loss.sum() / (x.shape[0] if x.ndim else 1)
    return reduce_loss("kl_div", loss, reduction)


def poisson_nll_loss(
    input,
    target,
    log_input=True,
    full=False,
    size_average=None,
    eps=1e-8,
    reduce=None,
    reduction="mean",
):  # noqa: A002
    """Negative log-likelihood of target ~ Poisson(rate), dropping log(target!):
    exp(x) - t · x when log_input (x = log rate), else x - t · log(x + eps). With `full`,
    Stirling's t · log t - t + log(2πt) / 2 is added where t > 1."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    x, t = _pair("poisson_nll_loss", input, target)
    loss = x.exp() - t * x if log_input else x - t * (x + eps).log()
    if full:
        big = t.array > 1
        safe = t.masked_fill(~big, 1.0)
        stirling = safe * safe.log() - safe + 0.5 * (2 * math.pi * safe).log()
        loss = loss + stirling.masked_fill(~big, 0.0)
    return reduce_loss("poisson_nll_loss", loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):  # noqa: A002
    """Negative log-likelihood of target ~ Normal(input, var):
    (log(var) + (input - target)² / var) / 2 (+ log(2π) / 2 with `full`).

    var has the input's shape, or one fewer trailing axis (or a last axis of 1): one variance
    per sample. It is clamped at eps for the value only, as PyTorch.
    """
    x, t = _pair("gaussian_nll_loss", input, target)
    v = _constant(var, x)
    if v.shape != x.shape and v.shape == x.shape[:-1]:
        v = v.unsqueeze(-1)
    if v.shape != x.shape and not (v.shape[:-1] == x.shape[:-1] and v.shape[-1:] == (1,)):
        raise ValueError(f"gaussian_nll_loss: var of shape {v.shape} does not fit input {x.shape}")
    if (v.array < 0).any():
        raise ValueError("gaussian_nll_loss: var has negative entries; a variance is >= 0")
    v = _identity_clamp_min(v, eps)
    loss = 0.5 * (v.log() + (x - t) ** 2 / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return reduce_loss("gaussian_nll_loss", loss, reduction)


# --- regression ---------------------------------------------------------------------------------
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):  # noqa: A002
    """|input - target|, reduced; with `weight` (the input's shape), weight · |input - target|
    and "mean" divides by the sum of the weights.

    >>> import tinygrad_norm as tg
    >>> l1_loss(tg.tensor([1.0, 2.0]), tg.tensor([1.5, 4.0]))
    tensor(1.2500)
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    x, t = _pair("l1_loss", input, target)
    loss = (x - t).abs()
    if weight is None:
        return reduce_loss("l1_loss", loss, reduction)
    w = _weight("l1_loss", weight, x)
    if reduction == "mean":
        return (loss * w).sum() / w.sum()
    return reduce_loss("l1_loss", loss * w, reduction)


def _weight(op: str, weight, x):
    w = _constant(weight, x)
    if w.shape != x.shape:
        raise ValueError(f"{op}: weight of shape {w.shape} must have the input's shape {x.shape}")
    return w


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):  # noqa: A002 - PyTorch's names
    """0.5 · d² / beta where |d| < beta, else |d| - beta / 2 (d = input - target): quadratic
    near 0, linear far away. beta = 0 is l1_loss."""
    x, t = _pair("smooth_l1_loss", input, target)
    if beta > 0 and x.dtype.kind == "f":  # one node: ops/fused/smooth_l1.py
        loss = fused.SmoothL1.apply(x, t, beta=beta, c=1.0)
    else:  # beta = 0 is l1_loss (a negative beta, which PyTorch refuses, only shifts it)
        loss = (x - t).abs() - 0.5 * beta if beta else (x - t).abs()
    return reduce_loss("smooth_l1_loss", loss, legacy_reduction(size_average, reduce, reduction))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):  # noqa: A002
    """0.5 · d² where |d| < delta, else delta · (|d| - delta / 2): smooth_l1_loss times
    delta, with beta = delta. `weight` (the input's shape) multiplies each element's loss."""
    x, t = _pair("huber_loss", input, target)
    if delta > 0 and x.dtype.kind == "f":  # one node: ops/fused/smooth_l1.py
        loss = fused.SmoothL1.apply(x, t, beta=delta, c=delta)
    else:
        d = (x - t).abs()
        loss = _where(d.array < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    if weight is not None:
        loss = loss * _weight("huber_loss", weight, x)
    return reduce_loss("huber_loss", loss, reduction)


def _where(condition: np.ndarray, a, b):
    return b.masked_fill(condition, 0.0) + a.masked_fill(~condition, 0.0)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):  # noqa: A002
    """log(1 + exp(-target · input)) for targets ±1."""
    x, t = _pair("soft_margin_loss", input, target)
    loss = softplus(-t * x)  # stable: max(z, 0) + log1p(exp(-|z|))
    return reduce_loss("soft_margin_loss", loss, legacy_reduction(size_average, reduce, reduction))


# --- margins and similarities -------------------------------------------------------------------
def margin_ranking_loss(
    input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"
):
    """max(0, -target · (input1 - input2) + margin): target 1 wants input1 ranked higher."""
    x1, x2 = as_tensor(input1), as_tensor(input2)
    check_loss_input("margin_ranking_loss", x1, x2)
    y = _constant(target, x1)
    if not x1.ndim == x2.ndim == y.ndim:
        raise RuntimeError(
            f"margin_ranking_loss: input1 {x1.shape}, input2 {x2.shape} and target {y.shape} "
            "must have the same number of dimensions"
        )
    loss = (-y * (x1 - x2) + margin).relu()
    return reduce_loss(
        "margin_ranking_loss", loss, legacy_reduction(size_average, reduce, reduction)
    )


def hinge_embedding_loss(
    input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"
):  # noqa: A002 - PyTorch's names
    """input where target = 1, max(0, margin - input) where target = -1 (input: a distance)."""
    x, y = _pair("hinge_embedding_loss", input, target)
    loss = (margin - x).relu().masked_fill(y.array == 1, 0.0) + x.masked_fill(y.array == -1, 0.0)
    return reduce_loss(
        "hinge_embedding_loss", loss, legacy_reduction(size_average, reduce, reduction)
    )


def cosine_embedding_loss(
    input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"
):
    """1 - cos(x1, x2) where target = 1, max(0, cos(x1, x2) - margin) where target = -1;
    cos over the last axis, as PyTorch (with its eps of 1e-12 inside the norms)."""
    x1, x2 = as_tensor(input1), as_tensor(input2)
    check_loss_input("cosine_embedding_loss", x1, x2)
    y = as_tensor(target).array
    if y.ndim > 1 or x1.ndim != y.ndim + 1 or x2.ndim != y.ndim + 1:
        raise RuntimeError(
            f"cosine_embedding_loss: a target of shape {y.shape} needs inputs with one more "
            f"dimension ((N, D) for (N,), (D,) for ()), got {x1.shape} and {x2.shape}"
        )
    dot = (x1 * x2).sum(dim=-1)
    cos = dot / ((x1 * x1).sum(dim=-1) + 1e-12).sqrt() / ((x2 * x2).sum(dim=-1) + 1e-12).sqrt()
    loss = (1 - cos).masked_fill(y != 1, 0.0) + (cos - margin).relu().masked_fill(y != -1, 0.0)
    return reduce_loss(
        "cosine_embedding_loss", loss, legacy_reduction(size_average, reduce, reduction)
    )


def cross_entropy(input, target, weight=None, **options):  # noqa: A002 - PyTorch's name
    """Cross-entropy between logits and class indices or probabilities, one fused node
    (`ops/fused/cross_entropy.py`, where the arguments, shapes and derivation are described).
    `options`, by keyword as in PyTorch: ignore_index=-100, reduction="mean",
    label_smoothing=0.0. Here the input and target may also be arrays or lists.

    >>> import tinygrad_norm as tg
    >>> cross_entropy(tg.tensor([[2.0, 0.0, 0.0], [0.0, 0.0, 0.0]]), tg.tensor([0, 2]))
    tensor(0.6691)
    """
    x = as_tensor(input)
    check_loss_input("cross_entropy", x)
    target = target if isinstance(target, Tensor) else as_tensor(np.asarray(target))
    return _fused_cross_entropy(x, target, weight, **options)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):  # fmt: skip  # noqa: A002 - PyTorch's names
    """Negative log-likelihood: -input[n, target[n]] (times weight[target[n]]), reduced.

    input: log-probabilities (N, C), (N, C, d1, ...) or (C,); target: class indices (N,),
    (N, d1, ...) or (). "mean" divides by the sum of the weights of the targets not ignored.
    Composed from primitives: a gather (GetItem) and a Where that gives ignored targets an
    exact 0.

    >>> import tinygrad_norm as tg
    >>> nll_loss(tg.tensor([[-1.0, -2.0], [-3.0, -4.0]]), tg.tensor([1, 0]))
    tensor(2.5000)
    """
    x = as_tensor(input)
    check_loss_input("nll_loss", x)
    target = target if isinstance(target, Tensor) else Tensor(np.asarray(target))
    reduction = legacy_reduction(size_average, reduce, reduction)  # PyTorch's old flags
    check_reduction("nll_loss", reduction)
    if x.ndim == 1:  # (C,) log-probabilities: a batch of one
        loss = nll_loss(x.unsqueeze(0), target.unsqueeze(0), weight,
                        ignore_index=ignore_index, reduction=reduction)  # fmt: skip
        return loss.squeeze(0) if reduction == "none" else loss
    expected = x.shape[:1] + x.shape[2:]
    require_index_target("nll_loss", target)  # float, bool, int32: PyTorch's RuntimeError
    if x.ndim < 2 or target.dtype.kind not in "iu" or target.shape != expected:
        raise ValueError(
            f"nll_loss: input of shape {x.shape} needs integer class indices of shape "
            f"{expected}, got target {target.dtype} of shape {target.shape}"
        )
    n_classes = x.shape[1]
    t = target.array
    valid = t != ignore_index
    if ((t[valid] < 0) | (t[valid] >= n_classes)).any():
        bad = t[valid][(t[valid] < 0) | (t[valid] >= n_classes)][0]
        raise IndexError(f"nll_loss: target {bad} is out of range for {n_classes} classes")
    safe = np.where(valid, t, 0)
    grids = np.ix_(*[np.arange(n) for n in expected])  # one index array per non-class axis
    picked = x[(grids[0], safe) + tuple(grids[1:])]  # (N, d1, ...): input[n, target[n], ...]
    w_t = valid.astype(x.dtype)  # the weight of each target; 0 where ignored
    if weight is not None:
        w_t = np.where(valid, _constant(weight, x).array[safe], 0).astype(x.dtype)
    losses = (-picked * w_t).masked_fill(~valid, 0.0)
    if reduction == "none":
        return losses
    total = losses.sum()
    return total if reduction == "sum" else total / float(w_t.sum())


def mse_loss(input, target, reduction="mean"):  # noqa: A002 - PyTorch's name
    """Mean squared error: (input - target)^2, averaged ("mean"), summed ("sum") or not.

    >>> import tinygrad_norm as tg
    >>> mse_loss(tg.tensor([1.0, 2.0]), tg.tensor([1.0, 4.0]))
    tensor(2.)
    """
    check_reduction("mse_loss", reduction)
    x = as_tensor(input)
    check_loss_input("mse_loss", x)
    if not isinstance(target, (int, float)):  # a number is every element's target
        target = C.as_tensor(target, x)
        if target.shape != x.shape:
            check_loss_shapes("mse_loss", x.shape, target.shape)
        if target.dtype != x.dtype:  # an integer or bool target counts in the input's dtype
            target = target.to(x.dtype)
    fusable = reduction != "none" and not isinstance(target, (int, float)) and x.numel() > 0
    if fusable and target.shape == x.shape and target.dtype == x.dtype and x.is_floating_point():
        return fused.mse_loss(x, target, reduction)  # one node: ops/fused/mse_loss.py
    diff = x - C.as_tensor(target, x)
    squared = diff * diff
    if reduction == "none":
        return squared
    return squared.sum() if reduction == "sum" else squared.mean()
