"""`nn.MultiheadAttention`: PyTorch's multi-head attention (Vaswani et al., 2017), with its
parameter names, so a PyTorch state dict loads unchanged.

    q = query W_q^T + b_q,  k = key W_k^T + b_k,  v = value W_v^T + b_v   (W_q, W_k, W_v stacked
                                                                        in `in_proj_weight`)
    head_i = softmax(q_i k_i^T / sqrt(head_dim) + mask) v_i      for each of num_heads slices
    output = concat(head_1 .. head_h) W_o^T + b_o                 (`out_proj`, a Linear)

Masks follow PyTorch's MultiheadAttention convention, which is the opposite of
`scaled_dot_product_attention`'s: a **bool** `attn_mask` or `key_padding_mask` is True where
attention is NOT allowed; a float mask is added to the scores (-inf forbids). Both masks are
turned into one float mask and added.
"""

from __future__ import annotations

import math

import numpy as np

from ..functions.creation import as_tensor, empty
from ..ops import fused
from ..tensor import Tensor
from . import functional as F
from . import init
from .linear import Linear
from .module import Module
from .parameter import Parameter


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under PyTorch's name for `MultiheadAttention.out_proj` (so the repr matches)."""


def canonical_mask(mask, name: str, like: Tensor) -> Tensor | None:
    """A bool mask (True = not allowed) as a float one (-inf there, 0 elsewhere) in `like`'s
    dtype; a float mask as it is. Masks are constants: no gradient flows into them."""
    if mask is None:
        return None
    array = mask.array if isinstance(mask, Tensor) else np.asarray(mask)
    if array.dtype == np.bool_:
        return Tensor(np.where(array, -np.inf, 0.0).astype(like.dtype))
    if array.dtype.kind != "f":
        raise AssertionError(
            f"only bool and floating types of {name} are supported, got {array.dtype}"
        )
    return mask if isinstance(mask, Tensor) else Tensor(array.astype(like.dtype))


