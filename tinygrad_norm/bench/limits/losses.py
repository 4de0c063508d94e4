"""Limits of the losses and distances of the op table: each loss's forward (with its
reduction) and its gradient written from the textbook derivative, the targets being the
table's constants.
"""

from __future__ import annotations

import numpy as np

from ...testing.op_cases_loss import _COUNTS, _CTC_IN, _CTC_OUT, _CTC_TARGETS, _P, _Q, _SIGN
from .activations import _sigmoid
from .common import sign, sum_to


def bce_weight(xs, g):
    """mean(-w (P log s + (1 - P) log(1 - s))), s = sigmoid(x): dx = g w (s - P) / N."""
    (x,) = xs
    w = _SIGN + 2
    s = _sigmoid(x)
    np.mean(-w * (_P * np.log(s) + (1 - _P) * np.log1p(-s)))
    s -= _P
    s *= w * (g / x.size)
    return [s]


def bce_logits_pos_weight(xs, g):
    """sum(-(pw P log s + (1 - P) log(1 - s))): dx = g (s (pw P + 1 - P) - pw P)."""
    (x,) = xs
    pw = _SIGN + 1.5
    log_s = -np.logaddexp(0.0, -x)
    np.sum(-(pw * _P * log_s + (1 - _P) * (log_s - x)))
    s = _sigmoid(x)
    s *= pw * _P + 1 - _P
    s -= pw * _P
    return [s.__imul__(g)]


def l1(xs, g):
    x, y = xs
    d = x - y
    np.abs(d).mean()
    gx = sign(d)
    gx *= g / d.size
    return [gx, np.negative(gx)]


def smooth_l1(xs, g):
    """beta 0.5, no reduction: d^2 / (2 beta) inside |d| < beta, else |d| - beta / 2."""
    x, y = xs
    d = x - y
    a = np.abs(d)
    inside = a < 0.5
    np.where(inside, d * d, a - 0.25)
    gx = np.where(inside, d * 2.0, sign(d))
    gx *= g
    return [gx, np.negative(gx)]


def huber(xs, g):
    """delta 0.7, sum: the gradient is g clip(d, -delta, delta)."""
    x, y = xs
    d = x - y
    a = np.abs(d)
    np.where(a < 0.7, 0.5 * d * d, 0.7 * (a - 0.35)).sum()
    gx = np.clip(d, -0.7, 0.7, out=d)
    gx *= g
    return [gx, np.negative(gx)]


def kl_div_batchmean(xs, g):
    """sum(Q (log Q - log_softmax x)) / B: dx = g (softmax(x) sum(Q) - Q) / B."""
    (x,) = xs
    shifted = x - x.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    total = e.sum(axis=1, keepdims=True)
    np.sum(_Q * (np.log(_Q) - (shifted - np.log(total)))) / x.shape[0]
    e /= total
    e *= _Q.sum(axis=1, keepdims=True)
    e -= _Q
    e *= g / x.shape[0]
    return [e]


def kl_div_log_target(xs, g):
    """sum(e^y (y - x)): dx = -g e^y, dy = g e^y (y - x + 1)."""
    x, y = xs
    ey = np.exp(y)
    d = y - x
    np.sum(ey * d)
    d += 1.0
    d *= ey
    d *= g
    ey *= -g
    return [ey, d]


def poisson_nll(xs, g):
    """mean(e^x - C x): dx = g (e^x - C) / N."""
    (x,) = xs
    e = np.exp(x)
    np.mean(e - _COUNTS * x)
    e -= _COUNTS
    e *= g / x.size
    return [e]


def gaussian_nll(xs, g):
    """mean(0.5 (log var + (x - y)^2 / var) + c), var = max(e^v, 1e-6):
    dx = g (x - y) / (var N), dv = g 0.5 (1 - (x - y)^2 / var) / N where var > 1e-6."""
    x, y, v = xs
    var = np.maximum(np.exp(v), 1e-6)
    d = x - y
    q = d * d
    q /= var
    np.mean(0.5 * (np.log(var) + q + np.log(2 * np.pi)))
    scale = g / d.size
    d /= var
    d *= scale
    np.subtract(1.0, q, out=q)
    q *= 0.5 * scale
    gv = sum_to(q, v.shape) * (np.exp(v) > 1e-6)
    return [d, np.negative(d), gv]


def margin_ranking(xs, g):
    """mean(max(0, -y (a - b) + 0.1)): da = -g y [active] / N, db = -da."""
    a, b = xs
    hinge = -_SIGN * (a - b) + 0.1
    np.maximum(hinge, 0.0).mean()
    ga = np.where(hinge > 0, -_SIGN, 0.0) * (g / a.size)
    return [ga, np.negative(ga)]


def hinge_embedding(xs, g):
    """mean(x if y = 1 else max(0, 0.5 - x))."""
    (x,) = xs
    np.where(_SIGN == 1, x, np.maximum(0.0, 0.5 - x)).mean()
    return [np.where(_SIGN == 1, 1.0, np.where(0.5 - x > 0, -1.0, 0.0)) * (g / x.size)]


def _cosine_and_grads(a, b, na2, nb2, gcos):
    """cos = a.b / sqrt(na2 nb2): da = gcos (b / sqrt(na2 nb2) - cos a / na2), db likewise."""
    dot = (a * b).sum(axis=-1)
    inv = 1.0 / np.sqrt(na2 * nb2)
    cos = dot * inv
    ga = b * (gcos * inv)[..., None] - a * (gcos * cos / na2)[..., None]
    gb = a * (gcos * inv)[..., None] - b * (gcos * cos / nb2)[..., None]
    return cos, ga, gb


