"""Limits of the movement ops: reshape, permute, expand, repeat, flip, roll, rot90, pad,
diagonals, split and cat. The forward is NumPy's own call (a view where NumPy makes one); the
backward is the inverse movement of g (a reshape, the inverse permutation, a sum over the
broadcast axes, a fold of the padded borders).
"""

from __future__ import annotations

import numpy as np

from .common import sum_to


def _view(forward, backward):
    """forward(x) is a movement, backward(g, x) its inverse on the gradient."""

    def limit(xs, g):
        (x,) = xs
        forward(x)
        return [backward(g, x)]

    return limit


def _reshaped(forward):
    return _view(forward, lambda g, x: g.reshape(x.shape))


def _as_times_other(reshape):
    """reshape(x, y.shape) * y: dx = (g y) back to x's shape, dy = g reshape(x)."""

    def limit(xs, g):
        x, y = xs
        shaped = reshape(x, y)
        shaped * y
        return [sum_to(g * y, shaped.shape).reshape(x.shape), g * shaped]

    return limit


def _tile_limit(reps):
    def limit(xs, g):
        (x,) = xs
        np.tile(x, reps)
        shape = (1,) * (len(reps) - x.ndim) + x.shape
        pairs = [n for r, s in zip(reps, shape) for n in (r, s)]
        return [g.reshape(pairs).sum(axis=tuple(range(0, 2 * len(reps), 2))).reshape(x.shape)]

    return limit


def _into_zeros(index):
    """x[index] (a basic index): dx = zeros with g written at index."""

    def limit(xs, g):
        (x,) = xs
        x[index]
        gx = np.zeros_like(x)
        gx[index] = g
        return [gx]

    return limit


def cat(xs, g):
    """cat([x, y, x], -1): dx = the two x-slices of g added, dy = y's slice."""
    x, y = xs
    np.concatenate([x, y, x], -1)
    n, m = x.shape[-1], y.shape[-1]
    return [g[..., :n] + g[..., n + m :], g[..., n : n + m].copy()]


def _split(forward, axis):
    """split / chunk: the gradients of the pieces concatenated back."""

    def limit(xs, g):
        forward(xs[0])
        return [np.concatenate(g, axis)]

    return limit


def repeat_interleave_counts(xs, g):
    """np.repeat(x, [0, 3], 0): each row's gradient is the sum of its copies'."""
    (x,) = xs
    counts = np.array([0, 3])
    np.repeat(x, counts, 0)
    gx = np.zeros_like(x)
    np.add.at(gx, np.repeat(np.arange(len(counts)), counts), g)
    return [gx]


def unfold_overlapping(xs, g):
    """x.unfold(1, 3, 2): windows of 3 every 2 along dim 1; dx adds each window place back."""
    (x,) = xs
    size, step = 3, 2
    windows = np.lib.stride_tricks.sliding_window_view(x, size, axis=1)[:, ::step]
    gx = np.zeros_like(x)
    count = windows.shape[1]
    for j in range(size):
        gx[:, j : j + step * (count - 1) + 1 : step] += g[..., j]
    return [gx]


def _diagonal_places(rows, cols, offset):
    """(row, column) indices of the diagonal `offset` of a rows x cols matrix."""
    start_r, start_c = max(-offset, 0), max(offset, 0)
    n = max(0, min(rows - start_r, cols - start_c))
    return np.arange(start_r, start_r + n), np.arange(start_c, start_c + n)


def diag_matrix(xs, g):
    """np.diag(x, -1): dx = zeros with g on that diagonal."""
    (x,) = xs
    np.diag(x, -1)
    r, c = _diagonal_places(*x.shape, -1)
    gx = np.zeros_like(x)
    gx[r, c] = g
    return [gx]


def diag_vector(xs, g):
    (x,) = xs
    np.diag(x, 1)
    return [np.diag(g, 1).copy()]


def diagonal(xs, g):
    """np.diagonal(x, 1, -1, 0) of a 3-d x: dx = zeros with g (middle dim, diagonal) placed."""
    (x,) = xs
    np.diagonal(x, 1, -1, 0)
    last, first = _diagonal_places(x.shape[-1], x.shape[0], 1)
    gx = np.zeros_like(x)
    gx[first, :, last] = g.T
    return [gx]


