"""The one random generator that every random operation draws from.

`tg.manual_seed(s)` makes runs repeatable: randn, rand, randint, Dropout and the nn.init
functions all draw from this generator. `tg.random.fork_rng()` saves its state and restores it
on exit, so code inside can draw numbers without changing what comes after.
"""

import contextlib

import numpy as np

_state = {"generator": np.random.default_rng()}


def generator() -> np.random.Generator:
    """The global `numpy.random.Generator`."""
    return _state["generator"]


def manual_seed(seed: int) -> np.random.Generator:
    """Reset the global generator to a fixed seed (a non-negative int)."""
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"manual_seed: the seed must be a non-negative int, got {seed!r}")
    _state["generator"] = np.random.default_rng(int(seed))
    return _state["generator"]


def get_rng_state() -> dict:
    """A copy of the generator's state, for `set_rng_state`."""
    return generator().bit_generator.state


def set_rng_state(state: dict) -> None:
    generator().bit_generator.state = state


@contextlib.contextmanager
def fork_rng():
    """Inside the block, draw freely; on exit the generator is back where it was.

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> with tg.random.fork_rng():
    ...     a = tg.randn(3)
    >>> b = tg.randn(3)
    >>> bool((a == b).all())
    True
    """
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
