"""`bench --suite gpt2`: GPT-2 small (124M: 12 layers, 12 heads, d 768, vocab 50257, n_ctx 1024).

Two measurements, from the same GPT-2 initial weights (`numpy_gpt.init_params`, GPT-2's
layout and names):

- a training step (forward, backward, AdamW) at batch B and length T (`--shapes 1x128,2x256`):
  `tg.models.GPT` against the same model in PyTorch eager (`torch_gpt.TorchGPT`) and, when
  transformers is installed, against its `GPT2LMHeadModel` (the model users run), taking turns,
  median ms per step;
- greedy generation of `--new` tokens after a `--prompt`-token prompt, batch 1, in tokens per
  second: `tg.models.GPT.generate(temperature=0)` with its key/value cache and without, and
  Hugging Face transformers' `GPT2LMHeadModel.generate(do_sample=False)` (its cache on) built
  from a `GPT2Config` with the same weights (no download) when transformers is installed. The
  tokens are compared: the same weights must give the same greedy tokens.

One BLAS thread (NumPy's and PyTorch's) unless `--threads`, timed as this thread's CPU time
(`time.thread_time`: a shared machine's waits for a core are left out; with more threads, use
the default `--suite gpt`'s wall-clock figures); `--tiny` shrinks the model for tests.

    python -m tinygrad_norm bench --suite gpt2 [--shapes 1x128] [--steps 5] [--new 64]
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import statistics
import time

import numpy as np

import tinygrad_norm as tg

from ..utils import blas_threads
from . import NO_TORCH_HINT, TRANSFORMERS_PIN, course_suite
from .numpy_gpt import init_params

# GPT-2 small; TINY keeps the code path, shrinks the arithmetic
GPT2 = {"vocab": 50257, "n_ctx": 1024, "d": 768, "n_layer": 12, "n_head": 12}
TINY = {"vocab": 50, "n_ctx": 32, "d": 16, "n_layer": 1, "n_head": 2}
# The defaults of --shapes, --prompt and --new for each: within the model's n_ctx
DEFAULTS = {
    "gpt2": {"shapes": "1x128,2x256", "prompt": 32, "new": 64},
    "tiny": {"shapes": "1x16,2x32", "prompt": 8, "new": 16},
}


def tinygrad_model(cfg: dict, params: dict):
    config = tg.models.GPTConfig(
        vocab_size=cfg["vocab"], n_ctx=cfg["n_ctx"], d_model=cfg["d"],
        n_layer=cfg["n_layer"], n_head=cfg["n_head"], dropout=0.0,
    )  # fmt: skip
    model = tg.models.GPT(config)
    model.load_state_dict({k: np.array(v, copy=True) for k, v in params.items()})
    return model


def training_steps(cfg: dict, params: dict, B: int, T: int) -> dict:
    """{system: step()} for the training step at (B, T)."""
    import torch

    TorchGPT = importlib.import_module(".torch_gpt", __package__).TorchGPT
    rng = np.random.default_rng(1)
    idx, targets = rng.integers(0, cfg["vocab"], (2, B, T))
    ours = tinygrad_model(cfg, params)
    ours_opt = tg.optim.AdamW(ours.parameters(), lr=1e-4)
    theirs = TorchGPT(params, cfg["n_layer"], cfg["n_head"])
    theirs_opt = torch.optim.AdamW(theirs.parameters(), lr=1e-4)

    def tinygrad_step():
        ours_opt.zero_grad()
        _, loss = ours(tg.tensor(idx), tg.tensor(targets))
        loss.backward()
        ours_opt.step()

    def torch_step():
        theirs_opt.zero_grad()
        theirs(torch.from_numpy(idx), torch.from_numpy(targets)).backward()
        theirs_opt.step()

    steps = {"torch": torch_step, "tinygrad_norm": tinygrad_step}
    hf = hf_model(cfg, params)
    if hf is not None:  # the model users run: GPT2LMHeadModel (SDPA attention), training mode
        hf.train()
        hf_opt = torch.optim.AdamW(hf.parameters(), lr=1e-4)

        def transformers_step():
            hf_opt.zero_grad()
            hf(input_ids=torch.from_numpy(idx), labels=torch.from_numpy(targets)).loss.backward()
            hf_opt.step()

        steps["transformers"] = transformers_step
    return steps


def hf_model(cfg: dict, params: dict):
    """transformers' GPT2LMHeadModel from a config, holding `params` (None if not installed)."""
    if importlib.util.find_spec("transformers") is None:
        return None
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(
        vocab_size=cfg["vocab"], n_positions=cfg["n_ctx"], n_embd=cfg["d"],
        n_layer=cfg["n_layer"], n_head=cfg["n_head"], activation_function="gelu_new",
        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=cfg["vocab"] - 1,
        eos_token_id=cfg["vocab"] - 1,
    )  # fmt: skip
    model = GPT2LMHeadModel(config).eval()
    state = {k: torch.from_numpy(np.array(v, copy=True)) for k, v in params.items()}
    model.load_state_dict(state, strict=False)  # lm_head.weight is tied to wte
    return model


