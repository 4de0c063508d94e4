"""Random fills and draws as Tensor methods: `w.bernoulli_(0.5)`, `t.random_(0, 10)`,
`t.exponential_()`, `probs.multinomial(1)`, `p.bernoulli()`. Each draws from `generator=` (a
`tg.Generator`) or the global generator (`tinygrad_norm/random.py`).
"""

from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import is_grad_enabled
from ..random import draw_multinomial, numpy_generator


class SamplingMethods:
    __slots__ = ()

    # --- random fills, in place (through copy_: checked and counted as every in-place change) ---
    def bernoulli_(self, p=0.5, *, generator=None):
        """Fill with 1 (probability p) or 0, drawn from `generator` (or the global one)."""
        p = np.asarray(p.array if hasattr(p, "array") else p, dtype=np.float64)
        if np.any((p < 0) | (p > 1)) or np.any(np.isnan(p)):
            raise RuntimeError(f"bernoulli_: expected 0 <= p <= 1, got p = {p}")
        draws = numpy_generator(generator, "bernoulli_").random(self.array.shape) < p
        return self._fill("bernoulli_", draws)

    def random_(self, from_=0, to=None, *, generator=None):
        """Fill with integers drawn uniformly from [from_, to) (or [0, from_) when `to` is
        omitted, as `random_(to)` in PyTorch)."""
        low, high = (0, from_) if to is None else (from_, to)
        if to is None and from_ == 0:
            high = (
                2 ** (np.finfo(self.array.dtype).nmant + 1) if self.is_floating_point() else 2**31
            )
        draws = numpy_generator(generator, "random_").integers(low, high, self.array.shape)
        return self._fill("random_", draws)

    def exponential_(self, lambd=1.0, *, generator=None):
        """Fill with samples of the exponential distribution of rate `lambd`."""
        rng = numpy_generator(generator, "exponential_")
        return self._fill("exponential_", rng.exponential(1.0 / lambd, self.array.shape))

    def _fill(self, op: str, values: np.ndarray):
        if self.requires_grad and is_grad_enabled():
            raise RuntimeError(
                f"{op}: a leaf tensor that requires grad is being used in an in-place operation; "
                "do it inside `with tg.no_grad():` (as initialisation does)"
            )
        return self.copy_(type(self)._make(values.astype(self.array.dtype)))

    # --- random draws --------------------------------------------------------------------------
    def multinomial(self, num_samples, replacement=False, *, generator=None):
        """Indices drawn with these (unnormalised) weights: see `tg.multinomial`."""
        rng = numpy_generator(generator, "multinomial")
        return type(self)._make(draw_multinomial(self.array, num_samples, replacement, rng))

    def bernoulli(self, p=None, *, generator=None):
        """1 with probability self (or `p`), else 0, in this tensor's dtype."""
        out = type(self)._make(np.empty_like(self.array))
        return out.bernoulli_(self.array if p is None else p, generator=generator)
