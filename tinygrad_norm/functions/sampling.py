"""Random draws as PyTorch names them: multinomial, randperm, bernoulli, normal, poisson and
the `*_like` creators. Each draws from `generator=` (a `tg.Generator`) or the global generator.

None of them is differentiable (their results are new leaves), as in PyTorch, where only the
reparametrised forms (`mean + std * tg.randn_like(std)`) carry gradients.

>>> import tinygrad_norm as tg
>>> g = tg.Generator().manual_seed(0)
>>> tg.multinomial(tg.tensor([0.0, 1.0, 0.0]), 2, replacement=True, generator=g)
tensor([1, 1])
>>> sorted(tg.randperm(4, generator=g).tolist())
[0, 1, 2, 3]
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..broadcast import broadcast_shape
from ..devices import check as check_device
from ..random import Generator, draw_multinomial, draw_poisson, resolve, transforms
from ..tensor import Tensor
from .creation import as_tensor, floating_dtype

Generator._wrap = staticmethod(Tensor._make)  # get_state() returns a uint8 Tensor (random.py)


def _new(array: np.ndarray, requires_grad: bool = False) -> Tensor:
    return Tensor._make(array).requires_grad_(True) if requires_grad else Tensor._make(array)


def multinomial(input, num_samples, replacement=False, *, generator=None) -> Tensor:  # noqa: A002
    """Draw `num_samples` category indices from each row of `input`, with probabilities
    proportional to its (non-negative, not necessarily normalised) weights.

    Shapes: input (K,) gives (num_samples,); input (N, K) gives (N, num_samples); int64.
    Without replacement (the default) a category is drawn at most once per row, so
    num_samples <= the number of non-zero weights.

    >>> import tinygrad_norm as tg
    >>> g = tg.Generator().manual_seed(1)
    >>> tg.multinomial(tg.tensor([[1.0, 0.0], [0.0, 5.0]]), 1, generator=g)
    tensor([[0],
            [1]])
    """
    x = as_tensor(input)
    gen = resolve(generator, "multinomial")
    return _new(draw_multinomial(x.array, num_samples, replacement, gen))


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    """A random permutation of 0, 1, ..., n - 1 (int64 unless `dtype=`)."""
    check_device("randperm", device)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise RuntimeError(f"randperm: n must be a non-negative int, got {n!r}")
    values = transforms.randperm(resolve(generator, "randperm"), int(n))
    return _new(
        values.astype(np.int64 if dtype is None else dtypes.for_op("randperm", dtype)),
        requires_grad,
    )


def bernoulli(input, p=None, *, generator=None) -> Tensor:  # noqa: A002
    """1 with probability `input` (elementwise; or the number `p`), else 0, in input's dtype.

    E[bernoulli(p)] = p. Every probability must be in [0, 1].
    """
    return as_tensor(input).bernoulli(p, generator=generator)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False) -> Tensor:  # fmt: skip
    """Samples of N(mean, std^2), in PyTorch's forms:

    - `normal(mean_tensor, std_tensor)`: one sample per element of the broadcast shapes;
    - `normal(mean_tensor, std=1.0)` or `normal(mean=0.0, std_tensor)`: the tensor's shape;
    - `normal(mean, std, size)` with two numbers: a tensor of `size`.

    `std` must be >= 0. The result has the floating dtype of the tensor argument(s) (or the
    default dtype) and is a new leaf (not differentiable: use `mean + std * tg.randn_like(std)`
    for the reparametrised form).
    """
    check_device("normal", device)
    gen = resolve(generator, "normal")
    tensors = [as_tensor(v) for v in (mean, std) if isinstance(v, (Tensor, np.ndarray))]
    if size is not None and tensors:
        raise TypeError("normal: give either size= with two numbers, or mean/std tensors")
    if size is None and not tensors:
        raise TypeError(
            "normal: with a number mean and std, give the size, e.g. normal(0, 1, (2, 3))"
        )
    mean_a, std_a = (np.asarray(v.array if isinstance(v, Tensor) else v) for v in (mean, std))
    if np.any(std_a < 0):
        raise RuntimeError(f"normal: expects std >= 0.0, got {std_a.min()}")
    if size is not None:
        shape = tuple(size) if isinstance(size, (tuple, list)) else (size,)
        out_dtype = dtypes.get_default_dtype() if dtype is None else dtype
    else:
        shape = broadcast_shape("normal", mean_a.shape, std_a.shape, names=("mean", "std"))
        floating = [t.array.dtype for t in tensors if t.array.dtype.kind == "f"]
        if not floating:
            raise RuntimeError("normal: mean and std tensors must be floating point")
        out_dtype = np.result_type(*floating) if dtype is None else dtype
    out_dtype = floating_dtype("normal", out_dtype)
    if size is not None:  # PyTorch: normal_(mean, std), mean and std inside the kernel
        values = transforms.normal(gen, shape, out_dtype, float(mean_a), float(std_a))
    else:  # PyTorch: standard normals, then * std + mean
        values = transforms.normal(gen, shape, out_dtype) * std_a.astype(out_dtype) + mean_a
    values = values.astype(out_dtype)
    return _new(values, requires_grad)


def poisson(input, generator=None) -> Tensor:  # noqa: A002
    """A Poisson sample for each rate in `input` (>= 0), in input's dtype: E = Var = rate."""
    x = as_tensor(input)
    if np.any(x.array < 0) or not np.all(np.isfinite(x.array)):
        raise RuntimeError("poisson: every rate must be a finite number >= 0")
    values = draw_poisson(resolve(generator, "poisson"), x.array)
    return _new(values.astype(x.array.dtype))


