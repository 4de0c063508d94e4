"""Limits of indexing: advanced indices, gather / take, scatter and its reductions, index_add,
index_put, masked_select / masked_scatter. The forward reads (or writes) the places; the
backward sends g back to them, adding where a place repeats (`np.add.at` on the few places the
table's index constants name, a slice update per index where whole rows move).
"""

from __future__ import annotations

import numpy as np

from ...testing.op_cases import _COND, _INDEX
from ...testing.op_cases_shape import IDX, MASK, MASK2, UNIQUE


def _places(index, dim):
    """The (row, column) fancy index of a 2-d gather / scatter with `index` along `dim`."""
    other = np.arange(index.shape[1 - dim]).reshape((1, -1) if dim == 0 else (-1, 1))
    return (index, other) if dim == 0 else (other, index)


def _read(index):
    """x[index] with places that may repeat: dx = zeros with g added at index."""

    def limit(xs, g):
        (x,) = xs
        x[index]
        gx = np.zeros_like(x)
        np.add.at(gx, index, g)
        return [gx]

    return limit


def _read_flat(index):
    """x.reshape(-1)[index]: the same on the flat view."""

    def limit(xs, g):
        (x,) = xs
        flat = x.reshape(-1)
        flat[index]
        gx = np.zeros(x.size, x.dtype)
        np.add.at(gx, np.asarray(index) % x.size, g)
        return [gx.reshape(x.shape)]

    return limit


def _masked_read(mask):
    def limit(xs, g):
        (x,) = xs
        full = np.broadcast_to(mask, x.shape)
        x[full]
        gx = np.zeros_like(x)
        gx[full] = g
        return [gx]

    return limit


def gather(dim, index):
    def limit(xs, g):
        (x,) = xs
        places = _places(index, dim)
        x[places]
        gx = np.zeros_like(x)
        np.add.at(gx, places, g)
        return [gx]

    return limit


def index_select(xs, g):
    """x[..., [3, 0, 3]]: each chosen slice of g added back to its column."""
    (x,) = xs
    index = [3, 0, 3]
    x[..., index]
    gx = np.zeros_like(x)
    for k, i in enumerate(index):
        gx[..., i] += g[..., k]
    return [gx]


def take_along_broadcast(xs, g):
    """take_along_dim(x, IDX[:1], -1): the index row broadcast over x's rows."""
    (x,) = xs
    index = IDX[0]
    x[:, index]
    gx = np.zeros_like(x)
    for k, i in enumerate(index):
        gx[:, i] += g[:, k]
    return [gx]


def scatter(with_source):
    """scatter(1, UNIQUE, s): out = x with s written at the places; dx = g there zeroed,
    ds = g read at the places (0 for the source entries not used)."""

    def limit(xs, g):
        x = xs[0]
        places = _places(UNIQUE, 1)
        out = x.copy()
        out[places] = xs[1][: UNIQUE.shape[0], : UNIQUE.shape[1]] if with_source else 0.5
        gx = g.copy()
        gx[places] = 0.0
        if not with_source:
            return [gx]
        gs = np.zeros_like(xs[1])
        gs[: UNIQUE.shape[0], : UNIQUE.shape[1]] = g[places]
        return [gx, gs]

    return limit


def scatter_add(xs, g):
    """out = x, then s added at IDX's places: dx = g, ds = g read at the places."""
    x, s = xs
    places = _places(IDX, 1)
    out = x.copy()
    np.add.at(out, places, s[: IDX.shape[0], : IDX.shape[1]])
    gs = np.zeros_like(s)
    gs[: IDX.shape[0], : IDX.shape[1]] = g[places]
    return [g.copy(), gs]


def _source_grad(source, used):
    """The source's gradient: `used` on the corner the index reaches, 0 elsewhere."""
    if used.shape == source.shape:
        return used
    out = np.zeros_like(source)
    out[: used.shape[0], : used.shape[1]] = used
    return out


