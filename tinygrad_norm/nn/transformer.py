"""PyTorch's Transformer layers (Vaswani et al., 2017): `TransformerEncoderLayer`,
`TransformerEncoder`, `TransformerDecoderLayer`, `TransformerDecoder`, with PyTorch's
submodule names (`self_attn`, `linear1`, `norm1`, ... and `layers.0.self_attn...`), so a
PyTorch state dict loads unchanged.

An encoder layer is self-attention and a feed-forward block, each inside a residual connection
with a LayerNorm, either after the sum (post-norm, the paper's and PyTorch's default) or at the
start of the branch (`norm_first=True`, pre-norm, as GPT-2):

    post-norm:  x = norm1(x + SA(x));          x = norm2(x + FF(x))
    pre-norm:   x = x + SA(norm1(x));          x = x + FF(norm2(x))
    FF(x) = dropout2(linear2(dropout(activation(linear1(x)))));  SA(x) = dropout1(self_attn(x))

A decoder layer adds cross-attention to `memory` (the encoder's output) between the two.
Masks are those of `MultiheadAttention` (bool True = not allowed, or float added).
"""

from __future__ import annotations

import copy

import numpy as np

from ..tensor import Tensor
from . import functional as F
from .containers import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .multihead_attention import MultiheadAttention
from .normalization import LayerNorm


def generate_square_subsequent_mask(sz: int, dtype=np.float32) -> Tensor:
    """The causal mask (sz, sz): 0 on and below the diagonal, -inf above (a float mask, as
    PyTorch's `nn.Transformer.generate_square_subsequent_mask`)."""
    return Tensor(np.triu(np.full((sz, sz), -np.inf, dtype=dtype), 1))


def _activation(activation):
    """ "relu" / "gelu" become F.relu / F.gelu (functions); a callable or Module is kept."""
    if isinstance(activation, str):
        if activation == "relu":
            return F.relu
        if activation == "gelu":
            return F.gelu
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    if not callable(activation):
        raise TypeError(f"activation must be 'relu', 'gelu' or a callable, got {activation!r}")
    return activation


class _FeedForwardLayer(Module):
    """What the encoder and decoder layers share: the feed-forward block and the activation."""

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)

    def _attention(self, attn, dropout, x, mem, attn_mask, key_padding_mask, is_causal):
        x = attn(
            x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
            need_weights=False, is_causal=is_causal,
        )[0]  # fmt: skip
        return dropout(x)


class TransformerEncoderLayer(_FeedForwardLayer):
    """Self-attention and feed-forward, with residual connections and LayerNorms.

    `TransformerEncoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1,
    activation="relu", layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True)`;
    `activation` is "relu", "gelu" or any callable (a Module is registered as a child).
    `forward(src, src_mask=None, src_key_padding_mask=None, is_causal=False)`: src (S, N, E)
    ((N, S, E) with batch_first, or (S, E)) -> the same shape.

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> layer = TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True)
    >>> layer(tg.randn(3, 5, 8)).shape
    (3, 5, 8)
    """

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation="relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        *,
        dtype=None,
    ):
        super().__init__()
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, dtype=dtype
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation)

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False) -> Tensor:
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal) -> Tensor:
        return self._attention(
            self.self_attn, self.dropout1, x, x, attn_mask, key_padding_mask, is_causal
        )


class TransformerDecoderLayer(_FeedForwardLayer):
    """Self-attention on the target, cross-attention to `memory`, and feed-forward, each with a
    residual connection and a LayerNorm (`norm1`, `norm2`, `norm3`).

    Constructor as `TransformerEncoderLayer`. `forward(tgt, memory, tgt_mask=None,
    memory_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None,
    tgt_is_causal=False, memory_is_causal=False)`: tgt (T, N, E), memory (S, N, E) -> (T, N, E).

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> layer = TransformerDecoderLayer(8, 2, dim_feedforward=16)
    >>> layer(tg.randn(4, 3, 8), tg.randn(6, 3, 8)).shape
    (4, 3, 8)
    """

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation="relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        *,
        dtype=None,
    ):
        super().__init__()
        attn = dict(dropout=dropout, bias=bias, batch_first=batch_first, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, **attn)
        self.multihead_attn = MultiheadAttention(d_model, nhead, **attn)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)

    def forward(
        self,
        tgt,
        memory,
        tgt_mask=None,
        memory_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
        tgt_is_causal=False,
        memory_is_causal=False,
    ) -> Tensor:
        x = tgt
        sa = (tgt_mask, tgt_key_padding_mask, tgt_is_causal)
        mha = (memory_mask, memory_key_padding_mask, memory_is_causal)
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), *sa)
            x = x + self._mha_block(self.norm2(x), memory, *mha)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, *sa))
            x = self.norm2(x + self._mha_block(x, memory, *mha))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal) -> Tensor:
        return self._attention(
            self.self_attn, self.dropout1, x, x, attn_mask, key_padding_mask, is_causal
        )

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal) -> Tensor:
        return self._attention(
            self.multihead_attn, self.dropout2, x, mem, attn_mask, key_padding_mask, is_causal
        )

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


def _clones(layer: Module, n: int) -> ModuleList:
    """n independent deep copies of `layer` (own parameters each), as PyTorch's _get_clones."""
    return ModuleList([copy.deepcopy(layer) for _ in range(n)])


class TransformerEncoder(Module):
    """`num_layers` deep copies of `encoder_layer` applied in turn, then `norm` if given.

    `TransformerEncoder(encoder_layer, num_layers, norm=None)`; `forward(src, mask=None,
    src_key_padding_mask=None, is_causal=None)`. Parameters are `layers.0.self_attn...`, as
    PyTorch's.

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> encoder = TransformerEncoder(TransformerEncoderLayer(8, 2, 16), num_layers=2)
    >>> encoder(tg.randn(5, 3, 8)).shape
    (5, 3, 8)
    """

    def __init__(self, encoder_layer, num_layers: int, norm=None, enable_nested_tensor=True,
                 mask_check=True):  # fmt: skip
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None) -> Tensor:
        output = src
        for layer in self.layers:
            output = layer(
                output, src_mask=mask, is_causal=bool(is_causal),
                src_key_padding_mask=src_key_padding_mask,
            )  # fmt: skip
        return output if self.norm is None else self.norm(output)


class TransformerDecoder(Module):
    """`num_layers` deep copies of `decoder_layer` applied in turn, then `norm` if given.

    `forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False)`.
    """

    def __init__(self, decoder_layer, num_layers: int, norm=None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        tgt,
        memory,
        tgt_mask=None,
        memory_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
        tgt_is_causal=None,
        memory_is_causal=False,
    ) -> Tensor:
        output = tgt
        for layer in self.layers:
            output = layer(
                output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
                tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal,
            )  # fmt: skip
        return output if self.norm is None else self.norm(output)
