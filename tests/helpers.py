"""Helpers several test files share (`from helpers import randn, perturbed, ForgotTheTwo`).

pytest puts tests/ on sys.path (no __init__.py there), so the test files import this module by
its bare name.
"""

import numpy as np

import tinygrad_norm as tg
from tinygrad_norm import nn


def randn(*shape, seed=0):
    """A float64 NumPy array of standard normals, the same for the same seed."""
    return np.random.default_rng(seed).standard_normal(shape)


def t64(array, requires_grad=False):
    """`array` as a float64 Tensor (the dtype gradient checks need)."""
    return tg.tensor(np.asarray(array, dtype=np.float64), requires_grad=requires_grad)


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


# Small modules of our own for the nn.Module tests (tests/nn/test_module.py, test_state_dict.py):
# they depend on nothing but Module and Parameter.
class Affine(nn.Module):
    """y = x @ W.T + b: a Linear of our own, so these tests depend on nothing but Module."""

    def __init__(self, n_in, n_out, bias=True):
        super().__init__()
        self.in_features, self.out_features = n_in, n_out
        self.weight = nn.Parameter(tg.randn(n_out, n_in))
        self.bias = nn.Parameter(tg.randn(n_out)) if bias else None

    def extra_repr(self):
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )

    def forward(self, x):
        y = x @ self.weight.T
        return y if self.bias is None else y + self.bias


class Net(nn.Module):
    """Own parameter assigned after a child, a buffer of each kind, a tied weight."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(Affine(2, 3), Affine(3, 3))
        self.scale = nn.Parameter(tg.ones(1))
        self.head = Affine(3, 2)
        self.register_buffer("steps", tg.zeros(1, dtype=tg.int64))
        self.register_buffer("mask", tg.ones(2), persistent=False)

    def forward(self, x):
        return self.head(self.body(x)) * self.scale


def snapshot(module):
    """A copy of every parameter and buffer, by name (duplicates included)."""
    state = module.state_dict()
    state.update({f"buffer:{k}": b for k, b in module.named_buffers()})
    return {k: np.array(v.numpy(), copy=True) for k, v in state.items()}


def assert_unchanged(module, before):
    after = snapshot(module)
    assert after.keys() == before.keys()
    for name in before:
        assert after[name].dtype == before[name].dtype, name
        np.testing.assert_array_equal(after[name], before[name], err_msg=name)


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
