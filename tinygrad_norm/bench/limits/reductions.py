"""Limits of the reductions (sum, mean, var, std, max/min, norms, prod, logsumexp), the scans
(cumprod, logcumsumexp, cummax) and the selections (median, kthvalue, mode, sort, topk).

A reduction's gradient is g spread back over the reduced axes (a broadcast, materialised once
where it is multiplied). A selection's gradient is g scattered to the selected places, the
indices coming from the same argsort / argpartition that the forward needs.
"""

from __future__ import annotations

import numpy as np

from .common import expand_back, scatter_along, sign


def _count(shape, axis):
    axes = range(len(shape)) if axis is None else np.atleast_1d(axis)
    return int(np.prod([shape[a] for a in axes]))


def mean(axis, keepdims=False):
    def limit(xs, g):
        (x,) = xs
        x.mean(axis=axis, keepdims=keepdims)
        n = _count(x.shape, axis)
        return [np.multiply(expand_back(g, x.shape, axis, keepdims), 1.0 / n)]

    return limit


def sum_(axis, keepdims=False):
    def limit(xs, g):
        (x,) = xs
        x.sum(axis=axis, keepdims=keepdims)
        return [expand_back(g, x.shape, axis, keepdims).copy()]

    return limit


def var(axis, ddof, keepdims=False, root=False):
    """var (or std with `root`): d var = g 2 (x - mean) / (n - ddof); d std = d var / (2 std)."""

    def limit(xs, g):
        (x,) = xs
        centred = x - x.mean(axis=axis, keepdims=True)
        n = _count(x.shape, axis) - ddof
        out = np.square(centred).sum(axis=axis, keepdims=keepdims) / n
        scale = g * (2.0 / n)
        if root:
            out = np.sqrt(out)
            scale = g / (out * n)
        centred *= expand_back(scale, x.shape, axis, keepdims)
        return [centred]

    return limit


def lib_sum_mean_var(xs, g):
    """sum(x, 0) + mean(x, 0) + var(x, 0): g (1 + 1/n) + g 2 (x - mean) / (n - 1)."""
    (x,) = xs
    n = x.shape[0]
    centred = x - x.mean(axis=0)
    x.sum(axis=0) + x.mean(axis=0) + np.square(centred).sum(axis=0) / (n - 1)
    centred *= g * (2.0 / (n - 1))
    centred += g * (1.0 + 1.0 / n)
    return [centred]


def std_mean(xs, g):
    g_std, g_mean = g
    (x,) = xs
    (gx,) = var(1, 1, root=True)(xs, g_std)
    gx += (g_mean / x.shape[1])[:, None]
    return [gx]


def var_mean_keepdim(xs, g):
    g_var, g_mean = g
    (x,) = xs
    (gx,) = var((0, 1), 0, keepdims=True)(xs, g_var)
    gx += g_mean / (x.shape[0] * x.shape[1])
    return [gx]


def pick(select, axis, keepdims=False):
    """max / min over one axis (or all): g goes to the place `select` (argmax / argmin) finds."""

    def limit(xs, g):
        (x,) = xs
        if axis is None:
            flat = x.reshape(-1)
            index = select(flat)
            flat[index]
            gx = np.zeros(x.size, x.dtype)
            gx[index] = g
            return [gx.reshape(x.shape)]
        index = np.expand_dims(select(x, axis=axis), axis)
        np.take_along_axis(x, index, axis)
        kept = g if keepdims else np.expand_dims(g, axis)
        return [scatter_along(x.shape, x.dtype, index, kept, axis)]

    return limit


def aminmax(xs, g):
    g_min, g_max = g
    (x,) = xs
    low, high = np.argmin(x, axis=0)[None], np.argmax(x, axis=0)[None]
    np.take_along_axis(x, low, 0), np.take_along_axis(x, high, 0)
    gx = scatter_along(x.shape, x.dtype, low, g_min[None], 0)
    np.put_along_axis(gx, high, np.take_along_axis(gx, high, 0) + g_max[None], 0)
    return [gx]


def lib_max_norm(xs, g):
    """max(x) + ||x||: g x / ||x||, plus g at the maximum."""
    (x,) = xs
    index = np.argmax(x)
    norm = np.sqrt(np.vdot(x, x))
    gx = x * (g / norm)
    gx.reshape(-1)[index] += g
    return [gx]


def p_norm(p, axis, keepdims=False):
    """(sum |x|^p)^(1/p): d = g x |x|^(p-2) / out^(p-1); p = 2 without the powers."""

    def limit(xs, g):
        (x,) = xs
        if p == 2:
            out = np.sqrt(np.square(x).sum(axis=axis, keepdims=keepdims))
            scale = g / out
            return [x * expand_back(scale, x.shape, axis, keepdims)]
        a = np.abs(x)
        powered = a**p if p != 3 else a * a * a
        out = powered.sum(axis=axis, keepdims=keepdims) ** (1.0 / p)
        scale = g / out ** (p - 1)
        # NOTE x |x|^(p-2) = sign(x) |x|^(p-1) = powered / x
        np.divide(powered, x, out=powered)
        powered *= expand_back(scale, x.shape, axis, keepdims)
        return [powered]

    return limit


