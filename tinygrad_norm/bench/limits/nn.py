"""Limits of convolution, pooling and resampling in NumPy. Convolution: the windows of the
whole batch as a strided view of the padded input laid out batch-last (C, *S, N), copied once
into columns (C K, L N) so the copy moves runs of N numbers; one GEMM per group each way; col2im
as one strided add per kernel tap. Pools: one pass per kernel tap over strided views, forward
and backward. Bilinear resampling: a small interpolation matrix on each side.
"""

from __future__ import annotations

import itertools

import numpy as np

from ...testing.op_cases_nn import _out_size


def _geometry(sizes, k, s, p, d, ceil=False):
    """(output sizes, [(left, right) pads]) with the right pad a ceil-mode window needs."""
    out = [_out_size(n, ki, si, di, p, p, ceil) for n, ki, si, di in zip(sizes, k, s, d)]
    pads = [
        (p, max(p, (o - 1) * si + di * (ki - 1) + 1 - n - p))
        for o, n, ki, si, di in zip(out, sizes, k, s, d)
    ]
    return out, pads


def _windows(xp, k, s, d, out):
    """The (n, c, *out, *k) strided view of the padded array `xp`."""
    nd = len(k)
    st = xp.strides
    shape = xp.shape[:2] + tuple(out) + tuple(k)
    strides = st[:2] + tuple(st[2 + i] * s[i] for i in range(nd))
    strides += tuple(st[2 + i] * d[i] for i in range(nd))
    return np.lib.stride_tricks.as_strided(xp, shape, strides, writeable=False)


def _tap_slices(tap, s, d, out):
    """The places of kernel tap `tap` for every output position (one strided slice per axis)."""
    return tuple(
        slice(t * di, t * di + si * (o - 1) + 1, si) for t, si, di, o in zip(tap, s, d, out)
    )


def _col2im(gxp, gwin, k, s, d, out):
    """Add each tap of `gwin` (n, c, *out, *k) into the padded gradient `gxp`."""
    for tap in itertools.product(*map(range, k)):
        gxp[(slice(None), slice(None)) + _tap_slices(tap, s, d, out)] += gwin[(Ellipsis,) + tap]
    return gxp


def _crop(gxp, pads, sizes):
    kept = tuple(slice(lo, lo + n) for (lo, _), n in zip(pads, sizes))
    return gxp[(slice(None), slice(None)) + kept]


def _batch_last_windows(xp, k, s, d, out):
    """The (C, *K, *O, N) strided view of a batch-last padded array `xp` (C, *S, N)."""
    nd = len(k)
    st = xp.strides
    shape = (xp.shape[0], *k, *out, xp.shape[-1])
    strides = (st[0], *(st[1 + i] * d[i] for i in range(nd)))
    strides += (*(st[1 + i] * s[i] for i in range(nd)), st[-1])
    return np.lib.stride_tricks.as_strided(xp, shape, strides, writeable=False)


