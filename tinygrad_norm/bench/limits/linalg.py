"""Limits of the products (matmul with broadcasting, vectors, addmm and friends, tensordot,
kron), the op table's einsum equations (each written as the GEMMs a NumPy program would
call, not as np.einsum), and the matrix norms (singular vectors for 2, -2 and nuc).

For out = a @ b: da = g b^T, db = a^T g, summed over the batch axes broadcasting added.
"""

from __future__ import annotations

import numpy as np

from .. import ops_limits as lim
from .common import expand_back, sign, sum_to


def _t(a):
    return np.swapaxes(a, -1, -2)


def matmul(xs, g):
    """a @ b for any ranks (1-d operands as NumPy and PyTorch read them)."""
    a, b = xs
    a @ b
    if a.ndim == 1 and b.ndim == 1:
        return [g * b, g * a]
    if a.ndim == 1:  # a vector times a matrix
        return [b @ g, np.multiply.outer(a, g)]
    if b.ndim == 1:
        return [np.multiply.outer(g, b), np.tensordot(g, a, g.ndim)]
    return [sum_to(g @ _t(b), a.shape), sum_to(_t(a) @ g, b.shape)]


def add_product(beta, alpha):
    """beta c + alpha (a @ b) (addmm, addmv, baddbmm): dc = beta g, da, db as for matmul."""

    def limit(xs, g):
        c, a, b = xs
        out = a @ b
        out *= alpha
        out += c * beta if beta != 1 else c
        ga, gb = matmul([a, b], g)
        if alpha != 1:
            ga *= alpha
            gb *= alpha
        gc = sum_to(g, c.shape)
        return [gc * beta if beta != 1 else gc, ga, gb]

    return limit


def inner(xs, g):
    """a @ b^T: da = g b, db = g^T a."""
    a, b = xs
    a @ b.T
    return [g @ b, g.T @ a]


def outer(xs, g):
    a, b = xs
    np.multiply.outer(a, b)
    return [g @ b, a @ g]


def kron(xs, g):
    """kron(a, b): out[i p + q, ...] = a[i, ...] b[q, ...]; g as (a-axis, b-axis) pairs, then
    da = sum over the b-axes of g b, db = sum over the a-axes of g a."""
    a, b = xs
    nd = max(a.ndim, b.ndim)
    a2 = a.reshape((1,) * (nd - a.ndim) + a.shape)
    b2 = b.reshape((1,) * (nd - b.ndim) + b.shape)
    np.kron(a, b)
    pairs = g.reshape([n for pair in zip(a2.shape, b2.shape) for n in pair])
    letters = "abcdefghijklmnop"
    outer_ix, inner_ix = letters[:nd], letters[nd : 2 * nd]
    paired = "".join(o + i for o, i in zip(outer_ix, inner_ix))
    ga = np.einsum(f"{paired},{inner_ix}->{outer_ix}", pairs, b2).reshape(a.shape)
    gb = np.einsum(f"{paired},{outer_ix}->{inner_ix}", pairs, a2).reshape(b.shape)
    return [ga, gb]


def tensordot2(xs, g):
    """tensordot(a, b) over a's last two and b's first two axes: one GEMM each way."""
    a, b = xs
    m, n = a.shape[0], b.shape[-1]
    a2, b2 = a.reshape(m, -1), b.reshape(-1, n)
    a2 @ b2
    return [(g @ b2.T).reshape(a.shape), (a2.T @ g).reshape(b.shape)]


def tensordot_pairs(xs, g):
    """tensordot(a, b, ([0, 2], [2, 0])): out[j, k] = sum a[i, j, l] b[l, k, i]."""
    a, b = xs
    np.tensordot(a, b, ([0, 2], [2, 0]))
    ga = np.tensordot(g, b, ([1], [1])).transpose(2, 0, 1)
    gb = np.tensordot(a, g, ([1], [0])).transpose(1, 2, 0)
    return [ga, gb]


# --- einsum equations, as GEMMs -----------------------------------------------------------------
def _swap_inputs(limit):
    def swapped(xs, g):
        return limit(xs[::-1], g)[::-1]

    return swapped


