"""Fused operations: one node each, with a hand-derived backward, for speed and stability.

- `softmax`: Softmax, LogSoftmax
- `layer_norm`: LayerNorm
- `gelu`: Gelu (exact, or GPT-2's tanh approximation)
- `cross_entropy`: CrossEntropy (log_softmax and negative log-likelihood in one node)
- `embedding`: Embedding, EmbeddingGrad (a gather, and its scatter-add backward)

Each docstring derives its backward; each backward is written with Tensor operations, so it is
twice differentiable. The same computations composed from primitives (`softmax_composed` in
`ops/composite.py`, and the compositions in `tests/test_fused.py`) give the same values and
gradients.
"""

from .cross_entropy import CrossEntropy, cross_entropy
from .embedding import Embedding, EmbeddingGrad
from .gelu import Gelu, gelu
from .layer_norm import LayerNorm, layer_norm
from .softmax import LogSoftmax, Softmax, log_softmax, softmax

__all__ = [
    "CrossEntropy",
    "Embedding",
    "EmbeddingGrad",
    "Gelu",
    "LayerNorm",
    "LogSoftmax",
    "Softmax",
    "cross_entropy",
    "gelu",
    "layer_norm",
    "log_softmax",
    "softmax",
]
