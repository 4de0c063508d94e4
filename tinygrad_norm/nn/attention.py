"""GPT-2's attention and feed-forward layers, with GPT-2's parameter names and layouts.

    Attention:    x (B, T, C) -> c_attn -> q, k, v -> heads -> softmax(q kᵀ / √hs + mask) v
                  -> merge heads -> c_proj -> dropout -> (B, T, C)
    FeedForward:  x (..., C) -> c_fc -> GELU -> c_proj -> dropout -> (..., C)

Names match the GPT-2 checkpoints (`attn.c_attn.weight` of shape (C, 3C), `mlp.c_fc.weight`
of shape (C, 4C), ...), so their arrays load without renaming or transposing.
"""

from __future__ import annotations

import math

import numpy as np

from ..broadcast import broadcasts_to
from ..functions.creation import as_tensor
from ..ops import fused
from ..ops.shape import cat
from ..tensor import Tensor
from . import functional as F
from .activation import GELU
from .dropout import Dropout
from .linear import Conv1D
from .module import Module


class Attention(Module):
    """GPT-2's causal multi-head self-attention (Vaswani et al., 2017; Radford et al., 2019).

    For each head h, with hs = d_model / n_head:
        weights_h = softmax(q_h k_hᵀ / sqrt(hs) + M),   y_h = weights_h v_h,
    where M is 0 where query i may attend to key j and -inf elsewhere. A query may attend to
    key j only if j <= i (the causal mask: no peeking at later tokens) and `attn_mask` allows
    it. The heads' outputs are concatenated and projected by `c_proj`.

    Arguments (defaults are GPT-2 small's): `d_model=768` (C), `n_head=12`, `n_ctx=1024` (the
    longest sequence), `bias=True` (whether `c_attn` and `c_proj` have biases), `scale=True`
    (divide the scores by sqrt(hs)), `attn_pdrop=0.1` (dropout on the attention weights),
    `resid_pdrop=0.1` (dropout on the output).

    Parameters: `c_attn = Conv1D(3*d_model, d_model)` (weight (C, 3C): q, k and v side by
    side), `c_proj = Conv1D(d_model, d_model)`. Modules `attn_dropout`, `resid_dropout`.

    About the name `bias`: GPT-2 keeps the causal mask in a buffer called `bias`, shape
    (1, 1, n_ctx, n_ctx), lower-triangular; we keep that name and layout (as a bool buffer,
    True = may attend). The constructor flag of the same name therefore lives in
    `self.use_bias`. The buffer is non-persistent: it is rebuilt from `n_ctx`, so it is not
    in `state_dict()` (GPT-2 checkpoints that carry an `attn.bias` need it dropped on load).

    `forward(x, attn_mask=None, return_weights=False)`:
        x (B, T, C) with T <= n_ctx. `attn_mask`: bool, True = may attend, broadcastable to
        (B, n_head, T, T), e.g. (B, 1, 1, T) to hide padding keys; it is combined (and) with
        the causal mask. A query that may attend to no key gets all-zero weights (not NaN).
        Returns y (B, T, C), or (y, weights) with weights (B, n_head, T, T) as applied to v
        (after attention dropout in training mode; each row sums to 1 in eval mode).

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> attn = Attention(d_model=8, n_head=2, n_ctx=4).eval()
    >>> y, w = attn(tg.randn(1, 3, 8), return_weights=True)
    >>> y.shape, w.shape
    (torch.Size([1, 3, 8]), torch.Size([1, 2, 3, 3]))
    >>> w[0, 0].tolist()[0]          # the first token can only see itself
    [1.0, 0.0, 0.0]
    >>> sorted(attn.state_dict())    # the mask buffer is not saved
    ['c_attn.bias', 'c_attn.weight', 'c_proj.bias', 'c_proj.weight']
    """

    def __init__(
        self,
        d_model: int = 768,
        n_head: int = 12,
        n_ctx: int = 1024,
        bias: bool = True,
        scale: bool = True,
        attn_pdrop: float = 0.1,
        resid_pdrop: float = 0.1,
    ):
        super().__init__()
        if n_head <= 0 or d_model % n_head != 0:
            raise ValueError(
                f"Attention: d_model={d_model} must split evenly into n_head={n_head} heads "
                f"(head size d_model / n_head = {d_model / n_head:g}); choose n_head dividing "
                f"d_model, e.g. 768 and 12 (64 per head)"
            )
        self.d_model, self.n_head, self.n_ctx = d_model, n_head, n_ctx
        self.head_dim = d_model // n_head
        self.scale = scale
        self.use_bias = bias  # the flag; `self.bias` is GPT-2's mask buffer (see docstring)
        self.c_attn = Conv1D(3 * d_model, d_model, bias=bias)
        self.c_proj = Conv1D(d_model, d_model, bias=bias)
        self.attn_dropout = Dropout(attn_pdrop)
        self.resid_dropout = Dropout(resid_pdrop)
        causal = np.tril(np.ones((n_ctx, n_ctx), dtype=bool))  # row i: keys 0..i
        self.register_buffer("bias", Tensor(causal.reshape(1, 1, n_ctx, n_ctx)), persistent=False)

    def forward(
        self, x, attn_mask=None, return_weights: bool = False, layer_past=None, use_cache=False
    ):
        x = as_tensor(x)
        self._check_input(x)
        if use_cache or layer_past is not None:
            return self._forward_cached(x, attn_mask, layer_past)
        B, T, C = x.shape
        allowed = self.bias.array[:, :, :T, :T]  # (1, 1, T, T) bool
        if attn_mask is not None:
            allowed = allowed & self._check_mask(attn_mask, B, T)  # (B or 1, nh or 1, T, T)

        qkv = self.c_attn(x)  # (B, T, 3C): q, k, v side by side
        dropping = self.training and self.attn_dropout.p > 0
        if not (return_weights or dropping):
            # NOTE: the same computation as below as one fused node (ops/fused/attention.py),
            # for speed: it saves a dozen nodes per layer and the split's three (B, T, 3C)
            # gradients. Used when nobody needs the weights and none are dropped.
            scale = 1.0 / math.sqrt(self.head_dim) if self.scale else 1.0
            y = fused.self_attention(qkv, self.n_head, allowed, scale)  # (B, T, C)
            return self.resid_dropout(self.c_proj(y))  # (B, T, C)

        q, k, v = qkv.split(self.d_model, dim=2)  # 3 x (B, T, C)
        q, k, v = self._split_heads(q), self._split_heads(k), self._split_heads(v)
        scores = q @ k.transpose(-2, -1)  # (B, nh, T, hs) @ (B, nh, hs, T) -> (B, nh, T, T)
        if self.scale:
            scores = scores * (1.0 / math.sqrt(self.head_dim))
        # (B, nh, T, T), rows sum to 1; a query allowed no key gets zero weights (not NaN)
        weights = fused.safe_softmax(scores, allowed)
        weights = self.attn_dropout(weights)  # (B, nh, T, T)
        y = weights @ v  # (B, nh, T, T) @ (B, nh, T, hs) -> (B, nh, T, hs)
        y = y.transpose(1, 2).reshape(B, T, C)  # (B, T, nh, hs) -> (B, T, C): merge heads
        y = self.resid_dropout(self.c_proj(y))  # (B, T, C)
        return (y, weights) if return_weights else y

    def _forward_cached(self, x, attn_mask, layer_past):
        """Attention of T new positions to P earlier ones whose keys and values are cached.

        Decoding one token at a time, the keys and values of earlier positions never change
        (a position sees only those before it), so they are kept, `layer_past = (k, v)` of
        shape (B, nh, P, hs), and each new token computes only its own q, k, v: one position
        of work instead of the whole prefix. New position P + i may attend to keys 0..P + i.
        Returns (y (B, T, C), present), present = (k, v) for all P + T positions.
        """
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(self.d_model, dim=2)  # 3 x (B, T, C)
        q, k, v = self._split_heads(q), self._split_heads(k), self._split_heads(v)
        if layer_past is not None:
            past_k, past_v = layer_past  # (B, nh, P, hs) each
            k = cat([past_k, k], dim=2)  # (B, nh, P + T, hs)
            v = cat([past_v, v], dim=2)
        P = k.shape[2] - T
        if P + T > self.n_ctx:
            raise ValueError(
                f"Attention: {P} cached + {T} new positions exceed n_ctx = {self.n_ctx}; "
                "start again without the cache on the last n_ctx tokens"
            )
        allowed = self.bias.array[:, :, P : P + T, : P + T]  # (1, 1, T, P + T)
        if attn_mask is not None:
            allowed = allowed & self._check_mask(attn_mask, B, T, keys=P + T)
        y = F.scaled_dot_product_attention(
            q,
            k,
            v,
            attn_mask=allowed,
            dropout_p=self.attn_dropout.p if self.training else 0.0,
            scale=None if self.scale else 1.0,
        )  # (B, nh, T, hs)
        y = y.transpose(1, 2).reshape(B, T, C)  # (B, T, nh, hs) -> (B, T, C)
        return self.resid_dropout(self.c_proj(y)), (k, v)

    def _split_heads(self, t: Tensor) -> Tensor:
        B, T, C = t.shape
        t = t.reshape(B, T, self.n_head, self.head_dim)  # (B, T, nh, hs)
        return t.transpose(1, 2)  # (B, nh, T, hs)

    def _check_input(self, x: Tensor) -> None:
        if x.ndim != 3 or x.shape[-1] != self.d_model:
            raise ValueError(
                f"Attention: x must be (B, T, C) with C = d_model = {self.d_model}, got shape "
                f"{x.shape}"
                + (
                    f" (C = {x.shape[-1]}); build the layer with d_model = {x.shape[-1]}, or "
                    "project the input to d_model first"
                    if x.ndim == 3
                    else "; a single sequence (T, C) needs a batch axis: x.unsqueeze(0)"
                )
            )
        if x.shape[1] > self.n_ctx:
            raise ValueError(
                f"Attention: a sequence of T = {x.shape[1]} positions is longer than n_ctx = "
                f"{self.n_ctx}, the size of the causal mask; crop the input (x[:, -n_ctx:]) "
                "or build the layer with a larger n_ctx"
            )

    def _check_mask(self, attn_mask, B: int, T: int, keys=None) -> np.ndarray:
        mask = np.asarray(attn_mask.array if isinstance(attn_mask, Tensor) else attn_mask)
        if mask.dtype != np.bool_:
            raise TypeError(
                f"Attention: attn_mask must be bool (True = may attend), got {mask.dtype}; "
                "convert a 0/1 mask with mask.bool(), e.g. padding (B, T) -> "
                "mask[:, None, None, :].bool()"
            )
        full = (B, self.n_head, T, T if keys is None else keys)
        if not broadcasts_to(mask.shape, full):
            raise ValueError(
                f"Attention: attn_mask of shape {mask.shape} does not broadcast to "
                f"(B, n_head, T, T) = {full}; e.g. use (B, 1, 1, T) to hide keys per sample"
            )
        return mask

    def extra_repr(self) -> str:
        return (
            f"d_model={self.d_model}, n_head={self.n_head}, n_ctx={self.n_ctx}, "
            f"bias={self.use_bias}, scale={self.scale}"
        )


