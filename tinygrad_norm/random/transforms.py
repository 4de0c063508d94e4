"""PyTorch's CPU transforms from mt19937 words to numbers, vectorised with NumPy.

Every function takes a `Generator` and draws exactly the words PyTorch's CPU kernel draws, in
the same order, so the stream stays aligned call after call. Notation: w is a 32-bit word
(`random()`), W a 64-bit one made of two words, hi first (`random64()`).

- uniform float32 (and float16, computed in float32): u = (w & (2**24 - 1)) / 2**24; float64:
  u = (W & (2**53 - 1)) / 2**53; then u * (b - a) + a rounded once (PyTorch's compiled kernel
  fuses the multiply-add). A value that rounds to b becomes a, so the interval stays [a, b).
- integers in [low, high): range = high - low; w % range + low, or W % range + low when
  range >= 2**28.
- normal: with 16 or more contiguous values, PyTorch fills the tensor with uniforms u, then
  turns each block of 16 into 8 Box-Muller pairs, u1 = 1 - u[j], u2 = u[j + 8]:
  r = sqrt(-2 log u1), x[j] = r cos(2 pi u2), x[j + 8] = r sin(2 pi u2) (then * std + mean);
  a size not a multiple of 16 draws 16 more uniforms for the last 16 values (float16 draws
  the uniforms 16 at a time, so without the n % 16 left-over ones). Fewer than 16
  values are drawn one at a time in float64: u1, u2 from W, r = sqrt(-2 log1p(-u2)),
  x = r cos(2 pi u1), and r sin(2 pi u1) is kept in the generator for the next single draw.
- exponential(lambda): -log1p(-u) / lambda with float64 u; bernoulli(p): u < p (float64 u
  for a Python-number p or float64 p, float32 u otherwise).
- randperm(n): start from 0..n-1 and, for i = 0..n-2, swap entry i with entry
  i + w_i % (n - i).
- multinomial: without replacement or for one sample, the categories with the largest
  p / q, q ~ Exp(1) in the weights' dtype (the Gumbel-max trick); with replacement, the first
  category whose normalised cumulative weight (in the weights' dtype) reaches a float64 u.

Large float32 uniform fills take their words two at a time as 64-bit draws (one call into
NumPy's twister for two words; `unit_uniform`, held to the single-word formula by
tests/random/test_fast_fills.py).
"""

from __future__ import annotations

import math

import numpy as np

from .permutation import fisher_yates

_MASK24_64, _MASK53 = np.uint64(2**24 - 1), np.uint64(2**53 - 1)
_MASK53_INT = 2**53 - 1
_TWO_PI32 = np.float32(2 * np.pi)
# Sizes of the work done in one go: large enough that the fixed cost of each NumPy call (and
# of each call into the twister) is spread thin, small enough that temporaries stay in cache.
_CHUNK = 2**16  # normals made at a time
_DRAWS = 2**16  # 64-bit draws a float32 uniform fill asks for at once
_SMALL = 1024  # fewer float32 uniforms than this are made from single words
_LOW24_PAIRS = np.uint64(0x00FFFFFF00FFFFFF)  # the low 24 bits of both words of a 64-bit draw
_TO_UNIT = np.float32(2.0**-24)  # a 24-bit integer k -> the uniform k / 2**24
_AS_FLOAT32 = {"dtype": np.float32, "casting": "unsafe"}  # int32 -> float32 inside a ufunc


_FLOAT32, _FLOAT64 = np.dtype(np.float32), np.dtype(np.float64)


def _float_kind(dtype) -> np.dtype:
    """The dtype PyTorch does the arithmetic in: float64 stays, every other float is float32."""
    return _FLOAT64 if np.dtype(dtype) == _FLOAT64 else _FLOAT32


def _split(a: np.ndarray):
    """Veltkamp's split of float64 a into two halves of 26 bits: a = high + low exactly."""
    c = 134217729.0 * a  # 2**27 + 1
    high = c - (c - a)
    return high, a - high


