"""The GPT of `tg.models.GPT`, forward and backward written by hand in NumPy: the benchmark's
reference, the limit for anything built on NumPy.

The model (dropout 0): token + position embeddings, `n_layer` pre-LayerNorm blocks
(causal multi-head attention, tanh-GELU MLP), a final LayerNorm, a head tied to the token
embedding, and the mean cross-entropy. Parameters are a dict of arrays keyed by the GPT-2
names of `tg.models.GPT.state_dict()` (the tied head is `transformer.wte.weight` alone).

Written as a careful NumPy programmer would: every weight gradient is one 2-D GEMM over all
B*T positions, no Python loop runs over elements or positions (only over layers and
parameters), and arrays are updated in place where that saves a temporary. `AdamW` is
PyTorch's update, in place. `tests/test_bench_reference.py` checks that the loss and every
gradient equal tinygrad_norm's for the same weights and batch.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> params = init_params(rng, vocab=11, n_ctx=8, d=16, n_layer=2)
>>> model = NumpyGPT(params, n_layer=2, n_head=2)
>>> loss, grads = model.loss_and_grads(rng.integers(0, 11, (2, 5)), rng.integers(0, 11, (2, 5)))
>>> sorted(grads) == sorted(params), grads["transformer.wte.weight"].shape
(True, (11, 16))
"""

from __future__ import annotations

import math

import numpy as np

GELU_C = math.sqrt(2 / math.pi)  # tanh-GELU: 0.5 x (1 + tanh(GELU_C (x + GELU_K x³)))
GELU_K = 0.044715


def param_names(n_layer: int) -> list[str]:
    """The parameter names, in the order of `tg.models.GPT.named_parameters()`."""
    names = ["transformer.wte.weight", "transformer.wpe.weight"]
    for i in range(n_layer):
        h = f"transformer.h.{i}."
        names += [h + n for n in ("ln_1.weight", "ln_1.bias")]
        names += [h + "attn." + n for n in ("c_attn.weight", "c_attn.bias")]
        names += [h + "attn." + n for n in ("c_proj.weight", "c_proj.bias")]
        names += [h + n for n in ("ln_2.weight", "ln_2.bias")]
        names += [h + "mlp." + n for n in ("c_fc.weight", "c_fc.bias")]
        names += [h + "mlp." + n for n in ("c_proj.weight", "c_proj.bias")]
    return names + ["transformer.ln_f.weight", "transformer.ln_f.bias"]


def init_params(rng, vocab, n_ctx, d, n_layer, dtype=np.float32) -> dict:
    """GPT-2's initialisation (for the doctest and standalone use; the benchmark copies the
    weights of a `tg.models.GPT` instead)."""
    params = {}
    for name in param_names(n_layer):
        if name.endswith("wte.weight"):
            shape = (vocab, d)
        elif name.endswith("wpe.weight"):
            shape = (n_ctx, d)
        elif "ln_" in name:
            shape = (d,)
        else:
            n_in, n_out = {"c_attn": (d, 3 * d), "c_fc": (d, 4 * d)}.get(
                name.split(".")[-2], (4 * d if "mlp" in name else d, d)
            )
            shape = (n_in, n_out) if name.endswith("weight") else (n_out,)
        if "ln_" in name:
            value = np.ones(shape) if name.endswith("weight") else np.zeros(shape)
        elif name.endswith("bias"):
            value = np.zeros(shape)
        else:
            value = rng.normal(0.0, 0.02, shape)
        params[name] = value.astype(dtype)
    return params


# --- the pieces, forward and backward -----------------------------------------------------------
def layer_norm(x, w, b, eps):
    """x (N, d) -> y, and what backward needs: x̂ and 1/std per row."""
    centered = x - x.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(np.mean(centered * centered, axis=1, keepdims=True) + eps)
    xhat = np.multiply(centered, rstd, out=centered)
    y = xhat * w
    y += b
    return y, (xhat, rstd)


def layer_norm_backward(dy, w, cache):
    """dx = rstd (g - mean(g) - x̂ mean(g x̂)) with g = dy * w; dw, db summed over rows."""
    xhat, rstd = cache
    dw = np.einsum("nd,nd->d", dy, xhat)
    db = dy.sum(axis=0)
    g = dy * w
    dx = g - g.mean(axis=1, keepdims=True)
    g *= xhat
    dx -= xhat * g.mean(axis=1, keepdims=True)
    dx *= rstd
    return dx, dw, db


