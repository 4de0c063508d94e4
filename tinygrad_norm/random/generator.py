"""`tg.Generator`: PyTorch's CPU random stream (the 32-bit Mersenne Twister, mt19937).

PyTorch seeds mt19937 with the standard `init_genrand(seed & 0xffffffff)`:
state[0] = seed, state[j] = 1812433253 * (state[j-1] ^ (state[j-1] >> 30)) + j (mod 2**32).
NumPy ships the same bit generator (`numpy.random.MT19937`) and seeds it the same way in
`numpy.random.RandomState(seed)`; its 624-word key and position can be set directly, so the
words come out vectorised and identical to PyTorch's `generator->random()`.

Besides the twister, PyTorch's generator keeps the second sample of the last Box-Muller pair
drawn one at a time (`next_double_normal_sample`), and a float one no CPU kernel here uses.
`get_state()` packs all of it into PyTorch's 5056-byte layout (`CPUGeneratorImplState`), so a
state moves both ways between `tg.get_rng_state()` and `torch.set_rng_state()`.
"""

from __future__ import annotations

import numpy as np

from ..devices import CPU, check

_N = 624  # mt19937's state words
_FEW = 512  # below this many 64-bit draws, single words are combined in NumPy
DEFAULT_SEED = 67280421310721  # what a new torch.Generator() starts from

# PyTorch's CPUGeneratorImplState, little-endian, with C's alignment padding (5056 bytes).
STATE_LAYOUT = np.dtype(
    {
        "names": [
            "initial_seed", "left", "seeded", "next", "state", "normal_x", "normal_y",
            "normal_rho", "normal_is_valid", "next_float", "next_float_valid",
        ],
        "formats": [
            "<u8", "<i4", "<i4", "<u8", ("<u8", _N), "<f8", "<f8", "<f8", "<i4", "<f4", "u1",
        ],
        "offsets": [0, 8, 12, 16, 24, 5016, 5024, 5032, 5040, 5048, 5052],
        "itemsize": 5056,
    }
)  # fmt: skip


def fresh_seed() -> int:
    """A seed from the operating system's entropy (what the global generator starts from)."""
    return int(np.random.SeedSequence().entropy) % 2**63


def seed_bits(bits: np.random.MT19937, seed: int) -> None:
    """Set `bits` to mt19937's 624 words after `init_genrand(seed & 0xffffffff)`, the next
    word due after a twist (NumPy's legacy seeding, as `RandomState(seed)` does)."""
    if hasattr(bits, "_legacy_seeding"):  # direct, without RandomState's costly set-up
        bits._legacy_seeding(seed & 0xFFFFFFFF)
    else:
        key = np.random.RandomState(seed & 0xFFFFFFFF).get_state()[1]
        bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": _N}}


