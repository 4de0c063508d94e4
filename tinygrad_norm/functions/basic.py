"""Module-level functions, PyTorch style: `tg.exp(x)`, `tg.cat([a, b])`, `tg.where(c, a, b)`.

Each accepts Tensors or NumPy arrays (an array becomes a constant Tensor) and calls the same
code as the method of the same name.
"""

import numpy as np

from ..ops import composite as C
from ..ops import shape as S
from ..tensor import Tensor


def _t(x) -> Tensor:
    """A Tensor as it is; a NumPy array, list or number as a constant Tensor."""
    return x if isinstance(x, Tensor) else Tensor(x)


def _like(*xs) -> Tensor:
    """The first Tensor among `xs` (or the first of them made a Tensor): numbers beside it take
    its dtype."""
    tensors = [x for x in xs if isinstance(x, Tensor)]
    return tensors[0] if tensors else _t(xs[0])


def cat(tensors, dim=0):
    return S.cat([_t(t) for t in tensors], dim)


def stack(tensors, dim=0):
    return S.stack([_t(t) for t in tensors], dim)


def where(condition, input, other):  # noqa: A002
    like = _like(input, other)
    return C.where(condition, C.as_tensor(input, like), C.as_tensor(other, like))


def matmul(a, b):
    return C.matmul(_t(a), _t(b))


def addmm(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002
    return C.addmm(_t(input), _t(mat1), _t(mat2), beta=beta, alpha=alpha)


def maximum(a, b):
    like = _like(a, b)
    return C.maximum(C.as_tensor(a, like), C.as_tensor(b, like))


def minimum(a, b):
    like = _like(a, b)
    return C.minimum(C.as_tensor(a, like), C.as_tensor(b, like))


def tril(x, diagonal=0):
    return C.tril(_t(x), diagonal)


def triu(x, diagonal=0):
    return C.triu(_t(x), diagonal)


def abs(x):  # noqa: A001 - PyTorch's names shadow Python's builtins, on purpose
    return _t(x).abs()


def exp(x):
    return _t(x).exp()


def log(x):
    return _t(x).log()


def sqrt(x):
    return _t(x).sqrt()


def tanh(x):
    return _t(x).tanh()


def sigmoid(x):
    return _t(x).sigmoid()


def relu(x):
    return _t(x).relu()


def erf(x):
    return _t(x).erf()


def clamp(x, min=None, max=None):  # noqa: A002
    return C.clamp(_t(x), min, max)


clip = clamp


def sum(x, dim=None, keepdim=False, *, dtype=None):  # noqa: A001
    return _t(x).sum(dim, keepdim, dtype=dtype)


def mean(x, dim=None, keepdim=False):
    return _t(x).mean(dim, keepdim)


def var(x, dim=None, unbiased=True, keepdim=False, *, correction=None):
    return _t(x).var(dim, unbiased, keepdim, correction=correction)


def std(x, dim=None, unbiased=True, keepdim=False, *, correction=None):
    return _t(x).std(dim, unbiased, keepdim, correction=correction)


def max(x, dim=None, keepdim=False):  # noqa: A001
    return _t(x).max(dim, keepdim)


def min(x, dim=None, keepdim=False):  # noqa: A001
    return _t(x).min(dim, keepdim)


def amax(x, dim=None, keepdim=False):
    return _t(x).amax(dim, keepdim)


def amin(x, dim=None, keepdim=False):
    return _t(x).amin(dim, keepdim)


def argmax(x, dim=None, keepdim=False):
    return _t(x).argmax(dim, keepdim)


def argmin(x, dim=None, keepdim=False):
    return _t(x).argmin(dim, keepdim)


def norm(x, p=2, dim=None, keepdim=False):
    return _t(x).norm(p, dim, keepdim)


def softmax(x, dim):
    return _t(x).softmax(dim)


def log_softmax(x, dim):
    return _t(x).log_softmax(dim)


def masked_fill(x, mask, value):
    return _t(x).masked_fill(mask, value)


def reshape(x, *shape):
    return _t(x).reshape(*shape)


def flatten(x, start_dim=0, end_dim=-1):
    return _t(x).flatten(start_dim, end_dim)


def permute(x, *dims):
    return _t(x).permute(*dims)


def transpose(x, dim0, dim1):
    return _t(x).transpose(dim0, dim1)


def squeeze(x, dim=None):
    return _t(x).squeeze(dim)


def unsqueeze(x, dim):
    return _t(x).unsqueeze(dim)


def split(x, split_size_or_sections, dim=0):
    return _t(x).split(split_size_or_sections, dim)


def chunk(x, chunks, dim=0):
    return _t(x).chunk(chunks, dim)


def isclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=False) -> Tensor:
    """Elementwise |a - b| <= atol + rtol * |b|, as a bool tensor (never differentiable)."""
    return Tensor._make(np.isclose(np.asarray(a), np.asarray(b), rtol, atol, equal_nan))


def allclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=False) -> bool:
    """True when every element of `a` is close to `b` (see `isclose`)."""
    return bool(np.allclose(np.asarray(a), np.asarray(b), rtol, atol, equal_nan))
