"""nn.functional's convolutions and im2col, with PyTorch's arguments.

The maths lives in `ops/conv.py` (unfold, fold, convolution as a matrix product); this file
turns PyTorch's arguments (ints or tuples, padding "same" / "valid", unbatched inputs) into the
windows those functions take, with errors that say what to change (pooling and resampling:
`functional_pool.py`).
Inputs are channels-first: (N, C, L) for 1-d, (N, C, H, W) for 2-d; an unbatched (C, ...)
input gives an unbatched output, as in PyTorch.
"""

from __future__ import annotations

import math

import numpy as np

from ...functions.creation import as_tensor
from ...ops import conv as conv_ops
from ...ops.composite import require_floating
from ...ops.fused.conv import conv as fused_conv

__all__ = [
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "fold",
    "unfold",
]


# --- arguments ----------------------------------------------------------------------------------
def _ntuple(op: str, name: str, value, n: int) -> tuple:
    """An int or a tuple of n ints, as a tuple of n ints."""
    if isinstance(value, (int, np.integer)):
        return (int(value),) * n
    value = tuple(value)
    if len(value) == 1:
        value = value * n
    if not all(isinstance(v, (int, np.integer)) for v in value):
        raise TypeError(f"{op}: {name} must be an int or a tuple of {n} ints, got {value!r}")
    if len(value) != n:  # PyTorch's RuntimeError
        raise RuntimeError(
            f"{op}: {name} must be an int or a tuple of {n} ints (one per spatial dimension), "
            f"got {len(value)} values {value!r}"
        )
    return tuple(int(v) for v in value)


def _batched(op: str, input, n_space: int, pooling=False):  # noqa: A002 - PyTorch's name
    """(x as (N, C, *S), was_unbatched): a (C, *S) input becomes a batch of one.

    Empty inputs as PyTorch: a batch of 0 is fine; so are 0 channels for a convolution (not
    for pooling); a spatial size of 0 has no windows at all and is an error.
    """
    x = as_tensor(input)
    if x.ndim == n_space + 1:
        x = x.unsqueeze(0)
    elif x.ndim != n_space + 2:
        raise RuntimeError(
            f"{op}: expected a {n_space + 2}-d input (N, C, {_axes(n_space)}) or a "
            f"{n_space + 1}-d unbatched one, got shape {x.shape}"
        )
    if not (op == "max_pool2d" and x.dtype.kind in "iu"):  # PyTorch's one integer kernel
        require_floating(op, x, NotImplementedError, f"F.{op}(x.float(), ...)")
    empty_ok = x.shape[0] == 0 or (x.shape[1] == 0 and not pooling)
    if 0 in x.shape[1 if pooling else 2 :] and not empty_ok:
        raise RuntimeError(
            f"{op}: the input of shape {x.shape} is empty along a channel or spatial axis, so "
            "it has no windows; only an empty batch (first axis 0) is supported"
        )
    return x, as_tensor(input).ndim == n_space + 1


def _axes(n_space: int) -> str:
    return {1: "L", 2: "H, W", 3: "D, H, W"}[n_space]


def _unbatch(y, unbatched: bool):
    return y.squeeze(0) if unbatched else y