def trace(xs, g):
    (x,) = xs
    np.trace(x)
    r, c = _diagonal_places(*x.shape, 0)
    gx = np.zeros_like(x)
    gx[r, c] = g
    return [gx]


def diag_embed(xs, g):
    """diag_embed(x, -1, 0, 2): out[j + 1, b, j] = x[b, j]; dx[b, j] = g[j + 1, b, j]."""
    (x,) = xs
    n = x.shape[-1] + 1
    j = np.arange(x.shape[-1])
    out = np.zeros((n, x.shape[0], n), x.dtype)
    out[j + 1, :, j] = x.T
    return [g[j + 1, :, j].T.copy()]


def meshgrid_ij(xs, g):
    x, y = xs
    np.meshgrid(x, y, indexing="ij")
    return [g[0].sum(axis=1), g[1].sum(axis=0)]


def meshgrid_xy(xs, g):
    """xy indexing: outputs of shape (len y, len x, len z)."""
    x, y, z = xs
    np.meshgrid(x, y, z, indexing="xy")
    return [g[0].sum(axis=(0, 2)), g[1].sum(axis=(1, 2)), g[2].sum(axis=(0, 1))]


def broadcast_tensors(xs, g):
    x, y = xs
    np.broadcast_arrays(x, y)
    return [sum_to(g[0], x.shape), sum_to(g[1], y.shape)]


def _broadcast_to(shape):
    """np.broadcast_to(x, shape(x)): dx sums g over the broadcast axes."""
    return _view(lambda x: np.broadcast_to(x, shape(x)), lambda g, x: sum_to(g, x.shape))


def pad_constant_crop(xs, g):
    """pad (1, -1, 2, 0), value 0.5: the kept part of x gets g's inner part, the cut column 0."""
    (x,) = xs
    np.pad(x[:, :, :-1], [(0, 0), (2, 0), (1, 0)], constant_values=0.5)
    gx = np.zeros_like(x)
    gx[:, :, :-1] = g[:, 2:, 1:]
    return [gx]


def pad_reflect(xs, g):
    """reflect (3, 2) on the last axis: the mirrored borders of g added back onto x's places."""
    (x,) = xs
    left, right = 3, 2
    n = x.shape[-1]
    np.pad(x, [(0, 0)] * (x.ndim - 1) + [(left, right)], mode="reflect")
    gx = g[..., left : left + n].copy()
    gx[..., 1 : left + 1] += g[..., :left][..., ::-1]
    gx[..., n - 1 - right : n - 1] += g[..., left + n :][..., ::-1]
    return [gx]


def _fold(g, axis, left, right, n, circular):
    """The axis of g padded by (left, right) folded back to n places: replicate adds each
    border to the edge element, circular adds it to the other end."""
    moved = np.moveaxis(g, axis, 0)
    out = moved[left : left + n].copy()
    if circular:
        out[n - left :] += moved[:left]
        out[:right] += moved[left + n :]
    else:
        out[0] += moved[:left].sum(axis=0)
        out[-1] += moved[left + n :].sum(axis=0)
    return np.moveaxis(out, 0, axis)


def _pad_mode(pads, mode, circular):
    """np.pad(x, pads, mode); dx folds each padded axis of g back, last padded axis first."""

    def limit(xs, g):
        (x,) = xs
        np.pad(x, pads, mode=mode)
        for axis in reversed(range(x.ndim)):
            left, right = pads[axis]
            if left or right:
                g = _fold(g, axis, left, right, x.shape[axis], circular)
        return [g]

    return limit


def pixel_shuffle(xs, g):
    """(n, c r^2, h, w) -> (n, c, h r, w r) by a reshape and a permutation; dx the inverse."""
    (x,) = xs
    n, c4, h, w = x.shape
    r = 2
    c = c4 // (r * r)
    x.reshape(n, c, r, r, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, c, h * r, w * r)
    back = g.reshape(n, c, h, r, w, r).transpose(0, 1, 3, 5, 2, 4).reshape(x.shape)
    return [back]


