"""nn.functional (`from tinygrad_norm.nn import functional as F`): the layers as functions.

Names, arguments and semantics are PyTorch's. `layer_norm`, `softmax`, `log_softmax`, `gelu`,
`cross_entropy` and `embedding` are fused nodes with their own analytic backward
(`ops/fused/`); the rest are composed from primitives, so autograd derives their gradients.
Each accepts Tensors (or NumPy arrays, which become constants) and returns a Tensor.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..creation import as_tensor
from ..ops import composite as C
from ..ops import fused
from ..ops.fused.cross_entropy import REDUCTIONS, cross_entropy  # noqa: F401 - re-exported
from ..random import generator
from ..tensor import Tensor

__all__ = [
    "batch_norm",
    "conv1d_gpt2",
    "cross_entropy",
    "dropout",
    "embedding",
    "gelu",
    "group_norm",
    "instance_norm",
    "layer_norm",
    "linear",
    "log_softmax",
    "mse_loss",
    "nll_loss",
    "relu",
    "rms_norm",
    "scaled_dot_product_attention",
    "softmax",
]


# --- linear layers ------------------------------------------------------------------------------
def linear(input, weight, bias=None):  # noqa: A002 - PyTorch's name
    """y = input @ weight.T + bias, over the last axis.

    input (..., in_features), weight (out_features, in_features), bias (out_features,) or
    None; y (..., out_features). One fused node (`ops/fused/linear.py`): the leading axes
    are flattened first, so the weight's gradient is one 2-D matmul, (in, B*T) @ (B*T, out),
    not one per batch element.

    >>> import tinygrad_norm as tg
    >>> linear(tg.ones(2, 3), tg.ones(4, 3), tg.zeros(4)).shape
    (2, 4)
    """
    x, weight = as_tensor(input), as_tensor(weight)
    if weight.ndim != 2:
        raise ValueError(
            f"linear: weight must have shape (out_features, in_features), got {weight.shape}"
        )
    if x.ndim == 0 or x.shape[-1] != weight.shape[1]:
        raise ValueError(
            f"linear: input of shape {x.shape} has {x.shape[-1] if x.ndim else 0} features in "
            f"its last axis, but weight of shape {weight.shape} expects in_features = "
            f"{weight.shape[1]} (weight is (out_features, in_features)); build the layer with "
            f"in_features = the input's last size, or reshape the input"
        )
    return fused.linear(x, weight.T, _maybe(bias))  # (..., out)


def conv1d_gpt2(x, weight, bias=None):
    """GPT-2's Conv1D: y = x @ weight + bias over the last axis, weight of shape (nx, nf).

    Despite its name it is a linear layer with the weight stored transposed: nx is the input
    size, nf the output size. One fused node (`ops/fused/linear.py`): x (..., nx) is viewed
    as (-1, nx), multiplied, and reshaped to (..., nf); the weight's gradient is one 2-D matmul.

    >>> import tinygrad_norm as tg
    >>> conv1d_gpt2(tg.ones(2, 5, 3), tg.ones(3, 4), tg.zeros(4)).shape
    (2, 5, 4)
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
    index = np.asarray(input.data if isinstance(input, Tensor) else input)
    if index.dtype.kind not in "iu":
        raise TypeError(
            f"embedding: input must hold integer indices, got {index.dtype}; use .long()"
        )
    if weight.ndim != 2:
        raise ValueError(
            f"embedding: weight must have shape (num_embeddings, embedding_dim), got {weight.shape}"
        )
    n_rows = weight.shape[0]
    if index.size and (index.min() < -n_rows or index.max() >= n_rows):
        bad = index[(index < -n_rows) | (index >= n_rows)].flat[0]
        raise IndexError(
            f"embedding: index {bad} is out of range for a table of {n_rows} rows "
            f"(weight {weight.shape}); indices go from 0 to {n_rows - 1}"
        )
    index = index % n_rows  # negative indices count from the end, as in NumPy
    out = fused.Embedding.apply(weight, index=index)
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


