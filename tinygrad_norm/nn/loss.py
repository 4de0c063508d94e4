"""Loss functions as Modules: `loss_fn = nn.CrossEntropyLoss(); loss = loss_fn(logits, target)`.

Each stores its options and calls the function of the same name in `nn.functional`. The class
weights, when given, are a buffer (they follow `.to(dtype)`), as in PyTorch. The two similarity
layers (`CosineSimilarity`, `PairwiseDistance`) are at the end.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from . import functional as F
from .functional.loss import legacy_reduction
from .module import Module


class _WeightedLoss(Module):
    def __init__(self, weight, reduction: str):
        super().__init__()
        if weight is not None and not isinstance(weight, Tensor):
            weight = Tensor(np.asarray(weight))
        self.register_buffer("weight", weight)
        self.reduction = reduction


class CrossEntropyLoss(_WeightedLoss):
    """Cross-entropy between logits and classes: loss_n = -sum_c q_c * log_softmax(x_n)_c.

    q is the one-hot target (class indices) or the given probabilities (a float target of the
    input's shape), mixed with the uniform distribution by `label_smoothing`, weighted per
    class by `weight`; targets equal to `ignore_index` count for nothing. `reduction="mean"`
    averages over the targets not ignored (weighted), "sum" adds, "none" keeps one loss each.

    Shapes: input (N, C), (N, C, d1, ...) or (C,) logits; target (N,), (N, d1, ...) or ()
    integer classes, or probabilities of the input's shape. Defaults: weight=None,
    ignore_index=-100, reduction="mean", label_smoothing=0.0.

    >>> import tinygrad_norm as tg
    >>> loss_fn = CrossEntropyLoss()
    >>> loss_fn(tg.tensor([[0.0, 0.0]]), tg.tensor([1]))   # log(2)
    tensor(0.6931)
    """

    def __init__(self, weight=None, *, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(weight, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input, target) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.cross_entropy(
            input,
            target,
            self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood: loss_n = -weight[t_n] * input[n, t_n], for log-probabilities
    `input` (e.g. the output of `LogSoftmax(dim=1)`). `LogSoftmax` then `NLLLoss` equals
    `CrossEntropyLoss`.

    Shapes: input (N, C), (N, C, d1, ...) or (C,); target integer classes (N,), (N, d1, ...)
    or (). Defaults: weight=None, ignore_index=-100, reduction="mean" (divided by the summed
    weights of the targets not ignored).

    >>> import tinygrad_norm as tg
    >>> NLLLoss()(tg.tensor([[-1.0, -2.0], [-3.0, -4.0]]), tg.tensor([1, 0]))
    tensor(2.5000)
    """

    def __init__(self, weight=None, *, ignore_index=-100, reduction="mean"):
        super().__init__(weight, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.nll_loss(
            input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction
        )


class MSELoss(Module):
    """Mean squared error: (input - target)², averaged ("mean", default), summed ("sum") or
    kept elementwise ("none"). input and target have the same shape (or broadcast).

    >>> import tinygrad_norm as tg
    >>> MSELoss()(tg.tensor([1.0, 2.0]), tg.tensor([1.0, 4.0]))
    tensor(2.)
    """

    def __init__(self, reduction: str = "mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, target) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.mse_loss(input, target, reduction=self.reduction)


# --- the other losses, with PyTorch's arguments and buffers, and the two similarity layers ---


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__()
        self.reduction = legacy_reduction(size_average, reduce, reduction)


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities: -w · (t · log p + (1 - t) · log(1 - p)).

    >>> import tinygrad_norm as tg
    >>> BCELoss()(tg.tensor([0.5]), tg.tensor([1.0]))
    tensor(0.6931)
    """

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(weight, legacy_reduction(size_average, reduce, reduction))

    def forward(self, input, target) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_WeightedLoss):
    """Binary cross-entropy of sigmoid(logits), computed stably; `pos_weight` (a buffer, one
    per class) weighs the positive targets."""

    def __init__(
        self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
    ):
        super().__init__(weight, legacy_reduction(size_average, reduce, reduction))
        if pos_weight is not None and not isinstance(pos_weight, Tensor):
            pos_weight = Tensor(np.asarray(pos_weight))
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.binary_cross_entropy_with_logits(
            input, target, self.weight, reduction=self.reduction, pos_weight=self.pos_weight
        )


class L1Loss(_Loss):
    """Mean absolute error |input - target|."""

    def forward(self, input, target) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Quadratic for |d| < beta, linear beyond."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """0.5 · d² for |d| < delta, delta · (|d| - delta / 2) beyond."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class SoftMarginLoss(_Loss):
    """log(1 + exp(-target · input)) for targets ±1."""

    def forward(self, input, target) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class KLDivLoss(_Loss):
    """KL(target || exp(input)) for log-probabilities `input`; use reduction="batchmean" for
    the true divergence per sample."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class PoissonNLLLoss(_Loss):
    """Negative log-likelihood of Poisson-distributed targets."""

    def __init__(
        self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"
    ):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target) -> Tensor:
        return F.poisson_nll_loss(
            log_input, target, self.log_input, self.full, eps=self.eps, reduction=self.reduction
        )


class GaussianNLLLoss(Module):
    """Negative log-likelihood of targets ~ Normal(input, var): forward(input, target, var)."""

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__()
        self.full, self.eps, self.reduction = full, eps, reduction

    def forward(self, input, target, var) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.gaussian_nll_loss(input, target, var, self.full, self.eps, self.reduction)


class _MarginLoss(_Loss):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin


class MarginRankingLoss(_MarginLoss):
    """max(0, -target · (input1 - input2) + margin)."""

    def forward(self, input1, input2, target) -> Tensor:
        return F.margin_ranking_loss(input1, input2, target, self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(_MarginLoss):
    """input where target = 1, max(0, margin - input) where target = -1."""

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input, target) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.hinge_embedding_loss(input, target, self.margin, reduction=self.reduction)


class CosineEmbeddingLoss(_MarginLoss):
    """1 - cos(x1, x2) where target = 1, max(0, cos(x1, x2) - margin) where target = -1."""

    def forward(self, input1, input2, target) -> Tensor:
        return F.cosine_embedding_loss(
            input1, input2, target, self.margin, reduction=self.reduction
        )


class CTCLoss(Module):
    """Connectionist temporal classification: forward(log_probs (T, N, C), targets,
    input_lengths, target_lengths)."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths) -> Tensor:
        return F.ctc_loss(
            log_probs,
            targets,
            input_lengths,
            target_lengths,
            self.blank,
            self.reduction,
            self.zero_infinity,
        )


class CosineSimilarity(Module):
    """cos(x1, x2) along `dim`, each norm clamped at eps."""

    def __init__(self, dim: int = 1, eps: float = 1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """‖x1 - x2 + eps‖_p along the last axis."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