class Generator:
    """A source of random numbers with its own state, as `torch.Generator` on the CPU.

    `manual_seed(seed)` returns the generator itself, so `g = tg.Generator().manual_seed(0)`
    reads as in PyTorch, and draws PyTorch's numbers; `get_state()` / `set_state(state)` save
    and restore it (a uint8 tensor in PyTorch's layout); `initial_seed()` is the seed it last
    started from. A new Generator starts from PyTorch's fixed default seed, 67280421310721.

    >>> import tinygrad_norm as tg
    >>> g = tg.Generator().manual_seed(0)
    >>> a = tg.rand(2, generator=g)
    >>> b = tg.rand(2, generator=tg.Generator().manual_seed(0))
    >>> bool((a == b).all())
    True
    """

    def __init__(self, device="cpu"):
        check("Generator", device)
        self.bits = np.random.MT19937()
        # the same twister seen through NumPy's Generator, whose `integers` fills 64-bit draws
        self._draws64 = np.random.Generator(self.bits)
        self.manual_seed(DEFAULT_SEED)

    @property
    def device(self):
        return CPU

    def manual_seed(self, seed) -> Generator:
        """Restart from `seed` (an int; a negative one is taken modulo 2**64, as PyTorch)."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"manual_seed: the seed must be an int, got {seed!r}")
        self._seed = int(seed) % 2**64
        seed_bits(self.bits, self._seed)
        self._fresh = True  # nothing drawn since seeding (PyTorch's state says left=1, next=0)
        self.next_double_normal = None  # the cached second Box-Muller sample (a float)
        self.next_float_normal = None
        return self

    def seed(self) -> int:
        """Restart from a fresh seed taken from the operating system, and return it."""
        self.manual_seed(fresh_seed())
        return self._seed

    def initial_seed(self) -> int:
        return self._seed

    def words(self, n: int) -> np.ndarray:
        """The next `n` 32-bit words (PyTorch's `random()`), as uint32."""
        return self.raw_words(n).astype(np.uint32)

    def raw_words(self, n: int) -> np.ndarray:
        """The next `n` 32-bit words, as NumPy gives them (uint64)."""
        self._fresh = False
        return self.bits.random_raw(int(n))

    def words64(self, n: int) -> np.ndarray:
        """The next `n` 64-bit numbers (PyTorch's `random64()`: hi word first, then lo), as
        uint64. NumPy's MT19937 makes its own 64-bit numbers the same way, so a full-range
        `integers` draw gives them directly, one call into the twister for two words (a
        fixed cost of a few microseconds: small draws combine single words instead)."""
        self._fresh = False
        if n < _FEW:  # each pair of words, as big-endian 32-bit halves, is a big-endian W
            pairs = self.bits.random_raw(2 * int(n)).astype(">u4")
            return pairs.view(">u8").astype(np.uint64)
        return self._draws64.integers(0, 2**64, int(n), dtype=np.uint64)

    def get_state(self):
        """The state as a uint8 tensor of 5056 bytes, in PyTorch's layout."""
        state = np.zeros((), STATE_LAYOUT)
        twister = self.bits.state["state"]
        key, pos = twister["key"], int(twister["pos"])
        fresh = self._fresh and pos == _N
        state["initial_seed"], state["seeded"], state["state"] = self._seed, 1, key
        # PyTorch's engine counts `left` down to a re-twist: left = 625 - next, and a freshly
        # seeded engine is left = 1, next = 0 (NumPy's pos is PyTorch's next, 624 = twist due).
        state["next"] = 0 if fresh else pos
        state["left"] = 1 if fresh else _N + 1 - pos
        if self.next_double_normal is not None:
            state["normal_is_valid"], state["normal_y"] = 1, self.next_double_normal
        if self.next_float_normal is not None:
            state["next_float_valid"], state["next_float"] = 1, self.next_float_normal
        return self._wrap(np.frombuffer(state.tobytes(), np.uint8).copy())

    # NOTE: the state is returned as a Tensor, but this module cannot import tensor.py (which
    # imports it): functions/sampling.py, which imports both, sets `_wrap` to `Tensor._make`.
    _wrap = staticmethod(np.asarray)

    def set_state(self, state) -> Generator:
        """Go back to a state that `get_state()` (or PyTorch's `get_rng_state()`) returned."""
        raw = np.asarray(getattr(state, "array", state))
        if raw.dtype != np.uint8 or raw.shape != (STATE_LAYOUT.itemsize,):
            raise RuntimeError(
                f"set_state: expected a uint8 tensor of {STATE_LAYOUT.itemsize} bytes (from "
                f"get_state() or torch.get_rng_state()), got dtype {raw.dtype}, shape {raw.shape}"
            )
        fields = np.frombuffer(raw.tobytes(), STATE_LAYOUT)[0]
        left, nxt = int(fields["left"]), int(fields["next"])
        if not fields["seeded"] or not 0 < left <= _N or nxt > _N:
            raise RuntimeError("set_state: invalid mt19937 state (left, next or seeded)")
        if left == 1:  # the next word re-twists, wherever `next` points
            pos = _N
        elif left + nxt == _N + 1:
            pos = nxt
        else:
            raise RuntimeError(
                f"set_state: mt19937 state with left={left}, next={nxt} (PyTorch's own states "
                "have left + next = 625) cannot be replayed here"
            )
        key = fields["state"].astype(np.uint32)
        self.bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        self._seed, self._fresh = int(fields["initial_seed"]), left == 1 and nxt == 0
        self.next_double_normal = float(fields["normal_y"]) if fields["normal_is_valid"] else None
        valid_float = bool(fields["next_float_valid"])
        self.next_float_normal = np.float32(fields["next_float"]) if valid_float else None
        return self

    def __repr__(self) -> str:
        return f"<tinygrad_norm.Generator seeded {self._seed}>"
