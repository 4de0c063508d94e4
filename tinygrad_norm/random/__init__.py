"""Random number generators: `tg.Generator`, and the global one every random op draws from.

`tg.manual_seed(s)` makes runs repeatable: randn, rand, randint, randperm, multinomial,
Dropout, the nn.init functions, layers' default initialisation and DataLoader shuffling all
draw from the global generator, unless a call is given its own with `generator=`:

    g = tg.Generator().manual_seed(42)
    x = tg.randn(3, generator=g)          # the same numbers on every run, whatever else draws

The stream is PyTorch's CPU stream: the same 32-bit Mersenne Twister seeded the same way
(generator.py), and each distribution made from its words as PyTorch's CPU kernels make it
(transforms.py). So `torch.manual_seed(0); torch.randn(3)` and `tg.manual_seed(0);
tg.randn(3)` give the same numbers (integers and uniforms bit for bit, normals to float32
rounding), and `get_rng_state()` is a state `torch.set_rng_state()` accepts.
`tg.random.fork_rng()` saves the global state and restores it on exit.
"""

from __future__ import annotations

import contextlib

import numpy as np

from . import transforms
from .generator import Generator, fresh_seed
from .poisson import poisson as draw_poisson

default_generator = Generator().manual_seed(fresh_seed())


def resolve(generator: Generator | None = None, op: str = "random") -> Generator:
    """The generator to draw from: `generator`, or the global one for None."""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(
            f"{op}: generator must be a tg.Generator (e.g. tg.Generator().manual_seed(0)), "
            f"got {type(generator).__name__}"
        )
    return generator


def generator() -> Generator:
    """The global generator (`tg.random.default_generator`)."""
    return default_generator


def manual_seed(seed) -> Generator:
    """Reset the global generator to a fixed seed; returns it (`tg.random.default_generator`)."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the global generator from the operating system's entropy; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the global generator last started from."""
    return default_generator.initial_seed()


def get_rng_state():
    """The global generator's state (a uint8 tensor), for `set_rng_state`."""
    return default_generator.get_state()


def set_rng_state(state) -> None:
    default_generator.set_state(state)


def draw_multinomial(weights: np.ndarray, num_samples, replacement: bool, gen) -> np.ndarray:
    """Category indices (int64) drawn in proportion to `weights` (1-D, or 2-D: one row each),
    as PyTorch draws them (transforms.multinomial): with replacement, the first category whose
    cumulative share reaches a uniform u; without (or for one sample), the categories with the
    largest w / q, q ~ Exp(1) (the Gumbel-max trick; once the non-zero categories are used up,
    zero-weight ones follow).
    """
    op = "multinomial"
    if weights.dtype.kind != "f":
        raise RuntimeError(f"{op}: only floating-point weights are supported, got {weights.dtype}")
    if weights.ndim not in (1, 2):
        raise RuntimeError(
            f"{op}: the weights must be 1-D (one distribution) or 2-D (one per row), "
            f"got shape {weights.shape}"
        )
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, np.integer)):
        raise TypeError(f"{op}: num_samples must be an int, got {num_samples!r}")
    if num_samples <= 0:
        raise RuntimeError(f"{op}: cannot sample num_samples = {num_samples} <= 0 samples")
    rows = np.atleast_2d(weights)
    categories = rows.shape[1]
    if rows.size and not (rows.min() >= 0 and rows.max() < np.inf):  # nan fails both tests
        raise RuntimeError(f"{op}: the weights contain inf, nan or an element < 0: {weights}")
    if len(rows) and rows.sum(axis=1).min() <= 0:
        raise RuntimeError(f"{op}: invalid distribution: the weights of a row sum to 0")
    if not replacement and num_samples > categories:
        raise RuntimeError(
            f"{op}: cannot draw {num_samples} samples from {categories} categories without "
            "replacement; pass replacement=True or ask for fewer"
        )
    samples = transforms.multinomial(gen, rows, int(num_samples), replacement)
    return samples[0] if weights.ndim == 1 else samples


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True):
    """Inside the block, draw freely; on exit the generator is back where it was.

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> with tg.random.fork_rng():
    ...     a = tg.randn(3)
    >>> b = tg.randn(3)
    >>> bool((a == b).all())
    True
    """
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