LIMITS = {
    "reshape": _reshaped(lambda x: x.reshape(3, 2, 2)),
    "view_infer": _reshaped(lambda x: x.reshape(-1, 4)),
    "flatten": _reshaped(lambda x: x.reshape(x.shape[0], -1)),
    "unflatten": _reshaped(lambda x: x.reshape(x.shape[0], 2, -1)),
    "squeeze": _reshaped(np.squeeze),
    "squeeze_dim": _reshaped(lambda x: x.squeeze(-1)),
    "unsqueeze": _reshaped(lambda x: x[..., None]),
    "permute": _view(lambda x: x.transpose(2, 0, 1), lambda g, x: g.transpose(1, 2, 0)),
    "transpose": _view(lambda x: np.swapaxes(x, 0, -1), lambda g, x: np.swapaxes(g, 0, -1)),
    "T": _view(lambda x: x.T, lambda g, x: g.T),
    "swapaxes_contiguous": _view(
        lambda x: np.ascontiguousarray(x.swapaxes(0, 1)), lambda g, x: g.swapaxes(0, 1)
    ),
    "movedim": _view(
        lambda x: np.moveaxis(x, (0, -1), (-1, 1)), lambda g, x: np.moveaxis(g, (-1, 1), (0, -1))
    ),
    "moveaxis": _view(lambda x: np.moveaxis(x, 0, 2), lambda g, x: np.moveaxis(g, 2, 0)),
    "clone": _view(np.copy, lambda g, x: g),
    "expand": _broadcast_to(lambda x: (2, 3, 4)),
    "broadcast_to": _broadcast_to(lambda x: (2, x.shape[0], 4)),
    "broadcast_tensors": broadcast_tensors,
    "expand_as": _as_times_other(lambda x, y: x),
    "view_as": _as_times_other(lambda x, y: x.reshape(y.shape)),
    "reshape_as": _as_times_other(lambda x, y: x.reshape(y.shape)),
    "repeat": _tile_limit((2, 1, 3)),
    "index_basic": _into_zeros((slice(1, None), None, Ellipsis, slice(None, None, 2))),
    "index_int": _into_zeros((1, -1)),
    "narrow": _into_zeros((Ellipsis, slice(1, 3))),
    "cat": cat,
    "split": _split(lambda x: np.split(x, range(2, x.shape[-1], 2), -1), -1),
    "split_sizes": _split(lambda x: np.split(x, [1], 0), 0),
    "chunk": _split(lambda x: np.split(x, [(x.shape[1] + 1) // 2], 1), 1),
    "flip": _view(lambda x: x[::-1, :, ::-1], lambda g, x: g[::-1, :, ::-1]),
    "lib_flip": _view(lambda x: x[:, ::-1], lambda g, x: g[:, ::-1]),
    "fliplr": _view(np.fliplr, lambda g, x: np.fliplr(g)),
    "flipud": _view(np.flipud, lambda g, x: np.flipud(g)),
    "roll_dims": _view(
        lambda x: np.roll(x, (1, -2), (0, 2)), lambda g, x: np.roll(g, (-1, 2), (0, 2))
    ),
    "roll_flat": _view(lambda x: np.roll(x, 5), lambda g, x: np.roll(g, -5)),
    "rot90": _view(np.rot90, lambda g, x: np.rot90(g, -1)),
    "rot90_k_dims": _view(lambda x: np.rot90(x, -1, (2, 0)), lambda g, x: np.rot90(g, 1, (2, 0))),
    "rot90_k2": _view(lambda x: np.rot90(x, 2), lambda g, x: np.rot90(g, 2)),
    "repeat_interleave": _view(
        lambda x: np.repeat(x, 2, -1), lambda g, x: g.reshape(x.shape + (2,)).sum(axis=-1)
    ),
    "repeat_interleave_flat": _view(
        lambda x: np.repeat(x, 2), lambda g, x: g.reshape(-1, 2).sum(axis=-1).reshape(x.shape)
    ),
    "repeat_interleave_counts": repeat_interleave_counts,
    "unfold_overlapping": unfold_overlapping,
    "diag_vector": diag_vector,
    "diag_matrix": diag_matrix,
    "diagonal": diagonal,
    "trace": trace,
    "diag_embed": diag_embed,
    "meshgrid_ij": meshgrid_ij,
    "meshgrid_xy": meshgrid_xy,
    "pad_constant_value_crop": pad_constant_crop,
    "pad_reflect": pad_reflect,
    "pad_replicate_2d": _pad_mode([(0, 0), (2, 1), (1, 2)], "edge", circular=False),
    "pad_circular_3d": _pad_mode([(0, 0), (0, 0), (2, 0), (0, 2), (1, 1)], "wrap", circular=True),
    "pixel_shuffle": pixel_shuffle,
}
