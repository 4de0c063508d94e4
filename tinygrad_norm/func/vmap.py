"""`torch.func.vmap`: a function of one example, run over a batch.

PyTorch vectorises: it runs the function once on batched tensors. Here vmap is a loop, which
gives the same numbers: the mapped dimension of each argument (`in_dims`: an int, None for an
argument shared by all examples, or a nested tuple / dict matching the argument) is sliced
away, the function runs once per example, and the results are stacked along `out_dims`.
Nesting (`vmap(vmap(f))`), `vmap(grad(f))` (per-sample gradients) and custom Functions work
as they do one example at a time. `randomness` is accepted; each example draws its own numbers
(PyTorch's "different"), and `chunk_size` changes nothing.
"""

from __future__ import annotations

from ..ops.shape import stack
from ..tensor import Tensor
from .pytree import broadcast_to_leaves, tree_flatten, tree_unflatten


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """`func` mapped over dimension `in_dims` of its arguments; results stacked at `out_dims`."""

    def wrapper(*args, **kwargs):
        if isinstance(in_dims, int) or in_dims is None:
            dims = (in_dims,) * len(args)
        else:
            dims = tuple(in_dims)
            if len(dims) != len(args):
                raise ValueError(
                    f"vmap(f, in_dims={in_dims!r}, ...)(<inputs>): in_dims is not compatible "
                    f"with the structure of `inputs`: in_dims has {len(dims)} entries but "
                    f"inputs has {len(args)}"
                )
        leaves, spec = tree_flatten(args)
        leaf_dims = broadcast_to_leaves(dims, spec)
        size = _batch_size(leaves, leaf_dims, in_dims)
        results = []
        for i in range(size):
            sliced = [x if d is None else _example(x, d, i) for x, d in zip(leaves, leaf_dims)]
            results.append(func(*tree_unflatten(sliced, spec), **kwargs))
        return _stack_results(results, out_dims)

    return wrapper


def _example(x: Tensor, dim: int, i: int) -> Tensor:
    """Example i: x with its mapped dimension indexed away (x.select(dim, i))."""
    return x[(slice(None),) * (dim % x.ndim) + (i,)]


def _batch_size(leaves: list, dims: list, in_dims) -> int:
    sizes = []
    for x, d in zip(leaves, dims):
        if d is None:
            continue
        if not isinstance(x, Tensor):
            raise ValueError(
                f"vmap: in_dims={in_dims!r} maps an argument of type {type(x).__name__}; only "
                "Tensors can be mapped (give None for the others)"
            )
        if not -x.ndim <= d < x.ndim:
            raise ValueError(
                f"vmap: in_dim {d} is out of range for a Tensor of shape {tuple(x.shape)}"
            )
        sizes.append(x.shape[d])
    if not sizes:
        raise ValueError(
            f"vmap(f, in_dims={in_dims!r}, ...)(<inputs>): At least one of the inputs must be "
            "batched: give a Tensor with an in_dim that is not None"
        )
    if len(set(sizes)) != 1:
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got "
            f"sizes {sizes} for the mapped dimension"
        )
    return sizes[0]


def _stack_results(results: list, out_dims):
    flat = [tree_flatten(r) for r in results]
    spec = flat[0][1]
    columns = list(zip(*(f[0] for f in flat)))
    dims = broadcast_to_leaves(out_dims, spec)
    stacked = []
    for column, d in zip(columns, dims):
        if not all(isinstance(c, Tensor) for c in column):
            raise ValueError(
                "vmap: the function must return Tensors (or tuples / dicts of them), got "
                f"{type(column[0]).__name__}"
            )
        stacked.append(column[0] if d is None else stack(list(column), dim=d))
    return tree_unflatten(stacked, spec)