def dropout(input, p=0.5, training=True, inplace=False):  # noqa: A002 - PyTorch's name
    """Inverted dropout: zero each element with probability p, scale the rest by 1 / (1 - p).

    The scaling keeps the expected value of every element unchanged, so nothing needs to
    change at evaluation time, when dropout is the identity (`training=False`, or p = 0).
    p = 1 zeroes everything. The keep-mask is drawn from the global generator
    (`tg.manual_seed`, `tg.random.fork_rng`). Srivastava et al., 2014, "Dropout".
    `inplace` is accepted for PyTorch's signature; the result is always a new tensor.

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> dropout(tg.ones(6), p=0.5)
    tensor([2., 0., 0., 0., 2., 2.])
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
    keep = generator().random(x.shape) >= p
    return x * (keep * (1.0 / (1.0 - p))).astype(x.dtype)


# --- normalization ------------------------------------------------------------------------------
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """(x - mean) / sqrt(var + eps) * weight + bias over the last len(normalized_shape) axes.

    The variance is the biased one (divided by the number of normalized elements), as in
    PyTorch. weight and bias have the normalized shape (or one that broadcasts to it).
    Fused, with the backward derived in `ops/fused/layer_norm.py`. Ba et al., 2016.

    >>> import tinygrad_norm as tg
    >>> layer_norm(tg.tensor([[1.0, 2.0, 3.0]]), (3,), eps=0.0)
    tensor([[-1.2247,  0.0000,  1.2247]])
    """
    x = as_tensor(input)
    shape = _normalized_shape("layer_norm", x, normalized_shape)
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and not _broadcasts_to(np.shape(t), shape):
            raise ValueError(
                f"layer_norm: {name} of shape {tuple(np.shape(t))} does not match "
                f"normalized_shape {shape}"
            )
    return fused.layer_norm(x, _maybe(weight), _maybe(bias), len(shape), eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):  # noqa: A002
    """x / sqrt(mean(x^2) + eps) * weight over the last len(normalized_shape) axes.

    No centering and no bias (Zhang & Sennrich, 2019, "Root Mean Square Layer Normalization").
    `eps=None` means the machine epsilon of the input's dtype, as PyTorch
    (torch.finfo(dtype).eps: 1.19e-07 for float32, 2.22e-16 for float64).

    >>> import tinygrad_norm as tg
    >>> rms_norm(tg.tensor([[3.0, 4.0]]), (2,), eps=0.0)   # rms = sqrt(12.5)
    tensor([[0.8485, 1.1314]])
    """
    x = as_tensor(input)
    shape = _normalized_shape("rms_norm", x, normalized_shape)
    if eps is None:
        eps = float(np.finfo(x.dtype).eps)
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    y = x * ((x * x).mean(dim=axes, keepdim=True) + eps).rsqrt()
    if weight is not None:
        if not _broadcasts_to(np.shape(weight), shape):
            raise ValueError(
                f"rms_norm: weight of shape {tuple(np.shape(weight))} does not match "
                f"normalized_shape {shape}"
            )
        y = y * weight
    return y


def _normalized_shape(op: str, x, normalized_shape) -> tuple:
    if isinstance(normalized_shape, (int, np.integer)):
        normalized_shape = (int(normalized_shape),)
    shape = tuple(int(n) for n in normalized_shape)
    if not shape or len(shape) > x.ndim or x.shape[x.ndim - len(shape) :] != shape:
        raise ValueError(
            f"{op}: normalized_shape {shape} must equal the last axes of the input, but the "
            f"input has shape {x.shape}"
        )
    return shape


def _broadcasts_to(shape: tuple, target: tuple) -> bool:
    try:
        return np.broadcast_shapes(tuple(shape), target) == target
    except ValueError:
        return False


def _maybe(t):
    return None if t is None else as_tensor(t)


def _channel_shape(x) -> tuple:
    """(1, C, 1, ...): a per-channel vector broadcast along x (N, C, *spatial)."""
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


def _affine(y, weight, bias):
    """y * weight + bias with per-channel weight and bias (C,)."""
    shape = _channel_shape(y)
    if weight is not None:
        y = y * as_tensor(weight).reshape(shape)
    if bias is not None:
        y = y + as_tensor(bias).reshape(shape)
    return y


def _check_channels(op: str, x, **per_channel) -> None:
    if x.ndim < 2:
        raise ValueError(f"{op}: input must be (N, C, ...), got shape {x.shape}")
    for name, t in per_channel.items():
        if t is not None and tuple(np.shape(t)) != (x.shape[1],):
            raise ValueError(
                f"{op}: {name} must have shape ({x.shape[1]},), one value per channel of "
                f"the input {x.shape}, got {tuple(np.shape(t))}"
            )


def _update_running(running, momentum, batch_value: np.ndarray) -> None:
    """running = (1 - momentum) * running + momentum * batch_value, in place on its array."""
    if running is not None:
        array = running.data if isinstance(running, Tensor) else running
        array[...] = (1 - momentum) * array + momentum * batch_value


def batch_norm(
    input,  # noqa: A002 - PyTorch's name
    running_mean,
    running_var,
    weight=None,
    bias=None,
    training=False,
    momentum=0.1,
    eps=1e-5,
):
    """Normalize each channel over the batch (and spatial) axes: input (N, C), (N, C, L) or
    (N, C, H, W). Ioffe & Szegedy, 2015, "Batch Normalization".

    training=True: batch mean and biased variance normalize; running_mean and running_var
    (arrays or Tensors of shape (C,), or None) are updated in place with
    running = (1 - momentum) * running + momentum * batch statistic, using the UNBIASED
    variance (divided by n - 1), as PyTorch. training=False: the running statistics normalize.
    """
    x = as_tensor(input)
    _check_channels("batch_norm", x, running_mean=running_mean, running_var=running_var,
                    weight=weight, bias=bias)  # fmt: skip
    axes = (0,) + tuple(range(2, x.ndim))
    if training:
        n = math.prod(x.shape[:1] + x.shape[2:])  # values per channel (also when C = 0)
        if n <= 1:
            raise ValueError(
                f"batch_norm: training needs more than one value per channel to compute a "
                f"variance, got input of shape {x.shape}; use a batch of 2 or more, or call "
                ".eval() to normalize with the running statistics"
            )
        mean = x.mean(dim=axes, keepdim=True)
        var = x.var(dim=axes, unbiased=False, keepdim=True)
        _update_running(running_mean, momentum, mean.data.reshape(-1))
        _update_running(running_var, momentum, var.data.reshape(-1) * (n / (n - 1)))
    else:
        if running_mean is None or running_var is None:
            raise ValueError(
                "batch_norm: evaluation (training=False) normalizes with running_mean and "
                "running_var; pass them, or use training=True for batch statistics"
            )
        mean = _constant(running_mean, x).reshape(_channel_shape(x))
        var = _constant(running_var, x).reshape(_channel_shape(x))
    return _affine((x - mean) * (var + eps).rsqrt(), weight, bias)


def _constant(t, like) -> Tensor:
    """A buffer (Tensor or array) as a constant Tensor of `like`'s dtype: no gradient."""
    array = np.asarray(t.data if isinstance(t, Tensor) else t)
    return Tensor._make(array.astype(like.dtype, copy=False))


