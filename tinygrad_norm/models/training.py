"""A small training loop: AdamW, a warm-up and cosine schedule, clipping, a progress bar.

    for step in range(steps):
        idx, targets = data.batch(batch_size, rng)       # anything with .batch(B, rng)
        _, loss = model(idx, targets)                    # anything returning (logits, loss)
        optimizer.zero_grad(); loss.backward()
        clip the gradients' global norm to grad_clip; set this step's learning rate
        optimizer.step()

It serves the `train` command and notebooks alike: `progress=False` hides the bar, and
`callback(step, loss)` sees every step (return True from it to stop early). A script or
notebook that trains for long can first call `tg.utils.tune_malloc()` (as the `train` command
does): steps then reuse freed memory instead of page-faulting it in again.

>>> import numpy as np, tinygrad_norm as tg
>>> from tinygrad_norm.datasets import SortDigits
>>> _ = tg.manual_seed(0)
>>> task = SortDigits(length=3)
>>> config = tg.models.GPTConfig(task.vocab_size, task.block_size, 16, 1, 2, dropout=0.0)
>>> history = train(tg.models.GPT(config), task, steps=30, lr=1e-2, progress=False)
>>> len(history), history[-1] < history[0]
(30, True)
"""

from __future__ import annotations

import math

import numpy as np

from ..optim import AdamW


def learning_rate(
    step: int, steps: int, lr: float, warmup: int = 0, schedule: str = "cosine", min_lr: float = 0.0
) -> float:
    """The learning rate at `step` (0-based) of `steps`.

    A linear warm-up from lr / warmup to lr over the first `warmup` steps, then
    "cosine": min_lr + (lr - min_lr) * (1 + cos(pi * progress)) / 2, progress going 0 -> 1;
    "linear": from lr down to min_lr in a straight line; "constant": lr.

    >>> [round(learning_rate(s, 10, 1.0, warmup=2), 3) for s in (0, 1, 2, 6, 9)]
    [0.5, 1.0, 1.0, 0.389, 0.0]
    """
    if step < warmup:
        return lr * (step + 1) / warmup
    if schedule == "constant":
        return lr
    progress = (step - warmup) / max(steps - warmup - 1, 1)
    if schedule == "cosine":
        return min_lr + (lr - min_lr) * 0.5 * (1.0 + math.cos(math.pi * progress))
    if schedule == "linear":
        return lr + (min_lr - lr) * progress
    raise ValueError(
        f"learning_rate: schedule must be 'cosine', 'linear' or 'constant', got {schedule!r}"
    )


def clip_grad_norm(parameters, max_norm: float) -> float:
    """Scale all gradients together so that their global L2 norm is at most max_norm.
    Returns the norm before clipping."""
    grads = [p.grad.array for p in parameters if p.grad is not None]
    total = math.sqrt(sum(float(np.vdot(g, g)) for g in grads))
    if total > max_norm:
        for g in grads:
            g *= max_norm / (total + 1e-6)
    return total


def train(
    model,
    data,
    steps: int,
    batch_size: int = 64,
    lr: float = 1e-3,
    *,
    weight_decay: float = 0.01,
    betas: tuple[float, float] = (0.9, 0.99),
    warmup: int = 0,
    schedule: str = "cosine",
    min_lr: float | None = None,
    grad_clip: float | None = 1.0,
    rng: np.random.Generator | int | None = 0,
    progress: bool = True,
    callback=None,
    optimizer=None,
    start_step: int = 0,
    history: list[float] | None = None,
) -> list[float]:
    """Train `model` on batches of `data` for `steps` steps; returns the loss of every step.

    `model(idx, targets)` must return (logits, loss), as `tg.models.GPT` does; `data` needs
    `batch(batch_size, rng) -> (idx, targets)` (a task of `tinygrad_norm.datasets` or a
    `CharDataset`). The optimizer is AdamW(lr, betas, weight_decay); the learning rate follows
    `learning_rate(step, steps, lr, warmup, schedule, min_lr)` with min_lr = lr / 10 unless
    given; gradients are clipped to a global norm of `grad_clip` (None: no clipping). `rng` is
    a numpy Generator or a seed for the batches. `progress` shows a tqdm bar with the loss;
    `callback(step, loss)` is called after every step, and training stops when it returns
    True.

    To resume a saved run, pass its `optimizer` (its state loaded), `start_step` (the steps
    already done), its loss `history` so far, and `rng` with its saved state: the steps then
    continue exactly as if the run had never stopped (the schedule counts from step 0).
    """
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    min_lr = lr / 10 if min_lr is None else min_lr
    parameters = list(model.parameters())
    if optimizer is None:
        optimizer = AdamW(parameters, lr=lr, betas=betas, weight_decay=weight_decay)
    model.train()
    history = [] if history is None else history
    bar = _progress_bar(steps, progress, start_step)
    try:
        for step in range(start_step, steps):
            idx, targets = data.batch(batch_size, rng)
            _, loss = model(idx, targets)
            optimizer.zero_grad()
            loss.backward()
            if grad_clip is not None:
                clip_grad_norm(parameters, grad_clip)
            rate = learning_rate(step, steps, lr, warmup, schedule, min_lr)
            for group in optimizer.param_groups:
                group["lr"] = rate
            optimizer.step()
            history.append(float(loss.item()))
            if bar is not None:
                bar.update(1)
                bar.set_postfix_str(f"loss {history[-1]:.4f}  lr {rate:.1e}", refresh=False)
            if callback is not None and callback(step, history[-1]):
                break
    finally:
        if bar is not None:
            bar.close()
    return history


def _progress_bar(steps: int, progress: bool, start_step: int = 0):
    if not progress:
        return None
    from tqdm import tqdm

    return tqdm(total=steps, initial=start_step, desc="train", unit="step", dynamic_ncols=True)
