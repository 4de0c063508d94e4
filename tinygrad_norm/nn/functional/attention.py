"""`F.scaled_dot_product_attention`: softmax(q k^T / sqrt(d) + mask) v, with PyTorch's arguments."""

from __future__ import annotations

import math

import numpy as np

from ...broadcast import broadcasts_to
from ...functions.creation import as_tensor
from ...ops import composite as C
from ...ops import fused
from ...tensor import Tensor
from .dropout import dropout


def scaled_dot_product_attention(
    query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False
):
    """softmax(query @ key^T * scale + mask) @ value, as PyTorch's (Vaswani et al., 2017).

    query (..., L, E), key (..., S, E), value (..., S, Ev) -> (..., L, Ev). scale defaults to
    1 / sqrt(E). attn_mask broadcasts to (..., L, S): a bool mask says where a query may
    attend (True) -- elsewhere the score becomes -inf; a float mask is added to the scores.
    is_causal masks the future: query i attends to keys 0..i (with attn_mask too, both apply,
    as in PyTorch 2.13). enable_gqa (grouped-query attention): key and value have fewer heads
    (axis -3) than query, a divisor of its count; each of their heads serves a group of
    consecutive query heads (repeat_interleave). A query that may attend to no
    key at all gets zeros (PyTorch's "safe softmax"), not NaN. dropout_p drops attention
    weights (always, as PyTorch; pass 0.0 in evaluation).
    """
    q, k, v = as_tensor(query), as_tensor(key), as_tensor(value)
    if min(q.ndim, k.ndim, v.ndim) < 2 or q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"scaled_dot_product_attention: query {q.shape}, key {k.shape} and value "
            f"{v.shape} must be (..., L, E), (..., S, E) and (..., S, Ev)"
        )
    if enable_gqa and k.ndim >= 3 and k.shape[-3] != q.shape[-3]:
        heads, kv_heads = q.shape[-3], k.shape[-3]
        if kv_heads == 0 or heads % kv_heads or v.shape[-3] != kv_heads:
            raise RuntimeError(
                f"scaled_dot_product_attention: with enable_gqa, the query's heads ({heads}) "
                f"must be a multiple of the key's and value's heads ({kv_heads}, {v.shape[-3]})"
            )
        k = k.repeat_interleave(heads // kv_heads, dim=-3)
        v = v.repeat_interleave(heads // kv_heads, dim=-3)
    length, source = q.shape[-2], k.shape[-2]
    if scale is None:  # E = 0: every score is an empty dot product, 0, whatever the scale
        scale = 1 / math.sqrt(q.shape[-1]) if q.shape[-1] else 1.0
    scores = (q @ k.transpose(-2, -1)) * scale  # (..., L, S)
    if is_causal:
        scores = scores.masked_fill(~np.tril(np.ones((length, source), dtype=bool)), -math.inf)
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
