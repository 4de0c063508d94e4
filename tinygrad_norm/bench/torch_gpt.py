"""The same GPT in PyTorch eager, on the CPU: the benchmark's third system.

Written as a PyTorch user would write the model of `tg.models.GPT` op for op (nanoGPT's
layout with the attention spelled out: scores, masked_fill, softmax, weights @ v), on the
GPT-2-layout weights of `numpy_gpt.param_names` (Conv1D weights (n_in, n_out): `addmm`),
trained with `torch.optim.AdamW`'s default (for-loop) implementation.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F


class TorchGPT(torch.nn.Module):
    def __init__(self, params: dict, n_layer: int, n_head: int, eps: float = 1e-5):
        super().__init__()
        self.n_layer, self.n_head, self.eps = n_layer, n_head, eps
        self.names = list(params)
        self.weights = torch.nn.ParameterList(
            [torch.nn.Parameter(torch.from_numpy(np.array(v, copy=True))) for v in params.values()]
        )
        self.p = dict(zip(self.names, self.weights))
        T_max = params["transformer.wpe.weight"].shape[0]
        self.register_buffer("causal", torch.ones(T_max, T_max, dtype=torch.bool).tril())

    def _conv1d(self, x, prefix):  # GPT-2's Conv1D: x (N, n_in) @ W (n_in, n_out) + b
        return torch.addmm(self.p[prefix + ".bias"], x, self.p[prefix + ".weight"])

    def _ln(self, x, prefix):
        d = x.shape[-1]
        return F.layer_norm(x, (d,), self.p[prefix + ".weight"], self.p[prefix + ".bias"], self.eps)

    def forward(self, idx, targets):
        B, T = idx.shape
        p, nh = self.p, self.n_head
        x = p["transformer.wte.weight"][idx] + p["transformer.wpe.weight"][:T]  # (B, T, d)
        d = x.shape[-1]
        x = x.reshape(B * T, d)
        not_allowed = ~self.causal[:T, :T]
        for i in range(self.n_layer):
            h = f"transformer.h.{i}."
            qkv = self._conv1d(self._ln(x, h + "ln_1"), h + "attn.c_attn")  # (B*T, 3d)
            q, k, v = qkv.view(B, T, 3, nh, d // nh).permute(2, 0, 3, 1, 4)  # (B, nh, T, hs)
            scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // nh))
            weights = F.softmax(scores.masked_fill(not_allowed, float("-inf")), dim=-1)
            y = (weights @ v).transpose(1, 2).reshape(B * T, d)
            x = x + self._conv1d(y, h + "attn.c_proj")
            f = F.gelu(self._conv1d(self._ln(x, h + "ln_2"), h + "mlp.c_fc"), approximate="tanh")
            x = x + self._conv1d(f, h + "mlp.c_proj")
        x = self._ln(x, "transformer.ln_f")
        logits = x @ p["transformer.wte.weight"].T  # (B*T, V), tied head
        return F.cross_entropy(logits, targets.reshape(B * T))
