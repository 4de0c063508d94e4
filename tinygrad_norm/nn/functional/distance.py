"""Distances and similarities between rows: cosine similarity, the pairwise distance of two
batches of vectors, and `cdist`, every distance between two sets of rows.

    cosine_similarity(x1, x2) = sum(x1 x2) / (max(|x1|, eps) max(|x2|, eps))
    pairwise_distance(x1, x2) = |x1 - x2 + eps|_p
    cdist(x1, x2)[..., i, j]  = |x1[..., i, :] - x2[..., j, :]|_p
"""

from __future__ import annotations

from ...functions.creation import as_tensor
from ...ops import fused
from .loss import _identity_clamp_min

__all__ = ["cdist", "cosine_similarity", "pairwise_distance"]


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 · x2) / (max(‖x1‖, eps) · max(‖x2‖, eps)) along dim (inputs broadcast).

    >>> import tinygrad_norm as tg
    >>> cosine_similarity(tg.tensor([[1.0, 0.0]]), tg.tensor([[1.0, 1.0]]))
    tensor([0.7071])
    """
    a, b = as_tensor(x1), as_tensor(x2)
    na = _identity_clamp_min(a.norm(dim=dim, keepdim=True), eps)
    nb = _identity_clamp_min(b.norm(dim=dim, keepdim=True), eps)
    return ((a / na) * (b / nb)).sum(dim=dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """‖x1 - x2 + eps‖_p along the last axis (eps keeps the norm's gradient finite at 0)."""
    a, b = as_tensor(x1), as_tensor(x2)
    return (a - b + eps).norm(p=p, dim=-1, keepdim=keepdim)


def cdist(x1, x2, p=2.0, compute_mode=None):
    """All distances between the rows of x1 (..., P, M) and of x2 (..., R, M): (..., P, R).

    `tg.cdist` (PyTorch's `torch.cdist`). For p = 2 PyTorch's rule may pick the matrix product
    (`ops/fused/cdist.py`); else the differences are formed, (..., P, R, M): plain and exact.
    """
    a, b = as_tensor(x1), as_tensor(x2)
    if a.ndim < 2 or b.ndim < 2 or a.shape[-1] != b.shape[-1]:
        raise RuntimeError(
            f"cdist: x1 {a.shape} and x2 {b.shape} must be (..., P, M) and (..., R, M) "
            "with the same M"
        )
    if fused.cdist_uses_matmul(a, b, p, compute_mode):
        return fused.cdist_mm(a, b)
    diff = a.unsqueeze(-2) - b.unsqueeze(-3)  # (..., P, R, M)
    return diff.norm(p=p, dim=-1)
