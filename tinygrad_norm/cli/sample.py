"""Sample from a GPT that `train --save` wrote: `python -m tinygrad_norm sample --load gpt.pt`.

The checkpoint holds everything needed: the model's sizes and weights and its vocabulary.
For a digit task, each `--prompt` is a problem ("314159" or "123+089") and the answer is the
model's greedy one; without a prompt, a few held-out problems are shown, marked ✓ or ✗.
For a text model, each `--prompt` is continued for `--max-new-tokens` characters at
`--temperature`; without a prompt the model starts from a new line.
"""

from __future__ import annotations

import numpy as np

from ..datasets import TASKS
from ..io import load
from ..models.gpt import GPT
from ..random import manual_seed
from ..tensor import Tensor

HELP = "print samples from a model saved by `train --save` (--load PATH)"


def add_arguments(parser) -> None:
    parser.add_argument("--load", metavar="PATH", required=True, help="a `train --save` file")
    parser.add_argument(
        "--prompt", action="append", help="a prompt (repeat for several); default: none"
    )
    parser.add_argument(
        "--num-samples", type=int, default=5, help="samples without --prompt (default 5)"
    )
    parser.add_argument(
        "--max-new-tokens", type=int, default=200, help="text models: length (default 200)"
    )
    parser.add_argument(
        "--temperature", type=float, default=0.8, help="text models: 0 is greedy (default 0.8)"
    )
    parser.add_argument("--top-k", type=int, help="text models: sample among the k likeliest")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")


def run(args) -> int:
    try:
        checkpoint = load(args.load)
        model = GPT.from_checkpoint(checkpoint)
    except (OSError, ValueError, RuntimeError) as err:
        print(f"error: cannot sample from {args.load}: {err}")
        return 2
    for name in ("num_samples", "max_new_tokens"):
        if getattr(args, name) < 1:
            print(f"error: --{name.replace('_', '-')} must be at least 1")
            return 2
    manual_seed(args.seed)
    data = checkpoint.get("data", {})
    try:
        if data.get("task") in TASKS:
            _sample_task(model, TASKS[data["task"]](), args)
        else:
            _sample_text(model, data["vocab"], args)
    except ValueError as err:
        print(f"error: {err}")
        return 2
    return 0


def _sample_task(model, task, args) -> None:
    if args.prompt:
        for prompt, answer in zip(args.prompt, task.predict(model, args.prompt)):
            print(f"{prompt.rstrip('=')}= → {answer}")
        return
    prompts, answers = task.held_out_problems(args.num_samples, np.random.default_rng(args.seed))
    for prompt, predicted, answer in zip(prompts, task.predict(model, prompts), answers):
        mark = "✓" if (predicted == answer).all() else f"✗ (expected {task.show_answer(answer)})"
        print(f"{task.decode(prompt)} → {task.show_answer(predicted)}  {mark}")


def _sample_text(model, vocab: str, args) -> None:
    index = {c: i for i, c in enumerate(vocab)}
    start = "\n" if "\n" in index else vocab[0]
    prompts = args.prompt or [start] * args.num_samples
    for prompt in prompts:
        if not prompt:
            raise ValueError("an empty --prompt: give at least one character")
        unknown = sorted(set(prompt) - set(index))
        if unknown:
            raise ValueError(f"the prompt has characters the model never saw: {unknown}")
        idx = Tensor(np.array([[index[c] for c in prompt]], dtype=np.int64))
        out = model.generate(idx, args.max_new_tokens, args.temperature, args.top_k)
        print("-" * 40)
        print(prompt + "".join(vocab[int(i)] for i in out.numpy()[0, len(prompt) :]))
