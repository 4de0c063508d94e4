"""Helpers several test files share (`from helpers import randn, perturbed, ForgotTheTwo`).

pytest puts tests/ on sys.path (no __init__.py there), so the test files import this module by
its bare name.
"""

import numpy as np

import tinygrad_norm as tg


def randn(*shape, seed=0):
    """A float64 NumPy array of standard normals, the same for the same seed."""
    return np.random.default_rng(seed).standard_normal(shape)


def perturbed(module, seed=1):
    """`module` in float64, with parameters moved off their init (so swapped gates would show)."""
    module = module.double()
    rng = np.random.default_rng(seed)
    for p in module.parameters():
        p.data[...] += 0.3 * rng.standard_normal(p.shape)
    return module


class Square(tg.Function):
    """x², d(x²)/dx = 2x: the custom Function the tests' buggy variants start from (each
    subclass overrides `backward` with one bug)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x


class ForgotTheTwo(Square):
    """x²: backward forgets the factor 2 (off by a constant factor), for tests that must see
    gradcheck (or the tools built on it) fail."""

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x  # should be grad_output * 2 * x


UNPICKLED = []  # what unpickling RunsCodeWhenUnpickled recorded: empty while loaders are safe


def record_unpickling(tag):
    UNPICKLED.append(tag)
    return tag


class RunsCodeWhenUnpickled:
    """Unpickling this object calls `record_unpickling`: proof that a loader ran code."""

    def __reduce__(self):
        return (record_unpickling, ("code ran",))


# Every convolution, pooling and loss name a course uses, as functions and as layers:
# tests/ops/test_conv.py checks they exist, tests/oracle/test_oracle_conv.py their arguments.
COURSE_FUNCTIONS = """
conv1d conv2d conv3d conv_transpose1d conv_transpose2d unfold fold max_pool1d max_pool2d
avg_pool1d avg_pool2d adaptive_avg_pool1d adaptive_avg_pool2d adaptive_max_pool1d
adaptive_max_pool2d interpolate pixel_shuffle pixel_unshuffle binary_cross_entropy
binary_cross_entropy_with_logits nll_loss l1_loss smooth_l1_loss huber_loss kl_div
cosine_embedding_loss margin_ranking_loss hinge_embedding_loss poisson_nll_loss
gaussian_nll_loss ctc_loss soft_margin_loss cosine_similarity pairwise_distance
""".split()
COURSE_MODULES = """
Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d MaxPool1d MaxPool2d AvgPool1d
AvgPool2d AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveMaxPool1d AdaptiveMaxPool2d Flatten
Unflatten Upsample UpsamplingNearest2d UpsamplingBilinear2d PixelShuffle PixelUnshuffle
Unfold Fold ZeroPad1d ZeroPad2d BCELoss BCEWithLogitsLoss NLLLoss L1Loss SmoothL1Loss
HuberLoss KLDivLoss CosineEmbeddingLoss MarginRankingLoss HingeEmbeddingLoss
PoissonNLLLoss GaussianNLLLoss CTCLoss SoftMarginLoss CosineSimilarity PairwiseDistance
""".split()
