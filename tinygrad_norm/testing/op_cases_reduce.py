"""Op-table cases for reductions, scans and sorting, in the format of
`op_cases.py`; `op_cases_math.py` appends them to the table. Selections (cummax, median, sort,
topk, ...) are piecewise linear: first order only. Random inputs have no ties.
"""

from __future__ import annotations

import numpy as np

from .op_case import OpCase

_LINEAR = dict(second_order=False)  # piecewise linear: no second derivative to check


def _logcumsumexp(x, axis):
    return np.log(np.cumsum(np.exp(x), axis=axis))


def _sorted(x, axis, descending=False):
    out = np.sort(x, axis=axis)
    return np.flip(out, axis) if descending else out


def _kth(x, k, axis):
    return np.take(np.sort(x, axis=axis), k - 1, axis=axis)


CASES = [
    # --- item 3: reductions and scans -------------------------------------------------------------
    OpCase("prod_all", lambda lib, x: x.prod(), np.prod, ((2, 3),)),
    OpCase(
        "prod_dim_keepdim",
        lambda lib, x: lib.prod(x, dim=-1, keepdim=True),
        lambda x: np.prod(x, axis=-1, keepdims=True),
        ((3, 5),),
    ),
    OpCase(
        "logsumexp_dims",
        lambda lib, x: lib.logsumexp(x, dim=(0, -1)),
        lambda x: np.log(np.exp(x).sum(axis=(0, -1))),
        ((2, 3, 4),),
    ),
    OpCase(
        "logsumexp_keepdim",
        lambda lib, x: x.logsumexp(1, keepdim=True),
        lambda x: np.log(np.exp(x).sum(axis=1, keepdims=True)),
        ((3, 4),),
    ),
    OpCase("cumsum", lambda lib, x: x.cumsum(-1), lambda x: np.cumsum(x, -1), ((3, 4),)),
    OpCase(
        "cumsum_dim0", lambda lib, x: lib.cumsum(x, dim=0), lambda x: np.cumsum(x, 0), ((3, 4),)
    ),
    OpCase("cumprod", lambda lib, x: x.cumprod(1), lambda x: np.cumprod(x, 1), ((2, 5),)),
    OpCase(
        "cumprod_dim0",
        lambda lib, x: lib.cumprod(x, dim=-2),
        lambda x: np.cumprod(x, -2),
        ((3, 2),),
    ),
    OpCase(
        "logcumsumexp",
        lambda lib, x: lib.logcumsumexp(x, dim=-1),
        lambda x: _logcumsumexp(x, -1),
        ((2, 5),),
    ),
    OpCase(
        "cummax_values",
        lambda lib, x: x.cummax(1).values,
        lambda x: np.maximum.accumulate(x, 1),
        ((2, 5),),
        **_LINEAR,
    ),
    OpCase(
        "cummin_values",
        lambda lib, x: lib.cummin(x, dim=0)[0],
        lambda x: np.minimum.accumulate(x, 0),
        ((4, 2),),
        **_LINEAR,
    ),
    OpCase(
        "std_mean",
        lambda lib, x: lib.std_mean(x, dim=1),
        lambda x: (x.std(1, ddof=1), x.mean(1)),
        ((3, 4),),
    ),
    OpCase(
        "var_mean_keepdim",
        lambda lib, x: lib.var_mean(x, dim=(0, 1), keepdim=True, correction=0),
        lambda x: (x.var(axis=(0, 1), keepdims=True), x.mean(axis=(0, 1), keepdims=True)),
        ((3, 2, 2),),
    ),
    OpCase(
        "median_all",
        lambda lib, x: x.median(),
        lambda x: np.sort(x.ravel())[2],
        ((2, 3),),
        **_LINEAR,
    ),
    OpCase(
        "median_dim",
        lambda lib, x: lib.median(x, dim=-1).values,
        lambda x: _kth(x, 3, -1),
        ((3, 6),),
        **_LINEAR,
    ),
    OpCase(
        "kthvalue_keepdim",
        lambda lib, x: x.kthvalue(2, dim=0, keepdim=True).values,
        lambda x: np.sort(x, 0)[1:2],
        ((4, 3),),
        **_LINEAR,
    ),
    OpCase(
        "mode_distinct",
        lambda lib, x: lib.mode(x, 1).values,
        lambda x: x.min(1),  # all counts 1: the smallest value
        ((3, 4),),
        **_LINEAR,
    ),
    OpCase(
        "aminmax_dim",
        lambda lib, x: lib.aminmax(x, dim=0),
        lambda x: (x.min(0), x.max(0)),
        ((3, 4),),
        **_LINEAR,
    ),
    OpCase(
        "norm_p3_dim",
        lambda lib, x: lib.norm(x, p=3, dim=1),
        lambda x: (np.abs(x) ** 3).sum(1) ** (1 / 3),
        ((3, 4),),
    ),
    OpCase(
        "norm_p_half",
        lambda lib, x: x.norm(p=0.5),
        lambda x: np.sqrt(np.abs(x)).sum() ** 2,
        ((2, 3),),
    ),
    # --- item 5: sorting --------------------------------------------------------------------------
    OpCase("sort", lambda lib, x: x.sort().values, lambda x: np.sort(x, -1), ((3, 4),), **_LINEAR),
    OpCase(
        "sort_descending_dim0",
        lambda lib, x: lib.sort(x, dim=0, descending=True)[0],
        lambda x: _sorted(x, 0, descending=True),
        ((4, 3),),
        **_LINEAR,
    ),
    OpCase("msort", lambda lib, x: lib.msort(x), lambda x: np.sort(x, 0), ((4, 2),), **_LINEAR),
    OpCase(
        "topk",
        lambda lib, x: x.topk(2).values,
        lambda x: _sorted(x, -1, descending=True)[:, :2],
        ((3, 5),),
        **_LINEAR,
    ),
    OpCase(
        "topk_smallest_dim0",
        lambda lib, x: lib.topk(x, 3, dim=0, largest=False)[0],
        lambda x: np.sort(x, 0)[:3],
        ((5, 2),),
        **_LINEAR,
    ),
]
