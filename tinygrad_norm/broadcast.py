"""Broadcasting, checked in one place: which shapes combine, and the error when they do not.

NumPy's rule (PyTorch's too): align the shapes from the right; each pair of sizes must be equal,
or one of them 1 (it is then stretched). `(2, 1, 4)` and `(3, 1)` give `(2, 3, 4)`.
"""

from __future__ import annotations

import numpy as np


class ShapeError(RuntimeError, ValueError):
    """Shapes that do not fit together. A RuntimeError, as PyTorch raises for a shape mismatch
    (so PyTorch code that catches it still works), and a ValueError, as NumPy raises."""


def broadcast_shape(op: str, *shapes, names=None, fix="reshape or unsqueeze one side") -> tuple:
    """The shape `shapes` broadcast to, or a ShapeError that names `op` and every shape.

    >>> broadcast_shape("add", (2, 1, 4), (3, 1))
    (2, 3, 4)
    """
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        shapes = [tuple(s) for s in shapes]  # (2, 3), not torch.Size([2, 3]), in the message
        named = [f"{n} {s}" for n, s in zip(names, shapes)] if names else [str(s) for s in shapes]
        raise ShapeError(
            f"{op}: shapes {' and '.join(named)} cannot be broadcast together: aligned from "
            f"the right, each pair of sizes must be equal or one of them 1; {fix}"
        ) from None


def broadcasts_to(shape: tuple, target: tuple) -> bool:
    """Can an array of `shape` be stretched to `target` (without changing `target`)?"""
    if len(shape) > len(target):
        return False
    return all(n == 1 or n == m for n, m in zip(shape[::-1], target[::-1]))


def sum_to_shape(grad, shape: tuple):
    """Undo broadcasting: sum `grad` over the axes that broadcasting added or stretched.

    If `x` of shape (3, 1) was broadcast to (2, 3, 4) in forward, every element of `x` was used
    2 * 4 times, so its gradient is the sum over axis 0 (added) and axis 2 (stretched from 1):
    `grad.sum(dim=(0, 2), keepdim=True).reshape(3, 1)`. This is the only place in tinygrad_norm
    where broadcasting is undone; the engine calls it on every gradient whose shape differs
    from its input's, so no op's backward has to.

    `grad` is a Tensor, or an array when nothing is recorded (the same lines run on both).
    """
    sizes = tuple(grad.shape)
    lead = len(sizes) - len(shape)
    axes = list(range(lead))  # the axes broadcasting added ...
    for i, n in enumerate(shape):  # ... and those it stretched from 1
        if n == 1 and sizes[lead + i] != 1:
            axes.append(lead + i)
    if axes:
        grad = grad.sum(tuple(axes), keepdims=True)
    return grad.reshape(shape) if tuple(grad.shape) != tuple(shape) else grad