def instance_norm(
    input,  # noqa: A002 - PyTorch's name
    running_mean=None,
    running_var=None,
    weight=None,
    bias=None,
    use_input_stats=True,
    momentum=0.1,
    eps=1e-5,
):
    """Normalize each channel of each sample over its spatial axes: input (N, C, L, ...).
    Ulyanov et al., 2016, "Instance Normalization".

    With use_input_stats, each (sample, channel) uses its own mean and biased variance, and
    running_mean / running_var (if given) move towards the batch average of them (unbiased
    variance), as PyTorch. Otherwise the running statistics normalize.
    """
    x = as_tensor(input)
    _check_channels("instance_norm", x, running_mean=running_mean, running_var=running_var,
                    weight=weight, bias=bias)  # fmt: skip
    if x.ndim < 3:
        raise ValueError(
            f"instance_norm: input must be (N, C, L, ...) with spatial axes, got {x.shape}"
        )
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise ValueError("instance_norm: use_input_stats=False needs running_mean/var")
        mean = _constant(running_mean, x).reshape(_channel_shape(x))
        var = _constant(running_var, x).reshape(_channel_shape(x))
        return _affine((x - mean) * (var + eps).rsqrt(), weight, bias)
    n = int(np.prod(x.shape[2:]))
    if n <= 1:
        raise ValueError(
            f"instance_norm: needs more than one spatial element per channel, got input "
            f"of shape {x.shape}"
        )
    flat = x.data.reshape(x.shape[0], x.shape[1], n)
    _update_running(running_mean, momentum, flat.mean(axis=2).mean(axis=0))
    _update_running(running_var, momentum, flat.var(axis=2, ddof=1).mean(axis=0))
    y = fused.layer_norm(x.reshape(x.shape[0], x.shape[1], n), None, None, 1, eps)
    return _affine(y.reshape(x.shape), weight, bias)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """Split the C channels into num_groups groups and normalize each group of each sample
    over its channels and spatial axes (Wu & He, 2018, "Group Normalization"); then a
    per-channel affine. num_groups = 1 is a LayerNorm over (C, ...), num_groups = C an
    InstanceNorm. input (N, C, ...), weight and bias (C,).
    """
    x = as_tensor(input)
    _check_channels("group_norm", x, weight=weight, bias=bias)
    channels = x.shape[1]
    if num_groups <= 0 or channels % num_groups:
        raise ValueError(
            f"group_norm: the {channels} channels of input {x.shape} cannot be split into "
            f"{num_groups} groups of equal size; num_groups must divide {channels}"
        )
    group_size = math.prod(x.shape[1:]) // num_groups  # not -1: ambiguous for N = 0
    grouped = x.reshape(x.shape[0], num_groups, group_size)  # (N, G, C/G * spatial)
    y = fused.layer_norm(grouped, None, None, 1, eps).reshape(x.shape)
    return _affine(y, weight, bias)


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
        mask = attn_mask.data if isinstance(attn_mask, Tensor) else np.asarray(attn_mask)
        if not _broadcasts_to(mask.shape, scores.shape):
            raise ValueError(
                f"scaled_dot_product_attention: attn_mask of shape {mask.shape} does not "
                f"broadcast to the scores' shape {scores.shape}"
            )
        if mask.dtype == np.bool_:
            scores = scores.masked_fill(~mask, -math.inf)
        else:
            scores = scores + C.as_tensor(attn_mask, scores)
    nowhere = np.all(scores.data == -math.inf, axis=-1, keepdims=True)
    if nowhere.any():  # safe softmax: rows with no key to attend get 0, and 0 gradient
        scores = scores.masked_fill(nowhere, 0.0)
    weights = fused.softmax(scores, -1)
    if nowhere.any():
        weights = weights.masked_fill(nowhere, 0.0)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p)
    return weights @ v  # (..., L, Ev)


