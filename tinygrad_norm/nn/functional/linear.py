"""The linear layers as functions: `F.linear`, GPT-2's `conv1d_gpt2` and `F.embedding`, each a
fused node with its own backward (`ops/fused/`)."""

from __future__ import annotations

import numpy as np

from ...broadcast import ShapeError
from ...dtypes import DtypeError, require_same_dtype
from ...functions.creation import as_tensor
from ...ops import fused
from ...tensor import Tensor
from .norm import _maybe


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
        raise ShapeError(  # a RuntimeError as PyTorch's, and a ValueError
            f"linear: input of shape {x.shape} has {x.shape[-1] if x.ndim else 0} features in "
            f"its last axis, but weight of shape {weight.shape} expects in_features = "
            f"{weight.shape[1]} (weight is (out_features, in_features)); build the layer with "
            f"in_features = the input's last size, or reshape the input"
        )
    require_same_dtype("linear", x, weight, ("the input", "the weight"))
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
    indices and one np.add.reduceat, several times faster than np.add.at (how it was chosen:
    `ops/fused/embedding.py`; the measurements: docs/speed.md). The row `padding_idx` gets no
    gradient.

    >>> import tinygrad_norm as tg
    >>> embedding(tg.tensor([[0, 2]]), tg.eye(3)).tolist()
    [[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]]
    """
    weight = as_tensor(weight)
    index = np.asarray(input.array if isinstance(input, Tensor) else input)
    if index.dtype not in (np.int64, np.int32):  # uint8 and bool too: PyTorch's RuntimeError
        raise DtypeError(  # PyTorch's RuntimeError (a TypeError too)
            f"embedding: input must hold integer indices (int64 or int32), got {index.dtype}; "
            "convert with .long()"
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
