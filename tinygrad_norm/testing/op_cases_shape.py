"""Op-table cases for indexing, shape ops, F.pad and F.normalize, plus
those of op_cases_linalg.py (item 6).

Same format as `op_cases.py` (which appends these): `fn(lib, *xs)` runs on tinygrad_norm and on
PyTorch, `ref` is the plain-NumPy formula. Index tensors are constants built inside `fn`.
"""

from __future__ import annotations

import numpy as np

from .op_case import OpCase
from .op_cases_linalg import LINALG_CASES

IDX = np.array([[0, 2, 2], [1, 1, 0], [3, 3, 3]])  # (3, 3), repeated places in every row
UNIQUE = np.array([[3, 0], [1, 2], [0, 3]])  # (3, 2), no place twice in a row: scatter's rule
MASK = np.array([True, False, True, True])  # broadcasts over (3, 4)
MASK2 = np.array([[True, False, False, True], [False, True, True, False], [True] * 4])


def _gather(x, dim, index):
    """out[i][j] = x[index[i][j]][j] (dim 0): x cut to index's shape off `dim`."""
    cut = tuple(
        slice(None) if d == dim % x.ndim else slice(0, n) for d, n in enumerate(index.shape)
    )
    return np.take_along_axis(x[cut], index, dim)


def _scatter(x, index, src, combine):
    out = x.copy()
    for i in range(index.shape[0]):
        for j in range(index.shape[1]):
            out[i, index[i, j]] = combine(out[i, index[i, j]], src[i, j])
    return out


def _scatter_reduce(x, src, reduce, include_self):
    """The 2-D, dim-1 scatter_reduce by loops, as the docs define it."""
    out = x.copy()
    for i in range(x.shape[0]):
        for c in range(x.shape[1]):
            vals = [src[i, j] for j in range(IDX.shape[1]) if IDX[i, j] == c]
            if not vals:
                continue
            if include_self:
                vals.append(x[i, c])
            fold = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "amax": np.max}
            out[i, c] = fold.get(reduce, np.min)(vals)
    return out


def _reflect(x, left, right):
    return np.pad(x, [(0, 0)] * (x.ndim - 1) + [(left, right)], mode="reflect")


def _svd(x):
    return np.linalg.svd(x, compute_uv=False)


def _t(lib, array):
    return lib.tensor(array)


