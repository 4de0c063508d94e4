"""All parameters as one flat vector and back (`parameters_to_vector`, `vector_to_parameters`),
as `torch.nn.utils`: handy for line searches, second-order methods and weight averaging."""

from __future__ import annotations

import numpy as np

from ...ops.shape import cat
from ...tensor import Tensor


def parameters_to_vector(parameters) -> Tensor:
    """The parameters flattened and joined, in order: shape (total number of elements,).
    Differentiable (a cat of reshapes).

    >>> import tinygrad_norm as tg
    >>> parameters_to_vector([tg.ones(2, 2), tg.zeros(1)])
    tensor([1., 1., 1., 1., 0.])
    """
    return cat([p.reshape(-1) for p in parameters], 0)


def vector_to_parameters(vec, parameters) -> None:
    """Copy consecutive slices of `vec` into the parameters (in place, not recorded)."""
    if not isinstance(vec, Tensor) or vec.ndim != 1:
        raise TypeError(
            f"vector_to_parameters: expected a 1-D Tensor, got {type(vec).__name__}"
            + (f" of shape {vec.shape}" if isinstance(vec, Tensor) else "")
        )
    parameters = list(parameters)
    total = sum(p.array.size for p in parameters)
    if total != vec.array.size:
        raise RuntimeError(
            f"vector_to_parameters: the vector has {vec.array.size} elements but the parameters "
            f"have {total}"
        )
    start = 0
    for p in parameters:
        p.array[...] = np.reshape(vec.array[start : start + p.array.size], p.array.shape)
        start += p.array.size
