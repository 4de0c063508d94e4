"""Cross-entropy of logits against classes, as one node: log_softmax and the negative
log-likelihood fused, with the gradient softmax - target in one line."""

import numpy as np

from ...autograd.engine import Function
from ...autograd.grad_mode import is_grad_enabled
from .softmax import LogSoftmax

REDUCTIONS = ("mean", "sum", "none")


def target_distribution(target, weight, n_classes, ignore_index, label_smoothing, dtype):
    """q, the weights each log-probability gets in the loss, and the mean's denominator.

    The loss of one sample is -sum_c q_c * log p_c. For a class index t (PyTorch's rule):
        q_c = w_t * (1 - eps) * [c == t] + w_c * eps / C,    q = 0 when t == ignore_index,
    and `mean` divides by the sum of w_t over the targets not ignored (their count when no
    `weight`). For class probabilities (a float target of the input's shape):
        q_c = w_c * (target_c * (1 - eps) + eps / C),
    and `mean` divides by the number of samples (N * d1 * ...).

    `target` is a Tensor of shape (N, d1, ...) (integers) or (N, C, d1, ...) (floats; q is then
    built with Tensor operations, so a target that requires grad gets gradients); `weight` an
    array of shape (C,) or None; `dtype` that of the logits. Returns (q, a Tensor of shape
    (N, C, d1, ...), and the denominator).
    """
    from ...tensor import Tensor

    eps = label_smoothing
    n_spatial = target.ndim - 1 if target.dtype.kind in "iu" else target.ndim - 2
    class_shape = (1, n_classes) + (1,) * n_spatial  # broadcasts along the class axis
    w_c = None if weight is None else weight.reshape(class_shape)
    if target.dtype.kind == "f":
        q = target * (1 - eps) + eps / n_classes if eps else target
        if w_c is not None:
            q = q * Tensor._make(w_c.astype(target.dtype, copy=False))
        return q, target.data.size // n_classes
    t = target.data
    valid = t != ignore_index
    safe = np.where(valid, t, 0)
    w_t = valid.astype(np.float64) if weight is None else np.where(valid, weight[safe], 0)
    onehot = np.expand_dims(safe, 1) == np.arange(n_classes).reshape(class_shape)
    q = (1 - eps) * onehot * np.expand_dims(w_t, 1)
    if eps:
        q = q + (eps / n_classes) * (1 if w_c is None else w_c) * np.expand_dims(valid, 1)
    return Tensor._make(q.astype(dtype, copy=False)), float(w_t.sum())


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
    (per sample for "none"), divided by the mean's denominator for "mean".

    Forward never exponentiates a large logit (it shifts by the maximum, as LogSoftmax), and
    a logit of -inf whose class has q_c = 0 adds exactly 0 (not 0 * -inf = NaN). Forward saves
    log p as an array. For class indices the fast path never builds q: it reads log p at the
    targets, and backward scales p and subtracts at the targets (`_grad_class_indices`). When
    the backward is recorded (`create_graph=True`), it recomputes log p from the saved input x
    with the fused LogSoftmax and builds q as a tensor: the same formula, twice
    differentiable. A float target that requires grad receives
    grad_target = -(1 - eps) * w * log p * scale.

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
        from ...tensor import Tensor

        n_classes, eps = x.shape[1], label_smoothing
        shifted = x - x.max(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
            if target.dtype.kind == "f":
                q, denominator = target_distribution(
                    Tensor._make(target), weight, n_classes, ignore_index, eps, x.dtype
                )
                per_sample = -np.where(q.data != 0, q.data * logp, 0).sum(axis=1)
            else:
                at, valid, w_t = _at_targets(target, weight, ignore_index, x.dtype)
                per_sample = -(1 - eps) * w_t * np.where(valid, logp[at], 0)
                if eps:
                    smooth = (logp if weight is None else logp * _class_column(weight, x)).sum(1)
                    per_sample -= eps / n_classes * np.where(valid, smooth, 0)
                denominator = float(w_t.sum())
        ctx.denominator = denominator
        ctx.save_for_backward(x, target, logp)
        per_sample = per_sample.astype(x.dtype, copy=False)
        if reduction == "none":
            return per_sample
        total = per_sample.sum()
        with np.errstate(divide="ignore", invalid="ignore"):  # mean of nothing: NaN, as PyTorch
            return np.asarray(total if reduction == "sum" else total / denominator, dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        x, target, logp = ctx.saved_tensors
        kw = ctx.kwargs
        if kw["reduction"] == "none":
            scale = grad_output.unsqueeze(1)  # (N, 1, d1, ...): one factor per sample
        elif kw["reduction"] == "sum":
            scale = grad_output
        else:
            scale = grad_output / ctx.denominator
        if not is_grad_enabled() and target.dtype.kind != "f":
            return _grad_class_indices(x, target, logp.data, scale.data, kw), None
        if is_grad_enabled():  # create_graph: log p as a function of x, for second order
            logp = LogSoftmax.apply(x, 1)
        q, _ = target_distribution(
            target, kw["weight"], x.shape[1], kw["ignore_index"], kw["label_smoothing"], x.dtype
        )
        grad_x = grad_target = None
        if ctx.needs_input_grad[0]:
            grad_x = (logp.exp() * q.sum(dim=1, keepdim=True) - q) * scale
        if ctx.needs_input_grad[1]:
            eps, weight = kw["label_smoothing"], kw["weight"]
            dq_dtarget = (1 - eps) * (1 if weight is None else _class_column(weight, x))
            grad_target = -logp * dq_dtarget * scale
        return grad_x, grad_target


def _at_targets(target: np.ndarray, weight, ignore_index, dtype):
    """For class indices (N, d1, ...): the index of each target's entry in an (N, C, d1, ...)
    array, which targets count (not ignore_index), and their weights w_t (0 when ignored)."""
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    grids = np.ix_(*[np.arange(n) for n in target.shape])  # one index array per axis
    at = (grids[0], safe) + tuple(grids[1:])
    w_t = valid.astype(dtype) if weight is None else np.where(valid, weight[safe], 0).astype(dtype)
    return at, valid, w_t


def _grad_class_indices(x, target, logp, scale, kw):
    """The fast path of backward for class indices, on arrays: the same (p * sum(q) - q) *
    scale, with q's one-hot part subtracted at the targets only, never built."""
    from ...tensor import Tensor

    n_classes, eps, weight = x.shape[1], kw["label_smoothing"], kw["weight"]
    at, valid, w_t = _at_targets(target.data, weight, kw["ignore_index"], x.dtype)
    per_sample = scale.reshape(scale.shape[:1] + scale.shape[2:]) if scale.ndim else scale
    w_sum = n_classes if weight is None else weight.sum()
    q_sum = (1 - eps) * w_t + valid * (eps / n_classes * w_sum)  # sum_c q_c, per sample
    grad = np.exp(logp) * np.expand_dims(q_sum * per_sample, 1)
    grad[at] -= (1 - eps) * w_t * per_sample  # the one-hot part of q: one entry per sample
    if eps:
        w_c = 1 if weight is None else _class_column(weight, x)
        grad -= eps / n_classes * w_c * np.expand_dims(valid * per_sample, 1)
    return Tensor._make(grad.astype(x.dtype, copy=False))


def _class_column(weight: np.ndarray, x) -> np.ndarray:
    """`weight` (C,) shaped to broadcast along the class axis 1 of x."""
    return weight.astype(x.dtype, copy=False).reshape((1, -1) + (1,) * (x.ndim - 2))


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
    from ...tensor import Tensor

    x = input if isinstance(input, Tensor) else Tensor(input)
    target = target if isinstance(target, Tensor) else Tensor(np.asarray(target))
    if weight is not None and not isinstance(weight, (Tensor, np.ndarray)):
        raise TypeError(
            f"cross_entropy: weight must be a tensor of shape (C,) or None, got {weight!r}; "
            "give reduction, ignore_index and label_smoothing by keyword"
        )
    weight_array = _check(x, target, weight, reduction, label_smoothing)
    unbatched = x.ndim == 1
    if unbatched:  # (C,) logits: a batch of one
        x, target = x.unsqueeze(0), target.unsqueeze(0)
    if target.dtype.kind in "iu":
        _check_classes(target.data, x.shape[1], ignore_index)
    loss = CrossEntropy.apply(
        x,
        target,
        weight=weight_array,
        reduction=reduction,
        ignore_index=ignore_index,
        label_smoothing=float(label_smoothing),
    )
    return loss.squeeze(0) if unbatched and reduction == "none" else loss


def _check(x, target, weight, reduction, label_smoothing):
    """Validate cross_entropy's arguments; return the class weights as an array (or None)."""
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
        if target.shape != x.shape:
            raise ValueError(
                f"cross_entropy: a float target holds class probabilities and must have the "
                f"input's shape {x.shape}, got {target.shape}; for class indices use an "
                "integer target"
            )
    elif target.dtype.kind in "iu":
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
    weight = np.asarray(weight.data if hasattr(weight, "data") else weight)
    if weight.shape != (n_classes,):
        raise ValueError(
            f"cross_entropy: weight must have shape ({n_classes},), one per class, "
            f"got {weight.shape}"
        )
    return weight.astype(x.dtype, copy=False)


def _check_classes(target: np.ndarray, n_classes: int, ignore_index: int) -> None:
    bad = (target != ignore_index) & ((target < 0) | (target >= n_classes))
    if bad.any():
        raise IndexError(
            f"cross_entropy: target {target[bad].flat[0]} is out of range for {n_classes} "
            f"classes (0 to {n_classes - 1}; {ignore_index} is ignored)"
        )
