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

from ..dtypes import get_default_dtype
from ..tensor import Tensor
from . import functional as F
from . import init
from .containers import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .multihead_attention import MultiheadAttention
from .normalization import LayerNorm


def generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
    """The causal mask (sz, sz): 0 on and below the diagonal, -inf above (a float mask in the
    default dtype, as PyTorch's `nn.Transformer.generate_square_subsequent_mask`)."""
    dtype = np.dtype(get_default_dtype() if dtype is None else dtype)
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


class _TransformerLayer(Module):
    """What the encoder and decoder layers share: PyTorch's constructor, the attention blocks,
    the feed-forward block and the activation. A subclass names its attention modules in
    `_attentions`; each, and the feed-forward block, is a residual sub-layer with its own
    LayerNorm and Dropout (`norm1`, `dropout1`, ...: 2 in the encoder, 3 in the decoder)."""

    _attentions: tuple[str, ...] = ()

    def __init__(
        self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
        activation="relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
        norm_first: bool = False, bias: bool = True,
        *, device=None, dtype=None,  # device: accepted for PyTorch's signature (CPU only)
    ):  # fmt: skip
        super().__init__()
        # In PyTorch's order, so that state dicts match: the attention modules, linear1,
        # dropout, linear2, norm_first, norm1..norm{n}, dropout1..dropout{n}, activation.
        for name in self._attentions:
            attn = MultiheadAttention(
                d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, dtype=dtype
            )
            setattr(self, name, attn)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        n = len(self._attentions) + 1
        for i in range(1, n + 1):
            setattr(self, f"norm{i}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias))
        for i in range(1, n + 1):
            setattr(self, f"dropout{i}", Dropout(dropout))
        self.activation = _activation(activation)
        if dtype is not None:  # LayerNorm has no dtype argument: convert everything once
            self.to(dtype)

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal) -> Tensor:
        return self._attention(
            self.self_attn, self.dropout1, x, x, attn_mask, key_padding_mask, is_causal
        )

    def _attention(self, attn, dropout, x, mem, attn_mask, key_padding_mask, is_causal):
        x = attn(
            x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
            need_weights=False, is_causal=is_causal,
        )[0]  # fmt: skip
        return dropout(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        """FF(x) = dropout2(linear2(dropout(activation(linear1(x))))) (the decoder: dropout3)."""
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerEncoderLayer(_TransformerLayer):
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
    torch.Size([3, 5, 8])
    """

    _attentions = ("self_attn",)

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False) -> Tensor:
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x


class TransformerDecoderLayer(_TransformerLayer):
    """Self-attention on the target, cross-attention to `memory`, and feed-forward, each with a
    residual connection and a LayerNorm (`norm1`, `norm2`, `norm3`).

    Constructor as `TransformerEncoderLayer`. `forward(tgt, memory, tgt_mask=None,
    memory_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None,
    tgt_is_causal=False, memory_is_causal=False)`: tgt (T, N, E), memory (S, N, E) -> (T, N, E).

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> layer = TransformerDecoderLayer(8, 2, dim_feedforward=16)
    >>> layer(tg.randn(4, 3, 8), tg.randn(6, 3, 8)).shape
    torch.Size([4, 3, 8])
    """

    _attentions = ("self_attn", "multihead_attn")

    def forward(
        self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
        memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False,
    ) -> Tensor:  # fmt: skip
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
    torch.Size([5, 3, 8])
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
        self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
        memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False,
    ) -> Tensor:  # fmt: skip
        output = tgt
        for layer in self.layers:
            output = layer(
                output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
                tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal,
            )  # fmt: skip
        return output if self.norm is None else self.norm(output)


class Transformer(Module):
    """The encoder-decoder Transformer of "Attention Is All You Need", as `torch.nn.Transformer`.

    `Transformer(d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
    dim_feedforward=2048, dropout=0.1, activation="relu", custom_encoder=None,
    custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True)`:
    `encoder` (a TransformerEncoder with a final LayerNorm) and `decoder` (likewise); every
    weight matrix is re-drawn with xavier_uniform_, as PyTorch does.
    `forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
    src_key_padding_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None,
    src_is_causal=None, tgt_is_causal=None, memory_is_causal=False)`: src (S, N, E), tgt
    (T, N, E) -> (T, N, E).

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> model = Transformer(8, 2, 1, 1, dim_feedforward=16)
    >>> tgt_mask = Transformer.generate_square_subsequent_mask(4)
    >>> model(tg.randn(5, 2, 8), tg.randn(4, 2, 8), tgt_mask=tgt_mask).shape
    torch.Size([4, 2, 8])
    """

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation="relu",
        custom_encoder=None,
        custom_decoder=None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        *,
        device=None,  # accepted for PyTorch's signature: everything runs on the CPU
        dtype=None,
    ):
        super().__init__()
        layer = dict(
            dim_feedforward=dim_feedforward, dropout=dropout, activation=activation,
            layer_norm_eps=layer_norm_eps, batch_first=batch_first, norm_first=norm_first,
            bias=bias, dtype=dtype,
        )  # fmt: skip
        encoder, decoder = custom_encoder, custom_decoder
        if encoder is None:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, **layer)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
            encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if decoder is None:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, **layer)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
            decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self.encoder, self.decoder = encoder, decoder
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)
        if dtype is not None:
            self.to(dtype)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    generate_square_subsequent_mask = staticmethod(generate_square_subsequent_mask)

    def forward(
        self,
        src,
        tgt,
        src_mask=None,
        tgt_mask=None,
        memory_mask=None,
        src_key_padding_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
        src_is_causal=None,
        tgt_is_causal=None,
        memory_is_causal=False,
    ) -> Tensor:
        self._check_shapes(src, tgt)
        memory = self.encoder(
            src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
            is_causal=src_is_causal,
        )  # fmt: skip
        return self.decoder(
            tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )  # fmt: skip

    def _check_shapes(self, src, tgt) -> None:
        """PyTorch's checks: src and tgt have the same batch size, and d_model features."""
        batch_axis = 0 if self.batch_first else 1
        shapes = f"got src {src.shape} and tgt {tgt.shape}"
        if src.ndim == 3 and tgt.ndim == 3 and src.shape[batch_axis] != tgt.shape[batch_axis]:
            raise RuntimeError(f"the batch number of src and tgt must be equal, {shapes}")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError(
                f"the feature number of src and tgt must be equal to d_model={self.d_model}, "
                + shapes
            )
