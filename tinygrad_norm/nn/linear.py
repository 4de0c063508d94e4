"""Layers that multiply by a weight matrix: Linear (PyTorch's), Conv1D (GPT-2's) and Embedding.

All three are thin: they own the Parameters and their initialisation, and `forward` calls the
function of the same name in `nn.functional`, where the shapes are checked.
"""

from __future__ import annotations

import math

import numpy as np

from ..functions.creation import empty, zeros
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


class Linear(Module):
    """y = x @ W.T + b over the last axis, as `torch.nn.Linear`.

    Shapes: x (..., in_features) -> y (..., out_features); `weight` (out_features, in_features),
    `bias` (out_features,) or None with `bias=False`.

    Initialisation (PyTorch's): `weight` from `init.kaiming_uniform_(w, a=sqrt(5))`, which is
    U(-1/sqrt(in_features), 1/sqrt(in_features)), then `bias` from the same interval, both
    drawn from the global generator (`tg.manual_seed`) in that order.

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> layer = Linear(3, 2)
    >>> layer
    Linear(in_features=3, out_features=2, bias=True)
    >>> layer(tg.ones(4, 3)).shape
    torch.Size([4, 2])
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, *, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(empty(out_features, in_features, dtype=dtype))
        self.bias = Parameter(empty(out_features, dtype=dtype)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0.0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class Conv1D(Module):
    """GPT-2's Conv1D: y = x @ W + b over the last axis -- a Linear layer, despite the name.

    Note the argument order, GPT-2's own: `Conv1D(nf, nx)` takes the OUTPUT size `nf` first and
    the input size `nx` second, and stores the weight as (nx, nf), the transpose of Linear's.
    The GPT-2 checkpoints keep this layout, which is why `attn.c_attn.weight` is (768, 2304).

    Shapes: x (..., nx) -> y (..., nf); `weight` (nx, nf) drawn from N(0, 0.02²); `bias` (nf,)
    zeros, or None with `bias=False` (an addition of ours; GPT-2's Conv1D always has one).

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> c_attn = Conv1D(12, 4)        # 4 inputs -> 12 outputs
    >>> c_attn.weight.shape, c_attn.bias.shape
    (torch.Size([4, 12]), torch.Size([12]))
    >>> c_attn(tg.ones(2, 5, 4)).shape
    torch.Size([2, 5, 12])
    """

    def __init__(self, nf: int, nx: int, bias: bool = True, *, dtype=None):
        super().__init__()
        self.nf, self.nx = nf, nx
        self.weight = Parameter(init.normal_(empty(nx, nf, dtype=dtype), 0.0, 0.02))
        self.bias = Parameter(zeros(nf, dtype=dtype)) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        return F.conv1d_gpt2(x, self.weight, self.bias)  # (..., nx) -> (..., nf)

    def extra_repr(self) -> str:
        return f"nf={self.nf}, nx={self.nx}, bias={self.bias is not None}"


class Embedding(Module):
    """A lookup table: y[..., :] = weight[index[...], :], as `torch.nn.Embedding`.

    Shapes: integer indices of any shape (...) -> y (..., embedding_dim); `weight`
    (num_embeddings, embedding_dim) drawn from N(0, 1) (PyTorch's default). Indices must lie in
    [0, num_embeddings). The gradient of a row is the sum of the gradients of every position
    that picked it. With `padding_idx`, that row starts at zeros and gets no gradient.

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> wte = Embedding(10, 3)
    >>> wte(tg.tensor([[1, 2, 1]])).shape
    torch.Size([1, 3, 3])
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx=None,
        max_norm=None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        _weight=None,
        _freeze: bool = False,
        *,
        device=None,  # accepted for PyTorch's signature: everything runs on the CPU
        dtype=None,
    ):
        super().__init__()
        _refuse_embedding_options(max_norm, scale_grad_by_freq, sparse)
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(
                    f"Embedding: padding_idx {padding_idx} must be within num_embeddings "
                    f"({num_embeddings})"
                )
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(init.normal_(empty(num_embeddings, embedding_dim, dtype=dtype)))
            if padding_idx is not None:
                self.weight.array[padding_idx] = 0
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise ValueError(
                    f"Embedding: _weight has shape {tuple(_weight.shape)}, expected "
                    f"{(num_embeddings, embedding_dim)} (num_embeddings, embedding_dim)"
                )
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    @classmethod
    def from_pretrained(
        cls,
        embeddings,
        freeze: bool = True,
        padding_idx=None,
        max_norm=None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
    ):
        """An Embedding whose weight is `embeddings` (rows, dim), sharing its memory; frozen
        (no gradient) unless `freeze=False`. The padding row is NOT zeroed (as PyTorch).

        >>> import tinygrad_norm as tg
        >>> emb = Embedding.from_pretrained(tg.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> emb(tg.tensor([1])), emb.weight.requires_grad
        (tensor([[3., 4.]]), False)
        """
        if embeddings.ndim != 2:
            raise ValueError(
                f"Embedding.from_pretrained: embeddings parameter is expected to be "
                f"2-dimensional (num_embeddings, embedding_dim), got shape {embeddings.shape}"
            )
        rows, cols = embeddings.shape
        return cls(
            rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
            _weight=embeddings, _freeze=freeze,
        )  # fmt: skip

    def forward(self, input) -> Tensor:  # noqa: A002 - PyTorch's name
        # NOTE: F.embedding checks the indices (one scan); only its error is put in the
        # layer's words here, so the indices are not scanned twice
        try:
            return F.embedding(input, self.weight, self.padding_idx)
        except IndexError:
            index = np.asarray(input.array if isinstance(input, Tensor) else input)
            n = self.num_embeddings
            bad = index[(index < 0) | (index >= n)]
            if not bad.size:  # a weight of another size put in by hand: F.embedding's words
                raise
            raise IndexError(
                f"Embedding: index {bad.flat[0]} is out of range for num_embeddings={n}; indices "
                f"must be in 0 .. {n - 1} (is the vocabulary, or n_ctx, too small?)"
            ) from None

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        return text if self.padding_idx is None else f"{text}, padding_idx={self.padding_idx}"


def _refuse_embedding_options(max_norm, scale_grad_by_freq, sparse) -> None:
    """Embedding options of PyTorch that tinygrad_norm does not implement: a clear refusal."""
    if max_norm is not None:
        raise NotImplementedError(
            f"Embedding: max_norm={max_norm} (renormalising the rows that are looked up, in "
            "place) is not implemented in tinygrad_norm; leave max_norm=None"
        )
    if scale_grad_by_freq:
        raise NotImplementedError(
            "Embedding: scale_grad_by_freq=True is not implemented in tinygrad_norm"
        )
    if sparse:
        raise NotImplementedError(
            "Embedding: sparse=True (sparse gradients) is not implemented in tinygrad_norm; "
            "the gradient is always a dense (num_embeddings, embedding_dim) tensor"
        )
