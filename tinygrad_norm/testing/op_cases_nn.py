"""Cases of `op_cases.py` for convolution, pooling, resampling and the losses.

Same format (`OpCase`): `fn(lib, *tensors)` runs on tinygrad_norm and on PyTorch through
`lib.nn.functional`, `ref(*arrays)` is the same maths written naively in NumPy: the references
here loop over output positions one at a time, the plainest reading of each definition, so
they share nothing with the vectorised windows (im2col) they check. Shapes are tiny so that
gradcheck and gradgradcheck stay fast.
"""

from __future__ import annotations

import itertools

import numpy as np

from .op_case import OpCase


# --- naive NumPy references ---------------------------------------------------------------------
def _pad(x, pads, fill=0.0):
    return np.pad(x, ((0, 0), (0, 0)) + tuple(pads), constant_values=fill)


def _out_size(n, k, s, d, lo, hi, ceil=False):
    room = n + lo + hi - d * (k - 1) - 1
    count = (-(-room // s) if ceil else room // s) + 1
    if ceil and (count - 1) * s >= n + lo:
        count -= 1
    return count


def _window(xp, o, k, s, d):
    """The window at output position o of a padded (N, C, *S) array: (N, C, *k)."""
    index = tuple(
        slice(oi * si, oi * si + di * (ki - 1) + 1, di) for oi, ki, si, di in zip(o, k, s, d)
    )
    return xp[(slice(None), slice(None)) + index]


def np_conv(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """y[n, o, *p] = b[o] + sum over c and kernel offsets j of w[o, c, *j] · x[n, c, p·s + j·d]."""
    nd = x.ndim - 2
    k = w.shape[2:]
    s, d = (stride,) * nd if np.isscalar(stride) else stride, (dilation,) * nd
    pads = [(padding, padding)] * nd if np.isscalar(padding) else padding
    xp = _pad(x, pads)
    out = [
        _out_size(n, ki, si, di, lo, hi)
        for n, ki, si, di, (lo, hi) in zip(x.shape[2:], k, s, d, pads)
    ]
    y = np.zeros((x.shape[0], w.shape[0], *out))
    cin, cout = w.shape[1], w.shape[0] // groups
    for o in itertools.product(*map(range, out)):
        win = _window(xp, o, k, s, d)  # (N, C, *k)
        for g in range(groups):
            part = win[:, g * cin : (g + 1) * cin].reshape(x.shape[0], -1)
            wg = w[g * cout : (g + 1) * cout].reshape(cout, -1)
            y[(slice(None), slice(g * cout, (g + 1) * cout)) + o] = part @ wg.T
    if b is not None:
        y += b.reshape((-1,) + (1,) * nd)
    return y


def np_conv_transpose(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1):
    """Each input element x[n, c, *i] adds x · w[c, o, *j] at output position i·s + j - p."""
    nd = x.ndim - 2
    k = w.shape[2:]
    size = [(n - 1) * stride - 2 * padding + ki + output_padding for n, ki in zip(x.shape[2:], k)]
    full = np.zeros((x.shape[0], w.shape[1] * groups, *[n + 2 * padding for n in size]))
    cin, cout = x.shape[1] // groups, w.shape[1]
    for i in itertools.product(*map(range, x.shape[2:])):
        for c in range(x.shape[1]):
            g = c // cin
            index = tuple(slice(ii * stride, ii * stride + ki) for ii, ki in zip(i, k))
            stamp = x[(slice(None), c) + i].reshape(-1, *(1,) * (nd + 1)) * w[c]
            full[(slice(None), slice(g * cout, (g + 1) * cout)) + index] += stamp
    y = full[(slice(None), slice(None)) + tuple(slice(padding, padding + n) for n in size)]
    return y if b is None else y + b.reshape((-1,) + (1,) * nd)


def np_pool(x, kind, k, s=None, p=0, d=1, ceil=False, count_include_pad=True):
    """max or avg over each window (padding: -inf for max, 0 for avg), one window at a time."""
    nd = x.ndim - 2
    k = (k,) * nd if np.isscalar(k) else k
    s = k if s is None else ((s,) * nd if np.isscalar(s) else s)
    out = [_out_size(n, ki, si, d, p, p, ceil) for n, ki, si in zip(x.shape[2:], k, s)]
    hi = [
        max(p, (o - 1) * si + d * (ki - 1) + 1 - n - p)
        for o, si, ki, n in zip(out, s, k, x.shape[2:])
    ]
    xp = _pad(x, [(p, h) for h in hi], -np.inf if kind == "max" else 0.0)
    y = np.zeros(x.shape[:2] + tuple(out))
    for o in itertools.product(*map(range, out)):
        win = _window(xp, o, k, s, (d,) * nd).reshape(x.shape[:2] + (-1,))
        if kind == "max":
            y[(slice(None), slice(None)) + o] = win.max(-1)
            continue
        starts = [oi * si - p for oi, si in zip(o, s)]
        ends = [min(st + ki, n + p) for st, ki, n in zip(starts, k, x.shape[2:])]
        if not count_include_pad:
            starts = [max(st, 0) for st in starts]
            ends = [min(e, n) for e, n in zip(ends, x.shape[2:])]
        y[(slice(None), slice(None)) + o] = win.sum(-1) / np.prod(np.subtract(ends, starts))
    return y


def np_adaptive(x, out, kind):
    """Output i averages (or takes the max of) input [floor(i·S/O), ceil((i+1)·S/O))."""
    y = np.zeros(x.shape[:2] + tuple(out))
    for o in itertools.product(*map(range, out)):
        index = tuple(
            slice(oi * n // m, -(-(oi + 1) * n // m)) for oi, n, m in zip(o, x.shape[2:], out)
        )
        win = x[(slice(None), slice(None)) + index].reshape(x.shape[:2] + (-1,))
        y[(slice(None), slice(None)) + o] = win.max(-1) if kind == "max" else win.mean(-1)
    return y


def np_bilinear(x, size, align_corners):
    """Each output pixel from the four input pixels around its source point."""
    (h, w), (oh, ow) = x.shape[2:], size
    y = np.zeros(x.shape[:2] + (oh, ow))

    def source(dst, n, m):
        if align_corners:
            return dst * (n - 1) / (m - 1) if m > 1 else 0.0
        return max((dst + 0.5) * n / m - 0.5, 0.0)

    for i in range(oh):
        for j in range(ow):
            si, sj = source(i, h, oh), source(j, w, ow)
            i0, j0 = min(int(si), h - 1), min(int(sj), w - 1)
            i1, j1 = min(i0 + 1, h - 1), min(j0 + 1, w - 1)
            a, b = si - i0, sj - j0
            y[:, :, i, j] = (
                (1 - a) * (1 - b) * x[:, :, i0, j0]
                + (1 - a) * b * x[:, :, i0, j1]
                + a * (1 - b) * x[:, :, i1, j0]
                + a * b * x[:, :, i1, j1]
            )
    return y


def np_unfold(x, k, padding=0, stride=1):
    """Column l = window l's elements, channel by channel, row-major."""
    xp = _pad(x, [(padding, padding)] * 2)
    out = [_out_size(n, ki, stride, 1, padding, padding) for n, ki in zip(x.shape[2:], k)]
    cols = [
        _window(xp, o, k, (stride,) * 2, (1, 1)).reshape(x.shape[0], -1)
        for o in itertools.product(*map(range, out))
    ]
    return np.stack(cols, axis=-1)


def _F(lib):
    return lib.nn.functional


def _same_call(fn_name: str, reference, shapes: tuple, *args, name="", **options) -> OpCase:
    """`F.<fn_name>(*inputs, *args, **options)` against `reference(*arrays, *args, **options)`:
    the same arguments on both sides. The case is called `name`, or `fn_name` if none given."""
    return OpCase(
        name or fn_name,
        lambda lib, *inputs: getattr(_F(lib), fn_name)(*inputs, *args, **options),
        lambda *arrays: reference(*arrays, *args, **options),
        shapes,
    )


def _adaptive_case(name: str, kind: str, output_size, shape: tuple) -> OpCase:
    """`F.<name>(x, output_size)` on an input of `shape`, against `np_adaptive(x, ..., kind)`."""
    out = (output_size,) if np.isscalar(output_size) else output_size
    return OpCase(
        name,
        lambda lib, x: getattr(_F(lib), name)(x, output_size),
        lambda x: np_adaptive(x, out, kind),
        (shape,),
    )


CASES = [
    # --- convolution --------------------------------------------------------------------------
    _same_call("conv1d", np_conv, ((2, 2, 7), (3, 2, 3), (3,)), stride=2, padding=1),
    _same_call("conv2d", np_conv, ((2, 2, 4, 5), (3, 2, 2, 3), (3,))),
    _same_call(
        "conv2d",
        np_conv,
        ((1, 4, 5, 4), (4, 2, 3, 2)),
        name="conv2d_stride_pad_groups",
        stride=(2, 1),
        padding=1,
        groups=2,
    ),
    OpCase(
        "conv2d_same_dilation",
        lambda lib, x, w: _F(lib).conv2d(x, w, padding="same", dilation=2),
        lambda x, w: np_conv(x, w, padding=[(2, 2), (1, 1)], dilation=2),
        ((1, 2, 5, 4), (2, 2, 3, 2)),
    ),
    _same_call(
        "conv_transpose1d", np_conv_transpose, ((2, 2, 4), (2, 3, 3), (3,)), stride=2, padding=1
    ),
    _same_call(
        "conv_transpose2d",
        np_conv_transpose,
        ((1, 4, 3, 2), (4, 1, 2, 3)),
        name="conv_transpose2d_output_padding",
        stride=2,
        output_padding=1,
        groups=2,
    ),
    _same_call("unfold", np_unfold, ((2, 2, 4, 5),), (2, 3), padding=1, stride=2),
    OpCase(
        "fold_of_unfold",
        lambda lib, x: _F(lib).fold(_F(lib).unfold(x, 2), (4, 3), 2),
        lambda x: _overlap_count(x),
        ((1, 2, 4, 3),),
    ),
    # --- pooling ------------------------------------------------------------------------------
    OpCase(
        "max_pool2d",
        lambda lib, x: _F(lib).max_pool2d(x, 2),
        lambda x: np_pool(x, "max", 2),
        ((2, 2, 4, 5),),
    ),
    OpCase(
        "max_pool2d_pad_ceil",
        lambda lib, x: _F(lib).max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
        lambda x: np_pool(x, "max", 3, 2, 1, ceil=True),
        ((1, 2, 6, 5),),
    ),
    OpCase(
        "max_pool1d_dilation",
        lambda lib, x: _F(lib).max_pool1d(x, 2, stride=1, dilation=2),
        lambda x: np_pool(x, "max", 2, 1, d=2),
        ((2, 3, 6),),
    ),
    OpCase(
        "avg_pool2d",
        lambda lib, x: _F(lib).avg_pool2d(x, (2, 3), stride=1),
        lambda x: np_pool(x, "avg", (2, 3), 1),
        ((2, 2, 4, 5),),
    ),
    OpCase(
        "avg_pool2d_ceil_no_pad_count",
        lambda lib, x: _F(lib).avg_pool2d(
            x, 3, 2, padding=1, ceil_mode=True, count_include_pad=False
        ),
        lambda x: np_pool(x, "avg", 3, 2, 1, ceil=True, count_include_pad=False),
        ((1, 2, 6, 5),),
    ),
    OpCase(
        "avg_pool1d_pad",
        lambda lib, x: _F(lib).avg_pool1d(x, 3, 2, padding=1),
        lambda x: np_pool(x, "avg", 3, 2, 1),
        ((2, 2, 7),),
    ),
    _adaptive_case("adaptive_avg_pool2d", "avg", (3, 2), (2, 2, 5, 4)),
    _adaptive_case("adaptive_avg_pool1d", "avg", 3, (2, 2, 7)),
    _adaptive_case("adaptive_max_pool2d", "max", (3, 2), (2, 2, 5, 4)),
    # --- resampling ---------------------------------------------------------------------------
    OpCase(
        "interpolate_nearest",
        lambda lib, x: _F(lib).interpolate(x, scale_factor=2),
        lambda x: x.repeat(2, axis=2).repeat(2, axis=3),
        ((1, 2, 3, 2),),
    ),
    OpCase(
        "interpolate_bilinear",
        lambda lib, x: _F(lib).interpolate(x, size=(5, 3), mode="bilinear"),
        lambda x: np_bilinear(x, (5, 3), False),
        ((1, 2, 3, 4),),
    ),
    OpCase(
        "interpolate_bilinear_align_corners",
        lambda lib, x: _F(lib).interpolate(x, size=(5, 2), mode="bilinear", align_corners=True),
        lambda x: np_bilinear(x, (5, 2), True),
        ((1, 2, 3, 4),),
    ),
    OpCase(
        "pixel_shuffle",
        lambda lib, x: _F(lib).pixel_shuffle(x, 2),
        lambda x: x.reshape(1, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 6),
        ((1, 8, 2, 3),),
        # NOTE: compared with PyTorch in tests/test_oracle_conv.py instead: the empty-input
        # sweep would need PyTorch 2.13's PixelShuffleBackward, which rejects empty inputs.
        torch=False,
    ),
]


def _overlap_count(x):
    """fold(unfold(x)) = x times the number of windows covering each position."""
    count = np.zeros(x.shape[2:])
    for i, j in itertools.product(range(x.shape[2] - 1), range(x.shape[3] - 1)):
        count[i : i + 2, j : j + 2] += 1
    return x * count


from .op_cases_loss import CASES as LOSS_CASES  # noqa: E402 - the losses, in their own file

CASES += LOSS_CASES
