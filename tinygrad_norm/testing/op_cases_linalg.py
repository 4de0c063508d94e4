"""Op-table cases for products, einsum and tg.linalg norms.

Same format as `op_cases.py`; `op_cases_shape.py` appends these to its own cases.
"""

from __future__ import annotations

import numpy as np

from .op_case import POSITIVE, OpCase

LINALG_CASES = [
    # --- products --------------------------------------------------------------------------------
    OpCase("mm", lambda lib, a, b: a.mm(b), np.matmul, ((2, 3), (3, 4))),
    OpCase("bmm", lambda lib, a, b: lib.bmm(a, b), np.matmul, ((2, 2, 3), (2, 3, 4))),
    OpCase("mv", lambda lib, a, v: lib.mv(a, v), np.matmul, ((2, 3), (3,))),
    OpCase("dot", lambda lib, a, b: a.dot(b), np.dot, ((3,), (3,))),
    OpCase("inner", lambda lib, a, b: lib.inner(a, b), np.inner, ((2, 3), (4, 3))),
    OpCase("outer", lambda lib, a, b: lib.outer(a, b), np.outer, ((2,), (3,))),
    OpCase("kron", lambda lib, a, b: lib.kron(a, b), np.kron, ((2, 3), (2, 1, 2))),
    OpCase(
        "tensordot",
        lambda lib, a, b: lib.tensordot(a, b),
        lambda a, b: np.tensordot(a, b),
        ((2, 3, 4), (3, 4, 2)),
    ),
    OpCase(
        "tensordot_pairs",
        lambda lib, a, b: lib.tensordot(a, b, dims=([0, 2], [2, 0])),
        lambda a, b: np.tensordot(a, b, ([0, 2], [2, 0])),
        ((2, 3, 4), (4, 5, 2)),
    ),
    OpCase(
        "addmm_beta_alpha",
        lambda lib, c, a, b: lib.addmm(c, a, b, beta=0.5, alpha=-2.0),
        lambda c, a, b: 0.5 * c - 2.0 * a @ b,
        ((2, 4), (2, 3), (3, 4)),
    ),
    OpCase(
        "baddbmm",
        lambda lib, c, a, b: c.baddbmm(a, b, beta=2.0, alpha=0.5),
        lambda c, a, b: 2.0 * c + 0.5 * a @ b,
        ((1, 4), (2, 2, 3), (2, 3, 4)),
    ),
    OpCase(
        "addmv",
        lambda lib, c, a, v: lib.addmv(c, a, v),
        lambda c, a, v: c + a @ v,
        ((2,), (2, 3), (3,)),
    ),
    # --- einsum ----------------------------------------------------------------------------------
    *[
        OpCase(
            f"einsum_{name}",
            lambda lib, *xs, eq=eq: lib.einsum(eq, *xs),
            lambda *xs, eq=eq, ref=ref: np.einsum(ref or eq, *xs),
            shapes,
        )
        for name, eq, shapes, ref in [
            ("matmul", "ij,jk->ik", ((2, 3), (3, 4)), None),
            ("implicit", "jk,ij", ((3, 4), (2, 3)), None),
            ("trace", "ii", ((3, 3),), None),
            ("diagonal", "ii->i", ((3, 3),), None),
            ("diagonal_batch", "iij->ji", ((3, 3, 2),), None),
            ("repeated_across", "ii,ij->j", ((3, 3), (3, 2)), None),
            ("sum_all", "ij->", ((2, 3),), None),
            ("only_in_one", "ij,k->ik", ((2, 3), (4,)), None),
            ("ellipsis_broadcast", "...ij,...jk->...ik", ((2, 1, 2, 3), (4, 3, 2)), None),
            ("ellipsis_implicit", "...i,...i", ((2, 3), (3,)), None),
            ("ellipsis_summed", "...ij->ij", ((2, 2, 3),), "kij->ij"),
            ("bilinear", "bn,anm,bm->ba", ((2, 3), (4, 3, 2), (2, 2)), None),
            ("spaces", " b i j , b j -> b i ", ((2, 3, 4), (2, 4)), None),
            ("outer", "i,j->ij", ((2,), (3,)), None),
            ("transpose", "ijk->kji", ((2, 3, 4),), None),
            ("upper_case", "Ab,bC->AC", ((2, 3), (3, 2)), None),
            ("size_one_broadcast", "ij,ij->ij", ((3, 1), (3, 4)), None),
        ]
    ],
    OpCase(
        "einsum_list",
        lambda lib, a, b: lib.einsum("ij,jk", [a, b]),
        np.matmul,
        ((2, 3), (3, 4)),
    ),
    OpCase(
        "einsum_sublist",
        lambda lib, a, b: lib.einsum(a, [0, Ellipsis, 1], b, [1, 2], [Ellipsis, 0, 2]),
        lambda a, b: np.einsum("a...b,bc->...ac", a, b),
        ((2, 4, 3), (3, 2)),
    ),
    # --- norms -----------------------------------------------------------------------------------
    OpCase(
        "vector_norm",
        lambda lib, x: lib.linalg.vector_norm(x, dim=-1),
        lambda x: np.linalg.norm(x, axis=-1),
        ((3, 4),),
    ),
    OpCase(
        "vector_norm_ord3_keepdim",
        lambda lib, x: lib.linalg.vector_norm(x, 3, (0, 2), keepdim=True),
        lambda x: (np.abs(x) ** 3).sum((0, 2), keepdims=True) ** (1 / 3),
        ((2, 3, 2),),
    ),
    OpCase(
        "vector_norm_inf",
        lambda lib, x: lib.linalg.vector_norm(x, float("inf")),
        lambda x: np.abs(x).max(),
        ((3, 4),),
    ),
    OpCase(
        "vector_norm_ord1_all_keepdim",
        lambda lib, x: lib.linalg.vector_norm(x, 1, keepdim=True),
        lambda x: np.abs(x).sum(keepdims=True),
        ((3, 4),),
    ),
    *[
        OpCase(
            f"matrix_norm_{name}",
            lambda lib, x, o=ord_: lib.linalg.matrix_norm(x, o),
            lambda x, o=ord_: np.stack([np.linalg.norm(m, o) for m in x]),
            ((2, 3, 4),),
        )
        for name, ord_ in [
            ("fro", "fro"),
            ("nuc", "nuc"),
            ("1", 1),
            ("-1", -1),
            ("inf", float("inf")),
            ("-inf", float("-inf")),
            ("2", 2),
            ("-2", -2),
        ]
    ],
    OpCase(
        "matrix_norm_dims_keepdim",
        lambda lib, x: lib.linalg.matrix_norm(x, 1, dim=(0, 2), keepdim=True),
        lambda x: np.abs(x).sum(0, keepdims=True).max(2, keepdims=True),
        ((3, 2, 4),),
    ),
    OpCase(
        "linalg_norm",
        lambda lib, x: lib.linalg.norm(x),
        lambda x: np.linalg.norm(x.ravel()),
        ((2, 3, 2),),
    ),
    OpCase(
        "linalg_norm_matrix_ord",
        lambda lib, x: lib.linalg.norm(x, -1),
        lambda x: np.linalg.norm(x, -1),
        ((3, 4),),
    ),
    OpCase(
        "linalg_norm_dim",
        lambda lib, x: lib.linalg.norm(x, 0.5, dim=1),
        lambda x: (np.abs(x) ** 0.5).sum(1) ** 2,
        ((3, 4),),
        POSITIVE,
    ),
]
