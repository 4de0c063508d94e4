"""Spatial transformers (Jaderberg et al., 2015): `affine_grid` and `grid_sample`.

`affine_grid(theta, size)` gives, for each output pixel, the point of the input it should read:
the pixel's normalised coordinates (x, y) ∈ [-1, 1] (x along W, y along H; -1 and 1 are the
corner pixels' centres with align_corners=True, their outer edges otherwise) mapped by the
2 x 3 matrix theta: (x', y') = theta @ (x, y, 1). (3-d: (x, y, z) and a 3 x 4 theta.)

`grid_sample(input, grid)` reads input at those points. A point (x, y) becomes a pixel position

    ix = (x + 1) / 2 · (W - 1)              (align_corners=True)
    ix = ((x + 1) · W - 1) / 2              (align_corners=False)

and the value there is the bilinear blend of the four pixels around it (weights (1 - fx)(1 - fy),
fx(1 - fy), ..., with fx = ix - floor(ix)), or the nearest pixel's value. Points outside read 0
(padding_mode="zeros"), the nearest edge ("border") or are mirrored back ("reflection").
Composed of gathers and products, so gradients reach both input and grid (through the weights).
"""

from __future__ import annotations

import numpy as np

from ...functions.creation import as_tensor
from ...tensor import Tensor

__all__ = ["affine_grid", "grid_sample"]


def _base_coordinates(n: int, align_corners: bool) -> np.ndarray:
    """The normalised coordinates of n pixel centres along one axis."""
    if n == 1:
        return np.zeros(1)
    steps = np.linspace(-1.0, 1.0, n)
    return steps if align_corners else steps * (n - 1) / n


def affine_grid(theta, size, align_corners=False):
    """Sampling points for grid_sample: theta (N, 2, 3) and size (N, C, H, W) give a grid
    (N, H, W, 2) of (x, y); theta (N, 3, 4) and size (N, C, D, H, W) a grid (N, D, H, W, 3)."""
    theta = as_tensor(theta)
    size = tuple(int(s) for s in size)
    n_space = len(size) - 2
    if n_space not in (2, 3) or theta.shape != (size[0], n_space, n_space + 1):
        raise ValueError(
            f"affine_grid: expected theta of shape (N, 2, 3) with a 4-d size or (N, 3, 4) with a "
            f"5-d size; got theta {theta.shape} and size {size}"
        )
    if not theta.dtype.kind == "f":
        raise ValueError(f"affine_grid: theta must be floating point, got {theta.dtype}")
    axes = [_base_coordinates(n, align_corners) for n in reversed(size[2:])]  # x, y, (z)
    mesh = np.meshgrid(*reversed(axes), indexing="ij")  # (D,) H, W arrays: z, y, x order
    base = np.stack([*reversed(mesh), np.ones_like(mesh[0])], axis=-1)  # (..., x, y, (z), 1)
    base = Tensor(base.reshape(1, -1, n_space + 1).astype(theta.dtype))
    grid = base @ theta.transpose(1, 2)  # (N, points, n_space)
    return grid.reshape(size[0], *size[2:], n_space)


def _pixel(coordinate, n: int, align_corners: bool):
    """Normalised coordinate -> pixel position along an axis of n pixels."""
    if align_corners:
        return (coordinate + 1) / 2 * (n - 1)
    return ((coordinate + 1) * n - 1) / 2


def _reflect(position, low2: int, high2: int):
    """Mirror a position into [low2 / 2, high2 / 2] (PyTorch's reflect_coordinates)."""
    if low2 == high2:
        return position * 0
    low, span = low2 / 2, (high2 - low2) / 2
    distance = (position - low).abs()
    flips = (distance.detach() / span).floor()
    extra = distance - flips * span
    even = (flips.array % 2) == 0
    return (extra + low).where(Tensor(even), span - extra + low)


def _padded(position, n: int, padding_mode: str, align_corners: bool):
    if padding_mode == "border":
        return position.clamp(0, n - 1)
    if padding_mode == "reflection":
        if align_corners:
            position = _reflect(position, 0, 2 * (n - 1))
        else:
            position = _reflect(position, -1, 2 * n - 1)
        return position.clamp(0, n - 1)
    return position


def _read(flat, iy, ix, h: int, w: int):
    """flat (N, C, H·W) at integer positions iy, ix (N, P) (arrays); zero outside."""
    inside = (iy >= 0) & (iy < h) & (ix >= 0) & (ix < w)
    index = np.where(inside, iy * w + ix, 0)
    n, c = flat.shape[:2]
    index = Tensor(np.broadcast_to(index[:, None, :], (n, c, index.shape[1])).copy())
    values = flat.gather(2, index)
    return values * Tensor(inside[:, None, :].astype(flat.dtype))


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):  # noqa: A002
    """Read input (N, C, H, W) at the points of grid (N, H_out, W_out, 2) (x, y in [-1, 1]):
    output (N, C, H_out, W_out). mode "bilinear" or "nearest"; padding_mode "zeros", "border"
    or "reflection"; align_corners defaults to False, as in PyTorch."""
    x, grid = as_tensor(input), as_tensor(grid)
    align_corners = bool(align_corners)
    if x.ndim != 4 or grid.ndim != 4 or grid.shape[-1] != 2 or grid.shape[0] != x.shape[0]:
        raise RuntimeError(
            f"grid_sample: expected input (N, C, H, W) and grid (N, H_out, W_out, 2) with one N; "
            f"got input {x.shape} and grid {grid.shape} (5-d volumes are not implemented here)"
        )
    if mode not in ("bilinear", "nearest"):
        raise NotImplementedError(f"grid_sample: mode {mode!r} is not implemented here")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"grid_sample: unknown padding_mode {padding_mode!r}")
    n, c, h, w = x.shape
    _, h_out, w_out, _ = grid.shape
    points = grid.reshape(n, h_out * w_out, 2)
    ix = _padded(_pixel(points[..., 0], w, align_corners), w, padding_mode, align_corners)
    iy = _padded(_pixel(points[..., 1], h, align_corners), h, padding_mode, align_corners)
    flat = x.reshape(n, c, h * w)
    if mode == "nearest":
        jx = np.round(ix.array).astype(np.int64)  # halves to even, as PyTorch's nearbyint
        jy = np.round(iy.array).astype(np.int64)
        out = _read(flat, jy, jx, h, w)
    else:
        x0, y0 = np.floor(ix.array).astype(np.int64), np.floor(iy.array).astype(np.int64)
        fx, fy = (ix - Tensor(x0.astype(ix.dtype))), (iy - Tensor(y0.astype(iy.dtype)))
        fx, fy = fx.unsqueeze(1), fy.unsqueeze(1)
        out = (
            _read(flat, y0, x0, h, w) * (1 - fx) * (1 - fy)
            + _read(flat, y0, x0 + 1, h, w) * fx * (1 - fy)
            + _read(flat, y0 + 1, x0, h, w) * (1 - fx) * fy
            + _read(flat, y0 + 1, x0 + 1, h, w) * fx * fy
        )
    return out.reshape(n, c, h_out, w_out)
