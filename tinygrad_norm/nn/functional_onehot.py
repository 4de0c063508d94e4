"""F.one_hot: integer class labels as rows of an identity matrix."""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor

__all__ = ["one_hot"]


def one_hot(tensor, num_classes=-1):
    """Class indices (any shape, int64) -> indicator vectors, shape `tensor.shape + (C,)`.

    out[..., c] = 1 where tensor[...] == c, else 0; int64 as PyTorch (use `.float()` to
    multiply it with weights). `num_classes=-1` takes C = tensor.max() + 1. Not
    differentiable: the input is an index.

    >>> import tinygrad_norm as tg
    >>> one_hot(tg.tensor([0, 2]), num_classes=3).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """
    index = np.asarray(tensor.data if isinstance(tensor, Tensor) else tensor)
    if index.dtype.kind not in "iu":
        raise RuntimeError(
            f"one_hot: the input must hold integer class indices (int64), got {index.dtype}; "
            "use .long()"
        )
    if num_classes == -1:
        if index.size == 0:
            raise RuntimeError("one_hot: cannot infer num_classes of an empty tensor; pass it")
        num_classes = int(index.max()) + 1
    if index.size and (index.min() < 0 or index.max() >= num_classes):
        raise RuntimeError(
            f"one_hot: class values must be in [0, {num_classes}) for num_classes={num_classes}, "
            f"got values from {index.min()} to {index.max()}"
        )
    out = np.zeros(index.shape + (num_classes,), dtype=np.int64)
    np.put_along_axis(out, index[..., None].astype(np.int64), 1, axis=-1)
    return Tensor(out)
