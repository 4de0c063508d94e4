"""nn.functional (`from tinygrad_norm.nn import functional as F`): the layers as functions.

Names, arguments and semantics are PyTorch's. `layer_norm`, `softmax`, `log_softmax`, `gelu`,
`cross_entropy` and `embedding` are fused nodes with their own analytic backward
(`ops/fused/`); the rest are composed from primitives, so autograd derives their gradients.
Each accepts Tensors (or NumPy arrays, which become constants) and returns a Tensor.
"""

from __future__ import annotations

import math

import numpy as np

from ..broadcast import broadcasts_to
from ..creation import as_tensor
from ..ops import composite as C
from ..ops import fused
from ..ops.fused.cross_entropy import cross_entropy as _fused_cross_entropy
from ..random import resolve, transforms
from ..tensor import Tensor
from .functional_activation import *  # noqa: F403 - the activations of issue 12, item 2
from .functional_activation import __all__ as _activations
from .functional_conv import *  # noqa: F403 - conv1d ... conv_transpose2d, fold, unfold
from .functional_conv import __all__ as _convolutions
from .functional_ctc import ctc_loss
from .functional_loss import *  # noqa: F403 - the losses and distances
from .functional_loss import __all__ as _losses
from .functional_loss import check_loss_input, check_loss_shapes, check_reduction, legacy_reduction
from .functional_norm import (  # shared helpers
    _constant,
    _maybe,
    batch_norm,
    group_norm,
    instance_norm,
    layer_norm,
    rms_norm,
)
from .functional_pool import *  # noqa: F403 - pooling, interpolate, pixel_shuffle
from .functional_pool import __all__ as _poolings
from .functional_shape import normalize, one_hot, pad  # noqa: F401 - re-exported

__all__ = [
    "alpha_dropout",
    "batch_norm",
    "conv1d_gpt2",
    "cross_entropy",
    "dropout",
    "dropout1d",
    "dropout2d",
    "embedding",
    "gelu",
    "group_norm",
    "instance_norm",
    "layer_norm",
    "linear",
    "log_softmax",
    "mse_loss",
    "nll_loss",
    "normalize",
    "one_hot",
    "pad",
    "relu",
    "rms_norm",
    "scaled_dot_product_attention",
    "sigmoid",
    "softmax",
    "tanh",
    "ctc_loss",
    *_convolutions,  # functional_conv.py
    *_poolings,  # functional_pool.py
    *_losses,  # functional_loss.py
    *_activations,
]


# --- linear layers ------------------------------------------------------------------------------


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


def linear(input, weight, bias=None):  # noqa: A002 - PyTorch's name
    """y = input @ weight.T + bias, over the last axis.

    input (..., in_features), weight (out_features, in_features), bias (out_features,) or
    None; y (..., out_features). One fused node (`ops/fused/linear.py`): the leading axes
    are flattened first, so the weight's gradient is one 2-D matmul, (in, B*T) @ (B*T, out),
    not one per batch element.

    >>> import tinygrad_norm as tg
    >>> linear(tg.ones(2, 3), tg.ones(4, 3), tg.zeros(4)).shape
    torch.Size([2, 4])
    """
    x, weight = as_tensor(input), as_tensor(weight)
    x_shape, w_shape = x.array.shape, weight.array.shape  # NOTE: not .shape (a new Size each)
    if len(w_shape) != 2:
        raise ValueError(
            f"linear: weight must have shape (out_features, in_features), got {weight.shape}"
        )
    if not x_shape or x_shape[-1] != w_shape[1]:
        raise ValueError(
            f"linear: input of shape {x.shape} has {x.shape[-1] if x.ndim else 0} features in "
            f"its last axis, but weight of shape {weight.shape} expects in_features = "
            f"{weight.shape[1]} (weight is (out_features, in_features)); build the layer with "
            f"in_features = the input's last size, or reshape the input"
        )
    return fused.linear(x, weight, _maybe(bias), out_in=True)  # (..., out)