def conv(stride, padding, dilation=1, groups=1):
    """y = b + W @ cols per group, cols (C K, L N) the windows of the whole batch laid out
    batch-last (so the im2col copy moves runs of N numbers): one GEMM forward, two backward
    (dW = G cols^T, dcols = W^T G), then col2im as one strided add per kernel tap."""

    def limit(xs, g):
        x, w = xs[0], xs[1]
        nd = x.ndim - 2
        k = w.shape[2:]
        s = (stride,) * nd if np.isscalar(stride) else stride
        d = (dilation,) * nd
        pads = [(padding, padding)] * nd if np.isscalar(padding) else padding
        if padding == "same":  # d (k - 1) in all, the extra one on the right
            pads = [
                (di * (ki - 1) // 2, di * (ki - 1) - di * (ki - 1) // 2) for ki, di in zip(k, d)
            ]
        n, c, o = x.shape[0], x.shape[1], w.shape[0]
        sizes = [size + lo + hi for size, (lo, hi) in zip(x.shape[2:], pads)]
        inner = tuple(slice(lo, lo + size) for (lo, _), size in zip(pads, x.shape[2:]))
        xp = np.zeros((c, *sizes, n), x.dtype)
        xp[(slice(None),) + inner] = np.moveaxis(x, 0, -1)
        out = [(m - di * (ki - 1) - 1) // si + 1 for m, ki, si, di in zip(sizes, k, s, d)]
        win = _batch_last_windows(xp, k, s, d, out)
        cols = np.ascontiguousarray(win).reshape(groups, -1, int(np.prod(out)) * n)
        wm = w.reshape(groups, o // groups, -1)
        y = (wm @ cols).reshape(o, *out, n)
        if len(xs) == 3:
            y += xs[2].reshape((o,) + (1,) * (nd + 1))
        np.moveaxis(y, -1, 0)  # (N, O, *O), a view
        gm = np.ascontiguousarray(np.moveaxis(g, 0, -1)).reshape(groups, o // groups, -1)
        gw = (cols @ gm.swapaxes(-1, -2)).swapaxes(-1, -2).reshape(w.shape)
        gcols = (wm.swapaxes(-1, -2) @ gm).reshape(c, *k, *out, n)
        gxp = np.zeros_like(xp)
        for tap in itertools.product(*map(range, k)):
            places = (slice(None),) + _tap_slices(tap, s, d, out)
            gxp[places] += gcols[(slice(None),) + tap]
        grads = [np.moveaxis(gxp[(slice(None),) + inner], -1, 0), gw]
        return grads + ([gm.sum(axis=-1).reshape(o)] if len(xs) == 3 else [])

    return limit


def conv_transpose(stride, padding, output_padding=0, groups=1):
    """Each input element stamps x w on the output at i s + j - padding: per group
    cols = W^T @ x (batch-last rows), then col2im; the backward reads g's windows (im2col,
    batch-last) once for both gradients: dx = W @ gcols, dW = x @ gcols^T."""

    def limit(xs, g):
        x, w = xs[0], xs[1]
        nd = x.ndim - 2
        k, s, d = w.shape[2:], (stride,) * nd, (1,) * nd
        sizes = x.shape[2:]
        full = [(m - 1) * stride + ki + output_padding for m, ki in zip(sizes, k)]
        n, cin, cout = x.shape[0], x.shape[1] // groups, w.shape[1]
        xm = np.ascontiguousarray(np.moveaxis(x, 0, -1)).reshape(groups, cin, -1)
        wm = w.reshape(groups, cin, -1)
        cols = (wm.swapaxes(-1, -2) @ xm).reshape(groups * cout, *k, *sizes, n)
        yfull = np.zeros((groups * cout, *full, n), x.dtype)
        for tap in itertools.product(*map(range, k)):
            yfull[(slice(None),) + _tap_slices(tap, s, d, sizes)] += cols[(slice(None),) + tap]
        crop = (slice(None),) + tuple(slice(padding, f - padding) for f in full)
        y = yfull[crop]
        if len(xs) == 3:
            y += xs[2].reshape((-1,) + (1,) * (nd + 1))
        np.moveaxis(y, -1, 0)  # (N, O, *O), a view
        gfull = np.zeros_like(yfull)
        gfull[crop] = np.moveaxis(g, 0, -1)
        gcols = np.ascontiguousarray(_batch_last_windows(gfull, k, s, d, sizes))
        gcols = gcols.reshape(groups, cout * int(np.prod(k)), -1)
        gx = (wm @ gcols).reshape(x.shape[1], *sizes, n)
        gw = (xm @ gcols.swapaxes(-1, -2)).reshape(w.shape)
        grads = [np.moveaxis(gx, -1, 0), gw]
        return grads + ([g.sum(axis=(0, *range(2, g.ndim)))] if len(xs) == 3 else [])

    return limit


def unfold(k, padding, stride):
    """F.unfold: (n, c K, L) columns; its backward is col2im."""

    def limit(xs, g):
        (x,) = xs
        s, d = (stride,) * 2, (1, 1)
        xp = np.pad(x, [(0, 0), (0, 0)] + [(padding, padding)] * 2)
        out = [(n - ki) // stride + 1 for n, ki in zip(xp.shape[2:], k)]
        win = _windows(xp, k, s, d, out)
        np.moveaxis(win, (4, 5), (2, 3)).reshape(x.shape[0], -1, int(np.prod(out)))
        gwin = np.moveaxis(g.reshape(x.shape[:2] + tuple(k) + tuple(out)), (2, 3), (4, 5))
        gxp = _col2im(np.zeros_like(xp), gwin, k, s, d, out)
        return [_crop(gxp, [(padding, padding)] * 2, x.shape[2:])]

    return limit


def fold_of_unfold(xs, g):
    """fold(unfold(x, 2), x's size, 2): every window added back; the backward is the same."""
    (x,) = xs
    k, s, d = (2, 2), (1, 1), (1, 1)
    out = [n - 1 for n in x.shape[2:]]
    _col2im(np.zeros_like(x), _windows(x, k, s, d, out), k, s, d, out)
    return [_col2im(np.zeros_like(g), _windows(g, k, s, d, out), k, s, d, out)]


def _pool_setup(x, k, stride, padding, dilation, ceil, fill):
    nd = x.ndim - 2
    kk = (k,) * nd if np.isscalar(k) else k
    s = kk if stride is None else (stride,) * nd if np.isscalar(stride) else stride
    d = (dilation,) * nd
    out, pads = _geometry(x.shape[2:], kk, s, padding, d, ceil)
    xp = np.pad(x, [(0, 0), (0, 0)] + pads, constant_values=fill) if any(map(any, pads)) else x
    taps = [(slice(None), slice(None)) + _tap_slices(t, s, d, out) for t in np.ndindex(*kk)]
    return out, pads, xp, taps


def max_pool(k, stride=None, padding=0, dilation=1, ceil=False):
    """The max of each window (padding -inf), one pass per kernel tap over strided views,
    keeping the first best tap; the backward adds g where each tap was the best."""

    def limit(xs, g):
        (x,) = xs
        out, pads, xp, taps = _pool_setup(x, k, stride, padding, dilation, ceil, -np.inf)
        y = xp[taps[0]].copy()
        best = np.zeros(y.shape, np.uint8)
        for j, tap in enumerate(taps[1:], start=1):
            better = xp[tap] > y
            np.maximum(y, xp[tap], out=y)
            np.maximum(best, better * np.uint8(j), out=best)
        gxp = np.zeros_like(xp)
        for j, tap in enumerate(taps):
            gxp[tap] += np.multiply(g, best == j)
        return [_crop(gxp, pads, x.shape[2:])]

    return limit


def avg_pool(k, stride=None, padding=0, ceil=False, count_include_pad=True):
    """The mean of each window: the taps added over strided views, divided by the count (the
    window's places inside the input and its padding, or inside the input only); the backward
    adds g / count at each tap."""

    def limit(xs, g):
        (x,) = xs
        out, pads, xp, taps = _pool_setup(x, k, stride, padding, 1, ceil, 0.0)
        kk = (k,) * (x.ndim - 2) if np.isscalar(k) else k
        s = kk if stride is None else (stride,) * len(kk) if np.isscalar(stride) else stride
        counts = np.ones(())
        for o, si, ki, n in zip(out, s, kk, x.shape[2:]):
            start = np.arange(o) * si - padding
            end = np.minimum(start + ki, n + padding)
            if not count_include_pad:
                start, end = np.maximum(start, 0), np.minimum(end, n)
            counts = np.multiply.outer(counts, end - start)
        counts = counts.astype(x.dtype)
        total = xp[taps[0]].copy()
        for tap in taps[1:]:
            total += xp[tap]
        total /= counts
        share = g / counts
        gxp = np.zeros_like(xp)
        for tap in taps:
            gxp[tap] += share
        return [_crop(gxp, pads, x.shape[2:])]

    return limit


def _adaptive_windows(sizes, out):
    """Output i of each axis reads input [floor(i S / O), ceil((i + 1) S / O))."""
    per_axis = [
        [slice(i * n // m, -(-(i + 1) * n // m)) for i in range(m)] for n, m in zip(sizes, out)
    ]
    return itertools.product(*[list(enumerate(axis)) for axis in per_axis])


def adaptive_pool(out, kind):
    """One reduction per output position (a handful of windows), g back to each window."""

    def limit(xs, g):
        (x,) = xs
        gx = np.zeros_like(x)
        lead = (slice(None), slice(None))
        for places in _adaptive_windows(x.shape[2:], out):
            o = tuple(i for i, _ in places)
            index = lead + tuple(sl for _, sl in places)
            window = x[index]
            go = g[lead + o]
            if kind == "avg":
                window.mean(axis=tuple(range(2, x.ndim)))
                gx[index] += (go / window[0, 0].size).reshape(go.shape + (1,) * (x.ndim - 2))
                continue
            flat = window.reshape(x.shape[:2] + (-1,))
            arg = flat.argmax(axis=-1)
            np.take_along_axis(flat, arg[..., None], -1)
            gwin = np.zeros_like(flat)
            np.put_along_axis(gwin, arg[..., None], go[..., None], -1)
            gx[index] += gwin.reshape(window.shape)
        return [gx]

    return limit


def nearest_2x(xs, g):
    """Each pixel copied to a 2 x 2 block (one broadcast copy): dx adds the block's four
    strided views."""
    (x,) = xs
    n, c, h, w = x.shape
    np.broadcast_to(x[:, :, :, None, :, None], (n, c, h, 2, w, 2)).reshape(n, c, 2 * h, 2 * w)
    blocks = g.reshape(n, c, h, 2, w, 2)
    gx = blocks[:, :, :, 0, :, 0] + blocks[:, :, :, 0, :, 1]
    gx += blocks[:, :, :, 1, :, 0]
    gx += blocks[:, :, :, 1, :, 1]
    return [gx]


def _interpolation_matrix(n, m, align_corners):
    """(m, n): row i holds the two weights of output i on its neighbouring inputs."""
    dst = np.arange(m, dtype=np.float64)
    if align_corners:
        src = dst * ((n - 1) / (m - 1)) if m > 1 else np.zeros(m)
    else:
        src = np.maximum((dst + 0.5) * (n / m) - 0.5, 0.0)
    low = np.minimum(src.astype(int), n - 1)
    high = np.minimum(low + 1, n - 1)
    frac = src - low
    a = np.zeros((m, n))
    np.add.at(a, (np.arange(m), low), 1.0 - frac)
    np.add.at(a, (np.arange(m), high), frac)
    return a


def bilinear(size, align_corners):
    """out = A_h x A_w^T per image; dx = A_h^T g A_w."""

    def limit(xs, g):
        (x,) = xs
        ah = _interpolation_matrix(x.shape[2], size[0], align_corners).astype(x.dtype)
        aw = _interpolation_matrix(x.shape[3], size[1], align_corners).astype(x.dtype)
        ah @ x @ aw.T
        return [ah.T @ g @ aw]

    return limit


LIMITS = {
    "conv1d": conv(2, 1),
    "conv2d_stride_pad_groups": conv((2, 1), 1, groups=2),
    "conv2d_same_dilation": conv(1, "same", dilation=2),
    "conv_transpose1d": conv_transpose(2, 1),
    "conv_transpose2d_output_padding": conv_transpose(2, 0, output_padding=1, groups=2),
    "unfold": unfold((2, 3), 1, 2),
    "fold_of_unfold": fold_of_unfold,
    "conv2d": conv(1, 0),
    "lenet_conv1": conv(1, 0),
    "lenet_conv2": conv(1, 0),
    "lenet_pool": max_pool(2),
    "max_pool2d_pad_ceil": max_pool(3, 2, 1, ceil=True),
    "max_pool1d_dilation": max_pool(2, 1, dilation=2),
    "avg_pool2d": avg_pool((2, 3), 1),
    "avg_pool2d_ceil_no_pad_count": avg_pool(3, 2, 1, ceil=True, count_include_pad=False),
    "avg_pool1d_pad": avg_pool(3, 2, 1),
    "adaptive_avg_pool2d": adaptive_pool((3, 2), "avg"),
    "adaptive_avg_pool1d": adaptive_pool((3,), "avg"),
    "adaptive_max_pool2d": adaptive_pool((3, 2), "max"),
    "interpolate_nearest": nearest_2x,
    "interpolate_bilinear": bilinear((5, 3), False),
    "interpolate_bilinear_align_corners": bilinear((5, 2), True),
}
