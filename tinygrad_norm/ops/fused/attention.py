"""GPT-2's attention core as one node: from the packed q, k, v of `c_attn` to the merged heads.

Composed from primitives (`nn.Attention` without the fused path) the core is a dozen nodes:
split into q, k, v, split the heads (reshape, transpose), kᵀ, a matmul, the scale, the mask,
softmax, a matmul, merge the heads. Each is an op to record and to run backward, and the split
sends back three gradients of the whole (B, T, 3C) input, mostly zeros, that are then summed.
Here it is one node whose backward writes the gradient of q, k and v into one array.
"""

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ..movement import Cat
from ..xp import imul, isub, matmul, operands, row_dot
from .softmax import safe_softmax, softmax_reference


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

    The weights (`_weights`, with the masked softmax `safe_softmax`) and the gradients
    (`_grad_qkv`) are written once and run on arrays or on Tensors (see `xp.py`). Forward saves
    the weights W as an array. When the backward is itself recorded (`create_graph=True`) W must
    be a function of qkv for the second derivative, so backward recomputes it from the saved
    input, by the same `_weights`.

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
        q, k, v = _split(qkv, n_head)  # 3 x (B, nh, T, hs)
        weights = _weights(q, k, allowed, scale)  # (B, nh, T, T)
        ctx.save_for_backward(qkv, weights)
        ctx.n_head, ctx.allowed, ctx.scale = n_head, allowed, scale
        y = weights @ v  # (B, nh, T, T) @ (B, nh, T, hs) -> (B, nh, T, hs)
        return y.transpose(0, 2, 1, 3).reshape(B, T, C3 // 3)  # merge heads: (B, T, C)

    @staticmethod
    def backward(ctx, grad_output):
        qkv, weights = ctx.saved_tensors
        if is_grad_enabled():  # create_graph: W as a function of qkv, for second order
            q, k, _ = _split(qkv, ctx.n_head)
            weights = _weights(q, k, ctx.allowed, ctx.scale)
        qkv, weights, grad_output = operands(qkv, weights, grad_output)
        return _grad_qkv(qkv, weights, grad_output, ctx.scale), None, None, None


def _split(qkv, n_head: int):
    """q, k, v, each (B, nh, T, hs), from the packed (B, T, 3C): views of an array, or nodes."""
    B, T, C3 = qkv.shape
    packed = qkv.reshape(B, T, 3, n_head, C3 // (3 * n_head))  # (B, T, 3, nh, hs)
    return tuple(packed[:, :, i].swapaxes(1, 2) for i in range(3))


def _weights(q, k, allowed: np.ndarray, scale: float):
    """W = safe_softmax(q kᵀ · scale) over the keys `allowed`, for arrays or Tensors."""
    scores = q @ k.swapaxes(-2, -1)  # (B, nh, T, hs) @ (B, nh, hs, T) -> (B, nh, T, T)
    scores = imul(scores, scale)
    return safe_softmax(scores, allowed)


def _grad_qkv(qkv, weights, grad_out, scale: float):
    """`SelfAttention.backward`: the gradients of q, k and v in qkv's (B, T, 3C) layout, for
    arrays or Tensors. On arrays, in place: the three gradients are written straight into
    their slots of one (B, T, 3C) array (matmul writes into strided views), and grad_W is
    turned into grad_S where it lies, with no (B, nh, T, T) temporary besides it."""
    (B, T, C3), nh = qkv.shape, weights.shape[1]
    q, k, v = _split(qkv, nh)  # 3 x (B, nh, T, hs)
    g = grad_out.reshape(B, T, nh, C3 // (3 * nh)).swapaxes(1, 2)  # (B, nh, T, hs)
    grad, slots = None, (None, None, None)
    if isinstance(qkv, np.ndarray):  # (B, T, 3, nh, hs), and its q, k, v views
        grad = np.empty((B, T, 3, nh, C3 // (3 * nh)), dtype=np.result_type(grad_out, qkv))
        slots = tuple(grad[:, :, i].swapaxes(1, 2) for i in range(3))
    grad_v = matmul(weights.swapaxes(-2, -1), g, out=slots[2])  # Wᵀ G
    grad_s = g @ v.swapaxes(-2, -1)  # grad_W = G vᵀ: (B, nh, T, T)
    grad_s = isub(grad_s, row_dot(grad_s, weights))  # grad_W - sum_j(grad_W * W)
    grad_s = imul(grad_s, weights)
    grad_s = imul(grad_s, scale)  # grad_S = W * (grad_W - sum_j(grad_W * W)) * scale
    grad_q = matmul(grad_s, k, out=slots[0])  # (B, nh, T, T) @ (B, nh, T, hs)
    grad_k = matmul(grad_s.swapaxes(-2, -1), q, out=slots[1])
    if grad is None:  # Tensors: 3 x (B, nh, T, hs) -> (B, T, 3, nh, hs)
        grad = Cat.apply(*[t.swapaxes(1, 2).unsqueeze(2) for t in (grad_q, grad_k, grad_v)], dim=2)
    return grad.reshape(B, T, C3)


def self_attention_reference(qkv, n_head: int, allowed: np.ndarray, scale: float):
    """GPT-2's attention core composed from primitives (autograd derives the gradient): split,
    heads, scores, the masked softmax written out with masked_fill and the composed softmax,
    merge. The test reference of `SelfAttention`."""
    B, T, C3 = qkv.shape
    q, k, v = (
        t.reshape(B, T, n_head, C3 // 3 // n_head).transpose(1, 2)  # (B, nh, T, hs)
        for t in qkv.split(C3 // 3, dim=2)
    )
    scores = (q @ k.transpose(-2, -1)) * scale  # (B, nh, T, T)
    nowhere = ~allowed.any(axis=-1, keepdims=True)  # queries allowed no key: zero weights
    scores = scores.masked_fill(~allowed | nowhere, -np.inf).masked_fill(nowhere, 0.0)
    weights = softmax_reference(scores, -1).masked_fill(nowhere, 0.0)
    return (weights @ v).transpose(1, 2).reshape(B, T, C3 // 3)  # (B, T, C)


def self_attention(qkv, n_head: int, allowed: np.ndarray, scale: float):
    """GPT-2's attention core as one fused node (see `SelfAttention`)."""
    return SelfAttention.apply(qkv, n_head, allowed, scale)
