"""`torch.distributions`, the two that course code uses most: Categorical (sampling a token or
an action, the log-probability of a policy gradient) and Normal (the reparameterised sample of
a VAE, a Gaussian policy). Probabilities, log-probabilities and entropies are built from
Tensor ops, so their gradients come from autograd.

    Categorical(probs=p) or Categorical(logits=l)   over the last dimension, K categories
        log_prob(k) = log p_k = l_k - logsumexp(l)
        entropy()   = -sum_k p_k log p_k
    Normal(loc, scale)
        log_prob(x) = -(x - loc)² / (2 scale²) - log(scale) - log(sqrt(2 pi))
        entropy()   = 1/2 + log(sqrt(2 pi)) + log(scale)
        rsample()   = loc + scale * eps, eps ~ N(0, 1): differentiable in loc and scale

Draws come from the global generator (`tg.manual_seed`), PyTorch's stream: under the same
seed, `sample()` gives PyTorch's samples (Normal's to float32 rounding).

>>> import tinygrad_norm as tg
>>> d = Categorical(probs=tg.tensor([0.25, 0.75]))
>>> d.log_prob(tg.tensor(1)).exp()
tensor(0.7500)
>>> round(Normal(0.0, 1.0).entropy().item(), 4)
1.4189
"""

from __future__ import annotations

import math

import numpy as np

from .functions.creation import as_tensor
from .functions.sampling import multinomial
from .functions.shape import broadcast_tensors
from .random import resolve
from .random import transforms as random_transforms
from .tensor import Tensor
from .tensor_methods.size import Size

__all__ = ["Categorical", "Distribution", "Normal"]


class Distribution:
    """What every distribution has: batch_shape, event_shape, sample() and log_prob()."""

    has_rsample = False

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self.batch_shape, self.event_shape = Size(batch_shape), Size(event_shape)

    def _extended_shape(self, sample_shape=()) -> tuple:
        return tuple(sample_shape) + tuple(self.batch_shape) + tuple(self.event_shape)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Categorical(Distribution):
    """K categories, with probabilities `probs` (normalised over the last dimension) or
    unnormalised log-probabilities `logits`; exactly one of the two."""

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError(
                "Categorical: pass either `probs` or `logits`, but not both (got "
                f"probs={'None' if probs is None else 'a tensor'}, "
                f"logits={'None' if logits is None else 'a tensor'})"
            )
        if probs is not None:
            probs = as_tensor(probs)
            if probs.ndim < 1:
                raise ValueError("Categorical: `probs` must have at least one dimension")
            self.probs = probs / probs.sum(-1, keepdim=True)
            self.logits = self.probs.clamp(min=np.finfo(self.probs.array.dtype).tiny).log()
        else:
            logits = as_tensor(logits)
            if logits.ndim < 1:
                raise ValueError("Categorical: `logits` must have at least one dimension")
            self.logits = logits - logits.logsumexp(-1, keepdim=True)
            self.probs = self.logits.exp()
        self._num_events = self.probs.shape[-1]
        super().__init__(self.probs.shape[:-1])

    def sample(self, sample_shape=()) -> Tensor:
        """Category indices (int64) of shape sample_shape + batch_shape."""
        n = int(np.prod(sample_shape))
        flat = self.probs.detach().reshape(-1, self._num_events)
        draws = multinomial(flat, n, replacement=True)  # (batch, n)
        return draws.T.reshape(*sample_shape, *self.batch_shape)

    def log_prob(self, value) -> Tensor:
        """log p_value, broadcast against the batch shape."""
        value = as_tensor(value).long().unsqueeze(-1)
        value, log_pmf = broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self) -> Tensor:
        """-sum p log p over the categories (a category of probability 0 adds 0)."""
        logits = self.logits.clamp(min=float(np.finfo(self.logits.array.dtype).min))
        return -(logits * self.probs).sum(-1)

    @property
    def param_shape(self):
        return self.probs.shape

    def __repr__(self) -> str:
        return f"Categorical(probs: {self.probs.shape})"


class Normal(Distribution):
    """The Gaussian N(loc, scale²), elementwise over the broadcast shape of loc and scale."""

    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        loc, scale = as_tensor(loc), as_tensor(scale)
        self.loc, self.scale = broadcast_tensors(loc, scale)
        super().__init__(self.loc.shape)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.scale**2

    def rsample(self, sample_shape=()) -> Tensor:
        """loc + scale * eps with eps ~ N(0, 1): the reparameterisation trick."""
        shape = self._extended_shape(sample_shape)
        # PyTorch's normal_()
        eps = random_transforms.normal(resolve(None), shape, self.loc.array.dtype)
        return self.loc + self.scale * Tensor(eps)

    def sample(self, sample_shape=()) -> Tensor:
        return self.rsample(sample_shape).detach()

    def log_prob(self, value) -> Tensor:
        value = value if isinstance(value, Tensor) else as_tensor(value, dtype=self.loc.dtype)
        return (
            -((value - self.loc) ** 2) / (2 * self.variance)
            - self.scale.log()
            - math.log(math.sqrt(2 * math.pi))
        )

    def entropy(self) -> Tensor:
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()

    def __repr__(self) -> str:
        return f"Normal(loc: {self.loc.shape}, scale: {self.scale.shape})"
