"""Built-in tasks for a small GPT: exact digit puzzles that need no download.

Each problem is a prompt of digits ending in "=" and an answer of fixed length. A training
sequence is prompt + answer; the model reads it shifted by one, and only the answer is learned:
the targets of the prompt positions are -100, which `cross_entropy` ignores.

    SortDigits(6):   "314159="  ->  "113459"
    AddDigits(3):    "123+089="  ->  "0212"

Held-out problems. Every problem has an integer key (its digits read as one number). A fixed
hash of the key puts one problem in ten into the held-out set: `batch` never draws those, and
`accuracy` draws only those. So the accuracy counts puzzles the model has never trained on,
and the split needs no stored list: it is the same on every machine and for every seed.

>>> import numpy as np
>>> task = SortDigits(length=4)
>>> idx, targets = task.batch(2, np.random.default_rng(0))
>>> idx.shape, targets.shape, task.block_size
((2, 8), (2, 8), 8)
>>> task.decode(idx[0])                # the prompt and all but the last answer digit
'8506=056'
>>> targets[0].tolist()                # -100: prompt positions, not learned
[-100, -100, -100, -100, 0, 5, 6, 8]
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor

IGNORE_INDEX = -100  # cross_entropy's default ignore_index
HELD_OUT_ONE_IN = 10  # the fraction of problems held out for evaluation: 1 / 10


def _mix(keys: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer: a fixed hash that scatters nearby keys far apart."""
    x = keys.astype(np.uint64)
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)  # uint64 arrays wrap around silently, as wanted here
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return x


class DigitTask:
    """The shared machinery. A subclass sets `vocab`, `prompt_len`, `answer_len` and defines
    `_random_keys(n, rng)`, `_problems(keys) -> (prompts, answers)` and `show_answer(answer)`.
    """

    vocab: str
    prompt_len: int
    answer_len: int

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    @property
    def block_size(self) -> int:
        """The context a model needs (n_ctx): the whole sequence but its last token."""
        return self.prompt_len + self.answer_len - 1

    def encode(self, text: str) -> list[int]:
        unknown = sorted(set(text) - set(self.vocab))
        if unknown:
            raise ValueError(
                f"{type(self).__name__}: characters {unknown} are not in the vocabulary "
                f"{self.vocab!r}"
            )
        return [self.vocab.index(c) for c in text]

    def decode(self, ids) -> str:
        return "".join(self.vocab[int(i)] for i in np.asarray(ids).ravel())

    # --- the split ---------------------------------------------------------------------------
    def is_held_out(self, keys) -> np.ndarray:
        """True for the problems kept for evaluation (one in HELD_OUT_ONE_IN, by hash). A key is
        the problem's digits read as one number: 314159 for "314159=", 123089 for "123+089="."""
        return _mix(np.asarray(keys)) % np.uint64(HELD_OUT_ONE_IN) == 0

    def sample_keys(self, n: int, rng: np.random.Generator, held_out: bool = False):
        """n random problem keys, all from the training side or all from the held-out side."""
        keys = self._random_keys(n, rng)
        wrong_side = self.is_held_out(keys) != held_out
        while wrong_side.any():  # redraw those on the wrong side of the split
            keys[wrong_side] = self._random_keys(int(wrong_side.sum()), rng)
            wrong_side = self.is_held_out(keys) != held_out
        return keys

    # --- training and evaluation -------------------------------------------------------------
    def batch(self, batch_size: int, rng: np.random.Generator):
        """A training batch: idx (B, block_size) and targets (B, block_size), int64.

        idx is prompt + answer without its last token, targets the same shifted by one; the
        targets that fall in the prompt are IGNORE_INDEX, so only the answer is learned.
        """
        prompts, answers = self._problems(self.sample_keys(batch_size, rng))
        sequence = np.concatenate([prompts, answers], axis=1)
        idx, targets = sequence[:, :-1], sequence[:, 1:].copy()
        targets[:, : self.prompt_len - 1] = IGNORE_INDEX
        return idx, targets

    def held_out_problems(self, n: int, rng: np.random.Generator):
        """n held-out problems: prompts (n, prompt_len) and answers (n, answer_len)."""
        return self._problems(self.sample_keys(n, rng, held_out=True))

    def predict(self, model, prompts, chunk: int = 500):
        """The model's greedy answers to `prompts`, batched.

        Prompts as strings give answers as strings: `task.predict(model, ["314159"])` ->
        `["113459"]` (the trailing "=" may be left out). Prompts as token ids (n, prompt_len)
        give answer ids (n, answer_len).
        """
        if isinstance(prompts, str):
            raise TypeError(
                f"{type(self).__name__}.predict takes a list of prompts, got the string "
                f"{prompts!r}; write [{prompts!r}]"
            )
        if len(prompts) and all(isinstance(p, str) for p in prompts):
            answers = self.predict(model, np.array([self._encode_prompt(p) for p in prompts]))
            return [self.show_answer(answer) for answer in answers]
        answers = []
        for start in range(0, len(prompts), chunk):
            idx = Tensor(np.asarray(prompts[start : start + chunk], dtype=np.int64))
            out = model.generate(idx, max_new_tokens=self.answer_len, temperature=0)
            answers.append(np.asarray(getattr(out, "array", out))[:, self.prompt_len :])
        return np.concatenate(answers, axis=0)

    def _encode_prompt(self, prompt: str) -> list[int]:
        ids = self.encode(prompt if prompt.endswith("=") else prompt + "=")
        if len(ids) != self.prompt_len:
            example = self.decode(self._problems(np.array([123456789 % 10**9]))[0][0])
            raise ValueError(
                f"{type(self).__name__}.predict: the prompt {prompt!r} should have "
                f"{self.prompt_len - 1} characters before '=', like {example!r}"
            )
        return ids

    def accuracy(self, model, n: int = 1000, rng: np.random.Generator | None = None) -> float:
        """The fraction of n held-out problems whose whole answer the model gets exactly right
        with greedy decoding (`model.generate(idx, max_new_tokens, temperature=0)`)."""
        rng = np.random.default_rng(0) if rng is None else rng
        prompts, answers = self.held_out_problems(n, rng)
        return float((self.predict(model, prompts) == answers).all(axis=1).mean())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._args()})"