CASES = [
    # --- gather family ---------------------------------------------------------------------------
    OpCase(
        "gather",
        lambda lib, x: x.gather(1, _t(lib, IDX)),
        lambda x: _gather(x, 1, IDX),
        ((3, 4),),
    ),
    OpCase(
        "gather_dim0_neg",
        lambda lib, x: lib.gather(x, -2, _t(lib, IDX[:2] % 3)),
        lambda x: _gather(x, 0, IDX[:2] % 3),
        ((3, 4),),
    ),
    OpCase(
        "take_along_dim_broadcast",
        lambda lib, x: lib.take_along_dim(x, _t(lib, IDX[:1]), dim=-1),
        lambda x: _gather(x, -1, np.broadcast_to(IDX[:1], (3, 3))),
        ((3, 4),),
    ),
    OpCase(
        "take_along_dim_flat",
        lambda lib, x: x.take_along_dim(_t(lib, [5, 1, 5])),
        lambda x: x.reshape(-1)[[5, 1, 5]],
        ((3, 4),),
    ),
    OpCase(
        "take",
        lambda lib, x: lib.take(x, _t(lib, [[0, -1], [11, 0]])),
        lambda x: x.reshape(-1)[[[0, -1], [11, 0]]],
        ((3, 4),),
    ),
    OpCase(
        "index_select",
        lambda lib, x: x.index_select(-1, _t(lib, [3, 0, 3])),
        lambda x: x[..., [3, 0, 3]],
        ((2, 3, 4),),
    ),
    OpCase(
        "masked_select_broadcast",
        lambda lib, x: x.masked_select(_t(lib, MASK)),
        lambda x: x[np.broadcast_to(MASK, x.shape)],
        ((3, 4),),
    ),
    OpCase(
        "scatter",
        lambda lib, x, s: x.scatter(1, _t(lib, UNIQUE), s),
        lambda x, s: _scatter(x, UNIQUE, s, lambda old, new: new),
        ((3, 4), (3, 2)),
    ),
    OpCase(
        "scatter_value",
        lambda lib, x: lib.scatter(x, 1, _t(lib, UNIQUE), 0.5),
        lambda x: _scatter(x, UNIQUE, np.full((3, 2), 0.5), lambda old, new: new),
        ((3, 4),),
    ),
    OpCase(
        "scatter_add",
        lambda lib, x, s: x.scatter_add(1, _t(lib, IDX), s),
        lambda x, s: _scatter(x, IDX, s, np.add),
        ((3, 4), (3, 3)),
    ),
    *[
        OpCase(
            f"scatter_reduce_{reduce}{'' if include_self else '_exclude_self'}",
            lambda lib, x, s, r=reduce, inc=include_self: x.scatter_reduce(
                1, _t(lib, IDX), s, r, include_self=inc
            ),
            lambda x, s, r=reduce, inc=include_self: _scatter_reduce(x, s, r, inc),
            ((3, 4), (3, 3)),
        )
        for reduce in ("sum", "prod", "mean", "amax", "amin")
        for include_self in (True, False)
    ],
    OpCase(
        "index_add_alpha",
        lambda lib, x, s: x.index_add(0, _t(lib, [2, 0, 2]), s, alpha=-1.5),
        lambda x, s: x + np.stack([s[1], np.zeros(4), s[0] + s[2]]) * -1.5,
        ((3, 4), (3, 4)),
    ),
    OpCase(
        "masked_scatter",
        lambda lib, x, s: x.masked_scatter(_t(lib, MASK2), s),
        lambda x, s: np.where(MASK2, _masked_put(MASK2, s), x),
        ((3, 4), (10,)),
    ),
    OpCase(
        "index_put",
        lambda lib, x, v: x.index_put((_t(lib, [0, 2]), _t(lib, [1, 3])), v),
        lambda x, v: _put(x, ([0, 2], [1, 3]), v),
        ((3, 4), (2,)),
    ),
    OpCase(
        "index_put_accumulate",
        lambda lib, x, v: x.index_put((_t(lib, [0, 0, 2]),), v, accumulate=True),
        lambda x, v: x + np.stack([v[0] + v[1], np.zeros(4), v[2]]),
        ((3, 4), (3, 4)),
    ),
    # --- shape -----------------------------------------------------------------------------------
    OpCase("flip", lambda lib, x: x.flip(0, -1), lambda x: x[::-1, :, ::-1], ((2, 3, 4),)),
    OpCase("lib_flip", lambda lib, x: lib.flip(x, [1]), lambda x: x[:, ::-1], ((2, 3),)),
    OpCase("fliplr", lambda lib, x: x.fliplr(), np.fliplr, ((2, 3),)),
    OpCase("flipud", lambda lib, x: lib.flipud(x), np.flipud, ((2, 3),)),
    OpCase(
        "roll_dims",
        lambda lib, x: x.roll((1, -2), (0, 2)),
        lambda x: np.roll(x, (1, -2), (0, 2)),
        ((2, 3, 4),),
    ),
    OpCase("roll_flat", lambda lib, x: lib.roll(x, 5), lambda x: np.roll(x, 5), ((2, 3),)),
    OpCase("rot90", lambda lib, x: x.rot90(), np.rot90, ((2, 3),)),
    OpCase(
        "rot90_k_dims",
        lambda lib, x: lib.rot90(x, -1, (2, 0)),
        lambda x: np.rot90(x, -1, (2, 0)),
        ((2, 3, 4),),
    ),
    OpCase("rot90_k2", lambda lib, x: x.rot90(2), lambda x: np.rot90(x, 2), ((2, 3),)),
    OpCase(
        "repeat_interleave",
        lambda lib, x: x.repeat_interleave(2, dim=-1),
        lambda x: np.repeat(x, 2, -1),
        ((2, 3),),
    ),
    OpCase(
        "repeat_interleave_counts",
        lambda lib, x: lib.repeat_interleave(x, _t(lib, [0, 3]), dim=0),
        lambda x: np.repeat(x, [0, 3], 0),
        ((2, 3),),
    ),
    OpCase(
        "repeat_interleave_flat",
        lambda lib, x: x.repeat_interleave(2),
        lambda x: np.repeat(x, 2),
        ((2, 3),),
    ),
    OpCase(
        "unfold_overlapping",
        lambda lib, x: x.unfold(1, 3, 2),
        lambda x: np.stack([x[:, 0:3], x[:, 2:5]], 1).transpose(0, 1, 3, 2),
        ((2, 6, 2),),
    ),
    OpCase(
        "unflatten",
        lambda lib, x: x.unflatten(-1, (2, -1)),
        lambda x: x.reshape(3, 2, 3),
        ((3, 6),),
    ),
    OpCase(
        "narrow",
        lambda lib, x: lib.narrow(x, -1, 1, 2),
        lambda x: x[..., 1:3],
        ((2, 4),),
    ),
    OpCase(
        "movedim",
        lambda lib, x: x.movedim((0, -1), (-1, 1)),
        lambda x: np.moveaxis(x, (0, -1), (-1, 1)),
        ((2, 3, 4, 5),),
    ),
    OpCase(
        "moveaxis",
        lambda lib, x: lib.moveaxis(x, 0, 2),
        lambda x: np.moveaxis(x, 0, 2),
        ((2, 3, 4),),
    ),
    OpCase("diag_vector", lambda lib, x: lib.diag(x, 1), lambda x: np.diag(x, 1), ((3,),)),
    OpCase("diag_matrix", lambda lib, x: x.diag(-1), lambda x: np.diag(x, -1), ((3, 4),)),
    OpCase(
        "diagonal",
        lambda lib, x: x.diagonal(1, -1, 0),
        lambda x: np.diagonal(x, 1, -1, 0),
        ((3, 2, 4),),
    ),
    OpCase("trace", lambda lib, x: x.trace(), np.trace, ((3, 4),)),
    OpCase(
        "diag_embed",
        lambda lib, x: lib.diag_embed(x, -1, 0, 2),
        lambda x: np.moveaxis(np.stack([np.diag(r, -1) for r in x]), 0, 1),
        ((2, 3),),
    ),
    OpCase(
        "meshgrid_ij",
        lambda lib, x, y: lib.meshgrid(x, y, indexing="ij"),
        lambda x, y: tuple(np.meshgrid(x, y, indexing="ij")),
        ((2,), (3,)),
    ),
    OpCase(
        "meshgrid_xy",
        lambda lib, x, y, z: lib.meshgrid(x, y, z, indexing="xy"),
        lambda x, y, z: tuple(np.meshgrid(x, y, z, indexing="xy")),
        ((2,), (3,), (4,)),
    ),
    OpCase(
        "broadcast_to",
        lambda lib, x: x.broadcast_to((2, -1, 4)),
        lambda x: np.broadcast_to(x, (2, 3, 4)),
        ((3, 1),),
    ),
    OpCase(
        "broadcast_tensors",
        lambda lib, x, y: lib.broadcast_tensors(x, y),
        lambda x, y: tuple(np.broadcast_arrays(x, y)),
        ((3, 1), (4,)),
    ),
    OpCase("expand_as", lambda lib, x, y: x.expand_as(y) * y, lambda x, y: x * y, ((3, 1), (3, 4))),
    OpCase(
        "view_as", lambda lib, x, y: x.view_as(y) * y, lambda x, y: x.reshape(6) * y, ((2, 3), (6,))
    ),
    OpCase(
        "reshape_as",
        lambda lib, x, y: x.reshape_as(y) * y,
        lambda x, y: x.reshape(3, 2) * y,
        ((6,), (3, 2)),
    ),
    # --- F.pad, F.normalize -----------------------------------------------------------------------
    OpCase(
        "pad_constant_value_crop",
        lambda lib, x: lib.nn.functional.pad(x, (1, -1, 2, 0), value=0.5),
        lambda x: np.pad(x[:, :, :-1], [(0, 0), (2, 0), (1, 0)], constant_values=0.5),
        ((2, 3, 4),),
    ),
    OpCase(
        "pad_reflect",
        lambda lib, x: lib.nn.functional.pad(x, (3, 2), mode="reflect"),
        lambda x: _reflect(x, 3, 2),
        ((2, 1, 4),),
    ),
    OpCase(
        "pad_replicate_2d",
        lambda lib, x: lib.nn.functional.pad(x, (1, 2, 2, 1), mode="replicate"),
        lambda x: np.pad(x, [(0, 0), (2, 1), (1, 2)], mode="edge"),
        ((1, 2, 3),),
    ),
    OpCase(
        "pad_circular_3d",
        lambda lib, x: lib.nn.functional.pad(x, (1, 1, 0, 2, 2, 0), mode="circular"),
        lambda x: np.pad(x, [(0, 0), (0, 0), (2, 0), (0, 2), (1, 1)], mode="wrap"),
        ((1, 1, 2, 2, 3),),
    ),
    OpCase(
        "normalize",
        lambda lib, x: lib.nn.functional.normalize(x, dim=-1),
        lambda x: x / np.linalg.norm(x, axis=-1, keepdims=True),
        ((3, 4),),
    ),
    OpCase(
        "normalize_p1",
        lambda lib, x: lib.nn.functional.normalize(x, p=1.0),
        lambda x: x / np.abs(x).sum(1, keepdims=True),
        ((2, 3, 2),),
    ),
]

CASES += LINALG_CASES  # products, einsum and norms: op_cases_linalg.py


def _masked_put(mask, source):
    out = np.zeros(mask.shape)
    out[mask] = source[: mask.sum()]
    return out


def _put(x, index, values):
    out = x.copy()
    out[index] = values
    return out
