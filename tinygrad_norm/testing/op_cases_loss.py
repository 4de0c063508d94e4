"""Cases of `op_cases.py` for the losses and distances (see op_cases_nn.py): the targets are
fixed arrays, the differentiated inputs random; `ref` is the textbook formula in NumPy."""

from __future__ import annotations

import numpy as np

from .op_case import OpCase


def _F(lib):
    return lib.nn.functional


# --- losses ---------------------------------------------------------------------------------------
_P = np.random.default_rng(7).uniform(0.05, 0.95, (2, 3))  # probabilities as targets
_SIGN = np.array([1.0, -1.0, 1.0])  # +-1 targets, one per sample
_Q = np.random.default_rng(8).dirichlet(np.ones(3), 2)  # (2, 3) target distributions
_COUNTS = np.array([[0.0, 1.0, 3.0], [2.0, 0.0, 5.0]])  # Poisson counts
_CTC_TARGETS, _CTC_IN, _CTC_OUT = np.array([[1, 2, 2], [2, 1, 0]]), [5, 4], [3, 2]


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _log_softmax(x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def np_ctc(log_probs, targets, input_lengths, target_lengths):
    """-log sum over alignments, by the textbook alpha recursion in probabilities, one sample
    at a time; 'mean' reduction (each loss over its target length, then the batch mean)."""
    losses = []
    for n, (frames, length) in enumerate(zip(input_lengths, target_lengths)):
        probs = np.exp(log_probs[:frames, n])
        ext = [0]
        for label in targets[n, :length]:
            ext += [label, 0]
        alpha = np.zeros(len(ext))
        alpha[:2] = probs[0, ext[:2]]
        for t in range(1, frames):
            new = alpha.copy()
            new[1:] += alpha[:-1]
            for s in range(2, len(ext)):
                if ext[s] != 0 and ext[s] != ext[s - 2]:
                    new[s] += alpha[s - 2]
            alpha = new * probs[t, ext]
        losses.append(-np.log(alpha[-1] + alpha[-2]) / length)
    return np.mean(losses)


CASES = [
    OpCase(
        "binary_cross_entropy_weight",
        lambda lib, x: _F(lib).binary_cross_entropy(
            x.sigmoid(), lib.tensor(_P), weight=lib.tensor(_SIGN + 2)
        ),
        lambda x: np.mean(
            -(_SIGN + 2) * (_P * np.log(_sigmoid(x)) + (1 - _P) * np.log(1 - _sigmoid(x)))
        ),
        ((2, 3),),
    ),
    OpCase(
        "binary_cross_entropy_with_logits_pos_weight",
        lambda lib, x: _F(lib).binary_cross_entropy_with_logits(
            x, lib.tensor(_P), pos_weight=lib.tensor(_SIGN + 1.5), reduction="sum"
        ),
        lambda x: np.sum(
            -((_SIGN + 1.5) * _P * np.log(_sigmoid(x)) + (1 - _P) * np.log(1 - _sigmoid(x)))
        ),
        ((2, 3),),
    ),
    OpCase(
        "l1_loss",
        lambda lib, x, y: _F(lib).l1_loss(x, y),
        lambda x, y: np.abs(x - y).mean(),
        ((2, 3), (2, 3)),
    ),
    OpCase(
        "smooth_l1_loss_beta",
        lambda lib, x, y: _F(lib).smooth_l1_loss(x, y, beta=0.5, reduction="none"),
        lambda x, y: np.where(np.abs(x - y) < 0.5, (x - y) ** 2, np.abs(x - y) - 0.25),
        ((2, 3), (2, 3)),
    ),
    OpCase(
        "huber_loss_delta",
        lambda lib, x, y: _F(lib).huber_loss(x, y, delta=0.7, reduction="sum"),
        lambda x, y: np.sum(
            np.where(np.abs(x - y) < 0.7, 0.5 * (x - y) ** 2, 0.7 * (np.abs(x - y) - 0.35))
        ),
        ((2, 3), (2, 3)),
    ),
    OpCase(
        "kl_div_batchmean",
        lambda lib, x: _F(lib).kl_div(x.log_softmax(1), lib.tensor(_Q), reduction="batchmean"),
        lambda x: np.sum(_Q * (np.log(_Q) - _log_softmax(x, 1))) / 2,
        ((2, 3),),
    ),
    OpCase(
        "kl_div_log_target",
        lambda lib, x, y: _F(lib).kl_div(x, y, reduction="sum", log_target=True),
        lambda x, y: np.sum(np.exp(y) * (y - x)),
        ((2, 3), (2, 3)),
    ),
    OpCase(
        "poisson_nll_loss",
        lambda lib, x: _F(lib).poisson_nll_loss(x, lib.tensor(_COUNTS)),
        lambda x: np.mean(np.exp(x) - _COUNTS * x),
        ((2, 3),),
    ),
    OpCase(
        "gaussian_nll_loss",
        lambda lib, x, y, v: _F(lib).gaussian_nll_loss(x, y, v.exp(), full=True),
        lambda x, y, v: np.mean(0.5 * (v + (x - y) ** 2 / np.exp(v) + np.log(2 * np.pi))),
        ((2, 3), (2, 3), (2, 1)),
    ),
    OpCase(
        "margin_ranking_loss",
        lambda lib, a, b: _F(lib).margin_ranking_loss(a, b, lib.tensor(_SIGN), margin=0.1),
        lambda a, b: np.mean(np.maximum(0, -_SIGN * (a - b) + 0.1)),
        ((3,), (3,)),
    ),
    OpCase(
        "hinge_embedding_loss",
        lambda lib, x: _F(lib).hinge_embedding_loss(x, lib.tensor(_SIGN), margin=0.5),
        lambda x: np.mean(np.where(_SIGN == 1, x, np.maximum(0, 0.5 - x))),
        ((3,),),
    ),
    OpCase(
        "cosine_embedding_loss",
        lambda lib, a, b: _F(lib).cosine_embedding_loss(a, b, lib.tensor(_SIGN), margin=-0.5),
        lambda a, b: np.mean(_cosine_embedding(a, b)),
        ((3, 4), (3, 4)),
    ),
    OpCase(
        "cosine_similarity",
        lambda lib, a, b: _F(lib).cosine_similarity(a, b, dim=-1),
        lambda a, b: (a * b).sum(-1) / np.linalg.norm(a, axis=-1) / np.linalg.norm(b, axis=-1),
        ((2, 3, 4), (3, 4)),
    ),
    OpCase(
        "pairwise_distance_p3",
        lambda lib, a, b: _F(lib).pairwise_distance(a, b, p=3.0),
        lambda a, b: (np.abs(a - b + 1e-6) ** 3).sum(-1) ** (1 / 3),
        ((3, 4), (3, 4)),
    ),
    OpCase(
        "cdist",
        lambda lib, a, b: lib.cdist(a, b),
        lambda a, b: np.sqrt(((a[:, :, None] - b[:, None]) ** 2).sum(-1)),
        ((2, 3, 4), (2, 2, 4)),
    ),
    OpCase(
        "ctc_loss",
        lambda lib, x: _F(lib).ctc_loss(
            x.log_softmax(2), lib.tensor(_CTC_TARGETS), lib.tensor(_CTC_IN), lib.tensor(_CTC_OUT)
        ),
        lambda x: np_ctc(_log_softmax(x, 2), _CTC_TARGETS, _CTC_IN, _CTC_OUT),
        ((5, 2, 3),),
    ),
]


def _cosine_embedding(a, b):
    cos = (a * b).sum(-1) / np.sqrt(((a * a).sum(-1) + 1e-12) * ((b * b).sum(-1) + 1e-12))
    return np.where(_SIGN == 1, 1 - cos, np.maximum(0, cos + 0.5))