def fused_multiply_add(a: np.ndarray, b: float, c: float) -> np.ndarray:
    """a * b + c rounded once, as a fused multiply-add (which PyTorch's compiled kernels use):
    Dekker's exact product p + e = a * b and Knuth's exact sum s + t = p + c, then
    s + (t + e) (equal to the correctly rounded result but for rare ties)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(np.float64(b))
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    v = s - p
    t = (p - (s - v)) + (c - v)
    return s + (t + e)


def unit_uniform(gen, n: int, dtype=np.float32) -> np.ndarray:
    """n uniforms in [0, 1): 24 bits of a word each (float32) or 53 bits of W (float64)."""
    if dtype is not np.float32 and _float_kind(dtype) == _FLOAT64:
        return (gen.words64(n) & _MASK53).astype(np.float64) * 2.0**-53
    if n < _SMALL:  # in place where possible: small draws are made of NumPy's per-call costs
        values = gen.raw_words(n)
        values &= _MASK24_64
        values = values.astype(np.float32)
        values *= _TO_UNIT
        return values
    values = np.empty(n, np.float32)
    for start in range(0, n // 2, _DRAWS):  # 2 _DRAWS values at a time, from _DRAWS draws
        draws = gen.words64(min(_DRAWS, n // 2 - start))
        out = values[2 * start : 2 * (start + draws.size)]
        np.multiply(low24_in_word_order(draws), _TO_UNIT, out=out, **_AS_FLOAT32)
    if n % 2:
        values[-1] = np.float32(int(gen.raw_words(1)[0]) & 0xFFFFFF) * _TO_UNIT
    return values


def low24_in_word_order(draws: np.ndarray) -> np.ndarray:
    """The low 24 bits of both words of each 64-bit draw, in the order the words were drawn
    (hi word first), as a big-endian int32 array of twice the length: masked in place, then
    each draw's bytes swapped (a view of `draws`, which it overwrites)."""
    draws &= _LOW24_PAIRS
    draws.byteswap(inplace=True)
    return draws.view(">i4")


def uniform(gen, shape, dtype=np.float32, low=0.0, high=1.0) -> np.ndarray:
    """`tensor.uniform_(low, high)`: values in [low, high) (PyTorch's uniform kernel)."""
    dtype, kind = np.dtype(dtype), _float_kind(dtype)
    n = math.prod(shape)
    if dtype is kind and low == 0.0 and high == 1.0:  # rand(): the uniforms themselves
        return unit_uniform(gen, n, kind).reshape(shape)
    values = unit_uniform(gen, n, kind)
    if (low, high) != (0.0, 1.0):
        lo, hi = kind.type(low), kind.type(high)
        if kind == np.float32:  # PyTorch's float kernel fuses u * (b - a) + a (one rounding)
            values = (values.astype(np.float64) * float(hi - lo) + float(lo)).astype(kind)
        else:
            values = fused_multiply_add(values, hi - lo, lo)
    values = values.astype(dtype, copy=False)
    if (low, high) != (0.0, 1.0) or dtype != kind:  # float16 rounds some u up to 1
        values[values == dtype.type(high)] = dtype.type(low)
    return values.reshape(shape)


def _box_muller16(u: np.ndarray, out: np.ndarray, mean, std) -> None:
    """PyTorch's NormalFill16 on rows of 16 uniforms `u`, written into `out` (float32
    arithmetic for float32). The u1 and u2 halves are first gathered into contiguous arrays,
    so that NumPy's math runs over long rows instead of 8 values at a time."""
    kind = u.dtype.type
    halves = u.reshape(-1, 2, 8).transpose(1, 0, 2).copy()
    radius, theta = halves[0], halves[1]
    np.subtract(kind(1), radius, out=radius)
    np.log(radius, out=radius)
    radius *= kind(-2.0)
    np.sqrt(radius, out=radius)
    theta *= _TWO_PI32 if kind is np.float32 else 2 * np.pi
    rows = out.reshape(-1, 2, 8)
    cosine = np.cos(theta)
    cosine *= radius
    rows[:, 0] = cosine
    np.sin(theta, out=theta)
    theta *= radius
    rows[:, 1] = theta
    _scale(out, mean, std)


def _scale(out: np.ndarray, mean, std) -> None:
    """out * std + mean in place, rounded once (PyTorch's kernel ends with a fused
    multiply-add; with mean 0 and std 1 it changes nothing)."""
    if (mean, std) != (0.0, 1.0):
        if out.dtype == np.float32:
            fused = out * np.float64(np.float32(std)) + np.float64(np.float32(mean))
            out[...] = fused.astype(np.float32)
        else:
            out[...] = fused_multiply_add(out, float(std), float(mean))


