"""Random fills and draws as Tensor methods: `w.bernoulli_(0.5)`, `t.random_(0, 10)`,
`t.exponential_()`, `probs.multinomial(1)`, `p.bernoulli()`. Each draws from `generator=` (a
`tg.Generator`) or the global generator (`tinygrad_norm/random.py`).
"""

from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import is_grad_enabled
from ..random import draw_multinomial, resolve, transforms


class SamplingMethods:
    __slots__ = ()

    # --- random fills, in place (through copy_: checked and counted as every in-place change) ---
    def bernoulli_(self, p=0.5, *, generator=None):
        """Fill with 1 (probability p) or 0, drawn from `generator` (or the global one)."""
        p = np.asarray(getattr(p, "array", p))
        p = p if p.ndim else float(p)  # a number: float64 uniforms, as PyTorch's scalar kernel
        if np.any((p < 0) | (p > 1)) or np.any(np.isnan(p)):
            raise RuntimeError(f"bernoulli_: expected 0 <= p <= 1, got p = {p}")
        gen = resolve(generator, "bernoulli_")
        shape, dtype = self.array.shape, self.array.dtype
        draws = transforms.bernoulli(gen, p, shape, dtype, layout=self.array)
        return self._fill("bernoulli_", draws)

    def random_(self, from_=0, to=None, *, generator=None):
        """Fill with integers drawn uniformly from [from_, to) (or [0, from_) when `to` is
        omitted, as `random_(to)` in PyTorch)."""
        low, high = (0, from_) if to is None else (from_, to)
        gen, shape = resolve(generator, "random_"), self.array.shape
        if to is None and from_ == 0:
            draws = transforms.random_bits(gen, shape, self.array.dtype)
        else:
            draws = transforms.integers(gen, low, high, shape, np.int64)
        return self._fill("random_", transforms.in_memory_order(draws, self.array))

    def exponential_(self, lambd=1.0, *, generator=None):
        """Fill with samples of the exponential distribution of rate `lambd`."""
        gen = resolve(generator, "exponential_")
        values = transforms.exponential(gen, self.array.shape, self.array.dtype, lambd)
        return self._fill("exponential_", transforms.in_memory_order(values, self.array))

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
        gen = resolve(generator, "multinomial")
        return type(self)._make(draw_multinomial(self.array, num_samples, replacement, gen))

    def bernoulli(self, p=None, *, generator=None):
        """1 with probability self (or `p`), else 0, in this tensor's dtype."""
        out = type(self)._make(np.empty(self.array.shape, self.array.dtype))  # contiguous
        return out.bernoulli_(self.array if p is None else p, generator=generator)
