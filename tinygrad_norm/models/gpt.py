"""GPT: a decoder-only transformer with GPT-2's layout and GPT-2's state-dict names.

    tokens (B, T) ─ wte + wpe ─ dropout ─ [Block] × n_layer ─ ln_f ─ lm_head ─ logits (B, T, V)
    Block(x) = x + attn(ln_1(x)), then x + mlp(ln_2(x))          (pre-LayerNorm residuals)

The names (`transformer.h.0.attn.c_attn.weight`, ...) are those of the GPT-2 checkpoints, so a
GPT-2 state dict of NumPy arrays loads directly. The output head shares its weight with the
token embedding (weight tying): the same Parameter is `transformer.wte.weight` and
`lm_head.weight`.

>>> import tinygrad_norm as tg
>>> _ = tg.manual_seed(0)
>>> config = tg.models.GPTConfig(vocab_size=11, n_ctx=8, d_model=16, n_layer=2, n_head=2)
>>> model = tg.models.GPT(config)
>>> logits, loss = model(tg.randint(0, 11, size=(2, 5)), targets=tg.randint(0, 11, size=(2, 5)))
>>> logits.shape, loss.shape
(torch.Size([2, 5, 11]), torch.Size([]))
>>> model.generate(tg.tensor([[1, 2]]), max_new_tokens=3).shape
torch.Size([1, 5])
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import nn
from ..autograd.grad_mode import no_grad
from ..functions.creation import arange
from ..io import load
from ..nn import functional as F
from ..ops.shape import cat
from ..ops.xp import max_shifted
from ..random import resolve, transforms
from ..tensor import Tensor
from .pretrained import config_kwargs, read_folder


@dataclass
class GPTConfig:
    """Sizes of a GPT. The defaults are GPT-2 small's (124M parameters)."""

    vocab_size: int = 50257
    n_ctx: int = 1024  # the longest sequence (number of positions)
    d_model: int = 768
    n_layer: int = 12
    n_head: int = 12
    dropout: float = 0.1
    bias: bool = True  # biases in the Conv1D layers
    layer_norm_eps: float = 1e-5
    approximate: str = "tanh"  # GPT-2's GELU is the tanh approximation

    def __post_init__(self):
        for name in ("vocab_size", "n_ctx", "d_model", "n_layer", "n_head"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"GPTConfig: {name} must be a positive int, got {value!r}")
        if self.d_model % self.n_head != 0:
            raise ValueError(
                f"GPTConfig: d_model = {self.d_model} must be divisible by n_head = "
                f"{self.n_head} (each head gets d_model // n_head features); try n_head = "
                f"{_a_divisor(self.d_model, self.n_head)}"
            )


def _a_divisor(d_model: int, n_head: int) -> int:
    """The divisor of d_model nearest to n_head: a suggestion for an error message."""
    return min(
        (d for d in range(1, d_model + 1) if d_model % d == 0), key=lambda d: abs(d - n_head)
    )


class Block(nn.Module):
    """One transformer block: attention, then a feed-forward network, each on a residual path."""

    def __init__(self, config: GPTConfig):
        super().__init__()
        d = config.d_model
        self.ln_1 = nn.LayerNorm(d, eps=config.layer_norm_eps)
        self.attn = nn.Attention(
            d,
            config.n_head,
            config.n_ctx,
            bias=config.bias,
            attn_pdrop=config.dropout,
            resid_pdrop=config.dropout,
        )
        self.ln_2 = nn.LayerNorm(d, eps=config.layer_norm_eps)
        self.mlp = nn.FeedForward(
            d, 4 * d, dropout=config.dropout, approximate=config.approximate, bias=config.bias
        )

    def forward(self, x: Tensor, layer_past=None, use_cache: bool = False):  # x: (B, T, d)
        """x + attn, then + mlp; with `use_cache`, also this block's keys and values
        (see `nn.Attention`), returned as (x, present)."""
        if not use_cache:
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))
        a, present = self.attn(self.ln_1(x), layer_past=layer_past, use_cache=True)
        x = x + a
        return x + self.mlp(self.ln_2(x)), present


