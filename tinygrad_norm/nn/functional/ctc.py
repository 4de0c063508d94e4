"""CTC loss (Graves et al., 2006): the negative log-probability of a label sequence, summed
over every alignment of it to the input frames.

An alignment reads one symbol per frame from the extended label l' = (blank, l1, blank, l2,
..., lL, blank), of length S = 2L + 1: at each frame it stays on its symbol, moves to the next,
or skips a blank between two different labels. The forward variables

    alpha_t(s) = log P(frames 0..t end on l'_s)
    alpha_0(s) = lp[0, l'_s] for s < 2, -inf elsewhere
    alpha_t(s) = lp[t, l'_s] + logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1), alpha_{t-1}(s-2)),
                 the last term only where l'_s is a label differing from l'_{s-2}

give -loss = logsumexp(alpha_{T-1}(S-1), alpha_{T-1}(S-2)). Everything is in log space (the
probabilities underflow otherwise) and vectorised over the batch and over s: one step per frame.

The backward pass is the classic beta recursion; here autograd derives it from the forward
steps (the backward of logsumexp is a softmax over the three predecessors), so the gradient is
exact for any log_probs, and twice differentiable. NOTE: PyTorch's own gradient for log_probs
adds exp(log_probs), which log_softmax's backward cancels: the two agree on the logits.
"""

from __future__ import annotations

import numpy as np

from ...functions.creation import as_tensor
from ...ops import composite as C
from ...ops.shape import cat
from ...ops.xp import exp_shift
from .loss import reduce_loss


def _logsumexp(terms: list, like):
    """log(sum(exp(term))) of tensors of one shape; an element where every term is -inf gives
    -inf with a zero (never NaN) gradient."""
    stacked = np.stack([t.array for t in terms])  # (n_terms, ...)
    peak = C.as_tensor(exp_shift(stacked, 0, finite=True)[0], like)  # 0 where not finite
    total = sum((t - peak).exp() for t in terms)
    # every term -inf (shifted by 0) sums to 0; otherwise the largest finite term adds exp(0) = 1
    # (and an inf term, also shifted by 0, adds inf)
    dead = total.array == 0
    return (total.masked_fill(dead, 1.0).log() + peak).masked_fill(dead, -np.inf)


def _as_ints(name: str, value, n: int) -> np.ndarray:
    array = np.asarray(value).astype(np.int64).reshape(-1)
    if array.shape != (n,):
        raise RuntimeError(f"ctc_loss: {name} must hold one length per sample ({n}), got {array}")
    return array


