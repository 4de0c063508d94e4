"""Cases of `module_cases.py` for the convolution, pooling, resampling and loss layers.

Tiny shapes, so that `python -m tinygrad_norm gradcheck` checks each in well under a second.
Integer arrays (class indices, ±1 labels, lengths) are arguments, not differentiated.
Each row holds `ModuleCase`'s arguments; module_cases.py makes the cases (so that this file
need not import it).
"""

from __future__ import annotations

import numpy as np

from .. import nn


def _normal(*shape):
    return lambda rng: (rng.standard_normal(shape),)


def _pair(*shape):
    return lambda rng: (rng.standard_normal(shape), rng.standard_normal(shape))


def _signs(n):
    return lambda rng: rng.choice([-1, 1], n)


def _ctc_inputs(rng):
    log_probs = rng.standard_normal((5, 2, 3))  # (T, N, C): any scores; the gradient is exact
    return log_probs, np.array([[1, 2], [2, 0]]), np.array([5, 4]), np.array([2, 1])


NN_CASES = [
    # --- convolution ------------------------------------------------------------------------
    ("Conv1d", lambda: nn.Conv1d(2, 3, 3, padding=1), _normal(2, 2, 5)),
    (
        "Conv2d(stride, groups)",
        lambda: nn.Conv2d(2, 4, 3, stride=2, padding=1, groups=2),
        _normal(1, 2, 5, 4),
    ),
    (
        "Conv2d(same, dilation)",
        lambda: nn.Conv2d(2, 2, 2, padding="same", dilation=2, bias=False),
        _normal(1, 2, 4, 4),
    ),
    ("Conv3d", lambda: nn.Conv3d(1, 2, 2), _normal(1, 1, 3, 3, 2)),
    ("ConvTranspose1d", lambda: nn.ConvTranspose1d(2, 3, 3, stride=2), _normal(2, 2, 3)),
    (
        "ConvTranspose2d(output_padding, groups)",
        lambda: nn.ConvTranspose2d(4, 2, 2, stride=2, output_padding=1, groups=2),
        _normal(1, 4, 2, 3),
    ),
    ("Unfold", lambda: nn.Unfold(2, padding=1), _normal(1, 2, 3, 3)),
    ("Fold", lambda: nn.Fold((3, 3), 2), _normal(1, 4, 4)),
    # --- pooling and resampling -------------------------------------------------------------
    ("MaxPool1d", lambda: nn.MaxPool1d(2), _normal(2, 2, 6)),
    ("MaxPool2d(3, 2, 1)", lambda: nn.MaxPool2d(3, 2, 1), _normal(1, 2, 5, 5)),
    ("AvgPool1d", lambda: nn.AvgPool1d(3, 2, 1), _normal(2, 2, 6)),
    ("AvgPool2d", lambda: nn.AvgPool2d(2, ceil_mode=True), _normal(1, 2, 5, 4)),
    ("AdaptiveAvgPool1d", lambda: nn.AdaptiveAvgPool1d(3), _normal(2, 2, 5)),
    ("AdaptiveAvgPool2d", lambda: nn.AdaptiveAvgPool2d((2, 3)), _normal(1, 2, 5, 4)),
    ("AdaptiveMaxPool1d", lambda: nn.AdaptiveMaxPool1d(3), _normal(2, 2, 5)),
    ("AdaptiveMaxPool2d", lambda: nn.AdaptiveMaxPool2d(2), _normal(1, 2, 5, 4)),
    (
        "Upsample(bilinear)",
        lambda: nn.Upsample(scale_factor=2, mode="bilinear"),
        _normal(1, 1, 2, 3),
    ),
    ("UpsamplingNearest2d", lambda: nn.UpsamplingNearest2d(size=(3, 4)), _normal(1, 1, 2, 2)),
    ("UpsamplingBilinear2d", lambda: nn.UpsamplingBilinear2d(scale_factor=2), _normal(1, 1, 2, 2)),
    ("PixelShuffle", lambda: nn.PixelShuffle(2), _normal(1, 4, 2, 3)),
    ("PixelUnshuffle", lambda: nn.PixelUnshuffle(2), _normal(1, 1, 4, 2)),
    ("ZeroPad1d", lambda: nn.ZeroPad1d((2, -1)), _normal(2, 3)),
    ("ZeroPad2d", lambda: nn.ZeroPad2d((1, 0, 2, -1)), _normal(1, 3, 2)),
    ("Flatten", lambda: nn.Flatten(), _normal(2, 3, 2)),
    ("Unflatten", lambda: nn.Unflatten(1, (2, 3)), _normal(2, 6)),
    # --- losses and similarities ------------------------------------------------------------
    (
        "BCELoss",
        lambda: nn.BCELoss(weight=np.array([1.0, 2.0, 0.5])),
        lambda rng: (rng.uniform(0.1, 0.9, (2, 3)), rng.uniform(0, 1, (2, 3))),
    ),
    (
        "BCEWithLogitsLoss(pos_weight)",
        lambda: nn.BCEWithLogitsLoss(pos_weight=np.array([1.0, 3.0, 0.5])),
        lambda rng: (rng.standard_normal((2, 3)), rng.uniform(0, 1, (2, 3))),
    ),
    ("L1Loss", lambda: nn.L1Loss(), _pair(3, 4)),
    ("SmoothL1Loss", lambda: nn.SmoothL1Loss(beta=0.5), _pair(3, 4)),
    ("HuberLoss", lambda: nn.HuberLoss(delta=0.5, reduction="sum"), _pair(3, 4)),
    (
        "SoftMarginLoss",
        lambda: nn.SoftMarginLoss(),
        lambda rng: (rng.standard_normal(4), _signs(4)(rng)),
    ),
    (
        "KLDivLoss(batchmean)",
        lambda: nn.KLDivLoss(reduction="batchmean"),
        lambda rng: (rng.standard_normal((2, 3)), rng.dirichlet(np.ones(3), 2)),
    ),
    (
        "PoissonNLLLoss",
        lambda: nn.PoissonNLLLoss(),
        lambda rng: (rng.standard_normal((2, 3)), rng.poisson(2.0, (2, 3)).astype(np.int64)),
    ),
    (
        "GaussianNLLLoss",
        lambda: nn.GaussianNLLLoss(full=True),
        lambda rng: (*_pair(2, 3)(rng), rng.uniform(0.5, 2.0, (2, 1))),
    ),
    (
        "MarginRankingLoss",
        lambda: nn.MarginRankingLoss(margin=0.2),
        lambda rng: (*_pair(4)(rng), _signs(4)(rng)),
    ),
    (
        "HingeEmbeddingLoss",
        lambda: nn.HingeEmbeddingLoss(margin=0.5),
        lambda rng: (rng.standard_normal(4), _signs(4)(rng)),
    ),
    (
        "CosineEmbeddingLoss",
        lambda: nn.CosineEmbeddingLoss(margin=-0.3),
        lambda rng: (*_pair(3, 4)(rng), _signs(3)(rng)),
    ),
    ("CTCLoss", lambda: nn.CTCLoss(), _ctc_inputs),
    ("CosineSimilarity", lambda: nn.CosineSimilarity(dim=-1), _pair(2, 3)),
    ("PairwiseDistance", lambda: nn.PairwiseDistance(p=3.0), _pair(2, 3)),
]