class GPT(nn.Module):
    """A GPT language model: `forward(idx, targets=None) -> (logits, loss)`."""

    def __init__(self, config: GPTConfig):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(
            {
                "wte": nn.Embedding(config.vocab_size, config.d_model),
                "wpe": nn.Embedding(config.n_ctx, config.d_model),
                "drop": nn.Dropout(config.dropout),
                "h": nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                "ln_f": nn.LayerNorm(config.d_model, eps=config.layer_norm_eps),
            }
        )
        self.lm_head = nn.Linear(config.d_model, config.vocab_size, bias=False)
        self.lm_head.weight = self.transformer.wte.weight  # tied: one Parameter, two names
        self._init_weights()

    @classmethod
    def from_checkpoint(cls, checkpoint) -> GPT:
        """The model a `train --save` checkpoint holds, in eval mode: its sizes come from the
        file (`checkpoint["config"]`), its weights from `checkpoint["model"]`. `checkpoint`
        is a path or what `tg.load` returned for one.

        >>> import os, tempfile, tinygrad_norm as tg
        >>> config = GPTConfig(vocab_size=5, n_ctx=4, d_model=8, n_layer=1, n_head=2)
        >>> path = os.path.join(tempfile.mkdtemp(), "gpt.npz")
        >>> tg.save({"config": vars(config), "model": GPT(config).state_dict()}, path)
        >>> GPT.from_checkpoint(path).config == config
        True
        """
        where = "the checkpoint"
        if not isinstance(checkpoint, dict):
            where = repr(str(checkpoint))
            checkpoint = load(checkpoint)
        if not isinstance(checkpoint, dict) or not {"config", "model"} <= set(checkpoint):
            raise ValueError(
                f"GPT.from_checkpoint: {where} holds no model config (it is not a checkpoint "
                "of `python -m tinygrad_norm train --save`); for a bare state dict, build "
                "GPT(GPTConfig(...)) with its sizes and call load_state_dict(tg.load(path))"
            )
        model = cls(GPTConfig(**checkpoint["config"]))
        model.load_state_dict(checkpoint["model"])
        return model.eval()

    @classmethod
    def from_pretrained(cls, path) -> GPT:
        """A GPT-2 from a Hugging Face folder (`config.json` and `model.safetensors` or
        `pytorch_model.bin`), in eval mode, with float32 weights; read without PyTorch
        (`tg.load`). Its tokenizer: `tg.models.BPETokenizer.from_pretrained(folder)`."""
        config, state = read_folder(path)
        model = cls(GPTConfig(**config_kwargs(config)))
        model.load_state_dict(state)
        return model.eval()

    def _init_weights(self) -> None:
        """GPT-2's initialisation: N(0, 0.02²) everywhere, and the projections that end a
        residual branch scaled by 1/√(2·n_layer), so the residual stream's variance does not
        grow with depth (each block adds two branches)."""
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding, nn.Conv1D)):
                nn.init.normal_(module.weight, 0.0, 0.02)
            if isinstance(module, (nn.Linear, nn.Conv1D)) and module.bias is not None:
                nn.init.zeros_(module.bias)
        std = 0.02 / math.sqrt(2 * self.config.n_layer)
        for block in self.transformer.h:
            nn.init.normal_(block.attn.c_proj.weight, 0.0, std)
            nn.init.normal_(block.mlp.c_proj.weight, 0.0, std)

    def forward(self, idx, targets=None):
        """idx: (B, T) token ids; targets: (B, T) ids or None. Returns logits (B, T, V) and the
        mean cross-entropy over the targets (None without targets)."""
        idx = idx if isinstance(idx, Tensor) else Tensor(np.asarray(idx))
        if idx.ndim != 2:
            raise ValueError(f"GPT: idx must be (batch, time) token ids, got shape {idx.shape}")
        B, T = idx.shape
        if T > self.config.n_ctx:
            raise ValueError(
                f"GPT: a sequence of {T} tokens is longer than n_ctx = "
                f"{self.config.n_ctx}; crop it (idx[:, -n_ctx:]) or build a larger "
                "model"
            )
        tok = self.transformer.wte(idx)  # (B, T, d)
        pos = self.transformer.wpe(arange(T))  # (T, d)
        x = self.transformer.drop(tok + pos)  # (B, T, d)
        for block in self.transformer.h:
            x = block(x)  # (B, T, d)
        logits = self.lm_head(self.transformer.ln_f(x))  # (B, T, V)
        if targets is None:
            return logits, None
        targets = targets if isinstance(targets, Tensor) else Tensor(np.asarray(targets))
        if targets.shape != (B, T):
            raise ValueError(
                f"GPT: targets must have idx's shape (B, T) = {(B, T)}, the next token of each "
                f"position, got {targets.shape}; usually idx = data[:, :-1], targets = "
                "data[:, 1:]"
            )
        loss = F.cross_entropy(logits.reshape(B * T, -1), targets.reshape(B * T))
        return logits, loss

    def forward_cached(self, idx, past=None):
        """Logits (B, T, V) of T new tokens that follow P earlier ones, and the key/value
        cache of all P + T: `past` is what the previous call returned (None at first), one
        (k, v) pair of shape (B, nh, P, hs) per block. The new tokens sit at positions
        P..P + T - 1."""
        P = 0 if past is None else past[0][0].shape[2]
        T = idx.shape[1]
        x = self.transformer.wte(idx) + self.transformer.wpe(arange(P, P + T))  # (B, T, d)
        x = self.transformer.drop(x)
        presents = []
        for block, layer_past in zip(self.transformer.h, past or [None] * len(self.transformer.h)):
            x, present = block(x, layer_past=layer_past, use_cache=True)  # (B, T, d)
            presents.append(present)
        return self.lm_head(self.transformer.ln_f(x)), presents

    @no_grad()
    def generate(
        self, idx, max_new_tokens: int, temperature: float = 1.0, top_k=None, use_cache=True
    ):
        """Append `max_new_tokens` sampled tokens to idx (B, T); returns (B, T + new).

        Each step takes the logits of the last position, divides them by `temperature` (0
        means always take the most likely token), keeps the `top_k` largest, and samples from
        the softmax with the global generator. With `use_cache` (the default) the keys and
        values of earlier positions are kept (`forward_cached`), so a step costs one position
        instead of the whole prefix; once the sequence is longer than n_ctx, and without the
        cache, each step feeds the last n_ctx tokens again (positions then shift by one each
        step, so a cache cannot help). Both give the same tokens.
        """
        was_training = self.training
        self.eval()
        idx = idx if isinstance(idx, Tensor) else Tensor(np.asarray(idx))
        past = None
        try:
            for _ in range(max_new_tokens):
                if use_cache and idx.shape[1] <= self.config.n_ctx:
                    new = idx if past is None else idx[:, -1:]  # (B, T) at first, then (B, 1)
                    logits, past = self.forward_cached(new, past)
                else:
                    logits, _ = self(idx[:, -self.config.n_ctx :])
                idx = cat([idx, _sample(logits.numpy()[:, -1, :], temperature, top_k)], dim=1)
        finally:
            self.train(was_training)
        return idx

    def _filter_state_dict(self, state: dict) -> dict:
        """Accept GPT-2 checkpoints as they come: drop their attention-mask buffers
        (`attn.bias`, `attn.masked_bias`: constants, not weights) and fill a missing tied
        `lm_head.weight` from `transformer.wte.weight`."""
        state = {
            k: v for k, v in state.items() if not k.endswith((".attn.bias", ".attn.masked_bias"))
        }
        if "lm_head.weight" not in state and "transformer.wte.weight" in state:
            state["lm_head.weight"] = state["transformer.wte.weight"]
        return state


def _sample(logits: np.ndarray, temperature: float, top_k) -> Tensor:
    """One token per row of logits (B, V): (B, 1) int64."""
    if temperature == 0:
        return Tensor._make(logits.argmax(-1)[:, None].astype(np.int64))
    logits = logits.astype(np.float64) / temperature
    if top_k is not None:
        kth = np.sort(logits, axis=-1)[:, -min(top_k, logits.shape[-1])][:, None]
        logits = np.where(logits < kth, -np.inf, logits)
    probs = np.exp(max_shifted(logits, -1))
    cumulative = np.cumsum(probs / probs.sum(-1, keepdims=True), axis=-1)
    draws = transforms.uniform(resolve(None), (logits.shape[0], 1), np.float64)
    choice = (cumulative < draws).sum(-1).clip(max=logits.shape[-1] - 1)
    return Tensor._make(choice[:, None].astype(np.int64))
