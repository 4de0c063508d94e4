"""What kind of mistake a wrong gradient looks like: the diagnosis of `tg.exercises.check`.

Given the right gradient `expected` and the learner's `got` for one input, each test below
asks whether a common mistake explains `got` exactly (to the checker's tolerance), in this
order: a wrong shape (a broadcast not summed back, a reduced axis not put back, a transpose),
the sign, a constant factor, a transpose of a square gradient, only the Jacobian's diagonal
(an output's dependence on its own input kept, on the rest of its row lost), only the
matrix's diagonal elements right, only one element of the batch right. What none explains is
described by its worst element, where a missing term shows as the difference between expected
and got.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

ATOL, RTOL = 1e-6, 1e-5  # float64 gradients; finite differences are not what is compared


def close(got: np.ndarray, expected: np.ndarray) -> bool:
    """Equal to the checker's tolerance (NaN never is)."""
    return got.shape == expected.shape and bool(np.allclose(got, expected, rtol=RTOL, atol=ATOL))


def worst_element(got: np.ndarray, expected: np.ndarray) -> tuple:
    """Index of the element furthest outside the tolerance (NaN counts as furthest)."""
    badness = np.abs(got - expected) / (ATOL + RTOL * np.abs(expected))
    badness = np.nan_to_num(badness, nan=np.inf)
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(badness)), got.shape))


def diagnose_shape(name: str, got: np.ndarray, expected: np.ndarray) -> str:
    """Why a gradient of the wrong shape is wrong, and how to fix it."""
    shape, wrong = expected.shape, got.shape
    head = f"the gradient for {name} has shape {wrong}, but {name} has shape {shape}"
    if got.ndim == expected.ndim >= 2 and wrong == shape[:-2] + shape[:-3:-1]:
        if close(np.swapaxes(got, -1, -2), expected):
            return f"{head}: it is the right gradient transposed. Return its transpose (.T)."
    added = got.ndim - expected.ndim
    if added >= 0 and all(n in (1, m) for n, m in zip(shape, wrong[added:])):
        axes = tuple(range(added)) + tuple(
            added + k for k, n in enumerate(shape) if n == 1 and wrong[added + k] != 1
        )
        summed = got.sum(axis=axes).reshape(shape)
        axis = str(axes[0]) if len(axes) == 1 else str(axes)
        how = f"grad.sum(axis={axis})" + (f".reshape({shape})" if added != len(axes) else "")
        if close(summed, expected):
            return (
                f"{head}: {name} was broadcast in forward, and this gradient is not summed "
                f"back to its shape. Sum it over {_axes(axes)} ({how}), so that each element "
                "collects the gradients of all its copies."
            )
        return f"{head}: {name} was broadcast in forward; sum the gradient over {_axes(axes)}."
    for axis in range(expected.ndim):
        if wrong == shape[:axis] + shape[axis + 1 :]:
            return (
                f"{head}: axis {axis} (of size {shape[axis]}) is missing. Forward removed it; "
                f"put it back with np.expand_dims(g, {axis}) and broadcast to {shape}."
            )
    return f"{head}. A gradient has exactly its input's shape."


def diagnose_values(
    name: str, got: np.ndarray, expected: np.ndarray, diagonal: np.ndarray | None = None
) -> str:
    """Why a gradient of the right shape is wrong. `diagonal`, when given, is what only the
    Jacobian's diagonal would give: dy_i/dx_i * grad_output_i."""
    if not np.all(np.isfinite(got)):
        index = tuple(int(i) for i in np.argwhere(~np.isfinite(got))[0])
        return f"the gradient for {name} has {got[index]} at {index}: divided by 0, or overflowed?"
    if close(got, -expected):
        return f"the gradient for {name} has its sign flipped: each element is minus the right one."
    dot = float(np.sum(expected * expected))
    if dot > 0:
        factor = float(np.sum(got * expected)) / dot
        if close(got, factor * expected) and abs(factor) > 1e-12:
            return (
                f"the gradient for {name} is off by a constant factor: it is {_factor(factor)} "
                "times the right one. Look for a missing or extra scale (1/n, 2, a √d)."
            )
    square = got.ndim >= 2 and got.shape[-1] == got.shape[-2]
    if square and close(np.swapaxes(got, -1, -2), expected):
        return f"the gradient for {name} is transposed: element (i, j) holds the right (j, i)."
    if diagonal is not None and not close(diagonal, expected) and close(got, diagonal):
        return (
            f"the gradient for {name} is right only on the Jacobian's diagonal: it keeps how each "
            "output depends on its own input (dy_i/dx_i) but not on the other inputs it reads "
            "(dy_i/dx_j, j ≠ i), which a sum or a normalisation adds."
        )
    if got.ndim >= 2 and min(got.shape[-2:]) > 1:
        on_diagonal = np.eye(got.shape[-2], got.shape[-1], dtype=bool)  # elements (i, i)
        diagonal_right = close(got[..., on_diagonal], expected[..., on_diagonal])
        if diagonal_right and not close(got[..., ~on_diagonal], expected[..., ~on_diagonal]):
            return (
                f"the gradient for {name} is right only on the diagonal, at the elements (i, i) "
                "of its last two axes: what reaches the other elements is missing or wrong."
            )
    if got.ndim >= 2 and got.shape[0] > 1:
        right = [b for b in range(got.shape[0]) if close(got[b], expected[b])]
        if len(right) == 1:
            return (
                f"the gradient for {name} is right only for element {right[0]} of the batch "
                f"(index {right[0]} of axis 0), wrong for the others: is one element's value "
                "used for the whole batch?"
            )
    index = worst_element(got, expected)
    wrong = int(np.sum(~np.isclose(got, expected, rtol=RTOL, atol=ATOL)))
    return (
        f"the gradient for {name} is wrong at {wrong} of its {got.size} elements, worst at "
        f"{index}: expected {expected[index]:.6g}, got {got[index]:.6g} (difference "
        f"{expected[index] - got[index]:.6g}; a missing term shows as such a difference)."
    )


def _axes(axes: tuple) -> str:
    """`axis 0` or `axes (0, 2)`."""
    return f"axis {axes[0]}" if len(axes) == 1 else f"axes {axes}"


def _factor(factor: float) -> str:
    """A factor as a reader would write it: 2, 1/4, -3, √3, or 0.8123."""
    for value, sign in ((factor, ""), (-factor, "-")):
        fraction = Fraction(value).limit_denominator(16)
        if fraction > 0 and abs(float(fraction) - value) < 1e-6 * value:
            return sign + str(fraction)
        square = Fraction(value * value).limit_denominator(16)
        if value > 0 and square > 0 and abs(float(square) - value * value) < 1e-6 * value * value:
            return f"{sign}√({square})" if square.denominator > 1 else f"{sign}√{square}"
    return f"{factor:.6g}"
