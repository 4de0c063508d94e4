"""`tg.poisson`: PyTorch's CPU Poisson sampler, element after element, from float64 uniforms
u (53 bits of a 64-bit draw each, as every float64 uniform of the stream).

For a rate lambda:
- lambda = 0 gives 0 and draws nothing;
- lambda < 10 (Knuth's method): multiply uniforms until the product is <= exp(-lambda);
  the sample is the number of factors before that one (k + 1 uniforms for the sample k);
- lambda >= 10 (Hormann's transformed rejection, 1993): with b = 0.931 + 2.53 sqrt(lambda),
  a = -0.059 + 0.02483 b, 1/alpha = 1.1239 + 1.1328 / (b - 3.4), v_r = 0.9277 - 3.6224 / (b - 2),
  draw U = u - 1/2 and V = u', let u_s = 1/2 - |U| and k = floor((2a / u_s + b) U + lambda + 0.43);
  accept k at once when u_s >= 0.07 and V <= v_r; reject it when k < 0, or u_s < 0.013 and
  V > u_s; otherwise accept it when
  log V + log(1/alpha) - log(a / u_s^2 + b) <= -lambda + k log lambda - log k!,
  else draw the next pair.

The number of uniforms an element uses depends on its uniforms, so the elements go one after
another in Python. The uniforms are drawn ahead in batches; afterwards the generator is put
back where the last uniform used left it (its state before, then as many words as used).
"""

from __future__ import annotations

import math

import numpy as np

from .transforms import unit_uniform

_BATCH = 4096  # uniforms drawn ahead at a time


def _knuth(rate: float, uniforms) -> int:
    threshold, product, count = math.exp(-rate), 1.0, 0
    while True:
        product *= next(uniforms)
        if product > threshold:
            count += 1
        else:
            return count


def _transformed_rejection(rate: float, uniforms) -> int:
    root, log_rate = math.sqrt(rate), math.log(rate)
    b = 0.931 + 2.53 * root
    a = -0.059 + 0.02483 * b
    inverse_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)
    while True:
        u = next(uniforms) - 0.5
        v = next(uniforms)
        u_s = 0.5 - abs(u)
        k = math.floor((2 * a / u_s + b) * u + rate + 0.43)
        if u_s >= 0.07 and v <= v_r:
            return k
        if k < 0 or (u_s < 0.013 and v > u_s):
            continue
        log_ratio = math.log(v) + math.log(inverse_alpha) - math.log(a / (u_s * u_s) + b)
        if log_ratio <= -rate + k * log_rate - math.lgamma(k + 1.0):
            return k


def poisson(gen, rates: np.ndarray) -> np.ndarray:
    """A Poisson sample (as float64) for each finite rate >= 0 of `rates`, in row-major order."""
    flat = rates.astype(np.float64).reshape(-1).tolist()
    out = np.zeros(len(flat))
    if not any(flat):
        return out.reshape(rates.shape)
    before = gen.bits.state
    used = 0

    def uniforms():
        nonlocal used
        while True:
            for u in unit_uniform(gen, _BATCH, np.float64).tolist():
                used += 1
                yield u

    stream = uniforms()
    for i, rate in enumerate(flat):
        if rate >= 10:
            out[i] = _transformed_rejection(rate, stream)
        elif rate > 0:
            out[i] = _knuth(rate, stream)
    gen.bits.state = before
    gen.raw_words(2 * used)
    return out.reshape(rates.shape)
