"""Compare a gradient you computed by hand with the one autograd computed: `tg.compare`.

The tool of a gradient-check script. You write the backward pass of a model yourself, one
line per intermediate (`dlogits`, `dh`, ..., `dW1`), and after each line ask whether it agrees
with what `loss.backward()` left in the matching tensor's `.grad` (call `.retain_grad()` on an
intermediate before `backward()` so that it keeps one). Each comparison prints one line:

    dlogits         | exact: False | approximate: True  | maxdiff: 2.3e-09

exact: every element equal (`==`; NaN counts as equal to NaN in the same place).
approximate: `np.allclose(mine, reference, rtol, atol)`, with the tolerances of the less
precise of the two dtypes (those of `torch.testing.assert_close`: float64 rtol 1e-7,
atol 1e-7; float32 rtol 1.3e-6, atol 1e-5; float16 rtol 1e-3, atol 1e-5), unless given.
maxdiff: the largest |mine - reference| over all elements (0 for empty tensors).

A hand-written gradient usually matches approximately, not exactly: it adds the same numbers
in another order than the library's backward does, and float addition is not associative.
A difference of a few ulps (float64: ~1e-16 relative) is that; a wrong formula shows as
differences the size of the values themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# (rtol, atol) per dtype, as torch.testing.assert_close; integers and bools must match exactly
TOLERANCES = {
    np.dtype(np.float16): (1e-3, 1e-5),
    np.dtype(np.float32): (1.3e-6, 1e-5),
    np.dtype(np.float64): (1e-7, 1e-7),
}


@dataclass(frozen=True)
class Comparison:
    """The result of `tg.compare`: true (in `assert`, `if`) when the two agree approximately."""

    name: str
    exact: bool
    approximate: bool
    maxdiff: float
    rtol: float
    atol: float

    def __bool__(self) -> bool:
        return self.approximate

    def __str__(self) -> str:
        return (
            f"{self.name:15s} | exact: {self.exact!s:5} | approximate: {self.approximate!s:5}"
            f" | maxdiff: {self.maxdiff:.1e}"
        )


def compare(name, mine, reference, *, rtol=None, atol=None, show=True) -> Comparison:
    """Compare `mine`, a gradient computed by hand, with `reference`; print and return the result.

    mine: a Tensor or anything NumPy turns into an array (its values are used, never its grad).
    reference: a Tensor that requires grad is compared by its `.grad`, the gradient autograd
    filled in; any other Tensor or array is compared as it is.
    Shapes must be equal (no broadcasting: a gradient has the shape of what it is the gradient
    of); a mismatch raises RuntimeError naming both. `rtol`, `atol` override the dtype's
    tolerances; `show=False` returns without printing.

    >>> import tinygrad_norm as tg
    >>> x = tg.tensor([1.0, -2.0, 3.0], dtype=tg.float64, requires_grad=True)
    >>> (x * x).sum().backward()
    >>> result = tg.compare("dx", 2 * x.detach(), x)      # d(sum x^2)/dx = 2x
    dx              | exact: True  | approximate: True  | maxdiff: 0.0e+00
    >>> result = tg.compare("dx, forgot 2", x.detach(), x)
    dx, forgot 2    | exact: False | approximate: False | maxdiff: 3.0e+00
    >>> bool(result), result.maxdiff
    (False, 3.0)
    """
    ours = _values(mine)
    theirs = _reference_values(name, reference)
    if ours.shape != theirs.shape:
        raise RuntimeError(
            f"compare({name!r}): your gradient has shape {tuple(ours.shape)} but the reference "
            f"has shape {tuple(theirs.shape)}; a gradient has exactly the shape of the tensor it "
            "is the gradient of (check keepdim=True and sums over the broadcast dimensions)"
        )
    default_rtol, default_atol = _tolerances(ours.dtype, theirs.dtype)
    rtol = default_rtol if rtol is None else float(rtol)
    atol = default_atol if atol is None else float(atol)
    same = (ours == theirs) | (_isnan(ours) & _isnan(theirs))
    if ours.size == 0:
        maxdiff = 0.0
    else:
        # where equal, the difference is 0 (also for inf == inf, where inf - inf would be NaN)
        with np.errstate(invalid="ignore"):
            gap = np.abs(ours.astype(np.float64) - theirs.astype(np.float64))
        maxdiff = float(np.max(np.where(same, 0.0, gap)))
    result = Comparison(
        name=str(name),
        exact=bool(np.all(same)),
        approximate=bool(np.allclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=True)),
        maxdiff=maxdiff,
        rtol=rtol,
        atol=atol,
    )
    if show:
        print(result)
    return result


def _values(value) -> np.ndarray:
    """The values of a Tensor (its `.data`) or of anything `np.asarray` takes."""
    data = getattr(value, "array", None)  # an ndarray's own .data is a memoryview: not used
    return np.asarray(data if isinstance(data, np.ndarray) else value)


def _reference_values(name, reference) -> np.ndarray:
    if getattr(reference, "requires_grad", False):
        if reference.grad is None:
            raise RuntimeError(
                f"compare({name!r}): the reference requires grad but its .grad is None. Call "
                "loss.backward() first; for an intermediate tensor (not a leaf you created), "
                "call .retain_grad() on it before backward() so autograd keeps its gradient"
            )
        return _values(reference.grad)
    return _values(reference)


def _isnan(values: np.ndarray) -> np.ndarray:
    return (
        np.isnan(values)
        if np.issubdtype(values.dtype, np.inexact)
        else np.zeros(values.shape, bool)
    )


def _tolerances(*dtypes) -> tuple[float, float]:
    """The loosest (rtol, atol) among `dtypes`; (0, 0) when none is floating."""
    found = [TOLERANCES.get(np.dtype(dtype), (0.0, 0.0)) for dtype in dtypes]
    return max(rtol for rtol, _ in found), max(atol for _, atol in found)
