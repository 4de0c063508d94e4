"""Hugging Face GPT-2 folders: their `config.json` as GPTConfig sizes, their weights as a state
dict with this package's names. Used by `GPT.from_pretrained`.

A folder written by `GPT2LMHeadModel.save_pretrained` (or downloaded from the Hub) holds
`config.json` and `model.safetensors` or `pytorch_model.bin`, both read by `tg.load` without
PyTorch. The names are GPT-2's own; the only differences are a missing `transformer.` prefix
(the original checkpoints were saved from the bare `GPT2Model`), the attention-mask buffers
(`attn.bias`, `attn.masked_bias`; GPT's `_filter_state_dict` drops them) and a missing tied
`lm_head.weight` (filled from `transformer.wte.weight`).
"""

from __future__ import annotations

import json
import os

import numpy as np

from ..io import load

WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
GELUS = {"gelu_new": "tanh", "gelu_pytorch_tanh": "tanh", "gelu": "none"}


def config_kwargs(config: dict) -> dict:
    """GPTConfig keyword arguments from a GPT-2 `config.json` (a dict)."""
    activation = config.get("activation_function", "gelu_new")
    if activation not in GELUS:
        raise ValueError(f"GPT.from_pretrained: activation {activation!r} is not supported")
    n_embd = config["n_embd"]
    if config.get("n_inner") not in (None, 4 * n_embd):
        raise ValueError(
            f"GPT.from_pretrained: n_inner = {config['n_inner']} is not 4 * n_embd; this GPT "
            "always uses a feed-forward width of 4 * d_model"
        )
    return dict(
        vocab_size=config["vocab_size"],
        n_ctx=config.get("n_positions", config.get("n_ctx", 1024)),
        d_model=n_embd,
        n_layer=config["n_layer"],
        n_head=config["n_head"],
        dropout=0.0,  # a pretrained model is for inference; set model.train() and dropout to tune
        layer_norm_eps=config.get("layer_norm_epsilon", 1e-5),
        approximate=GELUS[activation],
    )


def read_folder(path) -> tuple[dict, dict]:
    """(config.json as a dict, the state dict as float32 arrays) of a GPT-2 folder, or of
    a weights file with config.json beside it."""
    path = os.fspath(path)
    folder = path if os.path.isdir(path) else os.path.dirname(path)
    config_path = os.path.join(folder, "config.json")
    if not os.path.isfile(config_path):
        raise FileNotFoundError(
            f"GPT.from_pretrained: no config.json in {folder!r}; a Hugging Face GPT-2 folder "
            "holds config.json and model.safetensors or pytorch_model.bin"
        )
    with open(config_path, encoding="utf-8") as f:
        config = json.load(f)
    if os.path.isdir(path):
        found = [
            os.path.join(path, n) for n in WEIGHT_FILES if os.path.isfile(os.path.join(path, n))
        ]
        if not found:
            raise FileNotFoundError(
                f"GPT.from_pretrained: {path!r} has neither {' nor '.join(WEIGHT_FILES)} "
                "(a sharded checkpoint, *.index.json, is not supported)"
            )
        path = found[0]
    state = {}
    for name, value in load(path).items():
        array = np.asarray(value)
        if array.dtype.kind == "f":
            array = array.astype(np.float32, copy=False)  # half-precision files: to float32
        state[name if name.startswith(("transformer.", "lm_head.")) else "transformer." + name] = (
            array
        )
    return config, state
