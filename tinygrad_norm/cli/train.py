"""Train a small GPT from scratch, on a built-in digit task or on a text file.

The default learns to sort six digits ("314159=" -> "113459") and then answers puzzles it never
saw in training (one problem in ten is held out, by a hash of its digits): it prints the
held-out accuracy and a few answers. `--task add` learns three-digit addition instead;
`--text FILE` learns FILE character by character and prints samples. `--task shapes` (a small
CNN on generated images of shapes) and `--task parity` (an LSTM on bit strings) train no GPT;
they take seconds, print the accuracy on held-out shapes or strings, and keep no checkpoint.

`--save PATH` writes a checkpoint with tg.save, in the format PATH's name says (gpt.pt:
PyTorch's, which `torch.load(PATH, weights_only=True)` reads; gpt.npz: NumPy's): the
model's config and weights, the optimizer, the step, the loss curve so far, the random
states and the options. It is written at the end, every `--save-every N` steps, and on
Ctrl-C (then training stops cleanly).
`--resume PATH` continues such a run exactly where it stopped; `python -m tinygrad_norm sample
--load PATH` and `tg.models.GPT.from_checkpoint(PATH)` use the model.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import signal
import threading
import time

import numpy as np

from ..autograd.grad_mode import no_grad
from ..datasets import TASKS, CharDataset
from ..io import load, save
from ..models.gpt import GPT, GPTConfig
from ..models.training import train
from ..optim import AdamW
from ..random import get_rng_state, manual_seed, set_rng_state
from ..utils import blas_threads, tune_malloc
from . import train_small
from .train_small import Refused, steps_batch_lr

CHECKPOINT_FORMAT = "tinygrad_norm.train"
HELP = "train a small GPT on a built-in task (or --text FILE), or a CNN or LSTM; print accuracy"

# With the default model (d_model 64, 2 layers, 4 heads), measured over seeds: SortDigits(6)
# passes 99% held-out accuracy after about 400 steps (5 seeds), AddDigits(3) after 1250-1500
# (2 seeds); the step counts leave a margin.
DEFAULTS = {
    "sort": dict(steps=600, batch_size=64, lr=3e-3, warmup=50),
    "add": dict(steps=2000, batch_size=64, lr=3e-3, warmup=50),
    "text": dict(steps=1000, batch_size=32, lr=2e-3, warmup=50),
}


def add_arguments(parser) -> None:
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--task",
        choices=sorted(TASKS) + sorted(train_small.DEFAULTS),
        default="sort",
        help="the built-in task: sort six digits (default) or add two three-digit numbers; "
        "shapes: a small CNN classifies generated images; parity: an LSTM tracks a bit's parity "
        "(these two ignore the GPT's sizes and keep no checkpoint)",
    )
    what.add_argument("--text", metavar="FILE", help="train a character-level model on FILE")
    parser.add_argument(
        "--steps",
        type=int,
        help="training steps (sort: 600, add: 2000, text: 1000, shapes: 800, parity: 200)",
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
    parser.add_argument(
        "--save",
        metavar="PATH",
        help="write a checkpoint to PATH (.pt: PyTorch's format; .npz: NumPy's): at the end, "
        "every --save-every steps, on Ctrl-C",
    )
    parser.add_argument("--save-every", type=int, metavar="N", help="also save every N steps")
    parser.add_argument(
        "--resume",
        metavar="PATH",
        help="continue the run saved in PATH (its sizes, data and options; saves back to PATH "
        "unless --save is given; --steps may raise the total)",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="BLAS threads for matrix products (default 1: as fast for a small model, and far "
        "more robust when other programs share the cores; see tg.utils.blas_threads in "
        "tinygrad_norm/utils/__init__.py)",
    )


# The options a checkpoint keeps, so that --resume needs none of them again.
SAVED_OPTIONS = (
    "task", "text", "steps", "batch_size", "lr", "d_model", "n_layer", "n_head", "block_size",
    "seed",
)  # fmt: skip


def run(args) -> int:
    """Ctrl-C during training stops after the current step (and saves, with --save); at any
    other moment it ends the command at once. Either way: exit code 130, no traceback."""
    try:
        with _StopOnCtrlC() as stop:
            return _run(args, stop)
    except KeyboardInterrupt:
        print("\ninterrupted")
        return 130


def _run(args, stop) -> int:
    try:
        checkpoint = _resume_options(args) if args.resume else None
        if args.text is None and args.task in train_small.DEFAULTS:
            return train_small.run(args, stop)  # a CNN or an LSTM, not a GPT
        data, steps, batch_size, lr, warmup = _check_options(args)
    except Refused as err:
        print(f"error: {err}")
        return 2
    if checkpoint is not None and len(checkpoint["history"]) >= steps:
        done, path = len(checkpoint["history"]), shlex.quote(args.resume)
        print(f"{args.resume}: the run is finished ({done} steps done, total {steps}); nothing "
              "to train.")  # fmt: skip
        print(f"To train it further, raise the total: python -m tinygrad_norm train --resume "
              f"{path} --steps {done + steps}")  # fmt: skip
        print(f"To use it: python -m tinygrad_norm sample --load {path}")
        return 0
    tune_malloc()  # a training process: keep freed activations for the next step (tg.utils)
    blas_threads(set_to=args.threads)
    manual_seed(args.seed)
    config = _config(args, data)
    model = GPT(config)
    optimizer = AdamW(model.parameters(), lr=lr, betas=(0.9, 0.99), weight_decay=0.01)
    rng = np.random.default_rng(args.seed)
    history: list[float] = []
    if checkpoint is not None:
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        history = list(checkpoint["history"])
        rng.bit_generator.state = checkpoint["rng"]["batches"]
        set_rng_state(checkpoint["rng"]["global"])
    n_params = sum(p.numel() for p in model.parameters())
    print(f"data: {data!r}")
    print(
        f"model: GPT(vocab_size={config.vocab_size}, n_ctx={config.n_ctx}, "
        f"d_model={config.d_model}, n_layer={config.n_layer}, n_head={config.n_head}), "
        f"{n_params:,} parameters"
    )
    resumed = f", resumed at step {len(history)}" if checkpoint is not None else ""
    print(f"training: {steps} steps{resumed}, batch size {batch_size}, AdamW lr {lr:g} (cosine)")

    def save_now():
        state = {
            "format": CHECKPOINT_FORMAT,
            "config": dataclasses.asdict(config),
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "history": history,
            "rng": {"batches": rng.bit_generator.state, "global": get_rng_state()},
            "options": {name: getattr(args, name) for name in SAVED_OPTIONS} | {"steps": steps},
            "data": {"vocab": data.vocab, "task": args.task if args.text is None else None},
        }
        save(state, args.save)

    def after_step(step: int, loss: float) -> bool:
        done = step + 1
        if args.save and args.save_every and done % args.save_every == 0 and done < steps:
            save_now()
        return stop.requested

    if stop.requested:  # Ctrl-C while setting up: nothing to save yet
        print("\ninterrupted before training")
        return 130
    start = time.perf_counter()
    try:
        train(
            model, data, steps, batch_size, lr, warmup=warmup, rng=rng,
            progress=not args.no_progress, callback=after_step, optimizer=optimizer,
            start_step=len(history), history=history,
        )  # fmt: skip
    except KeyboardInterrupt:  # a second Ctrl-C: stopped in the middle of a step
        print(f"\ninterrupted twice: stopped at once, in step {len(history) + 1}; not saved")
        return 130
    finally:
        stop.release()  # from here on, Ctrl-C interrupts at once
    if len(history) < steps:  # Ctrl-C: stopped after a whole step
        print(f"\ninterrupted after step {len(history)} of {steps}")
        if not args.save:
            print("nothing saved (train with --save PATH to keep an interrupted run)")
            return 130
        save_now()
        print(f"saved to {args.save}; continue with:")
        print(f"  python -m tinygrad_norm train --resume {shlex.quote(args.save)}")
        return 130
    if args.save:
        save_now()
    elapsed = time.perf_counter() - start
    recent = np.mean(history[-20:]) if history else float("nan")
    print(f"trained in {elapsed:.1f} s; final loss {recent:.4f} (last 20 steps)")

    if args.text is not None:
        _text_report(model, data, args.samples, rng)
    else:
        _task_report(model, data, args.eval_size, args.samples, rng)
    if args.save:
        print(f"saved the model, optimizer and step to {args.save}; sample from it with:")
        print(f"  python -m tinygrad_norm sample --load {shlex.quote(args.save)}")
        print(f"or in Python: model = tg.models.GPT.from_checkpoint({args.save!r})")
    return 0


class _StopOnCtrlC:
    """Inside the block, Ctrl-C (SIGINT) only sets `requested`: training finishes its step,
    saves and stops. A second Ctrl-C raises KeyboardInterrupt as usual."""

    def __enter__(self):
        self.requested = False
        self.previous = None
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum, frame):
        self.requested = True
        self.release()

    def release(self) -> None:
        """Give Ctrl-C back its usual meaning (KeyboardInterrupt)."""
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
            self.previous = None

    def __exit__(self, *exc):
        self.release()


def _resume_options(args) -> dict:
    """Load the checkpoint of --resume and take its options into args."""
    try:
        checkpoint = load(args.resume)
    except (OSError, ValueError) as err:
        raise Refused(f"cannot resume from {args.resume}: {err}") from err
    if not isinstance(checkpoint, dict) or checkpoint.get("format") != CHECKPOINT_FORMAT:
        raise Refused(f"{args.resume} is not a checkpoint of `train --save`; cannot resume it")
    steps = args.steps
    for name, value in checkpoint["options"].items():
        setattr(args, name, value)
    if steps is not None:
        args.steps = steps
    args.save = args.save or args.resume
    return checkpoint


def _check_options(args):
    """Everything that can be wrong, checked before anything runs; then the data."""
    try:
        GPTConfig(1, 1, args.d_model, args.n_layer, args.n_head)
    except ValueError as err:
        sizes = f"--d-model {args.d_model}, --n-layer {args.n_layer}, --n-head {args.n_head}"
        raise Refused(f"{sizes}: {err}") from None
    defaults = DEFAULTS["text" if args.text is not None else args.task]
    steps, batch_size, lr = steps_batch_lr(
        args, defaults,
        ("block-size", args.block_size),
        ("save-every", 1 if args.save_every is None else args.save_every),
    )  # fmt: skip
    if args.save_every is not None and not args.save:
        raise Refused("--save-every needs --save PATH (where to write the checkpoints)")
    if args.save:
        _check_save_path(args.save)
    if args.text is not None:
        try:
            with open(args.text, encoding="utf-8") as f:
                data = CharDataset(f.read(), block_size=args.block_size)
        except (OSError, UnicodeDecodeError, ValueError) as err:
            raise Refused(f"cannot train on {args.text}: {err}") from None
    else:
        data = TASKS[args.task]()
    return data, steps, batch_size, lr, min(defaults["warmup"], steps // 10)


def _check_save_path(path: str) -> None:
    """Refuse before training a --save path that could not be written at the end."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise Refused(f"--save {path} is a folder; give a file name, e.g. {path}/gpt.pt")
    if not os.path.isdir(folder):
        raise Refused(f"--save {path}: the folder {folder} does not exist; create it first")
    if not os.access(folder, os.W_OK):
        raise Refused(f"--save {path}: cannot write in the folder {folder}")
    if path.lower().endswith(".safetensors"):
        raise Refused(
            f"--save {path}: a .safetensors file holds only a flat dict of tensors, not a "
            "training checkpoint; give a .pt (PyTorch's format) or .npz name"
        )


def _config(args, data) -> GPTConfig:
    return GPTConfig(
        vocab_size=data.vocab_size,
        n_ctx=data.block_size,
        d_model=args.d_model,
        n_layer=args.n_layer,
        n_head=args.n_head,
        dropout=0.0,
    )


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
        print(data.decode(prompt[0]) + "|" + data.decode(out.array[0, prompt.shape[1] :]))