def abs_sum(axis, keepdims=False):
    """sum |x| (the 1-norm): d = g sign(x)."""

    def limit(xs, g):
        (x,) = xs
        np.abs(x).sum(axis=axis, keepdims=keepdims)
        return [sign(x).__imul__(expand_back(g, x.shape, axis, keepdims))]

    return limit


def abs_max(xs, g):
    """max |x| (the inf-norm): g sign(x) at the largest |x|."""
    (x,) = xs
    index = np.argmax(np.abs(x))
    gx = np.zeros(x.size, x.dtype)
    gx[index] = g * np.sign(x.reshape(-1)[index])
    return [gx.reshape(x.shape)]


def prod(axis, keepdims=False):
    """prod: d = g prod / x when no x is 0, else g times the product of the others (the
    exclusive products from both sides, two cumprods)."""

    def limit(xs, g):
        (x,) = xs
        work = x.reshape(-1) if axis is None else x
        ax = 0 if axis is None else axis
        out = np.prod(work, axis=ax, keepdims=True)
        gk = np.reshape(g, out.shape) if axis is None or keepdims else np.expand_dims(g, axis)
        if not (work == 0).any():
            gx = np.divide(out, work)
        else:
            ones = np.ones_like(np.take(work, [0], ax))
            left = np.cumprod(np.concatenate([ones, work], ax), ax)
            right = np.flip(np.cumprod(np.flip(np.concatenate([work, ones], ax), ax), ax), ax)
            n = work.shape[ax]
            gx = np.take(left, range(n), ax) * np.take(right, range(1, n + 1), ax)
        gx *= gk
        return [gx.reshape(x.shape)]

    return limit


def logsumexp(axis, keepdims=False):
    """log sum exp x: d = g exp(x - out)."""

    def limit(xs, g):
        (x,) = xs
        top = x.max(axis=axis, keepdims=True)
        e = np.exp(x - top)
        out = np.log(e.sum(axis=axis, keepdims=True))
        out += top
        gx = np.subtract(x, out, out=e)
        np.exp(gx, out=gx)
        return [gx.__imul__(expand_back(g, x.shape, axis, keepdims))]

    return limit


def cumprod(axis):
    """cumprod: dx_i = sum_{j >= i} g_j out_j / x_i (x without zeros), a reversed cumsum."""

    def limit(xs, g):
        (x,) = xs
        out = np.cumprod(x, axis=axis)
        out *= g
        flipped = np.flip(out, axis)
        np.cumsum(flipped, axis=axis, out=flipped)
        return [np.divide(out, x, out=out)]

    return limit


def logcumsumexp(axis):
    """out_j = log sum_{i <= j} e^x_i: dx_i = e^(x_i) sum_{j >= i} g_j e^(-out_j), with the
    row maximum m factored out of both exponentials."""

    def limit(xs, g):
        (x,) = xs
        top = x.max(axis=axis, keepdims=True)
        e = np.exp(x - top)
        out = np.log(np.cumsum(e, axis=axis))
        out += top
        w = np.subtract(top, out)
        np.exp(w, out=w)
        w *= g
        flipped = np.flip(w, axis)
        np.cumsum(flipped, axis=axis, out=flipped)
        return [e.__imul__(w)]

    return limit


def cumulative(accumulate, axis):
    """cummax / cummin: g_j goes to the place of the running extreme at j (a bincount)."""

    def limit(xs, g):
        (x,) = xs
        moved = np.moveaxis(x, axis, -1)
        out = accumulate(moved, axis=-1)
        n = moved.shape[-1]
        at = np.where(moved == out, np.arange(n), 0)
        np.maximum.accumulate(at, axis=-1, out=at)
        at += np.arange(0, moved.size, n).reshape(moved.shape[:-1] + (1,))
        gm = np.moveaxis(g, axis, -1)
        gx = np.bincount(at.reshape(-1), gm.reshape(-1), moved.size).astype(x.dtype)
        return [np.moveaxis(gx.reshape(moved.shape), -1, axis)]

    return limit


def kth(k_of, axis, keepdims=False):
    """The k-th smallest along `axis` (median: k = (n - 1) // 2): argpartition, g to its place."""

    def limit(xs, g):
        (x,) = xs
        if axis is None:
            flat = x.reshape(-1)
            k = k_of(flat.size)
            index = np.argpartition(flat, k)[k]
            flat[index]
            gx = np.zeros(x.size, x.dtype)
            gx[index] = g
            return [gx.reshape(x.shape)]
        k = k_of(x.shape[axis])
        index = np.take(np.argpartition(x, k, axis=axis), [k], axis)
        np.take_along_axis(x, index, axis)
        kept = g if keepdims else np.expand_dims(g, axis)
        return [scatter_along(x.shape, x.dtype, index, kept, axis)]

    return limit


