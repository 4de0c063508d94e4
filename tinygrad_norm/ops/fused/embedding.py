"""Embedding lookup as one node: a gather forward, a scatter-add backward.

How the backward adds up rows for repeated indices was measured (grad_output (2048, d)
float32, NumPy 2.4, CPU time in ms, best of 20 runs of 10):

    vocab, d      np.add.at   one-hot matmul*   bincount   sort + np.add.reduceat
    65, 64           1.7           0.30            1.3             0.16
    65, 256          4.6           1.5             3.9             1.5
    256, 64          1.1           1.8             0.25            0.24
    256, 256         4.6           7.5             4.7             1.3

    * summed over the 2 cores that BLAS uses.

`np.add.at` is 3-10x slower than the best. The one-hot matmul (grad_weight = onehot^T @
grad_out) does well for a tiny vocabulary, but its cost grows with the vocabulary (a
(vocab, B*T) matrix: 400 MB for GPT-2's 50257 tokens). So `EmbeddingGrad` sorts the indices
and sums each run of equal indices with one `np.add.reduceat`: fastest or tied in every case,
and apart from the (vocab, d) result its cost does not depend on the vocabulary. End to end,
`F.embedding` forward + backward takes 0.26 / 1.5 / 0.33 / 1.9 ms for the four cases above,
against 1.3 / 4.9 / 1.3 / 5.1 ms for `weight[index]` (GetItem, whose backward uses
np.add.at).
"""

import numpy as np

from ...autograd.engine import Function


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
        n_rows = ctx.input_meta[0][0][0]
        return EmbeddingGrad.apply(grad_output, index=ctx.kwargs["index"], n_rows=n_rows)


class EmbeddingGrad(Function):
    """out = zeros(n_rows, dim) with grad[p] added to row index[p] (the backward of Embedding).

    It is linear in `grad`, and its own backward reads the rows back: a gather, `Embedding`.
    So Embedding is twice differentiable.
    """

    formula = "grad_grad[p] = grad_out[index[p]]"

    @staticmethod
    def forward(ctx, grad, index, n_rows):
        flat_index = index.reshape(-1)
        rows = grad.reshape(flat_index.size, grad.shape[-1])  # (B*T, dim)
        out = np.zeros((n_rows, grad.shape[-1]), dtype=grad.dtype)
        if flat_index.size == 0:
            return out
        order = np.argsort(flat_index, kind="stable")
        sorted_index = flat_index[order]
        starts = np.flatnonzero(np.r_[True, sorted_index[1:] != sorted_index[:-1]])
        out[sorted_index[starts]] = np.add.reduceat(rows[order], starts, axis=0)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return Embedding.apply(grad_output, index=ctx.kwargs["index"])