def _with_picks(shape, picks):
    """Pooled values of `shape` and the flat output positions they came from."""
    return lambda rng: (rng.standard_normal(shape), np.array(picks))


def _unpool_inputs(rng):
    """Values and the flat output positions a max pool of kernel 2 picked (one per window)."""
    values = rng.standard_normal((1, 2, 2, 2))  # (N, C, H, W) pooled
    picks = np.array([[[[0, 3], [9, 14]], [[5, 2], [13, 15]]]])  # inside each 2x2 window of 4x4
    return values, picks


# The padding layers, the 3-d layers, the lazy layers (each the eager layer after its first
# call), the unpooling layers and DataParallel (a pass-through on one CPU process).
MORE_NN_CASES = [
    ("ConstantPad1d", lambda: nn.ConstantPad1d((1, 2), 0.5), _normal(1, 2, 3)),
    ("ConstantPad2d", lambda: nn.ConstantPad2d(1, -1.0), _normal(1, 2, 2, 3)),
    ("ConstantPad3d", lambda: nn.ConstantPad3d((1, 0, 0, 1, 1, 0), 2.0), _normal(1, 1, 2, 2, 2)),
    ("ZeroPad3d", lambda: nn.ZeroPad3d(1), _normal(1, 1, 2, 2, 2)),
    ("ReflectionPad1d", lambda: nn.ReflectionPad1d(2), _normal(1, 2, 4)),
    ("ReflectionPad2d", lambda: nn.ReflectionPad2d((1, 2, 0, 1)), _normal(1, 1, 3, 4)),
    ("ReflectionPad3d", lambda: nn.ReflectionPad3d(1), _normal(1, 1, 2, 3, 3)),
    ("ReplicationPad1d", lambda: nn.ReplicationPad1d((3, 1)), _normal(1, 2, 3)),
    ("ReplicationPad2d", lambda: nn.ReplicationPad2d(1), _normal(1, 1, 2, 3)),
    ("ReplicationPad3d", lambda: nn.ReplicationPad3d((1, 0, 1, 0, 0, 1)), _normal(1, 1, 2, 2, 2)),
    ("CircularPad1d", lambda: nn.CircularPad1d(2), _normal(1, 2, 3)),
    ("CircularPad2d", lambda: nn.CircularPad2d((1, 0, 1, 1)), _normal(1, 1, 2, 3)),
    ("CircularPad3d", lambda: nn.CircularPad3d(1), _normal(1, 1, 2, 2, 2)),
    ("ConvTranspose3d", lambda: nn.ConvTranspose3d(2, 2, 2, stride=2), _normal(1, 2, 2, 2, 1)),
    ("MaxPool3d", lambda: nn.MaxPool3d(2), _normal(1, 2, 4, 4, 2)),
    ("AvgPool3d", lambda: nn.AvgPool3d(2, stride=1), _normal(1, 1, 3, 3, 3)),
    ("BatchNorm3d", lambda: nn.BatchNorm3d(2), _normal(2, 2, 2, 2, 2)),
    ("MaxUnpool1d", lambda: nn.MaxUnpool1d(2), _with_picks((1, 2, 2), [[[1, 2], [0, 3]]])),
    ("MaxUnpool2d", lambda: nn.MaxUnpool2d(2), _unpool_inputs),
    ("MaxUnpool3d", lambda: nn.MaxUnpool3d(2), _with_picks((1, 1, 1, 1, 2), [[[[[5, 10]]]]])),
    ("LazyLinear", lambda: nn.LazyLinear(3), _normal(2, 4)),
    ("LazyConv1d", lambda: nn.LazyConv1d(2, 3), _normal(1, 2, 5)),
    ("LazyConv2d", lambda: nn.LazyConv2d(2, 2), _normal(1, 1, 3, 3)),
    ("LazyConv3d", lambda: nn.LazyConv3d(2, 2), _normal(1, 1, 2, 2, 2)),
    ("LazyConvTranspose1d", lambda: nn.LazyConvTranspose1d(2, 2), _normal(1, 2, 3)),
    ("LazyConvTranspose2d", lambda: nn.LazyConvTranspose2d(2, 2), _normal(1, 1, 2, 2)),
    ("LazyConvTranspose3d", lambda: nn.LazyConvTranspose3d(1, 2), _normal(1, 1, 1, 2, 2)),
    ("LazyBatchNorm1d", lambda: nn.LazyBatchNorm1d(), _normal(4, 3)),
    ("LazyBatchNorm2d", lambda: nn.LazyBatchNorm2d(), _normal(2, 2, 2, 2)),
    ("LazyBatchNorm3d", lambda: nn.LazyBatchNorm3d(), _normal(2, 2, 2, 2, 2)),
    ("DataParallel(Linear)", lambda: nn.DataParallel(nn.Linear(3, 2)), _normal(4, 3)),
]  # fmt: skip