def generators(cfg: dict, params: dict, prompt: np.ndarray, new: int) -> dict:
    """{system: generate() -> the new tokens (1-D array)}."""
    ours = tinygrad_model(cfg, params)
    gens = {
        "tinygrad_norm cache": lambda: ours.generate(tg.tensor(prompt), new, temperature=0),
        "tinygrad_norm no cache": lambda: ours.generate(
            tg.tensor(prompt), new, temperature=0, use_cache=False
        ),
    }
    hf = hf_model(cfg, params)
    if hf is not None:
        import torch

        ids = torch.from_numpy(prompt)

        def hf_generate():
            with torch.no_grad():
                return hf.generate(
                    ids, attention_mask=torch.ones_like(ids), max_new_tokens=new,
                    min_new_tokens=new, do_sample=False, pad_token_id=0,
                )  # fmt: skip

        gens["transformers (PyTorch)"] = hf_generate
    return {name: (lambda g=g: np.asarray(g().tolist())[0, -new:]) for name, g in gens.items()}


def interleaved(calls: dict, rounds: int, warmup: int, clock=time.thread_time) -> dict:
    """{name: ([seconds], last result)}, the calls taking turns, the order rotating."""
    names, out = list(calls), {name: ([], None) for name in calls}
    for i in range(warmup + rounds):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            start = clock()
            result = calls[name]()
            elapsed = clock() - start
            times, _ = out[name]
            out[name] = (times + [elapsed] if i >= warmup else times, result)
    return out


def add_arguments(parser) -> None:
    full, tiny = DEFAULTS["gpt2"], DEFAULTS["tiny"]
    parser.add_argument(
        "--shapes",
        help=f"gpt2 suite: BxT training shapes (default {full['shapes']}; --tiny: "
        f"{tiny['shapes']})",
    )
    parser.add_argument(
        "--prompt",
        type=int,
        help=f"gpt2 suite: prompt tokens (default {full['prompt']}; --tiny: {tiny['prompt']})",
    )
    parser.add_argument(
        "--new",
        type=int,
        help=f"gpt2 suite: tokens generated (default {full['new']}; --tiny: {tiny['new']})",
    )


def checked_shapes(args, cfg: dict) -> list[tuple[int, int]] | str:
    """[(B, T)] of --shapes, the defaults filled into `args`; or what is wrong, as a message.

    Every length must fit the model's context, n_ctx positions: a training sequence T, and in
    generation the prompt with every new token (transformers' position table has n_ctx rows,
    and indexing beyond it is an IndexError deep inside its forward)."""
    for name, value in DEFAULTS["tiny" if args.tiny else "gpt2"].items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    n_ctx, shapes = cfg["n_ctx"], []
    for shape in args.shapes.split(","):
        try:
            B, T = (int(n) for n in shape.lower().split("x"))
        except ValueError:
            return f"--shapes: {shape!r} is not BxT (e.g. 2x16)"
        if min(B, T) < 1 or T > n_ctx:
            return f"--shapes: T {T} of {shape} must be from 1 to the model's n_ctx {n_ctx}"
        shapes.append((B, T))
    if args.prompt < 1 or args.new < 1 or args.prompt + args.new > n_ctx:
        return (
            f"--prompt {args.prompt} and --new {args.new}: each at least 1, and together at "
            f"most the model's n_ctx {n_ctx} (the prompt and every generated token)"
        )
    return shapes