def einsum_trace(xs, g):
    (x,) = xs
    np.trace(x)
    gx = np.zeros_like(x)
    np.fill_diagonal(gx, g)
    return [gx]


def einsum_diagonal(xs, g):
    (x,) = xs
    np.diagonal(x).copy()
    gx = np.zeros_like(x)
    np.fill_diagonal(gx, g)
    return [gx]


def einsum_diagonal_batch(xs, g):
    """iij->ji: out[j, i] = x[i, i, j]."""
    (x,) = xs
    i = np.arange(x.shape[0])
    x[i, i].T.copy()
    gx = np.zeros_like(x)
    gx[i, i] = g.T
    return [gx]


def einsum_repeated_across(xs, g):
    """ii,ij->j: out = diag(a) @ b; da = diag(b @ g) on the diagonal, db = outer(diag a, g)."""
    a, b = xs
    d = np.diagonal(a)
    d @ b
    ga = np.zeros_like(a)
    np.fill_diagonal(ga, b @ g)
    return [ga, np.multiply.outer(d, g)]


def einsum_only_in_one(xs, g):
    """ij,k->ik: out = rowsum(a) outer b; da = (g @ b) spread over j, db = rowsum(a) @ g."""
    a, b = xs
    rows = a.sum(axis=1)
    np.multiply.outer(rows, b)
    ga = np.broadcast_to((g @ b)[:, None], a.shape).copy()
    return [ga, rows @ g]


def einsum_bilinear(xs, g):
    """bn,anm,bm->ba: t[b, a, m] = sum_n x[b, n] w[a, n, m]; out = sum_m t y."""
    x, w, y = xs
    t = np.tensordot(x, w, ([1], [1]))
    (t @ y[:, :, None])[..., 0]
    gy = (g[:, None, :] @ t)[:, 0]
    s = g[:, :, None] * y[:, None, :]
    gx = s.reshape(s.shape[0], -1) @ w.transpose(0, 2, 1).reshape(-1, w.shape[1])
    xy = (x[:, :, None] * y[:, None, :]).reshape(x.shape[0], -1)
    gw = (g.T @ xy).reshape(w.shape)
    return [gx, gw, gy]


def einsum_spaces(xs, g):
    """bij,bj->bi: a batched matrix times vector."""
    a, v = xs
    (a @ v[:, :, None])[..., 0]
    return [g[:, :, None] * v[:, None, :], (g[:, None, :] @ a)[:, 0]]


def einsum_sublist(xs, g):
    """a...b,bc->...ac with one ... axis: out[e, a, c] = (x @ y)[a, e, c]."""
    x, y = xs
    (x @ y).transpose(1, 0, 2)
    gt = g.transpose(1, 0, 2)
    return [gt @ y.T, x.reshape(-1, x.shape[-1]).T @ gt.reshape(-1, y.shape[-1])]


def einsum_sum_all(xs, g):
    (x,) = xs
    x.sum()
    return [expand_back(g, x.shape, None, False).copy()]


def einsum_ellipsis_summed(xs, g):
    """kij->ij: a sum over the leading axis."""
    (x,) = xs
    x.sum(axis=0)
    return [np.broadcast_to(g, x.shape).copy()]


def einsum_transpose(xs, g):
    """ijk->kji: a view each way."""
    (x,) = xs
    x.transpose(2, 1, 0)
    return [g.transpose(2, 1, 0)]


# --- matrix norms -------------------------------------------------------------------------------
def _abs_sum_pick(sum_axis, select):
    """max / min over the other axis of sum |x| over `sum_axis` (ord 1, -1, inf, -inf)."""

    def limit(xs, g):
        (x,) = xs
        sums = np.abs(x).sum(axis=sum_axis)
        index = select(sums, axis=-1)
        np.take_along_axis(sums, index[..., None], -1)
        weights = np.zeros_like(sums)
        np.put_along_axis(weights, index[..., None], np.reshape(g, index.shape)[..., None], -1)
        return [sign(x).__imul__(np.expand_dims(weights, sum_axis))]

    return limit


