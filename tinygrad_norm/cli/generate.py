"""Continue a prompt with GPT-2 weights you already have, without PyTorch:
`python -m tinygrad_norm generate --weights DIR --prompt "..." [--max-new-tokens N]`.

DIR is a Hugging Face GPT-2 folder: `config.json`, `model.safetensors` or
`pytorch_model.bin`, and the tokenizer's `vocab.json` and `merges.txt` (nothing is
downloaded). The prompt is encoded with the package's own byte-level BPE tokenizer
(`tg.models.BPETokenizer`), continued by `GPT.generate`, and printed as text: greedy by
default (`--temperature 0`, as Hugging Face's `generate`), sampled with `--temperature T`
and `--top-k K`.
"""

from __future__ import annotations

import numpy as np

from ..models.gpt import GPT
from ..models.tokenizer import BPETokenizer
from ..random import manual_seed
from ..tensor import Tensor

HELP = "continue a prompt with GPT-2 weights from a Hugging Face folder (--weights DIR)"


def add_arguments(parser) -> None:
    parser.add_argument("--weights", metavar="DIR", required=True, help="a GPT-2 folder")
    parser.add_argument("--prompt", required=True, help="the text to continue")
    parser.add_argument("--max-new-tokens", type=int, default=30, help="tokens to add (default 30)")
    parser.add_argument(
        "--temperature", type=float, default=0.0, help="0 (default) takes the likeliest token"
    )
    parser.add_argument("--top-k", type=int, help="sample among the k likeliest tokens")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")


def run(args) -> int:
    if args.max_new_tokens < 0 or args.temperature < 0:
        print("error: --max-new-tokens and --temperature must not be negative")
        return 2
    try:
        tokenizer = BPETokenizer.from_pretrained(args.weights)
        model = GPT.from_pretrained(args.weights)
        ids = tokenizer.encode(args.prompt)
    except (OSError, ValueError, RuntimeError, KeyError) as err:
        print(f"error: cannot generate with {args.weights}: {err}")
        return 2
    if not ids:
        print("error: the prompt is empty; give at least one character")
        return 2
    if len(ids) + args.max_new_tokens > model.config.n_ctx:
        print(
            f"note: {len(ids)} prompt tokens + {args.max_new_tokens} new ones exceed the "
            f"model's {model.config.n_ctx} positions: it sees only the last {model.config.n_ctx}"
        )
    manual_seed(args.seed)
    idx = Tensor(np.array([ids], dtype=np.int64))
    out = model.generate(idx, args.max_new_tokens, args.temperature, args.top_k)
    print(tokenizer.decode(out.numpy()[0].tolist()))
    return 0