class SortDigits(DigitTask):
    """Sort a string of `length` digits: "314159=" -> "113459". Vocabulary "0123456789="."""

    vocab = "0123456789="

    def __init__(self, length: int = 6):
        if length < 2:
            raise ValueError(f"SortDigits: length must be at least 2, got {length}")
        self.length = length
        self.prompt_len, self.answer_len = length + 1, length

    def _args(self) -> str:
        return f"length={self.length}"

    def _random_keys(self, n, rng):
        return rng.integers(0, 10**self.length, size=n, dtype=np.int64)

    def _problems(self, keys):
        powers = 10 ** np.arange(self.length - 1, -1, -1, dtype=np.int64)
        digits = (np.asarray(keys)[:, None] // powers) % 10  # (n, length)
        separator = np.full((len(digits), 1), self.vocab.index("="), dtype=np.int64)
        return np.concatenate([digits, separator], axis=1), np.sort(digits, axis=1)

    def show_answer(self, answer) -> str:
        return self.decode(answer)


class AddDigits(DigitTask):
    """Add two `n_digits`-digit numbers: "123+089=" -> "0212", the sum in n_digits + 1 digits.
    Vocabulary "0123456789+=".

    The sum is written the usual way round, high digit first. Writing it backwards (low digit
    first, so each digit needs only the carry from those already written) is a known trick; it
    paid little here: a 2-layer, d_model=64 GPT passed 99% held-out accuracy after 1000-1250
    steps reversed and 1250-1500 steps plain (two seeds each, batch 64, lr 3e-3), so the order
    a person reads won.
    """

    vocab = "0123456789+="

    def __init__(self, n_digits: int = 3):
        if n_digits < 1:
            raise ValueError(f"AddDigits: n_digits must be at least 1, got {n_digits}")
        self.n_digits = n_digits
        self.prompt_len, self.answer_len = 2 * n_digits + 2, n_digits + 1

    def _args(self) -> str:
        return f"n_digits={self.n_digits}"

    def _random_keys(self, n, rng):
        return rng.integers(0, 10 ** (2 * self.n_digits), size=n, dtype=np.int64)

    def _digits(self, numbers, width):
        powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
        return (np.asarray(numbers)[:, None] // powers) % 10  # (n, width), high digit first

    def _problems(self, keys):
        a, b = np.divmod(np.asarray(keys), 10**self.n_digits)
        n = len(a)
        plus = np.full((n, 1), self.vocab.index("+"), dtype=np.int64)
        equals = np.full((n, 1), self.vocab.index("="), dtype=np.int64)
        d = self.n_digits
        prompts = np.concatenate([self._digits(a, d), plus, self._digits(b, d), equals], axis=1)
        return prompts, self._digits(a + b, d + 1)

    def show_answer(self, answer) -> str:
        """The sum without its leading zeros: "0212" -> "212"."""
        return self.decode(answer).lstrip("0") or "0"


TASKS = {"sort": SortDigits, "add": AddDigits}