def ctc_loss(
    log_probs,
    targets,
    input_lengths,
    target_lengths,
    blank=0,
    reduction="mean",
    zero_infinity=False,
):
    """Connectionist temporal classification loss.

    log_probs (T, N, C) (or (T, C) unbatched): log-softmax outputs per frame; targets
    (N, S_max) padded or 1-d concatenated label indices (never `blank`); input_lengths and
    target_lengths (N,). reduction "mean" divides each loss by its target length, then
    averages; zero_infinity replaces impossible alignments' infinite loss (and gradient) by 0.

    >>> import tinygrad_norm as tg
    >>> lp = tg.tensor([[[0.5, 0.5]], [[0.5, 0.5]]]).log()   # T=2, N=1, C=2
    >>> ctc_loss(lp, tg.tensor([[1]]), [2], [1], reduction="sum")   # paths 11, 01, 10
    tensor(0.2877)
    """
    lp = as_tensor(log_probs)
    if lp.ndim == 2:
        lp = lp.unsqueeze(1)
    if lp.ndim != 3:
        raise RuntimeError(f"ctc_loss: log_probs must be (T, N, C), got shape {lp.shape}")
    frames, batch, _ = lp.shape
    in_len = _as_ints("input_lengths", input_lengths, batch)
    tg_len = _as_ints("target_lengths", target_lengths, batch)
    labels = _padded_targets(np.asarray(targets).astype(np.int64), tg_len, batch)
    if (in_len > frames).any():
        raise RuntimeError(f"ctc_loss: input_lengths {in_len} exceed the {frames} frames")

    states = 2 * labels.shape[1] + 1
    ext = np.full((batch, states), blank, dtype=np.int64)  # (N, S): blank, l1, blank, l2, ...
    ext[:, 1::2] = labels
    valid = np.arange(states) < (2 * tg_len + 1)[:, None]  # (N, S)
    ext = np.where(valid, ext, blank)  # padding past a target's end: any class will do
    n_classes = lp.shape[2]
    if ((ext < 0) | (ext >= n_classes)).any() or (ext[:, 1::2][valid[:, 1::2]] == blank).any():
        raise IndexError(
            f"ctc_loss: targets must be class indices in [0, {n_classes}) other than the "
            f"blank {blank}; got {labels.tolist()}"
        )
    skip = np.zeros((batch, states), dtype=bool)  # may come from s - 2
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    neg_inf = -np.inf
    skip_mask = C.as_tensor(np.where(skip & valid, 0.0, neg_inf).astype(lp.dtype), lp)

    emit = lp[:, np.arange(batch)[:, None], ext]  # (T, N, S): lp[t, n, l'_s]
    start = np.where((np.arange(states) < 2) & valid, 0.0, neg_inf).astype(lp.dtype)
    alpha = emit[0] + C.as_tensor(start, lp)  # (N, S)
    pad1 = C.as_tensor(np.full((batch, 1), neg_inf, dtype=lp.dtype), lp)
    pad2 = C.as_tensor(np.full((batch, 2), neg_inf, dtype=lp.dtype), lp)
    for t in range(1, frames):
        from_prev = cat([pad1, alpha[:, :-1]], dim=1)  # alpha_{t-1}(s-1)
        from_skip = cat([pad2, alpha[:, :-2]], dim=1) + skip_mask  # alpha_{t-1}(s-2)
        step = emit[t] + _logsumexp([alpha, from_prev, from_skip], lp)
        running = (t < in_len)[:, None]  # samples whose input has ended keep their alpha
        alpha = step.masked_fill(~running, 0.0) + alpha.masked_fill(running, 0.0)

    rows = np.arange(batch)
    last = alpha[rows, 2 * tg_len]  # ends on the final blank
    before = alpha[rows, np.maximum(2 * tg_len - 1, 0)]  # ends on the last label
    before = before + C.as_tensor(np.where(tg_len > 0, 0.0, neg_inf).astype(lp.dtype), lp)
    loss = -_logsumexp([last, before], lp)  # (N,)
    if zero_infinity:
        loss = loss.masked_fill(np.isinf(loss.array), 0.0)
    if reduction == "mean":
        return (loss / C.as_tensor(np.maximum(tg_len, 1).astype(lp.dtype), lp)).mean()
    return reduce_loss("ctc_loss", loss, reduction)


def _padded_targets(targets: np.ndarray, lengths: np.ndarray, batch: int) -> np.ndarray:
    """Targets as (N, L_max): a padded 2-d array as given, or 1-d concatenated ones split."""
    if targets.ndim == 2:
        if targets.shape[0] != batch or (lengths > targets.shape[1]).any():
            raise RuntimeError(
                f"ctc_loss: targets of shape {targets.shape} do not fit target_lengths {lengths}"
            )
        return targets
    if targets.ndim != 1 or targets.shape[0] != lengths.sum():
        raise RuntimeError(
            f"ctc_loss: 1-d targets must hold sum(target_lengths) = {lengths.sum()} labels, "
            f"got {targets.shape[0]}"
        )
    out = np.zeros((batch, max(int(lengths.max(initial=0)), 0)), dtype=np.int64)
    for n, (begin, length) in enumerate(zip(np.cumsum(lengths) - lengths, lengths)):
        out[n, :length] = targets[begin : begin + length]
    return out
