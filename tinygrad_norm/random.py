"""Random number generators: `tg.Generator`, and the global one every random op draws from.

`tg.manual_seed(s)` makes runs repeatable: randn, rand, randint, randperm, multinomial,
Dropout and the nn.init functions all draw from the global generator, unless a call is given
its own with `generator=`:

    g = tg.Generator().manual_seed(42)
    x = tg.randn(3, generator=g)          # the same numbers on every run, whatever else draws

A `Generator` wraps a `numpy.random.Generator` (PCG64). Seeded alike, it repeats its own
numbers, but they are not PyTorch's numbers: PyTorch uses another algorithm (Mersenne Twister
on the CPU), so `torch.manual_seed(0); torch.randn(3)` and `tg.manual_seed(0); tg.randn(3)`
differ. `tg.random.fork_rng()` saves the global state and restores it on exit.
"""

from __future__ import annotations

import contextlib
import json

import numpy as np

from .devices import CPU, check


def _fresh_seed() -> int:
    """A seed from the operating system's entropy (what an unseeded generator starts from)."""
    return int(np.random.SeedSequence().entropy) % 2**63


class Generator:
    """A source of random numbers with its own state, as `torch.Generator`.

    `manual_seed(seed)` returns the generator itself, so `g = tg.Generator().manual_seed(0)`
    reads as in PyTorch; `get_state()` / `set_state(state)` save and restore it (the state is
    a uint8 tensor, as PyTorch's); `initial_seed()` is the seed it last started from.

    >>> import tinygrad_norm as tg
    >>> g = tg.Generator().manual_seed(0)
    >>> a = tg.rand(2, generator=g)
    >>> b = tg.rand(2, generator=tg.Generator().manual_seed(0))
    >>> bool((a == b).all())
    True
    """

    def __init__(self, device="cpu"):
        check("Generator", device)
        self.manual_seed(_fresh_seed())

    @property
    def device(self):
        return CPU

    def manual_seed(self, seed) -> Generator:
        """Restart from `seed` (an int; a negative one is taken modulo 2**64, as PyTorch)."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"manual_seed: the seed must be an int, got {seed!r}")
        self._seed = int(seed) % 2**64
        self.numpy = np.random.default_rng(self._seed)
        return self

    def seed(self) -> int:
        """Restart from a fresh seed taken from the operating system, and return it."""
        self.manual_seed(_fresh_seed())
        return self._seed

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self):
        """The state as a uint8 tensor (the bit generator's state, JSON-encoded)."""
        text = json.dumps(self.numpy.bit_generator.state)
        return self._wrap(np.frombuffer(text.encode(), dtype=np.uint8).copy())

    # NOTE: the state is returned as a Tensor, but this module cannot import tensor.py (which
    # imports it): sampling.py, which imports both, sets `_wrap` to `Tensor._make`.
    _wrap = staticmethod(np.asarray)

    def set_state(self, state) -> Generator:
        """Go back to a state that `get_state()` returned."""
        try:
            self.numpy.bit_generator.state = json.loads(np.asarray(state).tobytes().decode())
        except (ValueError, TypeError, KeyError):
            raise RuntimeError(
                "set_state: expected a state returned by get_state() / tg.get_rng_state() of "
                "tinygrad_norm (a PyTorch generator state cannot be used here)"
            ) from None
        return self

    def __repr__(self) -> str:
        return f"<tinygrad_norm.Generator seeded {self._seed}>"


default_generator = Generator()


def numpy_generator(generator: Generator | None = None, op: str = "random") -> np.random.Generator:
    """The `numpy.random.Generator` to draw from: `generator`'s, or the global one's."""
    if generator is None:
        return default_generator.numpy
    if not isinstance(generator, Generator):
        raise TypeError(
            f"{op}: generator must be a tg.Generator (e.g. tg.Generator().manual_seed(0)), "
            f"got {type(generator).__name__}"
        )
    return generator.numpy


def generator() -> np.random.Generator:
    """The global `numpy.random.Generator`."""
    return default_generator.numpy


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


def draw_multinomial(weights: np.ndarray, num_samples, replacement: bool, rng) -> np.ndarray:
    """Category indices (int64) drawn in proportion to `weights` (1-D, or 2-D: one row each).

    With replacement: each draw is the first category whose cumulative share passes a uniform
    number u in [0, 1). Without: Efraimidis-Spirakis: the categories with the largest w / e,
    e ~ Exp(1), in that order, are a draw one by one without replacement (PyTorch's method;
    as there, once the non-zero categories are used up, zero-weight ones follow).
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
    rows = np.atleast_2d(weights).astype(np.float64)
    categories = rows.shape[1]
    if not np.all(np.isfinite(rows)) or np.any(rows < 0):
        raise RuntimeError(f"{op}: the weights contain inf, nan or an element < 0: {weights}")
    if np.any(rows.sum(axis=1) <= 0):
        raise RuntimeError(f"{op}: invalid distribution: the weights of a row sum to 0")
    if not replacement:
        if num_samples > categories:
            raise RuntimeError(
                f"{op}: cannot draw {num_samples} samples from {categories} categories without "
                "replacement; pass replacement=True or ask for fewer"
            )
        keys = rows / rng.standard_exponential(rows.shape)
        samples = np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
    else:
        shares = np.cumsum(rows, axis=1) / rows.sum(axis=1, keepdims=True)
        last = categories - 1 - np.argmax(rows[:, ::-1] > 0, axis=1)  # last non-zero category
        shares[np.arange(categories) >= last[:, None]] = 1.0  # so u < 1 never passes it
        draws = rng.random((len(rows), num_samples))
        samples = np.stack([np.searchsorted(s, u, side="right") for s, u in zip(shares, draws)])
    samples = samples.astype(np.int64)
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