def matrix_norm_dims(xs, g):
    """ord 1 over dims (0, 2), keepdim: max over axis 2 of sum |x| over axis 0."""
    (x,) = xs
    sums = np.abs(x).sum(axis=0)
    index = np.argmax(sums, axis=-1)[:, None]
    weights = np.zeros_like(sums)
    np.put_along_axis(weights, index, g.reshape(-1, 1), -1)
    return [sign(x).__imul__(weights[None])]


def fro(xs, g):
    (x,) = xs
    out = np.sqrt(np.square(x).sum(axis=(-2, -1)))
    return [x * (g / out)[:, None, None]]


def singular(which):
    """nuc: sum of singular values, d = g U V^T; 2 / -2: one singular value, d = g u v^T."""

    def limit(xs, g):
        (x,) = xs
        u, s, vt = np.linalg.svd(x, full_matrices=False)
        if which == "nuc":
            s.sum(axis=-1)
            return [(u @ vt) * g[:, None, None]]
        k = 0 if which == 2 else -1
        s[:, k]
        return [u[:, :, k, None] * vt[:, None, k, :] * g[:, None, None]]

    return limit


def layer_norm_by_hand(xs, g):
    """(x - mean) / sqrt(var + 1e-5) * w + b over x's last two axes: LayerNorm's backward."""
    x, w, b = xs
    axes = (-1, -2)
    n = x.shape[-1] * x.shape[-2]
    centred = x - x.mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(np.square(centred).sum(axis=axes, keepdims=True) / n + 1e-5)
    xhat = centred.__imul__(rstd)
    xhat * w + b
    gb = sum_to(g, b.shape)
    gw = sum_to(g * xhat, w.shape)
    gxhat = g * w
    gx = gxhat - gxhat.mean(axis=axes, keepdims=True)
    gx -= xhat * ((gxhat * xhat).sum(axis=axes, keepdims=True) / n)
    gx *= rstd
    return [gx, gw, gb]


LIMITS = {
    "matmul_batch_broadcast": matmul,
    "matmul_vec_mat": matmul,
    "matmul_mat_vec": matmul,
    "matmul_vec_vec": matmul,
    "bmm": matmul,
    "mv": matmul,
    "dot": matmul,
    "addmm": add_product(1, 1),
    "addmm_beta_alpha": add_product(0.5, -2.0),
    "baddbmm": add_product(2.0, 0.5),
    "addmv": add_product(1, 1),
    "inner": inner,
    "outer": outer,
    "kron": kron,
    "tensordot": tensordot2,
    "tensordot_pairs": tensordot_pairs,
    "einsum_matmul": lim.matmul,
    "einsum_list": lim.matmul,
    "einsum_upper_case": lim.matmul,
    "einsum_implicit": _swap_inputs(lim.matmul),
    "einsum_ellipsis_broadcast": matmul,
    "einsum_ellipsis_implicit": matmul,
    "einsum_trace": einsum_trace,
    "einsum_diagonal": einsum_diagonal,
    "einsum_diagonal_batch": einsum_diagonal_batch,
    "einsum_repeated_across": einsum_repeated_across,
    "einsum_sum_all": einsum_sum_all,
    "einsum_only_in_one": einsum_only_in_one,
    "einsum_ellipsis_summed": einsum_ellipsis_summed,
    "einsum_bilinear": einsum_bilinear,
    "einsum_spaces": einsum_spaces,
    "einsum_outer": outer,
    "einsum_transpose": einsum_transpose,
    "einsum_size_one_broadcast": lim.mul,
    "einsum_sublist": einsum_sublist,
    "matrix_norm_fro": fro,
    "matrix_norm_nuc": singular("nuc"),
    "matrix_norm_2": singular(2),
    "matrix_norm_-2": singular(-2),
    "matrix_norm_1": _abs_sum_pick(-2, np.argmax),
    "matrix_norm_-1": _abs_sum_pick(-2, np.argmin),
    "matrix_norm_inf": _abs_sum_pick(-1, np.argmax),
    "matrix_norm_-inf": _abs_sum_pick(-1, np.argmin),
    "matrix_norm_dims_keepdim": matrix_norm_dims,
    "linalg_norm_matrix_ord": _abs_sum_pick(-2, np.argmin),
    "layer_norm_by_hand": layer_norm_by_hand,
}
