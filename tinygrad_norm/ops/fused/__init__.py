"""Fused operations: one node each, with a hand-derived backward, for speed and stability.

- `softmax`: Softmax, LogSoftmax
- `layer_norm`: LayerNorm
- `gelu`: Gelu (exact, or GPT-2's tanh approximation)
- `cross_entropy`: CrossEntropy (log_softmax and negative log-likelihood in one node)
- `embedding`: Embedding, EmbeddingGrad (a gather, and its scatter-add backward)
- `linear`: Linear (x @ w + b over the last axis: reshape, matmul and bias add in one node)
- `attention`: SelfAttention (GPT-2's attention core, from packed q, k, v to merged heads)
- `batch_norm`: BatchNorm (training mode: batch statistics per channel, weight, bias)
- `lstm_cell`: LSTMCell (one LSTM step's gates to the new hidden and cell states)
- `conv`: Conv (a convolution: the whole batch's im2col columns times the weight, one GEMM)
- `lstm_layer`: LSTMLayer (every step of one LSTM layer: the time loop and its backward)
- `bce_with_logits`: BCEWithLogits (binary cross-entropy of logits, with pos_weight and weight)
- `power`: PowScalar (x ** p for a number p: multiplications or sqrt for 2, 3, 4, 1/2, -1, ...)
- `silu`: Silu (x * sigmoid(x))
- `clamp`: Clamp (clamp with number bounds: one mask in backward), Hardtanh (and relu6)
- `mse_loss`: MSELoss (mean or summed squared error of two tensors of one shape)
- `elu`: Elu (elu, selu, celu), Hardswish
- `leaky_relu`: LeakyRelu (x or negative_slope * x: one slope array for forward and backward)
- `smooth_l1`: SmoothL1 (smooth_l1_loss and huber_loss, elementwise)
- `cdist`: Cdist (Euclidean distances between two sets of rows by one matrix product)
- `unary`: Expm1, Log1p, Log10, Exp2, Atan, Atanh, Sinh, Cosh (backward on arrays; the
  references are the primitives of `special` and `trig`)
- `softplus`: Softplus, LogSigmoid (masks as 0/1 factors)
- `modulo`: Fmod, Remainder, RoundedDiv (float32 fmod in float64 arithmetic, exact; PyTorch's
  remainder and floor-division formulas on it)
- `logaddexp`: LogAddExp (log(exp(a) + exp(b)) with sigmoid weights in backward)
- `lerp`: Lerp (lerp with a tensor weight: PyTorch's two forms, one selected per element)

Each docstring derives its backward. Each backward is written once, in Chainer's `xp` style
(`xp.py`): the same lines run on NumPy arrays when nothing is recorded (fast, no Tensor op
overhead) and on Tensors under `create_graph=True` (recorded, so twice differentiable). Beside
each op, its reference (`layer_norm_reference`, `gelu_reference`, ...) is the same maths
composed from primitives; the tests check that both give the same values, gradients and
second derivatives. `safe_softmax` (the masked softmax of attention) and `xp.exp_shift` (the
maximum to subtract before exp) are the one place each is written. What fusing buys, op by
op, is measured in docs/speed.md.
"""

from .attention import SelfAttention, self_attention, self_attention_reference
from .batch_norm import BatchNorm, batch_norm, batch_norm_reference
from .bce_with_logits import BCEWithLogits, bce_with_logits, bce_with_logits_reference
from .cdist import Cdist, cdist_mm, cdist_reference, cdist_uses_matmul
from .clamp import Clamp, Hardtanh, clamp, clamp_reference, hardtanh_reference
from .conv import Conv, conv, conv_reference
from .cross_entropy import CrossEntropy, cross_entropy, cross_entropy_reference
from .elu import (
    Elu,
    Hardswish,
    elu,
    elu_reference,
    hardswish,
    hardswish_reference,
)
from .embedding import Embedding, EmbeddingGrad, embedding_reference
from .gelu import Gelu, gelu, gelu_reference
from .layer_norm import LayerNorm, layer_norm, layer_norm_reference
from .leaky_relu import LeakyRelu, leaky_relu, leaky_relu_reference
from .linear import Linear, linear, linear_reference
from .lstm_cell import LSTMCell, lstm_cell, lstm_cell_reference
from .lstm_layer import LSTMLayer, lstm_layer, lstm_layer_reference
from .mse_loss import MSELoss, mse_loss, mse_loss_reference
from .power import PowScalar, pow_scalar, pow_scalar_reference
from .silu import Silu, silu, silu_reference
from .smooth_l1 import SmoothL1, smooth_l1_reference
from .softmax import (
    LogSoftmax,
    Softmax,
    log_softmax,
    log_softmax_reference,
    safe_softmax,
    softmax,
    softmax_reference,
)

__all__ = [
    "SmoothL1",
    "smooth_l1_reference",
    "Hardtanh",
    "hardtanh_reference",
    "LeakyRelu",
    "leaky_relu",
    "leaky_relu_reference",
    "Elu",
    "Hardswish",
    "elu",
    "elu_reference",
    "hardswish",
    "hardswish_reference",
    "Cdist",
    "cdist_mm",
    "cdist_reference",
    "cdist_uses_matmul",
    "Clamp",
    "clamp",
    "clamp_reference",
    "MSELoss",
    "mse_loss",
    "mse_loss_reference",
    "PowScalar",
    "pow_scalar",
    "pow_scalar_reference",
    "Silu",
    "silu",
    "silu_reference",
    "BCEWithLogits",
    "bce_with_logits",
    "bce_with_logits_reference",
    "BatchNorm",
    "Conv",
    "conv",
    "conv_reference",
    "batch_norm",
    "batch_norm_reference",
    "CrossEntropy",
    "Embedding",
    "EmbeddingGrad",
    "Gelu",
    "LayerNorm",
    "Linear",
    "LogSoftmax",
    "SelfAttention",
    "Softmax",
    "cross_entropy",
    "cross_entropy_reference",
    "embedding_reference",
    "gelu",
    "gelu_reference",
    "layer_norm",
    "layer_norm_reference",
    "linear",
    "linear_reference",
    "LSTMCell",
    "lstm_cell",
    "lstm_cell_reference",
    "LSTMLayer",
    "lstm_layer",
    "lstm_layer_reference",
    "log_softmax",
    "log_softmax_reference",
    "safe_softmax",
    "self_attention",
    "self_attention_reference",
    "softmax",
    "softmax_reference",
]
