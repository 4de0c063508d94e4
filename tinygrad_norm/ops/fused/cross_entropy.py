"""Cross-entropy of logits against classes, as one node: log_softmax and the negative
log-likelihood fused, with the gradient softmax - target in one line."""

import math
from typing import NamedTuple

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ...autograd.node import GraphTensor
from ...broadcast import ShapeError
from ...dtypes import DtypeError
from ..xp import exp, imul, isub, operands
from .softmax import LogSoftmax, log_softmax_array, log_softmax_reference

REDUCTIONS = ("mean", "sum", "none")


class Target(NamedTuple):
    """q, the weights each log-probability gets in the loss, in two parts: q = the one-hot
    part (`at_weight` (N, d1, ...) at the entries `at`, one per sample; class indices only) +
    `dense` (an array or Tensor of the logits' shape, or None). `total` is sum_c q_c per
    sample, kept as (N, 1, d1, ...); `denominator` the mean's. Keeping the one-hot part apart
    means the (N, C, ...) one-hot array is never built: the loss reads log p at the targets,
    and the backward subtracts there. When every target counts and there is no class weight
    (the usual case), `at_weight`, `dense` and `total` are the same for every sample: plain
    numbers (1 - eps, eps / C or None, and 1), which broadcast."""

    at: tuple | None
    at_weight: np.ndarray | None
    dense: object
    total: object
    denominator: float


def target_distribution(target, weight, n_classes, ignore_index, label_smoothing, dtype):
    """q, the target distribution, as a `Target`.

    The loss of one sample is -sum_c q_c * log p_c. For a class index t (PyTorch's rule):
        q_c = w_t * (1 - eps) * [c == t] + w_c * eps / C,    q = 0 when t == ignore_index,
    and `mean` divides by the sum of w_t over the targets not ignored (their count when no
    `weight`). For class probabilities (a float target of the input's shape):
        q_c = w_c * (target_c * (1 - eps) + eps / C),
    and `mean` divides by the number of samples (N * d1 * ...).

    `target`: class indices (N, d1, ...) (an integer array or Tensor), or class probabilities
    (N, C, d1, ...) (floats: an array, or a Tensor, and q is then built with Tensor operations
    so that a target that requires grad gets gradients). `weight`: an array (C,) or None;
    `dtype`: that of the logits.
    """
    eps = label_smoothing
    if target.dtype.kind == "f":
        q = target * (1 - eps) + eps / n_classes if eps else target
        if weight is not None:
            q = q * _class_column(weight, target.ndim, target.dtype)
        n_samples = math.prod(target.shape) // n_classes
        return Target(None, None, q, q.sum(1, keepdims=True), n_samples)
    t = target if isinstance(target, np.ndarray) else target.array
    valid = t != ignore_index
    # one index array per axis (np.ix_ is a Python function: not for the common 1-D case)
    grids = (np.arange(len(t)),) if t.ndim == 1 else np.ix_(*[np.arange(n) for n in t.shape])
    if weight is None and valid.all():  # NOTE: the usual case, in numbers, not arrays
        at = (grids[0], t) + tuple(grids[1:])
        return Target(at, 1.0 - eps, eps / n_classes if eps else None, 1.0, float(t.size))
    safe = np.where(valid, t, 0)
    at = (grids[0], safe) + tuple(grids[1:])  # each target's entry in an (N, C, d1, ...) array
    w_t = valid.astype(dtype) if weight is None else np.where(valid, weight[safe], 0).astype(dtype)
    total = (1 - eps) * w_t
    dense = None
    if eps:
        w_sum = n_classes if weight is None else weight.sum()
        total = total + valid * (eps / n_classes * w_sum)
        w_c = np.ones(n_classes, dtype) if weight is None else weight
        dense = (eps / n_classes) * _class_column(w_c, t.ndim + 1, dtype) * _class_axis(valid)
    return Target(at, (1 - eps) * w_t, dense, _class_axis(total.astype(dtype)), float(w_t.sum()))


