"""Train a small GPT from scratch, on a built-in digit task or on a text file.

The default learns to sort six digits ("314159=" -> "113459") and then answers puzzles it never
saw in training (one problem in ten is held out, by a hash of its digits): it prints the
held-out accuracy and a few answers. `--task add` learns three-digit addition instead;
`--text FILE` learns FILE character by character and prints samples. `--save PATH` writes the
weights (tg.save, a .npz); rebuild the model with the sizes printed beside them to load it.
"""

from __future__ import annotations

import time

import numpy as np

from ..data import TASKS, CharDataset
from ..io import save
from ..models.gpt import GPT, GPTConfig
from ..random import manual_seed
from ..training import train
from ..utils import blas_threads, tune_malloc

HELP = "train a small GPT on a built-in task (or --text FILE); print accuracy and samples"

# With the default model (d_model 64, 2 layers, 4 heads), measured over seeds: SortDigits(6)
# passes 99% held-out accuracy after about 400 steps (5 seeds), AddDigits(3) after 1250-1500
# (2 seeds); the step counts leave a margin. A step takes ~45 ms on one core of a 2-core CPU.
DEFAULTS = {
    "sort": dict(steps=600, batch_size=64, lr=3e-3, warmup=50),
    "add": dict(steps=2000, batch_size=64, lr=3e-3, warmup=50),
    "text": dict(steps=1000, batch_size=32, lr=2e-3, warmup=50),
}


def add_arguments(parser) -> None:
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--task",
        choices=sorted(TASKS),
        default="sort",
        help="the built-in task: sort six digits (default) or add two three-digit numbers",
    )
    what.add_argument("--text", metavar="FILE", help="train a character-level model on FILE")
    parser.add_argument(
        "--steps", type=int, help="training steps (sort: 600, add: 2000, text: 1000)"
    )
    parser.add_argument("--batch-size", type=int, help="sequences per step (tasks: 64, text: 32)")
    parser.add_argument("--lr", type=float, help="peak learning rate (tasks: 3e-3, text: 2e-3)")
    parser.add_argument("--d-model", type=int, default=64, help="embedding width (default 64)")
    parser.add_argument("--n-layer", type=int, default=2, help="transformer blocks (default 2)")
    parser.add_argument("--n-head", type=int, default=4, help="attention heads (default 4)")
    parser.add_argument(
        "--block-size", type=int, default=64, help="--text: characters of context (default 64)"
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--eval-size", type=int, default=1000, help="held-out problems to score (default 1000)"
    )
    parser.add_argument("--samples", type=int, default=5, help="samples to print (default 5)")
    parser.add_argument("--save", metavar="PATH", help="write the trained weights to PATH (.npz)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="BLAS threads for matrix products (default 1: as fast for a small model, and far "
        "more robust when other programs share the cores; see tinygrad_norm/utils.py)",
    )


def run(args) -> int:
    if args.d_model % args.n_head != 0:
        print(f"error: --d-model {args.d_model} must be divisible by --n-head {args.n_head}")
        return 2
    if args.text is not None:
        try:
            with open(args.text, encoding="utf-8") as f:
                data = CharDataset(f.read(), block_size=args.block_size)
        except (OSError, UnicodeDecodeError, ValueError) as err:
            print(f"error: cannot train on {args.text}: {err}")
            return 2
        defaults = DEFAULTS["text"]
    else:
        data = TASKS[args.task]()
        defaults = DEFAULTS[args.task]
    steps = args.steps if args.steps is not None else defaults["steps"]
    batch_size = args.batch_size if args.batch_size is not None else defaults["batch_size"]
    lr = args.lr if args.lr is not None else defaults["lr"]
    for name, value in (
        ("steps", steps),
        ("batch-size", batch_size),
        ("eval-size", args.eval_size),
    ):
        if value < 1:
            print(f"error: --{name} must be at least 1, got {value}")
            return 2

    tune_malloc()  # a training process: keep freed activations for the next step (utils.py)
    blas_threads(set_to=args.threads)
    manual_seed(args.seed)
    config = GPTConfig(
        vocab_size=data.vocab_size,
        n_ctx=data.block_size,
        d_model=args.d_model,
        n_layer=args.n_layer,
        n_head=args.n_head,
        dropout=0.0,
    )
    model = GPT(config)
    n_params = sum(p.data.size for p in model.parameters())
    print(f"data: {data!r}")
    print(
        f"model: GPT(vocab_size={config.vocab_size}, n_ctx={config.n_ctx}, "
        f"d_model={config.d_model}, n_layer={config.n_layer}, n_head={config.n_head}), "
        f"{n_params:,} parameters"
    )
    print(f"training: {steps} steps, batch size {batch_size}, AdamW lr {lr:g} (cosine)")

    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    history = train(
        model,
        data,
        steps,
        batch_size,
        lr,
        warmup=min(defaults["warmup"], steps // 10),
        rng=rng,
        progress=not args.no_progress,
    )
    elapsed = time.perf_counter() - start
    print(f"trained in {elapsed:.1f} s; final loss {np.mean(history[-20:]):.4f} (last 20 steps)")

    if args.text is not None:
        _text_report(model, data, args.samples, rng)
    else:
        _task_report(model, data, args.eval_size, args.samples, rng)
    if args.save:
        save(model.state_dict(), args.save)
        print(f"saved the weights to {args.save} (tg.load them into a GPT of the sizes above)")
    return 0


def _task_report(model, task, eval_size: int, n_samples: int, rng) -> None:
    start = time.perf_counter()
    prompts, answers = task.held_out_problems(eval_size, rng)
    predictions = task.predict(model, prompts)
    right = (predictions == answers).all(axis=1)
    print(
        f"held-out accuracy: {right.mean():.1%} ({right.sum()}/{len(right)} problems never "
        f"seen in training, whole answer exact, greedy; {time.perf_counter() - start:.1f} s)"
    )
    shown = min(n_samples, len(right))
    wrong = [i for i in np.flatnonzero(~right) if i >= shown][:n_samples]  # not shown yet
    for title, rows in (("samples", range(shown)), ("more mistakes", wrong)):
        if len(rows):
            print(f"{title} (prompt → model's answer):")
        for i in rows:
            line = f"  {task.decode(prompts[i])} → {task.show_answer(predictions[i])}"
            if right[i]:
                print(line + "  ✓")
            else:
                print(line + f"  ✗ (expected {task.show_answer(answers[i])})")


def _text_report(model, data, n_samples: int, rng) -> None:
    from ..autograd.grad_mode import no_grad

    model.eval()
    with no_grad():
        losses = [float(model(*data.batch(32, rng, split="val"))[1].item()) for _ in range(10)]
    held_out = data.splits["val"] is not data.splits["train"]
    where = "the last 10% of the text" if held_out else "too short a text to hold any out"
    print(f"held-out loss: {np.mean(losses):.4f} ({where})")
    if n_samples:
        print("samples (a prompt from the held-out text | the model's continuation, T = 0.8):")
    for _ in range(n_samples):
        prompt, _ = data.batch(1, rng, split="val")
        prompt = prompt[:, : min(16, data.block_size)]
        out = model.generate(prompt, max_new_tokens=200, temperature=0.8)
        print("-" * 40)
        print(data.decode(prompt[0]) + "|" + data.decode(out.data[0, prompt.shape[1] :]))
