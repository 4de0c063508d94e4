"""GPT-2's attention core as one node: from the packed q, k, v of `c_attn` to the merged heads.

Composed from primitives (`nn.Attention` without the fused path) the core is a dozen nodes:
split into q, k, v, split the heads (reshape, transpose), kᵀ, a matmul, the scale, the mask,
softmax, a matmul, merge the heads. Each is an op to record and to run backward, and the split
sends back three gradients of the whole (B, T, 3C) input, mostly zeros, that are then summed.
Here it is one node whose backward writes the gradient of q, k and v into one array.
"""

import numpy as np

from ...autograd.engine import Function
from ...autograd.grad_mode import is_grad_enabled
from ..movement import Cat
from .softmax import Softmax


def additive_mask(allowed: np.ndarray, dtype) -> np.ndarray:
    """0 where `allowed`, -inf elsewhere: added to the scores, it masks them in one pass."""
    return np.where(allowed, 0.0, -np.inf).astype(dtype)


class SelfAttention(Function):
    """y = softmax(q kᵀ · scale + M) v for each head, with q, k, v packed side by side in qkv.

    Shapes: qkv (B, T, 3C) -> y (B, T, C); n_head heads of size hs = C / n_head, so each of q,
    k, v is (B, nh, T, hs) after splitting. `allowed` (bool, broadcast to (B, nh, T, T)) says
    where query i may attend to key j; M is 0 there and -inf elsewhere. A query allowed no key
    gets zero weights (not 0/0 = NaN).

    Backward, with W = softmax(S) the weights, S = q kᵀ · scale + M, and G = grad_out split
    into heads (B, nh, T, hs). y = W v is a matrix product, so

        grad_v = Wᵀ G,    grad_W = G vᵀ,

    softmax's backward (see `Softmax`) gives grad_S = W * (grad_W - sum_j(grad_W * W)), which is
    0 wherever W is 0 (masked keys), and S = q kᵀ · scale gives

        grad_q = grad_S k · scale,    grad_k = grad_Sᵀ q · scale.

    The three are stacked back into the layout of qkv: one (B, T, 3C) gradient.

    Forward saves the weights W as an array. When the backward is itself recorded
    (`create_graph=True`) W must be a function of qkv for the second derivative, so backward
    recomputes it from the saved input with Tensor operations (matmul, masked_fill, Softmax);
    the formula is the same.

    >>> import tinygrad_norm as tg
    >>> qkv = tg.ones(1, 2, 6, requires_grad=True)          # B=1, T=2, C=2, one head
    >>> causal = np.tril(np.ones((2, 2), dtype=bool))
    >>> y = SelfAttention.apply(qkv, 1, causal, 1.0)
    >>> y.shape, y.grad_fn
    (torch.Size([1, 2, 2]), <SelfAttentionBackward>)
    """

    formula = (
        "grad_v = W^T G;  grad_S = W * (G v^T - sum(G v^T * W));  grad_q = grad_S k * scale;  "
        "grad_k = grad_S^T q * scale   (W = softmax(q k^T * scale + mask), G = grad_out)"
    )

    @staticmethod
    def forward(ctx, qkv, n_head, allowed, scale):
        B, T, C3 = qkv.shape
        q, k, v = qkv.reshape(B, T, 3, n_head, C3 // (3 * n_head)).transpose(2, 0, 3, 1, 4)
        scores = q @ k.transpose(0, 1, 3, 2)  # (B, nh, T, hs) @ (B, nh, hs, T) -> (B, nh, T, T)
        scores *= scale
        scores += additive_mask(allowed, scores.dtype)
        nowhere = ~allowed.any(axis=-1, keepdims=True)  # queries allowed no key at all
        if nowhere.any():
            scores = np.where(nowhere, 0.0, scores).astype(scores.dtype, copy=False)
        # softmax along the keys, in place (initial: a sequence of length 0 has no maximum)
        scores -= scores.max(axis=-1, keepdims=True, initial=-np.inf)
        weights = np.exp(scores, out=scores)
        weights /= weights.sum(axis=-1, keepdims=True)
        if nowhere.any():
            weights = np.where(nowhere, 0.0, weights).astype(scores.dtype, copy=False)
        ctx.save_for_backward(qkv, weights)
        ctx.n_head, ctx.allowed, ctx.scale = n_head, allowed, scale
        y = weights @ v  # (B, nh, T, T) @ (B, nh, T, hs) -> (B, nh, T, hs)
        return y.transpose(0, 2, 1, 3).reshape(B, T, C3 // 3)  # merge heads: (B, T, C)

    @staticmethod
    def backward(ctx, grad_output):
        qkv, weights = ctx.saved_tensors
        if not is_grad_enabled():  # nothing recorded: the same formulas on the arrays
            return _grad_qkv(qkv.data, weights.data, grad_output.data, ctx.scale), None, None, None
        # create_graph: Tensor operations, with the weights recomputed as a function of qkv
        B, T, C = grad_output.shape
        hs = C // ctx.n_head
        q, k, v = qkv.reshape(B, T, 3, ctx.n_head, hs).permute(2, 0, 3, 1, 4)  # (B, nh, T, hs)
        weights = _weights(q, k, ctx.allowed, ctx.scale)
        g = grad_output.reshape(B, T, ctx.n_head, hs).transpose(1, 2)  # (B, nh, T, hs)
        grad_v = weights.transpose(-2, -1) @ g  # (B, nh, T, hs)
        grad_w = g @ v.transpose(-2, -1)  # (B, nh, T, T)
        grad_s = weights * (grad_w - (grad_w * weights).sum(dim=-1, keepdim=True)) * ctx.scale
        grad_q = grad_s @ k  # (B, nh, T, T) @ (B, nh, T, hs) -> (B, nh, T, hs)
        grad_k = grad_s.transpose(-2, -1) @ q
        # back to qkv's layout: 3 x (B, nh, T, hs) -> (B, T, 3, nh, hs) -> (B, T, 3C)
        parts = [t.transpose(1, 2).unsqueeze(2) for t in (grad_q, grad_k, grad_v)]
        return Cat.apply(*parts, dim=2).reshape(B, T, 3 * C), None, None, None


def _grad_qkv(qkv: np.ndarray, weights: np.ndarray, grad_out: np.ndarray, scale: float):
    """`SelfAttention.backward` in NumPy, in place: the gradients of q, k and v are written
    straight into their slots of one (B, T, 3C) array (matmul writes into strided views), and
    grad_W is turned into grad_S where it lies, with no (B, nh, T, T) temporary besides it."""
    (B, T, _), nh = qkv.shape, weights.shape[1]
    hs = grad_out.shape[-1] // nh
    q, k, v = qkv.reshape(B, T, 3, nh, hs).transpose(2, 0, 3, 1, 4)  # 3 x (B, nh, T, hs)
    g = grad_out.reshape(B, T, nh, hs).transpose(0, 2, 1, 3)  # (B, nh, T, hs)
    grad = np.empty((B, T, 3, nh, hs), dtype=np.result_type(grad_out, qkv))
    grad_q, grad_k, grad_v = grad.transpose(2, 0, 3, 1, 4)  # views, each (B, nh, T, hs)
    np.matmul(weights.transpose(0, 1, 3, 2), g, out=grad_v)  # Wᵀ G
    grad_s = g @ v.transpose(0, 1, 3, 2)  # grad_W = G vᵀ: (B, nh, T, T)
    row = np.einsum("bhij,bhij->bhi", grad_s, weights)[..., None]  # sum_j(grad_W * W)
    grad_s -= row
    grad_s *= weights
    grad_s *= scale  # grad_S = W * (grad_W - row) * scale
    np.matmul(grad_s, k, out=grad_q)
    np.matmul(grad_s.transpose(0, 1, 3, 2), q, out=grad_k)
    return grad.reshape(B, T, 3 * nh * hs)


def _weights(q, k, allowed: np.ndarray, scale: float):
    """softmax(q kᵀ · scale + M) with Tensor operations, zero for queries allowed no key."""
    from ...tensor import Tensor

    scores = (q @ k.transpose(-2, -1)) * scale + Tensor._make(additive_mask(allowed, q.dtype))
    nowhere = ~allowed.any(axis=-1, keepdims=True)
    if nowhere.any():
        scores = scores.masked_fill(nowhere, 0.0)
    weights = Softmax.apply(scores, -1)
    return weights.masked_fill(nowhere, 0.0) if nowhere.any() else weights


def self_attention(qkv, n_head: int, allowed: np.ndarray, scale: float):
    """GPT-2's attention core as one fused node (see `SelfAttention`)."""
    return SelfAttention.apply(qkv, n_head, allowed, scale)