class CrossEntropy(Function):
    """loss = -sum_c q_c * log_softmax(x)_c over the class axis 1, then reduced.

    q is the target distribution: one-hot for a class index, mixed with the uniform
    distribution by `label_smoothing` (Szegedy et al., 2016, "Rethinking the Inception
    Architecture", arXiv:1512.00567), weighted per class by `weight`, zero for `ignore_index`
    (see `target_distribution` for PyTorch's exact rules).

    Backward, step by step, for one sample. log p_c = x_c - log(sum_k exp(x_k)), and the
    derivative of log(sum_k exp(x_k)) with respect to x_j is softmax(x)_j = p_j, so

        d log p_c / d x_j = delta_cj - p_j
        dL/dx_j = -sum_c q_c (delta_cj - p_j) = p_j * sum_c q_c - q_j.

    Without class weights q sums to 1 over the classes (0 for an ignored target), and the
    gradient is the famous softmax - target: p - q. The reduction multiplies it by grad_out
    (per sample for "none"), divided by the mean's denominator for "mean". A float target that
    requires grad receives grad_target = -(1 - eps) * w * log p * scale.

    Forward never exponentiates a large logit (it shifts by the maximum, as LogSoftmax), and
    a logit of -inf whose class has q_c = 0 adds exactly 0 (not 0 * -inf = NaN). The
    backward is written once and runs on arrays or on Tensors (see `xp.py`).
    Forward keeps log p, an array, on ctx; when the backward is recorded (`create_graph=True`)
    it recomputes log p from the saved input x with the fused LogSoftmax, and builds q from the
    target tensor: the same formula, twice differentiable.

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([[0.0, 0.0]], requires_grad=True)
    >>> loss = CrossEntropy.apply(x, tg.tensor([1]), weight=None, reduction="mean",
    ...                           ignore_index=-100, label_smoothing=0.0)
    >>> loss.backward()
    >>> x.grad   # p - onehot = (0.5, 0.5) - (0, 1)
    tensor([[ 0.5000, -0.5000]])
    """

    formula = "grad_x = (softmax(x) * sum(q) - q) * grad_out / denominator   (q: the target)"

    @staticmethod
    def forward(ctx, x, target, *, weight, reduction, ignore_index, label_smoothing):
        logp = log_softmax_array(x, 1)
        q = target_distribution(target, weight, x.shape[1], ignore_index, label_smoothing, x.dtype)
        # -sum_c q_c log p_c, (N, d1, ...): the one-hot part (one entry a sample), the dense
        # part. (0 - a, not -a: an ignored target's 0 stays +0.)
        per_sample = 0.0 - _times(q.at_weight, logp[q.at]) if q.at is not None else 0.0
        if q.dense is not None:
            per_sample = per_sample - _times(q.dense, logp).sum(axis=1)
        ctx.denominator = q.denominator
        ctx.save_for_backward(x, target)
        ctx.logp = logp  # NOTE: our own array, as an attribute: no Tensor, no version to check
        if q.at is not None:  # class indices: q is a constant, which backward reuses
            ctx.target_q = q
        if reduction == "none":  # in the logits' dtype (a float64 target promotes the product)
            return per_sample.astype(x.dtype, copy=False)
        total = per_sample.sum()
        if reduction == "mean":  # the mean of nothing is NaN, as in PyTorch
            total = total / q.denominator if q.denominator else np.nan
        return np.asarray(total, x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        x, target = ctx.saved_tensors
        # create_graph: log p as a function of x, for second order
        logp = LogSoftmax.apply(x, dim=1) if is_grad_enabled() else ctx.logp
        target, grad_output = operands(target, grad_output)
        q = getattr(ctx, "target_q", None) or target_distribution(
            target, ctx.weight, x.shape[1], ctx.ignore_index, ctx.label_smoothing, x.dtype
        )
        if ctx.reduction == "none":
            per_sample = grad_output  # (N, d1, ...): one factor per sample
            scale = _class_axis(grad_output)  # (N, 1, d1, ...), along the classes
        else:
            # NOTE: every target ignored: the mean of nothing is NaN (as PyTorch), but no sample
            # took part, so q is 0 everywhere and the gradient is 0 (as PyTorch), not 0 * inf.
            denominator = ctx.denominator if ctx.denominator else 1.0
            scale = grad_output if ctx.reduction == "sum" else grad_output / denominator
            per_sample = scale
        grad_x = grad_target = None
        if ctx.needs_input_grad[0]:
            grad_x = imul(exp(logp), q.total * scale)  # p * sum_c(q_c) * scale
            if q.at is not None:  # - the one-hot part of q: one entry per sample
                grad_x = _minus_at(grad_x, q.at, q.at_weight * per_sample)
            if q.dense is not None:
                grad_x = isub(grad_x, q.dense * scale)
        if ctx.needs_input_grad[1]:
            eps, weight = ctx.label_smoothing, ctx.weight
            w_c = 1 if weight is None else _class_column(weight, x.ndim, x.dtype)
            dq_dtarget = (1 - eps) * w_c
            grad_target = -logp * dq_dtarget * scale
        return grad_x, grad_target


def _minus_at(grad, at: tuple, values):
    """grad minus `values` (N, d1, ...), or one value for all, at the entries `at`, one per
    sample: on an array in place at those entries only; on a Tensor through a one-hot mask
    (recorded)."""
    if isinstance(grad, np.ndarray):
        grad[at] -= values
        return grad
    onehot = np.zeros(grad.shape, grad.dtype)
    onehot[at] = 1
    return grad - onehot * (values if np.ndim(values) == 0 else _class_axis(values))


def _times(q, logp: np.ndarray) -> np.ndarray:
    """q * log p, and exactly 0 where q is 0: a class of log p = -inf that the target gives
    no weight adds nothing (not 0 * -inf = NaN). q: an array, or one number for all."""
    if isinstance(q, float):  # one weight for every entry
        if q == 1.0:
            return logp
        return q * logp if q else np.zeros_like(logp)
    with np.errstate(invalid="ignore"):
        return np.where(q != 0, q * logp, 0)


def _class_axis(a):
    """a (N, d1, ...) as (N, 1, d1, ...): one value per sample, broadcast along the classes."""
    return a.reshape(a.shape[:1] + (1,) + a.shape[1:])


def _class_column(weight: np.ndarray, ndim: int, dtype) -> np.ndarray:
    """`weight` (C,) shaped to broadcast along the class axis 1 of an (N, C, d1, ...) array of
    `ndim` dimensions."""
    return weight.astype(dtype, copy=False).reshape((1, -1) + (1,) * (ndim - 2))


def cross_entropy_reference(x, target, weight=None, reduction="mean", ignore_index=-100, eps=0.0):
    """PyTorch's own recipe (LossNLL.cpp) composed from primitives and the composed
    log_softmax: (1 - eps) * nll_loss(logp) + eps / C * smooth_loss, each reduced with its
    denominator. The test reference of `CrossEntropy` (autograd derives the gradient)."""
    n_classes = x.shape[1]
    logp = log_softmax_reference(x, 1)
    class_shape = (1, n_classes) + (1,) * (x.ndim - 2)
    w = np.ones(n_classes) if weight is None else weight
    if target.dtype.kind == "f":
        q = target * (1 - eps) + eps / n_classes
        losses = -(logp * q * w.reshape(class_shape)).sum(dim=1)
        if reduction == "none":
            return losses
        return losses.sum() if reduction == "sum" else losses.sum() / (x.numel() / n_classes)
    t = target.array
    valid = t != ignore_index
    safe = np.where(valid, t, 0)
    onehot = np.expand_dims(safe, 1) == np.arange(n_classes).reshape(class_shape)
    w_t = np.where(valid, w[safe], 0.0)
    nll = -(logp * (onehot * np.expand_dims(w_t, 1))).sum(dim=1)
    smooth = -(logp * w.reshape(class_shape)).sum(dim=1) * (valid * 1.0)
    if reduction == "none":
        return nll * (1 - eps) + smooth * (eps / n_classes)
    if reduction == "sum":
        return nll.sum() * (1 - eps) + smooth.sum() * (eps / n_classes)
    return nll.sum() / w_t.sum() * (1 - eps) + smooth.sum() / w_t.sum() * (eps / n_classes)


def cross_entropy(
    input,  # noqa: A002 - PyTorch's name
    target,
    weight=None,
    *,
    ignore_index=-100,
    reduction="mean",
    label_smoothing=0.0,
):
    """Cross-entropy between logits `input` and `target`, as PyTorch's F.cross_entropy.

    input: (N, C), (N, C, d1, ...) or (C,) logits. target: class indices (integers) of shape
    (N,), (N, d1, ...) or () -- or class probabilities, a float tensor of the input's shape.
    weight: None or (C,), a weight per class. reduction: "mean" (over the targets not ignored,
    weighted), "sum" or "none". Targets equal to `ignore_index` add nothing. label_smoothing
    in [0, 1] mixes the target with the uniform distribution.

    >>> import tinygrad_norm as tg
    >>> logits = tg.tensor([[2.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    >>> cross_entropy(logits, tg.tensor([0, 2]))   # (log(1 + 2/e^2) + log(3)) / 2
    tensor(0.6691)
    """
    x = input  # a Tensor: F.cross_entropy turns arrays into Tensors before calling in here
    target = target if isinstance(target, GraphTensor) else x._make(np.asarray(target))
    if weight is not None and not isinstance(weight, (GraphTensor, np.ndarray)):
        raise TypeError(
            f"cross_entropy: weight must be a tensor of shape (C,) or None, got {weight!r}; "
            "give reduction, ignore_index and label_smoothing by keyword"
        )
    weight_array = _check(x.array, target.array, weight, reduction, label_smoothing)
    unbatched = x.array.ndim == 1
    if unbatched:  # (C,) logits: a batch of one
        x, target = x.unsqueeze(0), target.unsqueeze(0)
    if target.array.dtype.kind in "iu":
        _check_classes(target.array, x.array.shape[1], ignore_index)
    loss = CrossEntropy.apply(
        x,
        target,
        weight=weight_array,
        reduction=reduction,
        ignore_index=ignore_index,
        label_smoothing=float(label_smoothing),
    )
    return loss.squeeze(0) if unbatched and reduction == "none" else loss


def _check(x: np.ndarray, target: np.ndarray, weight, reduction, label_smoothing):
    """Validate cross_entropy's arguments (the arrays of the logits and the target); return
    the class weights as an array (or None)."""
    if x.dtype.kind != "f":
        raise TypeError(f"cross_entropy: input must hold floating-point logits, got {x.dtype}")
    if x.ndim == 0:
        raise ValueError("cross_entropy: input must have a class axis, got a 0-d tensor")
    if reduction not in REDUCTIONS:
        raise ValueError(f"cross_entropy: reduction must be one of {REDUCTIONS}, got {reduction!r}")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"cross_entropy: label_smoothing must be in [0, 1], got {label_smoothing}")
    n_classes = x.shape[1] if x.ndim > 1 else x.shape[0]
    if n_classes == 0:
        raise ValueError(
            f"cross_entropy: input of shape {x.shape} has 0 classes along its class axis "
            f"{int(x.ndim > 1)}; there is no distribution to score a target against"
        )
    if target.dtype.kind == "f":
        if target.shape != x.shape:  # PyTorch's RuntimeError ("expected target dtype Long")
            raise ShapeError(
                f"cross_entropy: a float target holds class probabilities and must have the "
                f"input's shape {x.shape}, got {target.shape}; for class indices use an "
                "integer target"
            )
    elif target.dtype.kind in "iu":
        require_index_target("cross_entropy", target)
        expected = x.shape[:1] + x.shape[2:] if x.ndim > 1 else ()
        if target.shape != expected:
            raise ValueError(
                f"cross_entropy: input of shape {x.shape} (class axis {int(x.ndim > 1)}, "
                f"{n_classes} classes) needs class indices of shape {expected}, got target "
                f"of shape {target.shape}"
            )
    else:
        raise TypeError(
            f"cross_entropy: target must be integer class indices or float probabilities, "
            f"got {target.dtype}"
        )
    if weight is None:
        return None
    if getattr(weight, "requires_grad", False):
        raise ValueError(
            "cross_entropy: gradients with respect to the class weights are not supported "
            "(as in PyTorch); pass weight.detach()"
        )
    weight = np.asarray(weight.array if hasattr(weight, "array") else weight)
    if weight.shape != (n_classes,):
        raise ValueError(
            f"cross_entropy: weight must have shape ({n_classes},), one per class, "
            f"got {weight.shape}"
        )
    return weight.astype(x.dtype, copy=False)


def _check_classes(target: np.ndarray, n_classes: int, ignore_index: int) -> None:
    if not target.size or (target.min() >= 0 and target.max() < n_classes):
        return  # NOTE: two reductions decide the usual case, before any mask is built
    bad = (target != ignore_index) & ((target < 0) | (target >= n_classes))
    if bad.any():
        raise IndexError(
            f"cross_entropy: target {target[bad].flat[0]} is out of range for {n_classes} "
            f"classes (0 to {n_classes - 1}; {ignore_index} is ignored)"
        )


def require_index_target(op: str, target) -> None:
    """Class indices must be int64 (or uint8), as PyTorch's kernels take: int32 is refused."""
    if target.dtype not in (np.int64, np.uint8):
        raise DtypeError(  # PyTorch's RuntimeError
            f"{op}: expected target dtype to be int64 (Long) or uint8 (Byte), but got "
            f"{target.dtype}; convert class indices with target.long() (class probabilities "
            "go to cross_entropy)"
        )