def rand_like(input, *, dtype=None, device=None, requires_grad=False, generator=None) -> Tensor:  # noqa: A002
    """Uniform samples on [0, 1) of input's shape (and floating dtype unless `dtype=`)."""
    x = _like("rand_like", input, dtype, device)
    values = transforms.uniform(resolve(generator, "rand_like"), x.shape, x.dtype)
    return _new(values.astype(x.dtype), requires_grad)


def randn_like(input, *, dtype=None, device=None, requires_grad=False, generator=None) -> Tensor:  # noqa: A002
    """Standard normal samples of input's shape (and floating dtype unless `dtype=`)."""
    x = _like("randn_like", input, dtype, device)
    values = transforms.normal(resolve(generator, "randn_like"), x.shape, x.dtype)
    return _new(values.astype(x.dtype), requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False,
                 generator=None) -> Tensor:  # noqa: A002  # fmt: skip
    """Integers from [low, high) (or [0, low) when `high` is omitted) of input's shape, in
    input's dtype unless `dtype=` (as PyTorch: `randint_like(float_tensor, 10)` is float)."""
    check_device("randint_like", device)
    x = as_tensor(input).array
    low, high = (0, low) if high is None else (low, high)
    if int(low) >= int(high):
        raise RuntimeError(f"randint_like: expected low < high, got low={low}, high={high}")
    gen = resolve(generator, "randint_like")
    values = transforms.integers(gen, int(low), int(high), x.shape)
    return _new(
        values.astype(x.dtype if dtype is None else dtypes.for_op("randint_like", dtype)),
        requires_grad,
    )


def _like(op: str, input, dtype, device) -> np.ndarray:  # noqa: A002
    """A zero array standing for `input` (shape, dtype), refusing integer dtypes as PyTorch."""
    check_device(op, device)
    x = as_tensor(input).array
    out_dtype = x.dtype if dtype is None else dtypes.for_op(op, dtype)
    if out_dtype.kind != "f":
        raise NotImplementedError(  # PyTorch's class for this mistake
            f"{op}: draws real numbers, so it needs a floating dtype, got {out_dtype}; "
            f"pass dtype=tg.float32 (or use tg.randint_like for integers)"
        )
    return np.empty(x.shape, out_dtype)
