"""One LSTM step as one node: from the input's share of the gates and the previous hidden and
cell states to the new ones (Hochreiter & Schmidhuber, 1997; PyTorch's gate order).

Composed from primitives (`lstm_cell_reference`) the step is the recurrent product, two
additions, four slices, three sigmoids, two tanh, three products and a sum: about 16 nodes per
time step and layer, each paying the per-op Python cost on small (B, H) arrays. That cost is
the LSTM's training step: on the course benchmark's 2-layer LSTM (B 16, T 32, H 128) the graph
had ~1170 nodes per step, ~530 with the pointwise part fused, and ~340 with the recurrent
product h W_hh^T + b_hh inside the node too (the times: docs/speed.md). `nn.LSTM` now runs
each whole layer as one node (`lstm_layer.py`, which reuses `_gates` and `_activations`
below); this step serves `LSTMCell`.
"""

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ..movement import Cat
from ..xp import operands


class LSTMCell(Function):
    """(h', c') of one LSTM step, packed as one array [h' | c'] of shape (..., 2H).

    The gate pre-activations, in the order i, f, g, o, are gates = x_proj + h W_hh^T + b_hh
    (..., 4H), x_proj = x W_ih^T + b_ih computed for every time step at once by `nn.LSTM`;
    h and c (..., H) are the previous hidden and cell states. With s the logistic sigmoid,

        i, f, o = s(gates_i), s(gates_f), s(gates_o);   g = tanh(gates_g)
        c' = f * c + i * g;                              h' = o * tanh(c')

    Backward. With gh, gc the gradients arriving at h' and c', and s' = s (1 - s),
    tanh' = 1 - tanh^2, the gradient reaching c' through both paths is

        dc = gc + gh * o * (1 - tanh(c')^2)

    and the chain rule through each product gives

        grad_i = dc * g * i (1 - i),    grad_f = dc * c * f (1 - f),
        grad_g = dc * i * (1 - g^2),    grad_o = gh * tanh(c') * o (1 - o),
        grad_c = dc * f,

    and as in a linear layer, with grad_gates = [grad_i, grad_f, grad_g, grad_o]:
    grad_x_proj = grad_gates, grad_h = grad_gates W_hh, grad_W_hh = grad_gates^T h (summed
    over the batch), grad_b_hh = the sum of grad_gates over the batch.

    Forward keeps i, f, g, o and tanh(c'); under `create_graph=True` backward recomputes them
    from the saved gates as Tensors (Sigmoid, Tanh nodes), so it is twice differentiable.

    >>> import tinygrad_norm as tg
    >>> zero = tg.zeros(1, 1)
    >>> hc = LSTMCell.apply(tg.zeros(1, 4), tg.ones(1, 1), zero, tg.ones(4, 1), None)  # s = 1/2
    >>> [round(v, 6) for v in hc[0].tolist()]              # c' = c/2, h' = tanh(c')/2
    [0.231059, 0.5]
    """

    formula = (
        "dc = grad_c' + grad_h' * o * (1 - tanh(c')**2);  grad_gates = [dc*g*i*(1-i), "
        "dc*c*f*(1-f), dc*i*(1-g**2), grad_h'*tanh(c')*o*(1-o)];  grad_c = dc * f;  grad_x_proj = "
        "grad_gates;  grad_h = grad_gates @ W_hh;  grad_W_hh = grad_gates^T @ h;  grad_b_hh = "
        "sum(grad_gates)"
    )

    @staticmethod
    def forward(ctx, x_proj, c, h, w_hh, b_hh):
        gates = _gates(x_proj, h, w_hh, b_hh)
        i, f, g, o = _activations(gates)
        c_next = f * c
        c_next += i * g
        tanh_c = np.tanh(c_next)
        if any(ctx.needs_input_grad) and is_grad_enabled():
            ctx.save_for_backward(x_proj, c, h, w_hh, b_hh, i, f, g, o, tanh_c)
        return np.concatenate([o * tanh_c, c_next], axis=-1)

    @staticmethod
    def backward(ctx, grad_output):
        x_proj, c, h, w_hh, b_hh, i, f, g, o, tanh_c = ctx.saved_tensors
        if is_grad_enabled():  # create_graph: the activations as functions of the inputs
            i, f, g, o = _activations(_gates(x_proj, h, w_hh, b_hh))
            tanh_c = (f * c + i * g).tanh()
        grad_output, c, h, w_hh = operands(grad_output, c, h, w_hh)
        i, f, g, o, tanh_c = operands(i, f, g, o, tanh_c)
        H = c.shape[-1]
        gh, gc = grad_output[..., :H], grad_output[..., H:]
        dc = gc + gh * o * (1 - tanh_c * tanh_c)
        parts = (dc * g * i * (1 - i), dc * c * f * (1 - f), dc * i * (1 - g * g))
        parts += (gh * tanh_c * o * (1 - o),)
        if isinstance(dc, np.ndarray):
            grad_gates = np.concatenate(parts, axis=-1)
        else:
            grad_gates = Cat.apply(*parts, dim=dc.ndim - 1)
        # gates = x_proj + h w_hh^T + b_hh: Linear's backward (`linear.py`) on (N, ·) rows
        rows = grad_gates.reshape(-1, 4 * H)  # (N, 4H)
        needs_w, needs_b = ctx.needs_input_grad[3:5]
        grad_w = rows.swapaxes(0, 1) @ h.reshape(-1, H) if needs_w else None  # (4H, H)
        grad_b = rows.sum(0) if needs_b else None
        return grad_gates, dc * f, grad_gates @ w_hh, grad_w, grad_b


def _gates(x_proj, h, w_hh, b_hh):
    """x_proj + h @ w_hh^T + b_hh: the (..., 4H) pre-activations, for arrays or Tensors."""
    gates = x_proj + h @ w_hh.swapaxes(0, 1)
    return gates if b_hh is None else gates + b_hh


def _activations(gates):
    """s(i), s(f), tanh(g), s(o) from the packed (..., 4H) gates, for arrays or Tensors."""
    H = gates.shape[-1] // 4
    i, f, g, o = (gates[..., k * H : (k + 1) * H] for k in range(4))
    if isinstance(gates, np.ndarray):
        return _sigmoid(i), _sigmoid(f), np.tanh(g), _sigmoid(o)
    return i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()


def _sigmoid(a: np.ndarray) -> np.ndarray:
    """s(a) = (1 + tanh(a / 2)) / 2: no overflow for large |a|, unlike 1 / (1 + exp(-a))."""
    out = a * 0.5
    np.tanh(out, out=out)
    out *= 0.5
    out += 0.5
    return out


def lstm_cell_reference(x_proj, c, h, w_hh, b_hh=None):
    """The same step composed from primitives (autograd derives the gradient): the test
    reference of `LSTMCell`, [h' | c'] (..., 2H)."""
    gates = x_proj + h @ w_hh.swapaxes(0, 1)
    i, f, g, o = (gates if b_hh is None else gates + b_hh).chunk(4, dim=-1)
    c_next = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return Cat.apply(o.sigmoid() * c_next.tanh(), c_next, dim=x_proj.ndim - 1)


def lstm_cell(x_proj, c, h, w_hh, b_hh=None):
    """[h' | c'] (..., 2H) of one LSTM step from x_proj (..., 4H) (the input's share of the
    gates), c and h (..., H), w_hh (4H, H) and b_hh (4H,) or None (see `LSTMCell`)."""
    return LSTMCell.apply(x_proj, c, h, w_hh, b_hh)