def conv1d_gpt2(x, weight, bias=None):
    """GPT-2's Conv1D: y = x @ weight + bias over the last axis, weight of shape (nx, nf).

    Despite its name it is a linear layer with the weight stored transposed: nx is the input
    size, nf the output size. One fused node (`ops/fused/linear.py`): x (..., nx) is viewed
    as (-1, nx), multiplied, and reshaped to (..., nf); the weight's gradient is one 2-D matmul.

    >>> import tinygrad_norm as tg
    >>> conv1d_gpt2(tg.ones(2, 5, 3), tg.ones(3, 4), tg.zeros(4)).shape
    torch.Size([2, 5, 4])
    """
    x, weight = as_tensor(x), as_tensor(weight)
    if weight.ndim != 2:
        raise ValueError(f"conv1d_gpt2: weight must have shape (nx, nf), got {weight.shape}")
    nx, nf = weight.shape
    if x.ndim == 0 or x.shape[-1] != nx:
        raise ValueError(
            f"conv1d_gpt2: input of shape {x.shape} has last axis "
            f"{x.shape[-1] if x.ndim else 0}, but weight of shape ({nx}, {nf}) expects "
            f"nx = {nx} inputs; GPT-2's Conv1D(nf, nx) takes the OUTPUT size nf first"
        )
    return fused.linear(x, weight, _maybe(bias))  # (..., nf)


def embedding(input, weight, padding_idx=None):  # noqa: A002 - PyTorch's name
    """Rows of `weight` (num_embeddings, dim) picked by the integer tensor `input`.

    Returns input.shape + (dim,). Repeated indices add their gradients up, by sorting the
    indices and one np.add.reduceat: 1.5-5x faster than np.add.at for 2048 indices into 65-256
    rows (the measurements are in `ops/fused/embedding.py`). The row `padding_idx` gets no
    gradient.

    >>> import tinygrad_norm as tg
    >>> embedding(tg.tensor([[0, 2]]), tg.eye(3)).tolist()
    [[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]]
    """
    weight = as_tensor(weight)
    index = np.asarray(input.array if isinstance(input, Tensor) else input)
    if index.dtype.kind not in "iu":
        raise TypeError(
            f"embedding: input must hold integer indices, got {index.dtype}; use .long()"
        )
    if weight.array.ndim != 2:
        raise ValueError(
            f"embedding: weight must have shape (num_embeddings, embedding_dim), got {weight.shape}"
        )
    n_rows = weight.array.shape[0]
    if index.size and (index.min() < 0 or index.max() >= n_rows):
        bad = index[(index < 0) | (index >= n_rows)].flat[0]
        raise IndexError(
            f"embedding: index {bad} is out of range for a table of {n_rows} rows "
            f"(weight {weight.shape}); indices go from 0 to {n_rows - 1} (as in PyTorch, a "
            "negative index is an error, not a row counted from the end)"
        )
    if padding_idx is not None and not -n_rows <= padding_idx < n_rows:
        raise ValueError(
            f"embedding: padding_idx {padding_idx} must name a row of the {n_rows}-row table "
            f"(from {-n_rows} to {n_rows - 1})"
        )
    out = fused.Embedding.apply(weight, index=index.copy())  # backward gets its own copy
    if padding_idx is not None and weight.requires_grad:
        keep = (index != padding_idx % n_rows)[..., None].astype(weight.dtype)
        out = out * keep + (out * (1 - keep)).detach()  # same values, no gradient to padding
    return out


# --- activations --------------------------------------------------------------------------------
def relu(input):  # noqa: A002 - PyTorch's name
    """max(input, 0); the gradient at 0 is 0."""
    return as_tensor(input).relu()


def gelu(input, approximate="none"):  # noqa: A002 - PyTorch's name
    """x * Phi(x) (`approximate="none"`) or GPT-2's tanh form; fused (`ops/fused/gelu.py`).

    >>> import tinygrad_norm as tg
    >>> gelu(tg.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.1587,  0.0000,  0.8413])
    """
    return fused.gelu(as_tensor(input), approximate)


def softmax(input, dim=None, dtype=None):  # noqa: A002 - PyTorch's name
    """exp(x_i) / sum_j exp(x_j) along `dim`; fused (`ops/fused/softmax.py`)."""
    x = _float_input("softmax", input, dim, dtype)
    return fused.softmax(x, dim)


def log_softmax(input, dim=None, dtype=None):  # noqa: A002 - PyTorch's name
    """x_i - log(sum_j exp(x_j)) along `dim`; fused (`ops/fused/softmax.py`)."""
    x = _float_input("log_softmax", input, dim, dtype)
    return fused.log_softmax(x, dim)