def attention(qkv, B, T, n_head, mask):
    """qkv (B*T, 3d) -> y (B*T, d), and the cache: q, k, v (B, nh, T, hs) and the weights."""
    d = qkv.shape[1] // 3
    hs = d // n_head
    q, k, v = qkv.reshape(B, T, 3, n_head, hs).transpose(2, 0, 3, 1, 4)  # 3 x (B, nh, T, hs)
    scores = q @ k.transpose(0, 1, 3, 2)  # (B, nh, T, T)
    scores *= 1.0 / math.sqrt(hs)
    scores += mask  # 0 where a query may attend, -inf above the diagonal
    scores -= scores.max(axis=-1, keepdims=True)
    att = np.exp(scores, out=scores)
    att /= att.sum(axis=-1, keepdims=True)
    y = att @ v  # (B, nh, T, hs)
    y = y.transpose(0, 2, 1, 3).reshape(B * T, d)  # merge heads: (B*T, d)
    return y, (q, k, v, att)


def attention_backward(dy, cache, B, T, n_head):
    """dy (B*T, d) -> dqkv (B*T, 3d)."""
    q, k, v, att = cache
    d = dy.shape[1]
    hs = d // n_head
    dy = dy.reshape(B, T, n_head, hs).transpose(0, 2, 1, 3)  # (B, nh, T, hs)
    dqkv = np.empty((3, B, n_head, T, hs), dtype=dy.dtype)
    np.matmul(att.transpose(0, 1, 3, 2), dy, out=dqkv[2])  # dv = attᵀ dy
    datt = dy @ v.transpose(0, 1, 3, 2)  # (B, nh, T, T)
    # softmax backward: dscores = att * (datt - sum(datt * att)); masked entries have att = 0
    row = np.einsum("bhij,bhij->bhi", datt, att)[..., None]
    datt -= row
    datt *= att
    datt *= 1.0 / math.sqrt(hs)
    np.matmul(datt, k, out=dqkv[0])  # dq
    np.matmul(datt.transpose(0, 1, 3, 2), q, out=dqkv[1])  # dk
    return dqkv.transpose(1, 3, 0, 2, 4).reshape(B * T, 3 * d)


def gelu(x):
    """tanh-GELU; returns y and tanh(u) for backward."""
    t = x * x
    t *= GELU_K * x
    t += x
    t *= GELU_C
    np.tanh(t, out=t)
    y = t + 1.0
    y *= x
    y *= 0.5
    return y, t


def gelu_backward(dy, x, t):
    """dy/dx = (1 + t)/2 + x/2 (1 - t²) GELU_C (1 + 3 GELU_K x²)."""
    inner = x * x
    inner *= 3 * GELU_K * GELU_C
    inner += GELU_C
    inner *= x
    inner *= 0.5
    one_minus = t * t
    np.subtract(1.0, one_minus, out=one_minus)
    inner *= one_minus
    inner += 0.5
    inner += 0.5 * t
    inner *= dy
    return inner


def conv1d(x, p, name):
    """GPT-2's Conv1D layer `name` (weight (in, out)) on x (N, in): x @ weight + bias."""
    y = x @ p[name + ".weight"]
    y += p[name + ".bias"]
    return y


def conv1d_backward(dy, x, p, name, grads):
    """Stores the gradients of `name`'s weight (x.T @ dy) and bias in grads; returns dx."""
    grads[name + ".weight"] = x.T @ dy
    grads[name + ".bias"] = dy.sum(axis=0)
    return dy @ p[name + ".weight"].T


def layer_norm_grads(dy, p, name, cache, grads):
    """layer_norm_backward for the LayerNorm `name`: stores its weight and bias gradients."""
    dx, grads[name + ".weight"], grads[name + ".bias"] = layer_norm_backward(
        dy, p[name + ".weight"], cache
    )
    return dx


def embedding_backward(dx, index, n_rows):
    """Sum the rows of dx (N, d) into a (n_rows, d) table at `index` (N,): sort + reduceat."""
    order = np.argsort(index, kind="stable")
    sorted_index = index[order]
    starts = np.flatnonzero(np.r_[True, sorted_index[1:] != sorted_index[:-1]])
    out = np.zeros((n_rows, dx.shape[1]), dtype=dx.dtype)
    out[sorted_index[starts]] = np.add.reduceat(dx[order], starts, axis=0)
    return out