# --- losses -------------------------------------------------------------------------------------
def nll_loss(input, target, weight=None, *, ignore_index=-100, reduction="mean"):  # noqa: A002
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
    target = target if isinstance(target, Tensor) else Tensor(np.asarray(target))
    if reduction not in REDUCTIONS:
        raise ValueError(f"nll_loss: reduction must be one of {REDUCTIONS}, got {reduction!r}")
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
    t = target.data
    valid = t != ignore_index
    if ((t[valid] < 0) | (t[valid] >= n_classes)).any():
        bad = t[valid][(t[valid] < 0) | (t[valid] >= n_classes)][0]
        raise IndexError(f"nll_loss: target {bad} is out of range for {n_classes} classes")
    safe = np.where(valid, t, 0)
    grids = np.ix_(*[np.arange(n) for n in expected])  # one index array per non-class axis
    picked = x[(grids[0], safe) + tuple(grids[1:])]  # (N, d1, ...): input[n, target[n], ...]
    w_t = valid.astype(x.dtype)  # the weight of each target; 0 where ignored
    if weight is not None:
        w_t = np.where(valid, _constant(weight, x).data[safe], 0).astype(x.dtype)
    losses = (-picked * w_t).masked_fill(~valid, 0.0)
    if reduction == "none":
        return losses
    total = losses.sum()
    return total if reduction == "sum" else total / float(w_t.sum())


def _check_loss_shapes(op: str, input_shape: tuple, target_shape: tuple) -> None:
    """Input and target of different shapes: an error if they cannot broadcast, else PyTorch's
    warning, since broadcasting them is almost always a mistake ((N, 1) against (N,) gives an
    (N, N) loss)."""
    try:
        shape = np.broadcast_shapes(input_shape, target_shape)
    except ValueError:
        raise ValueError(
            f"{op}: input of shape {input_shape} and target of shape {target_shape} do not "
            "match (nor broadcast); give the target the input's shape"
        ) from None
    warnings.warn(
        f"{op}: target of shape {target_shape} differs from input of shape {input_shape}; "
        f"they broadcast to {shape}, which is likely wrong. Give them one shape, e.g. "
        "target.reshape(input.shape)",
        stacklevel=3,
    )


def mse_loss(input, target, reduction="mean"):  # noqa: A002 - PyTorch's name
    """Mean squared error: (input - target)^2, averaged ("mean"), summed ("sum") or not.

    >>> import tinygrad_norm as tg
    >>> mse_loss(tg.tensor([1.0, 2.0]), tg.tensor([1.0, 4.0]))
    tensor(2.)
    """
    if reduction not in REDUCTIONS:
        raise ValueError(f"mse_loss: reduction must be one of {REDUCTIONS}, got {reduction!r}")
    x = as_tensor(input)
    if not isinstance(target, (int, float)):  # a number is every element's target
        target = C.as_tensor(target, x)
        if target.shape != x.shape:
            _check_loss_shapes("mse_loss", x.shape, target.shape)
    diff = x - C.as_tensor(target, x)
    squared = diff * diff
    if reduction == "none":
        return squared
    return squared.sum() if reduction == "sum" else squared.mean()