def _float_input(op: str, input, dim, dtype):  # noqa: A002
    if dim is None:
        raise TypeError(
            f"{op}: pass dim=, the axis whose entries should form a distribution "
            "(PyTorch's guess for a missing dim is deprecated)"
        )
    x = as_tensor(input)
    return x if dtype is None else x.to(dtype)


def dropout(input, p=0.5, training=True, inplace=False, *, generator=None):  # noqa: A002
    """Inverted dropout: zero each element with probability p, scale the rest by 1 / (1 - p).

    The scaling keeps the expected value of every element unchanged, so nothing needs to
    change at evaluation time, when dropout is the identity (`training=False`, or p = 0).
    p = 1 zeroes everything. The keep-mask is drawn from `generator` (a `tg.Generator`) or the
    global generator (`tg.manual_seed`, `tg.random.fork_rng`). Srivastava et al., 2014, "Dropout".
    `inplace` is accepted for PyTorch's signature; the result is always a new tensor.

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> dropout(tg.ones(6), p=0.5)  # torch.manual_seed(0) gives the same mask
    tensor([0., 0., 2., 0., 0., 0.])
    """
    x = as_tensor(input)
    if not 0.0 <= p <= 1.0:
        raise ValueError(
            f"dropout: p is the probability of zeroing an element and must be in [0, 1], got {p}"
        )
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return x * 0.0
    # PyTorch's CPU dropout: a mask of bernoulli(1 - p) draws, divided by 1 - p
    keep = transforms.bernoulli(resolve(generator, "dropout"), 1.0 - p, x.shape, x.array.dtype)
    keep = transforms.like_input(keep, x.array)  # the mask is laid out as the input
    return x * (keep / x.array.dtype.type(1.0 - p))


# --- attention ----------------------------------------------------------------------------------
def scaled_dot_product_attention(
    query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None
):
    """softmax(query @ key^T * scale + mask) @ value, as PyTorch's (Vaswani et al., 2017).

    query (..., L, E), key (..., S, E), value (..., S, Ev) -> (..., L, Ev). scale defaults to
    1 / sqrt(E). attn_mask broadcasts to (..., L, S): a bool mask says where a query may
    attend (True) -- elsewhere the score becomes -inf; a float mask is added to the scores.
    is_causal masks the future: query i attends to keys 0..i. A query that may attend to no
    key at all gets zeros (PyTorch's "safe softmax"), not NaN. dropout_p drops attention
    weights (always, as PyTorch; pass 0.0 in evaluation).
    """
    q, k, v = as_tensor(query), as_tensor(key), as_tensor(value)
    if min(q.ndim, k.ndim, v.ndim) < 2 or q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"scaled_dot_product_attention: query {q.shape}, key {k.shape} and value "
            f"{v.shape} must be (..., L, E), (..., S, E) and (..., S, Ev)"
        )
    length, source = q.shape[-2], k.shape[-2]
    if scale is None:  # E = 0: every score is an empty dot product, 0, whatever the scale
        scale = 1 / math.sqrt(q.shape[-1]) if q.shape[-1] else 1.0
    scores = (q @ k.transpose(-2, -1)) * scale  # (..., L, S)
    if is_causal:
        if attn_mask is not None:
            raise ValueError(
                "scaled_dot_product_attention: give either attn_mask or is_causal=True, not both"
            )
        attn_mask = np.tril(np.ones((length, source), dtype=bool))
    if attn_mask is not None:
        mask = attn_mask.array if isinstance(attn_mask, Tensor) else np.asarray(attn_mask)
        if not broadcasts_to(mask.shape, scores.shape):
            raise ValueError(
                f"scaled_dot_product_attention: attn_mask of shape {mask.shape} does not "
                f"broadcast to the scores' shape {scores.shape}"
            )
        if mask.dtype == np.bool_:
            scores = scores.masked_fill(~mask, -math.inf)
        else:
            scores = scores + C.as_tensor(attn_mask, scores)
    weights = fused.safe_softmax(scores)  # a row of only -inf (no key to attend) gets 0s
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p)
    return weights @ v  # (..., L, Ev)


# --- losses -------------------------------------------------------------------------------------
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
    diff = x - C.as_tensor(target, x)
    squared = diff * diff
    if reduction == "none":
        return squared
    return squared.sum() if reduction == "sum" else squared.mean()


from ..functions import sigmoid, tanh  # noqa: E402 - F.sigmoid, F.tanh are tg.sigmoid, tg.tanh
from .functional_dropout import alpha_dropout, dropout1d, dropout2d  # noqa: E402
