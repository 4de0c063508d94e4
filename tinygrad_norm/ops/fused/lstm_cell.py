"""One LSTM step's pointwise part as one node: from the gate pre-activations and the cell
state to the new hidden and cell states (Hochreiter & Schmidhuber, 1997; PyTorch's gate order).

Composed from primitives (`lstm_cell_reference`) the step is four slices, three sigmoids, two
tanh, three products and a sum: about 13 nodes per time step and layer, each paying the
per-op Python cost on small (B, H) arrays. That cost is the LSTM's training step: on the course
benchmark's 2-layer LSTM (B 16, T 32, H 128) the graph has ~1200 nodes, and fusing this part
takes it to ~530 nodes: `bench --suite course`, tinygrad_norm / PyTorch 7.8 -> 4.3
(21 ms PyTorch; one thread, a busy 2-core machine).
"""

import numpy as np

from ...autograd.engine import Function
from ...autograd.grad_mode import is_grad_enabled
from ..movement import Cat
from .xp import operands


class LSTMCell(Function):
    """(h', c') of one LSTM step, packed as one array [h' | c'] of shape (..., 2H).

    gates (..., 4H) are the pre-activations x W_ih^T + b_ih + h W_hh^T + b_hh, in the order
    i, f, g, o; c (..., H) the previous cell state. With s the logistic sigmoid,

        i, f, o = s(gates_i), s(gates_f), s(gates_o);   g = tanh(gates_g)
        c' = f * c + i * g;                              h' = o * tanh(c')

    Backward. With gh, gc the gradients arriving at h' and c', and s' = s (1 - s),
    tanh' = 1 - tanh^2, the gradient reaching c' through both paths is

        dc = gc + gh * o * (1 - tanh(c')^2)

    and the chain rule through each product gives

        grad_i = dc * g * i (1 - i),    grad_f = dc * c * f (1 - f),
        grad_g = dc * i * (1 - g^2),    grad_o = gh * tanh(c') * o (1 - o),
        grad_c = dc * f.

    Forward keeps i, f, g, o and tanh(c'); under `create_graph=True` backward recomputes them
    from the saved gates as Tensors (Sigmoid, Tanh nodes), so it is twice differentiable.

    >>> import tinygrad_norm as tg
    >>> hc = LSTMCell.apply(tg.zeros(1, 4), tg.ones(1, 1))   # every gate 1/2, g = 0
    >>> [round(v, 6) for v in hc[0].tolist()]              # c' = c/2, h' = tanh(c')/2
    [0.231059, 0.5]
    """

    formula = (
        "dc = grad_c' + grad_h' * o * (1 - tanh(c')**2);  grad_gates = [dc*g*i*(1-i), "
        "dc*c*f*(1-f), dc*i*(1-g**2), grad_h'*tanh(c')*o*(1-o)];  grad_c = dc * f"
    )

    @staticmethod
    def forward(ctx, gates, c):
        i, f, g, o = _activations(gates)
        c_next = f * c
        c_next += i * g
        tanh_c = np.tanh(c_next)
        if any(ctx.needs_input_grad) and is_grad_enabled():
            ctx.save_for_backward(gates, c, i, f, g, o, tanh_c)
        return np.concatenate([o * tanh_c, c_next], axis=-1)

    @staticmethod
    def backward(ctx, grad_output):
        gates, c, i, f, g, o, tanh_c = ctx.saved_tensors
        if is_grad_enabled():  # create_graph: the activations as functions of the gates
            i, f, g, o = _activations(gates)
            tanh_c = (f * c + i * g).tanh()
        grad_output, c, i, f, g, o, tanh_c = operands(grad_output, c, i, f, g, o, tanh_c)
        H = c.shape[-1]
        gh, gc = grad_output[..., :H], grad_output[..., H:]
        dc = gc + gh * o * (1 - tanh_c * tanh_c)
        parts = (dc * g * i * (1 - i), dc * c * f * (1 - f), dc * i * (1 - g * g))
        parts += (gh * tanh_c * o * (1 - o),)
        if isinstance(dc, np.ndarray):
            grad_gates = np.concatenate(parts, axis=-1)
        else:
            grad_gates = Cat.apply(*parts, dim=dc.ndim - 1)
        return grad_gates, dc * f


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


def lstm_cell_reference(gates, c):
    """The same step composed from primitives (autograd derives the gradient): the test
    reference of `LSTMCell`, [h' | c'] (..., 2H)."""
    i, f, g, o = gates.chunk(4, dim=-1)
    c_next = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return Cat.apply(o.sigmoid() * c_next.tanh(), c_next, dim=gates.ndim - 1)


def lstm_cell(gates, c):
    """[h' | c'] (..., 2H) of one LSTM step from gates (..., 4H) and c (..., H) (see
    `LSTMCell`)."""
    return LSTMCell.apply(gates, c)