def cosine_embedding(xs, g):
    """mean(1 - cos if y = 1 else max(0, cos + 0.5)), with 1e-12 added to each squared norm."""
    a, b = xs
    na2 = (a * a).sum(axis=-1) + 1e-12
    nb2 = (b * b).sum(axis=-1) + 1e-12
    cos = (a * b).sum(axis=-1) / np.sqrt(na2 * nb2)
    np.where(_SIGN == 1, 1 - cos, np.maximum(0.0, cos + 0.5)).mean()
    gcos = np.where(_SIGN == 1, -1.0, (cos + 0.5 > 0) * 1.0) * (g / cos.size)
    _, ga, gb = _cosine_and_grads(a, b, na2, nb2, gcos)
    return [ga, gb]


def cosine_similarity(xs, g):
    a, b = xs
    na2, nb2 = (a * a).sum(axis=-1), (b * b).sum(axis=-1)
    _, ga, gb = _cosine_and_grads(a, b, na2, nb2, g)
    return [ga, sum_to(gb, b.shape)]


def pairwise_p3(xs, g):
    """(sum |a - b + 1e-6|^3)^(1/3): dd = g d |d| / out^2."""
    a, b = xs
    d = a - b
    d += 1e-6
    m = np.abs(d)
    m *= d
    out = np.cbrt((m * d).sum(axis=-1))
    m *= (g / (out * out))[..., None]
    return [m, np.negative(m)]


def cdist(xs, g):
    """||a_i - b_j|| by |a|^2 + |b|^2 - 2 a b^T (one GEMM); da = a rowsum(G) - G b with
    G = g / out, db = b colsum(G) - G^T a."""
    a, b = xs
    sq = -2.0 * (a @ np.swapaxes(b, -1, -2))
    sq += (a * a).sum(axis=-1)[..., :, None]
    sq += (b * b).sum(axis=-1)[..., None, :]
    out = np.sqrt(np.maximum(sq, 0.0, out=sq), out=sq)
    ratio = np.divide(g, out, out=np.zeros_like(out), where=out > 0)
    ga = a * ratio.sum(axis=-1)[..., None] - ratio @ b
    gb = b * ratio.sum(axis=-2)[..., None] - np.swapaxes(ratio, -1, -2) @ a
    return [ga, gb]


def _log_softmax(x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def ctc(xs, g):
    """ctc_loss(log_softmax(x, 2), ...), mean reduction: alpha and beta recursions in log space
    over the blank-extended targets, then dx = g (softmax(x) - occupation) / (length B)
    for the frames each sample has (the log_softmax and CTC backward in one)."""
    (x,) = xs
    lp = _log_softmax(x, 2)
    gx = np.zeros_like(x)
    batch = x.shape[1]
    for n in range(batch):
        frames, length = _CTC_IN[n], _CTC_OUT[n]
        ext = np.zeros(2 * length + 1, int)
        ext[1::2] = _CTC_TARGETS[n, :length]
        skip = np.zeros(len(ext), bool)
        skip[2:] = (ext[2:] != 0) & (ext[2:] != ext[:-2])
        emit = lp[:frames, n][:, ext]
        alpha = np.full((frames, len(ext)), -np.inf)
        alpha[0, :2] = emit[0, :2]
        for t in range(1, frames):
            prev = alpha[t - 1]
            a = np.logaddexp(prev, np.concatenate([[-np.inf], prev[:-1]]))
            a = np.where(skip, np.logaddexp(a, np.concatenate([[-np.inf, -np.inf], prev[:-2]])), a)
            alpha[t] = a + emit[t]
        beta = np.full((frames, len(ext)), -np.inf)
        beta[-1, -2:] = emit[-1, -2:]
        skip_next = np.zeros(len(ext), bool)
        skip_next[:-2] = skip[2:]
        for t in range(frames - 2, -1, -1):
            nxt = beta[t + 1]
            b = np.logaddexp(nxt, np.concatenate([nxt[1:], [-np.inf]]))
            two_on = np.concatenate([nxt[2:], [-np.inf, -np.inf]])
            b = np.where(skip_next, np.logaddexp(b, two_on), b)
            beta[t] = b + emit[t]
        loglik = np.logaddexp(alpha[-1, -1], alpha[-1, -2])
        occupancy = np.exp(alpha + beta - emit - loglik)
        per_label = np.zeros((frames, x.shape[2]))
        for s, label in enumerate(ext):
            per_label[:, label] += occupancy[:, s]
        scale = g / (length * batch)
        gx[:frames, n] = (np.exp(lp[:frames, n]) - per_label) * scale
    return [gx]


LIMITS = {
    "binary_cross_entropy_weight": bce_weight,
    "binary_cross_entropy_with_logits_pos_weight": bce_logits_pos_weight,
    "l1_loss": l1,
    "smooth_l1_loss_beta": smooth_l1,
    "huber_loss_delta": huber,
    "kl_div_batchmean": kl_div_batchmean,
    "kl_div_log_target": kl_div_log_target,
    "poisson_nll_loss": poisson_nll,
    "gaussian_nll_loss": gaussian_nll,
    "margin_ranking_loss": margin_ranking,
    "hinge_embedding_loss": hinge_embedding,
    "cosine_embedding_loss": cosine_embedding,
    "cosine_similarity": cosine_similarity,
    "pairwise_distance_p3": pairwise_p3,
    "cdist": cdist,
    "ctc_loss": ctc,
}
