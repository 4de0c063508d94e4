"""Module-level reductions, scans and sorting, PyTorch style: `tg.sum(x, 0)`, `tg.cumsum(x, 1)`,
`tg.sort(x)`, `tg.topk(x, 3)`.

Each accepts a Tensor or a NumPy array (which becomes a constant Tensor) and calls the Tensor
method of the same name, so both spellings run the same code.
"""

from ..ops import reduce_composed as R
from ..ops import sort as O
from .arguments import _t


def sum(x, dim=None, keepdim=False, *, dtype=None):  # noqa: A001
    return _t(x).sum(dim, keepdim, dtype=dtype)


def mean(x, dim=None, keepdim=False, *, dtype=None, axis=None):
    return _t(x).mean(dim, keepdim, dtype=dtype, axis=axis)


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


def prod(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    return _t(input).prod(dim, keepdim, dtype=dtype)


def logsumexp(input, dim, keepdim=False):  # noqa: A002
    return _t(input).logsumexp(dim, keepdim)


def all(input, dim=None, keepdim=False):  # noqa: A001, A002
    return _t(input).all(dim, keepdim)


def any(input, dim=None, keepdim=False):  # noqa: A001, A002
    return _t(input).any(dim, keepdim)


def count_nonzero(input, dim=None):  # noqa: A002
    return _t(input).count_nonzero(dim)


def aminmax(input, *, dim=None, keepdim=False):  # noqa: A002
    return _t(input).aminmax(dim=dim, keepdim=keepdim)


def median(input, dim=None, keepdim=False):  # noqa: A002
    return _t(input).median(dim, keepdim)


def mode(input, dim=-1, keepdim=False):  # noqa: A002
    return _t(input).mode(dim, keepdim)


def kthvalue(input, k, dim=-1, keepdim=False):  # noqa: A002
    return _t(input).kthvalue(k, dim, keepdim)


def var_mean(input, dim=None, unbiased=True, keepdim=False, *, correction=None):  # noqa: A002
    return R.var_mean(_t(input), dim, unbiased, keepdim, correction=correction)


def std_mean(input, dim=None, unbiased=True, keepdim=False, *, correction=None):  # noqa: A002
    return R.std_mean(_t(input), dim, unbiased, keepdim, correction=correction)


def cumsum(input, dim, *, dtype=None):  # noqa: A002
    return _t(input).cumsum(dim, dtype=dtype)


def cumprod(input, dim, *, dtype=None):  # noqa: A002
    return _t(input).cumprod(dim, dtype=dtype)


def logcumsumexp(input, dim):  # noqa: A002
    return _t(input).logcumsumexp(dim)


def cummax(input, dim):  # noqa: A002
    return _t(input).cummax(dim)


def cummin(input, dim):  # noqa: A002
    return _t(input).cummin(dim)


# --- sorting and searching ------------------------------------------------------------------------


def sort(input, dim=-1, descending=False, stable=False):  # noqa: A002
    return _t(input).sort(dim, descending, stable)


def argsort(input, dim=-1, descending=False, stable=False):  # noqa: A002
    return _t(input).argsort(dim, descending, stable)


def msort(input):  # noqa: A002
    return _t(input).msort()


def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    return _t(input).topk(k, dim, largest, sorted)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    return _t(input).unique(sorted, return_inverse, return_counts, dim)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):  # noqa: A002
    return O.searchsorted(
        _t(sorted_sequence), _t(input), out_int32=out_int32, right=right, side=side, sorter=sorter
    )


def bucketize(input, boundaries, *, out_int32=False, right=False):  # noqa: A002
    return O.bucketize(_t(input), _t(boundaries), out_int32=out_int32, right=right)
