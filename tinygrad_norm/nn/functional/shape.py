"""F.one_hot, F.pad and F.normalize: PyTorch's arguments, composed from the index primitives.

- `one_hot(tensor, num_classes=-1)`: class indices -> int64 rows with a single 1.
- `pad(input, pad, mode="constant", value=None)`: widen (or, with negative sizes, crop) the
  last axes. "constant" writes the input into a tensor filled with `value` (ScatterAdd, so
  the gradient is grad_out cut back to the input's place); "reflect", "replicate" and
  "circular" read every output element from an input position (one GetItem per axis), so an
  input element copied into the border receives the gradients of all its copies.
- `normalize(input, p=2.0, dim=1, eps=1e-12)`: x / max(||x||_p, eps) along `dim`.
"""

from __future__ import annotations

import numpy as np

from ...functions.creation import as_tensor
from ...ops import composite as C
from ...ops.elementwise import Where
from ...ops.indexing import constant, index_array
from ...ops.movement import GetItem, ScatterAdd
from ...ops.shape import integer_sizes

__all__ = ["normalize", "one_hot", "pad"]

MODES = ("constant", "reflect", "replicate", "circular")


def one_hot(tensor, num_classes=-1):
    """out[..., c] = 1 where c == tensor[...], else 0; int64 of shape (*tensor.shape, classes).
    num_classes=-1 takes the largest class + 1.

    >>> import tinygrad_norm as tg
    >>> tg.nn.functional.one_hot(tg.tensor([0, 2]), 3).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """
    tensor = as_tensor(tensor)
    data = tensor.array
    if data.dtype.kind not in "iu":
        raise RuntimeError(
            f"one_hot: expected an integer (int64) tensor of class indices, got {data.dtype}; "
            "convert it with .long()"
        )
    labels = index_array("one_hot", data)
    if num_classes == -1:
        if labels.size == 0:
            raise RuntimeError(
                "one_hot: cannot infer the number of classes from an empty tensor; pass num_classes"
            )
        num_classes = int(labels.max()) + 1
    if labels.size and labels.min() < 0:
        raise RuntimeError(f"one_hot: class values must be non-negative, got {labels.min()}")
    if labels.size and labels.max() >= num_classes:
        raise RuntimeError(
            f"one_hot: class values must be smaller than num_classes ({num_classes}), got "
            f"{labels.max()}"
        )
    return constant((labels[..., None] == np.arange(num_classes)).astype(np.int64), tensor)


def pad(input, pad, mode="constant", value=None):  # noqa: A002 - PyTorch's names
    """Pad the last len(pad) // 2 axes: pad = (left, right) for the last axis, then (left,
    right) for the one before it, and so on. Negative sizes crop.

    Modes: "constant" fills with `value` (default 0); "reflect" mirrors without repeating the
    edge ([1, 2, 3] -> 3 2 | 1 2 3 | 2 1); "replicate" repeats the edge (1 1 | 1 2 3 | 3 3);
    "circular" wraps around (2 3 | 1 2 3 | 1 2). The last three pad 1 to 3 axes of a
    (batch, channels, ...) input, the batch axis optional, as in PyTorch.

    >>> import tinygrad_norm as tg
    >>> F = tg.nn.functional
    >>> F.pad(tg.tensor([[[1.0, 2.0, 3.0]]]), (2, 1), mode="reflect").tolist()
    [[[3.0, 2.0, 1.0, 2.0, 3.0, 2.0]]]
    """
    x = as_tensor(input)
    sizes = integer_sizes("pad", tuple(pad))
    if len(sizes) % 2:
        raise RuntimeError(f"pad: the padding length must be even (pairs), got {sizes}")
    axes = len(sizes) // 2
    if axes > x.ndim:
        raise RuntimeError(
            f"pad: {len(sizes)} padding sizes pad {axes} axes but the input {x.shape} has only "
            f"{x.ndim}"
        )
    pairs = {x.ndim - 1 - i: (sizes[2 * i], sizes[2 * i + 1]) for i in range(axes)}
    if mode not in MODES:
        raise NotImplementedError(f"pad: unrecognised padding mode {mode!r}; use one of {MODES}")
    if mode == "constant":
        return _pad_constant(x, pairs, 0 if value is None else value)
    if value not in (None, 0):
        raise RuntimeError(f"pad: value is only used with mode='constant', not {mode!r}")
    if not 1 <= axes <= 3 or x.ndim not in (axes + 1, axes + 2):
        raise NotImplementedError(
            f"pad: mode {mode!r} pads 1 to 3 trailing axes of a (batch, channels, ...) input "
            f"(batch optional), got {len(sizes)} sizes for an input of shape {x.shape}"
        )
    batch = x.ndim - axes - 1  # 1 when there is a batch axis, which alone may be empty
    if 0 in x.shape[batch:]:
        raise RuntimeError(
            f"pad: mode {mode!r} needs non-empty dimensions (only a batch axis may be 0), got "
            f"an input of shape {x.shape}"
        )
    for d, (left, right) in pairs.items():
        x = _pad_axis(x, d, left, right, mode)
    return x