def run(args) -> int:
    cfg = TINY if args.tiny else GPT2
    shapes = checked_shapes(args, cfg)
    if isinstance(shapes, str):
        print(f"bench --suite gpt2{' --tiny' if args.tiny else ''}: {shapes}")
        return 2
    if importlib.util.find_spec("torch") is None:
        print(f"bench --suite gpt2 compares against PyTorch. {NO_TORCH_HINT}")
        return 2
    import torch

    threads = blas_threads(set_to=args.threads or 1)
    torch.set_num_threads(threads)
    clock = course_suite.clock_for(threads)
    params = init_params(np.random.default_rng(0), cfg["vocab"], cfg["n_ctx"], cfg["d"],
                         cfg["n_layer"])  # fmt: skip
    n_params = sum(v.size for k, v in params.items())
    print(
        f"GPT-2 shapes: {cfg['n_layer']} layers, {cfg['n_head']} heads, d {cfg['d']}, vocab "
        f"{cfg['vocab']}, n_ctx {cfg['n_ctx']} ({n_params / 1e6:.1f}M parameters); NumPy "
        f"{np.__version__}, PyTorch {torch.__version__}, {threads} thread(s), {os.cpu_count()} "
        f"CPUs, load average {os.getloadavg()[0]:.1f}"
    )
    print(f"\nTraining step (forward, backward, AdamW): median of {args.steps} after "
          f"{args.warmup} warm-up, taking turns")  # fmt: skip
    print(f"{'B x T':<10}{'torch ms':>11}{'tg ms':>11}{'tg/torch':>10}")
    against_hf = []
    for B, T in shapes:
        timed = interleaved(training_steps(cfg, params, B, T), args.steps, args.warmup, clock)
        ms = {name: statistics.median(t) * 1e3 for name, (t, _) in timed.items()}
        ratio = ms["tinygrad_norm"] / ms["torch"]
        print(f"{f'{B}x{T}':<10}{ms['torch']:>11.2f}{ms['tinygrad_norm']:>11.2f}{ratio:>10.2f}")
        if "transformers" in ms:
            against_hf.append((f"{B}x{T}", ms["transformers"], ms["tinygrad_norm"]))
    if against_hf:
        print("\nThe same step against transformers' GPT2LMHeadModel (its loss takes labels)")
        print(f"{'B x T':<10}{'transformers ms':>17}{'tg ms':>11}{'tg/transformers':>17}")
        for shape, theirs, ours in against_hf:
            print(f"{shape:<10}{theirs:>17.2f}{ours:>11.2f}{ours / theirs:>17.2f}")

    prompt = np.random.default_rng(2).integers(0, cfg["vocab"], (1, args.prompt))
    rounds = max(1, min(args.steps, 3))
    print(f"\nGreedy generation, batch 1: {args.new} tokens after a {args.prompt}-token "
          f"prompt; median of {rounds} runs after one warm-up, taking turns")  # fmt: skip
    timed = interleaved(generators(cfg, params, prompt, args.new), rounds, 1, clock)
    reference = timed["tinygrad_norm cache"][1]
    best = {name: args.new / statistics.median(t) for name, (t, _) in timed.items()}
    base = best.get("transformers (PyTorch)")
    print(f"{'system':<26}{'tokens/s':>10}{'vs transformers':>17}{'same tokens':>13}")
    for name, (_, tokens) in timed.items():
        against = f"{best[name] / base:.2f}" if base else "-"
        same = "yes" if np.array_equal(tokens, reference) else "NO"
        print(f"{name:<26}{best[name]:>10.1f}{against:>17}{same:>13}")
    if base is None:
        print(f"\nvs transformers is '-': transformers is not installed: pip install "
              f"{TRANSFORMERS_PIN} (`make test-oracle` installs it into .venv)")  # fmt: skip
    return 0