class FeedForward(Module):
    """GPT-2's position-wise feed-forward network (the block's "mlp"):

        y = dropout(c_proj(GELU(c_fc(x))))

    applied to every position alone. Shapes: x (..., d_model) -> y (..., d_model), through a
    hidden width d_ff. Defaults: `d_model=768`, `d_ff=None` (4 * d_model, GPT-2's),
    `dropout=0.1`, `approximate="tanh"` (GPT-2's GELU), `bias=True` (biases in c_fc and
    c_proj). Parameters: `c_fc = Conv1D(d_ff, d_model)` (weight (d_model, d_ff)) and
    `c_proj = Conv1D(d_model, d_ff)` (weight (d_ff, d_model)).

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> mlp = FeedForward(d_model=4)
    >>> mlp.c_fc.weight.shape, mlp.c_proj.weight.shape
    (torch.Size([4, 16]), torch.Size([16, 4]))
    >>> mlp(tg.randn(2, 3, 4)).shape
    torch.Size([2, 3, 4])
    """

    def __init__(
        self,
        d_model: int = 768,
        d_ff: int | None = None,
        dropout: float = 0.1,
        approximate: str = "tanh",
        bias: bool = True,
    ):
        super().__init__()
        d_ff = 4 * d_model if d_ff is None else d_ff
        self.d_model, self.d_ff = d_model, d_ff
        self.c_fc = Conv1D(d_ff, d_model, bias=bias)
        self.act = GELU(approximate)
        self.c_proj = Conv1D(d_model, d_ff, bias=bias)
        self.dropout = Dropout(dropout)

    def forward(self, x) -> Tensor:
        h = self.act(self.c_fc(x))  # (..., d_model) -> (..., d_ff)
        return self.dropout(self.c_proj(h))  # (..., d_ff) -> (..., d_model)