def _normal_one_by_one(gen, n: int, mean: float, std: float) -> list:
    """PyTorch's scalar Box-Muller in float64, with the second sample of a pair cached: at
    most 15 values, so in plain Python on the words (NumPy's per-call costs would dominate;
    `math`'s functions are the C library's, as PyTorch's `std::` ones)."""
    values = []
    if n and gen.next_double_normal is not None:
        values.append(gen.next_double_normal)
        gen.next_double_normal = None
    words = gen.raw_words(4 * ((n - len(values) + 1) // 2)).tolist()
    for k in range(0, len(words), 4):  # u1, u2 from two 64-bit draws (hi word first)
        u1 = ((words[k] << 32 | words[k + 1]) & _MASK53_INT) * 2.0**-53
        u2 = ((words[k + 2] << 32 | words[k + 3]) & _MASK53_INT) * 2.0**-53
        radius = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        values += (radius * math.cos(theta), radius * math.sin(theta))
    if len(values) > n:
        gen.next_double_normal = values.pop()
    return [value * std + mean for value in values]


def _normal_pairs(gen, n: int, mean, std) -> np.ndarray:
    """`_normal_one_by_one` vectorised, for many values (a non-contiguous tensor)."""
    out = np.empty(n)
    i = 0
    if n and gen.next_double_normal is not None:
        out[0], gen.next_double_normal, i = gen.next_double_normal, None, 1
    pairs = (n - i + 1) // 2
    if pairs:
        u = unit_uniform(gen, 2 * pairs, np.float64).reshape(pairs, 2)
        radius = np.sqrt(-2.0 * np.log1p(-u[:, 1]))
        theta = 2.0 * np.pi * u[:, 0]
        both = np.stack([radius * np.cos(theta), radius * np.sin(theta)], axis=1).reshape(-1)
        out[i:] = both[: n - i]
        if (n - i) % 2:
            gen.next_double_normal = float(both[-1])
    return out * std + mean


def normal(gen, shape, dtype=np.float32, mean=0.0, std=1.0, contiguous=True) -> np.ndarray:
    """`tensor.normal_(mean, std)` for a tensor of `shape` (PyTorch's normal kernel: a
    non-contiguous tensor gets the one-by-one draws whatever its size)."""
    dtype, kind = np.dtype(dtype), _float_kind(dtype)
    n = math.prod(shape)
    if n < 16:
        return np.array(_normal_one_by_one(gen, n, float(mean), float(std)), dtype).reshape(shape)
    if not contiguous:
        return _normal_pairs(gen, n, float(mean), float(std)).astype(dtype).reshape(shape)
    if n < _CHUNK:
        return (
            _normal_small(gen, n, kind, dtype, mean, std).astype(dtype, copy=False).reshape(shape)
        )
    values = np.empty(n, kind)
    _normal16(gen, values[: n - n % 16], mean, std)  # PyTorch draws all n uniforms, then maps
    if n % 16:  # the last 16 values again, from 16 new uniforms; for float32 and float64
        if kind == dtype:  # PyTorch drew all n uniforms first: n % 16 of them go unused
            gen.raw_words(n % 16 * (2 if kind == np.float64 else 1))
        _normal16(gen, values[n - 16 :], mean, std)
    return values.astype(dtype, copy=False).reshape(shape)


def _normal_small(gen, n: int, kind, dtype, mean, std) -> np.ndarray:
    """`normal` for 16 <= n < _CHUNK in one kernel call (small draws are made of fixed
    costs): the uniforms of the blocks, the n % 16 unused ones, the 16 of the last block in one
    draw; the last block's values overwrite the last 16."""
    full, extra = n - n % 16, n % 16
    skipped = extra if extra and kind == dtype else 0
    u = unit_uniform(gen, full + skipped + (16 if extra else 0), kind)
    if skipped:
        u = np.concatenate([u[:full], u[full + skipped :]])
    blocks = np.empty(u.size, kind)
    _box_muller16(u, blocks, mean, std)
    if extra:  # the last block's values over the last 16 (NumPy buffers the overlap)
        blocks[n - 16 : n] = blocks[-16:]
    return blocks[:n]


def _normal16(gen, out: np.ndarray, mean, std) -> None:
    """Fill the contiguous `out` (a multiple of 16 values) with PyTorch's 16-value blocks."""
    for start in range(0, out.size, _CHUNK):  # in cache-sized chunks
        part = out[start : start + _CHUNK]
        _box_muller16(unit_uniform(gen, part.size, out.dtype), part, mean, std)


def in_memory_order(values: np.ndarray, view: np.ndarray) -> np.ndarray:
    """`values`, drawn one after another, placed as PyTorch's element-by-element kernels
    place them in a tensor like `view`: in the order of its memory (for a transposed view,
    column after column), which is the row-major order only for a contiguous one."""
    if view.flags.c_contiguous or view.ndim < 2 or 0 in view.strides:
        return values.reshape(view.shape)
    return _placed(values, view)


def _placed(values: np.ndarray, view: np.ndarray) -> np.ndarray:
    """`in_memory_order` for a view that is not C-contiguous."""
    offsets = sum(i * stride for i, stride in zip(np.indices(view.shape), view.strides))
    placed = np.empty(view.size, values.dtype)
    placed[np.argsort(offsets.reshape(-1), kind="stable")] = values.reshape(-1)
    return placed.reshape(view.shape)


def like_input(values: np.ndarray, view: np.ndarray) -> np.ndarray:
    """`values` laid out as PyTorch's `empty_like(input)` would hold them: in `view`'s memory
    order when it is a permutation of a contiguous block (a transposed tensor), else row-major
    (`empty_like` of a sliced or expanded tensor is contiguous)."""
    if view.flags.c_contiguous:
        return values.reshape(view.shape)
    order = np.argsort(view.strides, kind="stable")[::-1]
    expected = view.itemsize * np.cumprod([1] + [view.shape[i] for i in order[::-1]][:-1])[::-1]
    dense = all(view.strides[i] == e for i, e in zip(order, expected) if view.shape[i] > 1)
    return in_memory_order(values, view) if dense else values.reshape(view.shape)


def integers(gen, low: int, high: int, shape, dtype=np.int64) -> np.ndarray:
    """`tensor.random_(low, high)` / `randint`: integers in [low, high)."""
    n, span = math.prod(shape), int(high) - int(low)
    if span >= 2**28:
        offsets = gen.words64(n) % np.uint64(span)
    elif n < _SMALL:  # few values: as few NumPy calls as possible (a minibatch's indices)
        offsets = gen.raw_words(n)
        offsets %= np.uint64(span)
    else:
        offsets = gen.words(n) % np.uint32(span)
    if offsets.dtype == np.uint32:
        offsets = offsets.astype(np.int64)
    values = offsets.view(np.int64)  # a uint64 offset >= 2**63 wraps, as in PyTorch's int64
    if low:
        values += int(low)
    if dtype is not np.int64:
        values = values.astype(dtype, copy=False)
    return values if len(shape) == 1 else values.reshape(shape)


def random_bits(gen, shape, dtype) -> np.ndarray:
    """`tensor.random_()` with no bounds: [0, 2**mantissa] for floats, [0, max] for integers."""
    dtype = np.dtype(dtype)
    n = math.prod(shape)
    if dtype == np.bool_:
        return (gen.words(n) & np.uint32(1)).astype(bool).reshape(shape)
    if dtype in (np.int64, np.float64):
        top = 2**63 if dtype == np.int64 else 2**53 + 1
        return (gen.words64(n) % np.uint64(top)).astype(dtype).reshape(shape)
    if dtype.kind == "f":
        top = 2 ** (np.finfo(dtype).nmant + 1) + 1
    else:
        top = int(np.iinfo(dtype).max) + 1
    return (gen.words(n).astype(np.uint64) % np.uint64(top)).astype(dtype).reshape(shape)


def exponential(gen, shape, dtype=np.float32, lambd=1.0) -> np.ndarray:
    """`tensor.exponential_(lambd)`: -log1p(-u) / lambd, u a float64 uniform."""
    n = math.prod(shape)
    return (-1.0 / lambd * np.log1p(-unit_uniform(gen, n, np.float64))).astype(dtype).reshape(shape)


def bernoulli(gen, p, shape, dtype=np.float32, layout=None) -> np.ndarray:
    """1 where u < p: u float64 for a Python number or float64 p, else float32 (PyTorch's).
    With `layout` (the array filled), the u are placed in its memory order first."""
    n = math.prod(shape)
    p = p if isinstance(p, np.ndarray) else float(p)
    precise = not isinstance(p, np.ndarray) or p.dtype == np.float64
    u = unit_uniform(gen, n, np.float64 if precise else np.float32).reshape(shape)
    if layout is not None:
        u = in_memory_order(u, layout)
    if isinstance(p, np.ndarray) and not precise:
        p = p.astype(np.float32)
    return (u < p).astype(dtype)


def randperm(gen, n: int) -> np.ndarray:
    """PyTorch's randperm for n below 2**32 / 20: Fisher-Yates from the front, one word a swap
    (the swaps resolved without a loop: permutation.py)."""
    if n < 2:
        return np.arange(n, dtype=np.int64)
    steps = np.arange(n - 1, dtype=np.int64)
    targets = steps + gen.words(n - 1) % np.arange(n, 1, -1, dtype=np.uint32)
    return fisher_yates(targets)


def multinomial(gen, rows: np.ndarray, num_samples: int, replacement: bool) -> np.ndarray:
    """Category indices for each row of the 2-D float `rows` (checked by the caller)."""
    if not replacement or num_samples == 1:
        q = exponential(gen, rows.shape, rows.dtype)
        keys = rows / q
        if num_samples == 1:
            return np.argmax(keys, axis=1)[:, None].astype(np.int64)
        return np.argsort(-keys, axis=1, kind="stable")[:, :num_samples].astype(np.int64)
    kind = np.float64 if rows.dtype == np.float64 else np.float32
    out = np.empty((len(rows), num_samples), np.int64)
    for r, row in enumerate(rows.astype(kind)):
        cumulative = np.cumsum(row, dtype=kind)
        cumulative /= cumulative[-1]
        cumulative[-1] = 1
        u = unit_uniform(gen, num_samples, np.float64)
        out[r] = np.searchsorted(cumulative.astype(np.float64), u, side="left")
    return out
