"""Loss functions as Modules: `loss_fn = nn.CrossEntropyLoss(); loss = loss_fn(logits, target)`.

Each stores its options and calls the function of the same name in `nn.functional`. The class
weights, when given, are a buffer (they follow `.to(dtype)`), as in PyTorch.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from . import functional as F
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