class MultiheadAttention(Module):
    """Multi-head attention, `torch.nn.MultiheadAttention(embed_dim, num_heads, dropout=0.0,
    bias=True, add_bias_kv=False, add_zero_attn=False, kdim=None, vdim=None,
    batch_first=False)`.

    Parameters: `in_proj_weight` (3E, E) and `in_proj_bias` (3E,) when key and value have E
    features; otherwise `q_proj_weight` (E, E), `k_proj_weight` (E, kdim), `v_proj_weight`
    (E, vdim). `out_proj` is a Linear (E, E). Init: xavier_uniform_ for the input projections,
    zeros for both biases (PyTorch's).

    `forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True, is_causal=False) -> (attn_output, attn_weights or None)`.
    Shapes: query (L, N, E), key (S, N, kdim), value (S, N, vdim) (N first with batch_first;
    unbatched (L, E), (S, kdim), (S, vdim)); key_padding_mask (N, S); attn_mask (L, S) or
    (N * num_heads, L, S). attn_output as query; attn_weights (N, L, S) averaged over the heads
    or (N, num_heads, L, S). `is_causal` is a hint that attn_mask is the causal mask (which must
    still be given), as in PyTorch. Dropout on the attention weights in training mode only.

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> mha = MultiheadAttention(8, 2, batch_first=True)
    >>> x = tg.randn(3, 5, 8)                          # (batch, time, embed_dim)
    >>> out, weights = mha(x, x, x)
    >>> out.shape, weights.shape
    (torch.Size([3, 5, 8]), torch.Size([3, 5, 5]))
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        *,
        device=None,  # accepted for PyTorch's signature: everything runs on the CPU
        dtype=None,
    ):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} "
                f"and num_heads={num_heads} instead"
            )
        if add_bias_kv or add_zero_attn:
            raise NotImplementedError(
                "MultiheadAttention: add_bias_kv=True and add_zero_attn=True are not implemented "
                "in tinygrad_norm; leave them False"
            )
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError(
                f"embed_dim must be divisible by num_heads (embed_dim={embed_dim}, "
                f"num_heads={num_heads}): each head gets embed_dim // num_heads features"
            )
        E = embed_dim
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(empty(3 * E, E, dtype=dtype))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(empty(E, E, dtype=dtype))
            self.k_proj_weight = Parameter(empty(E, self.kdim, dtype=dtype))
            self.v_proj_weight = Parameter(empty(E, self.vdim, dtype=dtype))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * E, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(E, E, bias=bias, dtype=dtype)
        self.bias_k = self.bias_v = None
        self.add_zero_attn = False
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for weight in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def _projection_weights(self) -> tuple:
        """(W_q, W_k, W_v) and (b_q, b_k, b_v), slices of the stacked parameters."""
        if self._qkv_same_embed_dim:
            weights = self.in_proj_weight.chunk(3)
        else:
            weights = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
        bias = self.in_proj_bias
        return weights, (None,) * 3 if bias is None else bias.chunk(3)

    def forward(
        self,
        query,
        key,
        value,
        key_padding_mask=None,
        need_weights: bool = True,
        attn_mask=None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ):
        query, key, value = as_tensor(query), as_tensor(key), as_tensor(value)
        batched = self._check_shapes(query, key, value, key_padding_mask, attn_mask)
        if not batched:  # one sequence: give it a batch axis of 1
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                key_padding_mask = as_tensor(key_padding_mask).unsqueeze(0)
        elif self.batch_first:  # (N, L, E) -> (L, N, E)
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        output, weights = self._attend(
            query, key, value, key_padding_mask, need_weights, attn_mask, is_causal
        )
        if weights is not None and average_attn_weights:
            weights = weights.mean(dim=1)  # (N, L, S)
        if not batched:
            return output.squeeze(1), None if weights is None else weights.squeeze(0)
        return (output.transpose(0, 1) if self.batch_first else output), weights

    def _check_shapes(self, query, key, value, key_padding_mask, attn_mask) -> bool:
        """PyTorch's shape rules; True for a batched call."""
        if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
            raise AssertionError(
                f"MultiheadAttention: query, key and value must all be 3-D (batched) or 2-D "
                f"(unbatched), got shapes {query.shape}, {key.shape} and {value.shape}"
            )
        if query.shape[-1] != self.embed_dim:
            raise AssertionError(
                f"was expecting embedding dimension of {self.embed_dim}, but got "
                f"{query.shape[-1]} (query shape {query.shape})"
            )
        if key.shape[-1] != self.kdim or value.shape[-1] != self.vdim:
            raise AssertionError(
                f"MultiheadAttention: key {key.shape} and value {value.shape} must have "
                f"kdim={self.kdim} and vdim={self.vdim} features in their last axis"
            )
        if key.shape[:-1] != value.shape[:-1]:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        batched = query.ndim == 3
        if key_padding_mask is not None:
            n_dims = np.ndim(
                key_padding_mask.array if isinstance(key_padding_mask, Tensor) else key_padding_mask
            )
            if n_dims != (2 if batched else 1):
                raise AssertionError(
                    f"For {'batched (3-D)' if batched else 'unbatched (2-D)'} `query`, expected "
                    f"`key_padding_mask` to be `None` or {2 if batched else 1}-D but found "
                    f"{n_dims}-D tensor instead"
                )
        return batched

    def _attend(self, query, key, value, key_padding_mask, need_weights, attn_mask, is_causal):
        """Attention on sequence-first tensors: query (L, N, E), key (S, N, kdim), value
        (S, N, vdim) -> output (L, N, E) and weights (N, H, L, S) or None."""
        L, N, E = query.shape
        S, H, hd = key.shape[0], self.num_heads, self.head_dim
        if is_causal and attn_mask is None:
            raise RuntimeError(
                "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
                "module method `generate_square_subsequent_mask` to create this mask."
            )
        (w_q, w_k, w_v), (b_q, b_k, b_v) = self._projection_weights()
        q = F.linear(query, w_q, b_q).reshape(L, N * H, hd).transpose(0, 1)  # (N*H, L, hd)
        k = F.linear(key, w_k, b_k).reshape(S, N * H, hd).transpose(0, 1)  # (N*H, S, hd)
        v = F.linear(value, w_v, b_v).reshape(S, N * H, hd).transpose(0, 1)  # (N*H, S, hd)
        use_causal = is_causal and key_padding_mask is None and not need_weights
        mask = None if use_causal else self._merged_mask(attn_mask, key_padding_mask, q, L, S, N)
        dropout_p = self.dropout if self.training else 0.0
        if need_weights:
            scores = (q * (1.0 / math.sqrt(hd))) @ k.transpose(1, 2)  # (N*H, L, S)
            if mask is not None:
                scores = scores + mask
            weights = fused.softmax(scores, -1)
            if dropout_p > 0.0:
                weights = F.dropout(weights, dropout_p)
            heads = weights @ v  # (N*H, L, hd)
        else:
            heads = F.scaled_dot_product_attention(
                q, k, v, attn_mask=mask, dropout_p=dropout_p, is_causal=use_causal
            )  # (N*H, L, hd)
        heads = heads.transpose(0, 1).reshape(L * N, E)  # (L*N, E): heads side by side
        output = self.out_proj(heads).reshape(L, N, E)
        return output, weights.reshape(N, H, L, S) if need_weights else None

    def _merged_mask(self, attn_mask, key_padding_mask, like, L, S, N) -> Tensor | None:
        """attn_mask (L, S) or (N*H, L, S) plus key_padding_mask (N, S), as one float mask
        that broadcasts to the scores (N*H, L, S)."""
        H = self.num_heads
        attn_mask = canonical_mask(attn_mask, "attn_mask", like)
        padding = canonical_mask(key_padding_mask, "key_padding_mask", like)
        if attn_mask is not None:
            if attn_mask.ndim == 2:
                if tuple(attn_mask.shape) != (L, S):
                    raise RuntimeError(
                        f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                        f"{(L, S)} (target length, source length)."
                    )
                attn_mask = attn_mask.unsqueeze(0)  # (1, L, S)
            elif attn_mask.ndim == 3:
                if tuple(attn_mask.shape) != (N * H, L, S):
                    raise RuntimeError(
                        f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                        f"{(N * H, L, S)} (batch * num_heads, target length, source length)."
                    )
            else:
                raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
        if padding is not None:
            if tuple(padding.shape) != (N, S):
                raise AssertionError(
                    f"expecting key_padding_mask shape of {(N, S)}, but got {padding.shape}"
                )
            padding = padding.reshape(N, 1, 1, S).expand(N, H, 1, S).reshape(N * H, 1, S)
            attn_mask = padding if attn_mask is None else attn_mask + padding
        return attn_mask