# --- the model ----------------------------------------------------------------------------------
class NumpyGPT:
    """`loss_and_grads(idx, targets) -> (loss, grads)` for idx, targets (B, T) integers."""

    def __init__(self, params: dict, n_layer: int, n_head: int, eps: float = 1e-5):
        self.params, self.n_layer, self.n_head, self.eps = params, n_layer, n_head, eps
        self._masks = {}

    def _mask(self, T, dtype):
        if (T, dtype) not in self._masks:
            upper = np.triu(np.ones((T, T), dtype=bool), 1)
            self._masks[T, dtype] = np.where(upper, -np.inf, 0.0).astype(dtype)
        return self._masks[T, dtype]

    def loss_and_grads(self, idx, targets):
        p, eps, nh = self.params, self.eps, self.n_head
        B, T = idx.shape
        N = B * T
        wte, wpe = p["transformer.wte.weight"], p["transformer.wpe.weight"]
        flat_idx = idx.reshape(N)
        mask = self._mask(T, wte.dtype)

        # forward
        x = wte[flat_idx].reshape(B, T, -1)
        x += wpe[:T]
        x = x.reshape(N, -1)  # (N, d): the residual stream
        caches = []
        for i in range(self.n_layer):
            h = f"transformer.h.{i}."
            a_in, ln1 = layer_norm(x, p[h + "ln_1.weight"], p[h + "ln_1.bias"], eps)
            att_y, att = attention(conv1d(a_in, p, h + "attn.c_attn"), B, T, nh, mask)
            x = x + conv1d(att_y, p, h + "attn.c_proj")
            m_in, ln2 = layer_norm(x, p[h + "ln_2.weight"], p[h + "ln_2.bias"], eps)
            f = conv1d(m_in, p, h + "mlp.c_fc")
            g, t = gelu(f)
            x += conv1d(g, p, h + "mlp.c_proj")
            caches.append((a_in, ln1, att_y, att, m_in, ln2, f, t, g))
        xf, lnf = layer_norm(x, p["transformer.ln_f.weight"], p["transformer.ln_f.bias"], eps)
        logits = xf @ wte.T  # (N, V)

        # cross-entropy, and its gradient softmax - onehot, divided by N
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        sums = probs.sum(axis=1, keepdims=True)
        flat_t = targets.reshape(N)
        rows = np.arange(N)
        loss = float(np.log(sums[:, 0]).mean() - logits[rows, flat_t].mean())
        probs /= sums
        probs[rows, flat_t] -= 1.0
        dlogits = probs
        dlogits *= 1.0 / N

        # backward
        grads = {}
        dwte = dlogits.T @ xf  # (V, d): the head's share of the tied weight
        dx = dlogits @ wte  # (N, d)
        dx = layer_norm_grads(dx, p, "transformer.ln_f", lnf, grads)
        for i in reversed(range(self.n_layer)):
            h = f"transformer.h.{i}."
            a_in, ln1, att_y, att, m_in, ln2, f, t, g = caches[i]
            # x = x + mlp(ln_2(x))
            df = gelu_backward(conv1d_backward(dx, g, p, h + "mlp.c_proj", grads), f, t)
            dm = conv1d_backward(df, m_in, p, h + "mlp.c_fc", grads)
            dx += layer_norm_grads(dm, p, h + "ln_2", ln2, grads)
            # x = x + attn(ln_1(x))
            datt = conv1d_backward(dx, att_y, p, h + "attn.c_proj", grads)
            dqkv = attention_backward(datt, att, B, T, nh)
            da = conv1d_backward(dqkv, a_in, p, h + "attn.c_attn", grads)
            dx += layer_norm_grads(da, p, h + "ln_1", ln1, grads)
        dpos = dx.reshape(B, T, -1).sum(axis=0)  # (T, d)
        dwpe = np.zeros_like(wpe)
        dwpe[:T] = dpos
        dwte += embedding_backward(dx, flat_idx, wte.shape[0])
        grads["transformer.wte.weight"] = dwte
        grads["transformer.wpe.weight"] = dwpe
        return loss, grads


class AdamW:
    """PyTorch's AdamW, in place: p *= 1 - lr wd; m, v moving averages of g and g²;
    p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)."""

    def __init__(self, params: dict, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        self.params, self.lr, self.betas, self.eps, self.wd = params, lr, betas, eps, weight_decay
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, grads: dict) -> None:
        self.t += 1
        (b1, b2), lr = self.betas, self.lr
        step_size = lr / (1 - b1**self.t)
        rsqrt_bc2 = 1 / math.sqrt(1 - b2**self.t)
        for name, p in self.params.items():
            g, m, v = grads[name], self.m[name], self.v[name]
            p *= 1 - lr * self.wd
            m *= b1
            m += (1 - b1) * g
            v *= b2
            g2 = np.multiply(g, g, out=g)  # the gradient is not needed after this
            g2 *= 1 - b2
            v += g2
            denom = np.sqrt(v, out=g2)
            denom *= rsqrt_bc2
            denom += self.eps
            np.divide(m, denom, out=denom)
            denom *= step_size
            p -= denom