def _pad_constant(x, pairs: dict, value):
    """Crop the negative sizes, then write x into a tensor of `value` with positive borders."""
    widths = [pairs.get(d, (0, 0)) for d in range(x.ndim)]
    for d, ((left, right), n) in enumerate(zip(widths, x.shape)):
        if n + min(left, 0) + min(right, 0) < 0:
            raise RuntimeError(
                f"pad: cropping ({left}, {right}) from dimension {d} of size {n} leaves less "
                "than nothing"
            )
    crop = tuple(slice(max(-l, 0), n - max(-r, 0)) for (l, r), n in zip(widths, x.shape))
    if any(s != slice(0, n) for s, n in zip(crop, x.shape)):
        x = x[crop]
    widths = [(max(l, 0), max(r, 0)) for l, r in widths]
    shape = tuple(l + n + r for (l, r), n in zip(widths, x.shape))
    if shape == x.shape:
        return x
    place = tuple(slice(l, l + n) for (l, _), n in zip(widths, x.shape))
    out = ScatterAdd.apply(x, index=place, shape=shape)
    if value == 0:
        return out
    inside = np.zeros(shape, dtype=bool)
    inside[place] = True
    return Where.apply(inside, out, np.asarray(value, dtype=x.dtype))


def _pad_axis(x, d: int, left: int, right: int, mode: str):
    """Pad axis d by reading each output position from an input position (negative sizes
    crop first, as PyTorch: the border is made from what is left)."""
    if left < 0 or right < 0:
        x = x[(slice(None),) * d + (slice(max(-left, 0), x.shape[d] - max(-right, 0)),)]
        left, right = max(left, 0), max(right, 0)
    n = x.shape[d]
    limit = {"reflect": n - 1, "circular": n}.get(mode)  # replicate: any size, as PyTorch
    too_wide = limit is not None and max(left, right) > limit
    if too_wide or (n == 0 and (left > 0 or right > 0)):
        why = "reflect never repeats the edge" if mode == "reflect" else "it wraps around once"
        raise RuntimeError(
            f"pad: {mode} padding ({left}, {right}) of dimension {d} must be at most "
            f"{limit} (its size is {n}): {why}"
        )
    positions = np.arange(-left, n + right)
    if mode == "replicate":
        index = np.clip(positions, 0, n - 1)
    elif mode == "circular":
        index = positions % n
    else:  # reflect: mirror at 0 and at n - 1, a period of 2n - 2
        period = max(2 * n - 2, 1)
        index = positions % period
        index = np.where(index >= n, period - index, index)
    return GetItem.apply(x, index=(slice(None),) * d + (index,))


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):  # noqa: A002
    """x / max(||x||_p, eps) along `dim`: unit vectors, safe at the zero vector.

    >>> import tinygrad_norm as tg
    >>> tg.nn.functional.normalize(tg.tensor([[3.0, 4.0]]))
    tensor([[0.6000, 0.8000]])
    """
    x = as_tensor(input)
    norm = C.norm(x, p, dim, keepdim=True)
    return x / C.clamp(norm, min=eps)