def mode(xs, g):
    """The most frequent value of each row (the smallest among ties): sort, run lengths, g to
    the place of the chosen value."""
    (x,) = xs
    order = np.argsort(x, axis=1)
    s = np.take_along_axis(x, order, 1)
    n = s.shape[1]
    starts = np.ones(s.shape, bool)
    starts[:, 1:] = s[:, 1:] != s[:, :-1]
    first = np.where(starts, np.arange(n), 0)
    np.maximum.accumulate(first, axis=1, out=first)
    run = np.arange(n) - first
    best = np.argmax(run, axis=1)[:, None]
    index = np.take_along_axis(order, best, 1)
    np.take_along_axis(x, index, 1)
    return [scatter_along(x.shape, x.dtype, index, g[:, None], 1)]


def sort(axis, descending=False):
    def limit(xs, g):
        (x,) = xs
        order = np.argsort(x, axis=axis)
        if descending:
            order = np.flip(order, axis)
        np.take_along_axis(x, order, axis)
        return [scatter_along(x.shape, x.dtype, order, g, axis)]

    return limit


def topk(k, axis, largest=True):
    """The k largest (or smallest), in order: argpartition, then a sort of the k."""

    def limit(xs, g):
        (x,) = xs
        key = np.negative(x) if largest else x
        index = np.take(np.argpartition(key, k - 1, axis=axis), range(k), axis)
        chosen = np.take_along_axis(key, index, axis)
        index = np.take_along_axis(index, np.argsort(chosen, axis=axis), axis)
        np.take_along_axis(x, index, axis)
        return [scatter_along(x.shape, x.dtype, index, g, axis)]

    return limit


def normalize(p, axis):
    """x / max(||x||_p, 1e-12) (p = 1 or 2): dx = (g - x sum(g x) / n^2 ... ) written per p:
    p = 2: (g - out sum(g out)) / n; p = 1: g / n - sign(x) sum(g x) / n^2."""

    def limit(xs, g):
        (x,) = xs
        if p == 2:
            n = np.sqrt(np.square(x).sum(axis=axis, keepdims=True))
        else:
            n = np.abs(x).sum(axis=axis, keepdims=True)
        np.maximum(n, 1e-12, out=n)
        out = x / n
        if p == 2:
            gx = out * (g * out).sum(axis=axis, keepdims=True)
            np.subtract(g, gx, out=gx)
            gx /= n
            return [gx]
        gx = sign(x)
        gx *= (g * x).sum(axis=axis, keepdims=True) / (n * n)
        np.subtract(g / n, gx, out=gx)
        return [gx]

    return limit


LIMITS = {
    "normalize": normalize(2, -1),
    "normalize_p1": normalize(1, 1),
    "sum_tuple_neg_keepdim": sum_((0, -1), keepdims=True),
    "mean_all": mean(None),
    "mean_dims_keepdim": mean((-1, -2), keepdims=True),
    "lib_sum_mean_var": lib_sum_mean_var,
    "lib_max_norm": lib_max_norm,
    "var_biased_keepdim": var(-1, 0, keepdims=True),
    "var_all": var(None, 1),
    "var_tuple": var((0, 2), 0),
    "std": var(0, 1, root=True),
    "std_mean": std_mean,
    "var_mean_keepdim": var_mean_keepdim,
    "amax": pick(np.argmax, -1),
    "amin_keepdim": pick(np.argmin, 0, keepdims=True),
    "max_all": pick(np.argmax, None),
    "max_dim_values": pick(np.argmax, 1),
    "min_dim_keepdim": pick(np.argmin, -1, keepdims=True),
    "aminmax_dim": aminmax,
    "norm": p_norm(2, None),
    "norm_dim": p_norm(2, 1, keepdims=True),
    "norm_p3_dim": p_norm(3, 1),
    "norm_p_half": p_norm(0.5, None),
    "prod_all": prod(None),
    "prod_dim_keepdim": prod(-1, keepdims=True),
    "logsumexp_dims": logsumexp((0, -1)),
    "logsumexp_keepdim": logsumexp(1, keepdims=True),
    "cumprod": cumprod(1),
    "cumprod_dim0": cumprod(-2),
    "logcumsumexp": logcumsumexp(-1),
    "cummax_values": cumulative(np.maximum.accumulate, 1),
    "cummin_values": cumulative(np.minimum.accumulate, 0),
    "median_all": kth(lambda n: (n - 1) // 2, None),
    "median_dim": kth(lambda n: (n - 1) // 2, -1),
    "kthvalue_keepdim": kth(lambda n: 1, 0, keepdims=True),
    "mode_distinct": mode,
    "sort": sort(-1),
    "sort_descending_dim0": sort(0, descending=True),
    "msort": sort(0),
    "topk": topk(2, -1),
    "topk_smallest_dim0": topk(3, 0, largest=False),
    # tg.linalg's vector norms are the same maths
    "vector_norm": p_norm(2, -1),
    "vector_norm_ord3_keepdim": p_norm(3, (0, 2), keepdims=True),
    "vector_norm_inf": abs_max,
    "vector_norm_ord1_all_keepdim": abs_sum(None, keepdims=True),
    "linalg_norm": p_norm(2, None),
    "linalg_norm_dim": p_norm(0.5, 1),
}