def scatter_reduce(reduce, include_self):
    """scatter_reduce(1, IDX, s, reduce, include_self) on (3, 4) x and (3, 3) s.

    hit = the places some source reaches. sum: dx = g (0 at hit without self), ds = g[place];
    prod: d = g out / value; mean: g / count at hit; amax / amin: g shared evenly among the
    values equal to the result."""

    def limit(xs, g):
        x, s = xs[0], xs[1][: IDX.shape[0], : IDX.shape[1]]
        places = _places(IDX, 1)
        hit = np.zeros(x.shape, bool)
        hit[places] = True
        count = np.zeros_like(x)
        np.add.at(count, places, 1.0)
        ufunc = {"sum": np.add, "mean": np.add, "prod": np.multiply}.get(reduce)
        ufunc = ufunc or (np.maximum if reduce == "amax" else np.minimum)
        neutral = {"sum": 0.0, "mean": 0.0, "prod": 1.0, "amax": -np.inf, "amin": np.inf}
        out = x.copy() if include_self else np.where(hit, neutral[reduce], x)
        ufunc.at(out, places, s)
        if reduce == "mean":
            out /= np.where(hit, count + include_self, 1.0)
        self_kept = np.ones(x.shape, bool) if include_self else ~hit
        if reduce in ("sum", "mean"):
            share = g / np.where(hit, count + include_self, 1.0) if reduce == "mean" else g
            return [np.where(self_kept, share, 0.0), _source_grad(xs[1], share[places])]
        if reduce == "prod":
            gout = g * out
            return [np.where(self_kept, gout / x, 0.0), _source_grad(xs[1], gout[places] / s)]
        x_is = (x == out) & self_kept
        s_is = s == out[places]
        ties = x_is.astype(x.dtype)
        np.add.at(ties, places, s_is)
        share = g / np.maximum(ties, 1.0)
        gs = np.where(s_is, share[places], 0.0)
        return [np.where(x_is, share, 0.0), _source_grad(xs[1], gs)]

    return limit


def index_add(xs, g):
    """x.index_add(0, [2, 0, 2], s, alpha=-1.5): dx = g, ds = -1.5 g[index]."""
    x, s = xs
    index = [2, 0, 2]
    out = x.copy()
    np.add.at(out, index, s * -1.5)
    return [g.copy(), g[index] * -1.5]


def masked_scatter(xs, g):
    """The first mask.sum() source values placed where MASK2 is True, in order."""
    x, s = xs
    k = int(MASK2.sum())
    out = x.copy()
    out[MASK2] = s[:k]
    gs = np.zeros_like(s)
    gs[:k] = g[MASK2]
    return [np.where(MASK2, 0.0, g), gs]


def index_put(xs, g):
    x, v = xs
    places = ([0, 2], [1, 3])
    out = x.copy()
    out[places] = v
    gx = g.copy()
    gx[places] = 0.0
    return [gx, g[places]]


def index_put_accumulate(xs, g):
    x, v = xs
    index = [0, 0, 2]
    out = x.copy()
    np.add.at(out, index, v)
    return [g.copy(), g[index]]


LIMITS = {
    "index_repeated": _read(_INDEX),
    "index_pairs": _read(([0, 0, 1], [2, 2, 0])),
    "index_bool": _masked_read(_COND),
    "masked_select_broadcast": _masked_read(MASK),
    "gather": gather(1, IDX),
    "gather_dim0_neg": gather(0, IDX[:2] % 3),
    "take_along_dim_broadcast": take_along_broadcast,
    "take_along_dim_flat": _read_flat([5, 1, 5]),
    "take": _read_flat([[0, -1], [11, 0]]),
    "index_select": index_select,
    "scatter": scatter(True),
    "scatter_value": scatter(False),
    "scatter_add": scatter_add,
    **{
        f"scatter_reduce_{r}{'' if inc else '_exclude_self'}": scatter_reduce(r, inc)
        for r in ("sum", "prod", "mean", "amax", "amin")
        for inc in (True, False)
    },
    "index_add_alpha": index_add,
    "masked_scatter": masked_scatter,
    "index_put": index_put,
    "index_put_accumulate": index_put_accumulate,
}
