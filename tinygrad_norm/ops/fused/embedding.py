"""Embedding lookup as one node: a gather forward, a scatter-add backward.

How the backward adds up rows for repeated indices was measured (np.add.at, a one-hot
matmul, np.bincount, sorting and np.add.reduceat; the table is in docs/speed.md).
`np.add.at` is several times slower than the best. The one-hot matmul (grad_weight =
onehot^T @ grad_out) does well for a tiny vocabulary, but its cost grows with the vocabulary
(a (vocab, B*T) matrix: 400 MB for GPT-2's 50257 tokens). So `EmbeddingGrad` sorts the
indices and sums each run of equal indices with one `np.add.reduceat`: fastest or tied in
every case measured, and apart from the (vocab, d) result its cost does not depend on the
vocabulary; `weight[index]` (GetItem, whose backward uses np.add.at) is several times slower
end to end.

A small table is the other case: the course's makemore MLP reads 96 indices (batch 32, 3
characters) of a 27-row table. There the one-hot matmul wins, with its one-hot matrix built
by scattering ones, not by comparing against every row. It wins while the one-hot matrix is
small, up to about 32k entries (where the two tie), so `sum_rows_by_index` takes it up to 16k
entries (64 KB in float32) and sorts beyond.
"""

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled


class Embedding(Function):
    """out = weight[index]: row `index[...]` of the (num_embeddings, dim) table, for any
    integer array `index`; out has shape index.shape + (dim,).

    Backward: out[p] = weight[index[p]], so d out[p] / d weight[v] is the identity when
    index[p] == v and zero otherwise. The chain rule sums over every position p that read
    row v:  grad_weight[v] = sum of grad_out[p] over p with index[p] == v. Rows never read
    get zero; a row read twice gets both gradients (`EmbeddingGrad`).

    >>> import tinygrad_norm as tg
    >>> weight = tg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> Embedding.apply(weight, index=tg.tensor([1, 1, 0]).array).sum().backward()
    >>> weight.grad
    tensor([[1., 1.],
            [2., 2.]])
    """

    formula = "grad_weight[v] = sum of grad_out[p] over positions p with index[p] == v"

    @staticmethod
    def forward(ctx, weight, index):
        return np.take(weight, index, axis=0)

    @staticmethod
    def backward(ctx, grad_output):
        n_rows, index = ctx.input_shape[0], ctx.index
        if is_grad_enabled():  # create_graph: a recorded node, differentiable again
            return EmbeddingGrad.apply(grad_output, index=index, n_rows=n_rows)
        # NOTE: nothing to record: the same sum on the array, without a node
        return sum_rows_by_index(grad_output.array, index, n_rows)


class EmbeddingGrad(Function):
    """out = zeros(n_rows, dim) with grad[p] added to row index[p] (the backward of Embedding).

    It is linear in `grad`, and its own backward reads the rows back: a gather, `Embedding`.
    So Embedding is twice differentiable.
    """

    formula = "grad_grad[p] = grad_out[index[p]]"

    @staticmethod
    def forward(ctx, grad, index, n_rows):
        return sum_rows_by_index(grad, index, n_rows)

    @staticmethod
    def backward(ctx, grad_output):
        return Embedding.apply(grad_output, index=ctx.index)


ONE_HOT_LIMIT = 16384  # entries of the (n_rows, positions) one-hot matrix (see the module doc)
# NOTE: up to this many rows the one-hot matmul also wins at any number of positions: the
# GEMM's cost per gradient number grows with n_rows, np.add.reduceat's does not, and for a
# character table reduceat is the slower (measured in docs/speed.md)
ONE_HOT_ROWS, ONE_HOT_MAX = 128, 1 << 22


def sum_rows_by_index(grad: np.ndarray, index: np.ndarray, n_rows: int) -> np.ndarray:
    """out (n_rows, dim): out[v] = the sum of grad[p] over the positions p with index[p] == v.

    grad (..., dim) with index.shape == grad.shape[:-1]. A small table: onehot (n_rows, P) @
    rows (P, dim), onehot[v, p] = 1 where index[p] == v (only for finite rows). A large one, or
    rows holding inf or NaN: the indices sorted, and each run of equal indices summed by one
    np.add.reduceat.
    """
    flat_index = index.reshape(-1)
    rows = grad.reshape(flat_index.size, grad.shape[-1])  # (P, dim), P = B*T positions
    one_hot = n_rows * flat_index.size <= ONE_HOT_LIMIT or (
        n_rows <= ONE_HOT_ROWS and n_rows * flat_index.size <= ONE_HOT_MAX
    )
    if one_hot and np.isfinite(rows).all():
        # (an inf or NaN in rows would reach every row of the product: 0 * inf = NaN)
        onehot = np.zeros((n_rows, flat_index.size), grad.dtype)
        onehot[flat_index, np.arange(flat_index.size)] = 1
        return onehot @ rows  # (n_rows, P) @ (P, dim)
    out = np.zeros((n_rows, grad.shape[-1]), dtype=grad.dtype)
    order = np.argsort(flat_index, kind="stable")
    sorted_index = flat_index[order]
    starts = np.flatnonzero(np.r_[True, sorted_index[1:] != sorted_index[:-1]])
    out[sorted_index[starts]] = np.add.reduceat(rows[order], starts, axis=0)
    return out


def embedding_reference(weight, index):
    """weight[index] composed from primitives (indexing, whose backward adds the rows with
    np.add.at): the test reference of `Embedding`."""
    return weight[index]