def _conv_pads(op: str, padding, kernel, dilation, stride) -> tuple:
    """((low, high), ...) from an int, a tuple, "valid" (none) or "same" (output = input)."""
    n = len(kernel)
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * n
        if padding != "same":
            raise RuntimeError(f"{op}: invalid padding string {padding!r}; use 'same' or 'valid'")
        if any(s != 1 for s in stride):
            raise RuntimeError(
                f"{op}: padding='same' is not supported for strided convolutions (stride "
                f"{stride}); give the padding as numbers, or use stride 1"
            )
        # NOTE: the total d·(k-1) may be odd: the extra zero goes after, as in PyTorch.
        totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return tuple((t // 2, t - t // 2) for t in totals)
    pads = _ntuple(op, "padding", padding, n)
    if min(pads) < 0:
        raise RuntimeError(
            f"{op}: negative padding is not supported (as in PyTorch), got padding={pads}; to "
            "crop the input first, use F.pad(x, (-1, -1, ...)) with negative sizes"
        )
    return tuple((p, p) for p in pads)


# --- convolution --------------------------------------------------------------------------------
def _conv(op, n_space, input, weight, bias, stride, padding, dilation, groups):  # noqa: A002
    x, unbatched = _batched(op, input, n_space)
    w = as_tensor(weight)
    if w.ndim != n_space + 2:
        raise RuntimeError(
            f"{op}: weight must be (out_channels, in_channels / groups, {_axes(n_space)}), got "
            f"shape {w.shape}"
        )
    if w.shape[0] < groups:
        raise RuntimeError(
            f"{op}: given groups={groups}, the weight needs at least {groups} output channels "
            f"(its first axis), but has shape {w.shape}"
        )
    if x.shape[1] != w.shape[1] * groups or w.shape[0] % groups:
        raise RuntimeError(
            f"{op}: given groups={groups} and weight of shape {w.shape}, the input should have "
            f"{w.shape[1] * groups} channels (and out_channels {w.shape[0]} divisible by "
            f"groups), but input of shape {x.shape} has {x.shape[1]}"
        )
    kernel, stride, dilation, bias = _settings(op, x, w, bias, stride, dilation)
    pads = _conv_pads(op, padding, kernel, dilation, stride)
    geometry = conv_ops.windows(op, x.shape[2:], kernel, stride, dilation, pads)
    return _unbatch(fused_conv(x, w, bias, geometry, groups), unbatched)


def _settings(op: str, x, w, bias, stride, dilation) -> tuple:
    """(kernel, stride, dilation, bias): the kernel's sizes, stride and dilation as tuples of
    one int per spatial axis, bias as a Tensor (or None), once x, w and bias share a dtype."""
    _same_dtype(op, x, w, bias)
    n_space = w.ndim - 2
    stride = _ntuple(op, "stride", stride, n_space)
    dilation = _ntuple(op, "dilation", dilation, n_space)
    return w.shape[2:], stride, dilation, None if bias is None else as_tensor(bias)


def _same_dtype(op: str, x, w, bias) -> None:
    dtypes = {x.dtype, w.dtype} | ({as_tensor(bias).dtype} if bias is not None else set())
    if len(dtypes) > 1:
        raise RuntimeError(
            f"{op}: input ({x.dtype}), weight ({w.dtype}) and bias must have one dtype; convert "
            "the input with .to(weight.dtype) (or the module with .double() / .float())"
        )


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """1-d convolution (cross-correlation, as in PyTorch): y[n, o, t] = bias[o] +
    sum_{c, j} weight[o, c, j] · x[n, c, t·stride + j·dilation - pad].

    input (N, C_in, L) or (C_in, L); weight (C_out, C_in / groups, K); bias (C_out,).
    padding: int, tuple, "valid" or "same". Output length floor((L + 2p - d(K-1) - 1) / s) + 1.

    >>> import tinygrad_norm as tg
    >>> conv1d(tg.tensor([[[1.0, 2.0, 3.0, 4.0]]]), tg.tensor([[[1.0, -1.0]]]))
    tensor([[[-1., -1., -1.]]])
    """
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """2-d convolution: y[n, o, i, j] = bias[o] + sum_{c, a, b} weight[o, c, a, b] ·
    x[n, c, i·s_h + a·d_h - p_h, j·s_w + b·d_w - p_w]; computed as weight @ unfold(x).

    input (N, C_in, H, W) or (C_in, H, W); weight (C_out, C_in / groups, kH, kW); bias (C_out,).
    stride, padding (int, tuple, "valid", "same"), dilation: ints or pairs.

    >>> import tinygrad_norm as tg
    >>> conv2d(tg.ones(1, 1, 3, 3), tg.ones(1, 1, 2, 2)).tolist()
    [[[[4.0, 4.0], [4.0, 4.0]]]]
    """
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """3-d convolution: as conv2d with one more spatial axis, input (N, C_in, D, H, W)."""
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose(op, input, weight, bias, stride, padding, output_padding, groups, dilation):  # noqa: A002
    n_space = int(op[-2])  # "conv_transpose2d": 2 spatial axes
    x, unbatched = _batched(op, input, n_space)
    w = as_tensor(weight)
    if w.ndim != n_space + 2 or x.shape[1] != w.shape[0] or w.shape[0] % groups:
        raise RuntimeError(
            f"{op}: weight must be (in_channels, out_channels / groups, {_axes(n_space)}) with "
            f"in_channels = the input's channels, divisible by groups={groups}; got weight "
            f"{w.shape} for input {x.shape}"
        )
    kernel, stride, dilation, bias = _settings(op, x, w, bias, stride, dilation)
    padding = _ntuple(op, "padding", padding, n_space)
    extra = _ntuple(op, "output_padding", output_padding, n_space)
    if any(e >= max(s, d) for e, s, d in zip(extra, stride, dilation)):
        raise RuntimeError(
            f"{op}: output_padding {extra} must be smaller than either stride {stride} or "
            f"dilation {dilation}"
        )
    size = tuple(
        (n - 1) * s - 2 * p + d * (k - 1) + e + 1
        for n, s, p, d, k, e in zip(x.shape[2:], stride, padding, dilation, kernel, extra)
    )
    if any(n < 1 for n in size):
        raise RuntimeError(f"{op}: the output size {size} is not positive; use less padding")
    pads = tuple((p, p) for p in padding)
    geometry = conv_ops.windows(op, size, kernel, stride, dilation, pads, out=x.shape[2:])
    return _unbatch(conv_ops.conv_transpose(x, w, bias, geometry, groups), unbatched)


def conv_transpose1d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):  # noqa: A002 - PyTorch's names
    """1-d transposed convolution: the gradient of conv1d with respect to its input.

    input (N, C_in, L); weight (C_in, C_out / groups, K); output length
    (L - 1)·stride - 2·padding + dilation·(K - 1) + output_padding + 1.

    >>> import tinygrad_norm as tg
    >>> conv_transpose1d(tg.tensor([[[1.0, 2.0]]]), tg.tensor([[[1.0, 10.0]]])).tolist()
    [[[1.0, 12.0, 20.0]]]
    """
    return _conv_transpose(
        "conv_transpose1d", input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def conv_transpose2d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):  # noqa: A002 - PyTorch's names
    """2-d transposed convolution ("deconvolution"): each input element adds a copy of the
    kernel, scaled by its value, into the output at stride steps; overlaps add up.

    input (N, C_in, H, W); weight (C_in, C_out / groups, kH, kW); output height
    (H - 1)·s - 2·p + d·(kH - 1) + output_padding + 1 (and the same for the width).
    """
    return _conv_transpose(
        "conv_transpose2d", input, weight, bias, stride, padding, output_padding, groups, dilation
    )


# --- im2col -------------------------------------------------------------------------------------
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """im2col: every kernel-sized window of a batch of images as a column.

    input (N, C, H, W) -> (N, C·kH·kW, L), L the number of windows; column l holds window l's
    elements channel by channel, row-major, so conv2d is weight.reshape(C_out, -1) @ unfold(x).

    >>> import tinygrad_norm as tg
    >>> unfold(tg.arange(9.0).reshape(1, 1, 3, 3), 2).tolist()
    [[[0.0, 1.0, 3.0, 4.0], [1.0, 2.0, 4.0, 5.0], [3.0, 4.0, 6.0, 7.0], [4.0, 5.0, 7.0, 8.0]]]
    """
    x, unbatched = _batched("unfold", input, 2)
    geometry = _fold_windows("unfold", x.shape[2:], kernel_size, dilation, padding, stride)
    n, c = x.shape[:2]
    cols = conv_ops.Unfold.apply(x, geometry)  # (N, C, kH, kW, oH, oW)
    k, windows = math.prod(geometry.kernel), math.prod(geometry.out)
    return _unbatch(cols.reshape(n, c * k, windows), unbatched)  # (N, C·kH·kW, L)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """col2im, the adjoint of `unfold`: columns (N, C·kH·kW, L) added back into images
    (N, C, *output_size); where windows overlap, their values add up.

    >>> import tinygrad_norm as tg
    >>> fold(tg.ones(1, 4, 4), (3, 3), 2).tolist()   # how many windows cover each pixel
    [[[[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]]]
    """
    cols = as_tensor(input)
    unbatched = cols.ndim == 2
    cols = cols.unsqueeze(0) if unbatched else cols
    size = _ntuple("fold", "output_size", output_size, 2)
    geometry = _fold_windows("fold", size, kernel_size, dilation, padding, stride)
    k, windows = math.prod(geometry.kernel), math.prod(geometry.out)
    if cols.ndim != 3 or cols.shape[1] % k or cols.shape[2] != windows:
        raise RuntimeError(
            f"fold: input of shape {cols.shape} should be (N, C·{k}, {windows}): kernel "
            f"{geometry.kernel} has {k} elements and output_size {size} gives {windows} windows"
        )
    n, c = cols.shape[0], cols.shape[1] // k
    cols = cols.reshape((n, c) + geometry.kernel + geometry.out)  # (N, C, kH, kW, oH, oW)
    return _unbatch(conv_ops.Fold.apply(cols, geometry), unbatched)


def _fold_windows(op, size, kernel_size, dilation, padding, stride):
    kernel = _ntuple(op, "kernel_size", kernel_size, 2)
    pads = tuple((p, p) for p in _ntuple(op, "padding", padding, 2))
    return conv_ops.windows(
        op,
        size,
        kernel,
        _ntuple(op, "stride", stride, 2),
        _ntuple(op, "dilation", dilation, 2),
        pads,
    )
