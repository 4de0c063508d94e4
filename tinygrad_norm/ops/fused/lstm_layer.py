"""A whole LSTM layer (one direction) over a sequence as one node: forward loops over time in
NumPy, backward is one backward-through-time loop.

`lstm_cell.py` fuses one time step; `nn.LSTM` built on it still makes ~5 nodes per step and
layer (the step, the slices of h and c, the time slice of x_proj, the stack of the outputs),
each paying the per-op cost of the engine on small (B, H) arrays, and each step's backward
multiplies by W_hh once for grad_h and once more for grad_W_hh. Here the time loop runs inside
one node: per step, forward is one (B, H) @ (H, 4H) product and ten NumPy calls, backward one
(B, 4H) @ (4H, H) product and six; grad_W_hh is one GEMM over all T*B rows at the end. The
input's share of the gates, x W_ih^T + b_ih, stays outside: one `Linear` node for all steps.
What that was worth on the course benchmark's LSTM, and how much of its step is the matrix
products themselves: docs/speed.md.
"""

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ..movement import Cat
from ..xp import iadd, imul, operands
from .lstm_cell import _activations, _gates, lstm_cell_reference

_AFFINE = ([0.5, 0.5, 1.0, 0.5], [0.5, 0.5, 0.0, 0.5])  # tanh -> activation, per gate i f g o


class LSTMLayer(Function):
    """Every step of one LSTM layer: out = [h_1, ..., h_T, c_last], shape (T + 1, B, H): the
    hidden state of each step, then the cell state after the last step run.

    Inputs: x_proj (T, B, 4H) the input's share of the gates (x_t W_ih^T + b_ih, gate order
    i, f, g, o), h0 and c0 (B, H) the initial state, w_hh (4H, H), b_hh (4H,) or None;
    `reverse=True` runs the steps from t = T-1 down to 0 (the backward direction of a
    bidirectional LSTM: h0 enters at t = T-1, and c_last is c_1). At each step, with s the
    logistic sigmoid,

        i, f, g, o = s, s, tanh, s  of  x_proj[t] + h_(t-1) W_hh^T + b_hh
        c_t = f * c_(t-1) + i * g,     h_t = o * tanh(c_t)

    Backward through time. The gradient reaching h_t is what arrives at out[t] plus what step
    t+1 sent back through its recurrent product (dh); the gradient reaching c_t is what step
    t+1 sent back through c_(t+1) = f * c_t + ... (dc_next = dc * f), starting from what
    arrives at out[T] (c_last). Per step, going backwards, as in `LSTMCell`:

        gh = grad_h[t] + dh,           dc = dc_next + gh * o * (1 - tanh(c_t)^2)
        grad_gates[t] = [dc * g * i (1 - i),  dc * c_(t-1) * f (1 - f),
                         dc * i * (1 - g^2),  gh * tanh(c_t) * o (1 - o)]
        dc_next = dc * f,              dh = grad_gates[t] @ W_hh

    The factors that multiply dc or gh ("partner" below) depend on the forward values only, so
    they are computed for all steps at once before the loop. After it: grad_x_proj =
    grad_gates, grad_h0 = dh, grad_c0 = dc_next, and over all T*B rows at once grad_W_hh =
    grad_gates^T h_prev and grad_b_hh = the sum of grad_gates (h_prev[t] = h_(t-1)).

    Forward keeps the activations i, f, g, o, every c_t and tanh(c_t); under
    `create_graph=True` backward recomputes them from the inputs as Tensors (the same step as
    Tensor ops), so the same backward lines are recorded and can be differentiated again.

    >>> import tinygrad_norm as tg
    >>> zero = tg.zeros(1, 1)                      # T 2, B 1, H 1; all gates 0: s = 1/2, g = 0
    >>> out = LSTMLayer.apply(tg.zeros(2, 1, 4), zero, tg.ones(1, 1), tg.zeros(4, 1), None)
    >>> out.shape, round(float(out[2, 0, 0]), 4)    # c halves each step: 1 -> 0.5 -> 0.25
    (torch.Size([3, 1, 1]), 0.25)
    """

    formula = (
        "backward through time, t = T-1 .. 0, from dc_next = grad_c_last: gh = grad_h[t] + dh;  "
        "dc = dc_next + gh*o*(1 - tanh(c_t)**2);  grad_gates[t] = [dc*g*i*(1-i), "
        "dc*c_(t-1)*f*(1-f), dc*i*(1-g**2), gh*tanh(c_t)*o*(1-o)];  dc_next = dc*f;  dh = "
        "grad_gates[t] @ W_hh;  grad_x_proj = grad_gates;  grad_h0 = dh;  grad_c0 = dc_next;  "
        "grad_W_hh = grad_gates^T @ h_prev;  grad_b_hh = sum(grad_gates)"
    )

    @staticmethod
    def forward(ctx, x_proj, h0, c0, w_hh, b_hh, reverse=False):
        T, B, G = x_proj.shape
        H = G // 4
        # NOTE: s(z) = (1 + tanh(z / 2)) / 2, so one tanh over all 4H columns gives the four
        # activations: scale the sigmoid columns' pre-activations by 1/2 (folded into the
        # input share and the weights: exact in binary), then a * scale + shift maps tanh to s
        # there. scale, shift and the bias are spread to (B, 4H) once: NumPy adds two arrays
        # of one shape faster than it broadcasts a row, and this runs at every time step.
        row_scale, row_shift = (np.repeat(np.array(v, x_proj.dtype), H) for v in _AFFINE)  # (4H,)
        scale, shift = np.tile(row_scale, (B, 1)), np.tile(row_shift, (B, 1))  # (B, 4H)
        xs = x_proj * row_scale  # (T, B, 4H)
        # b_hh is added at each step, after x_proj, as `_gates` does: folded into x_proj the
        # float32 rounding moved, and Adam turned that into 1e-4 relative changes of weights
        # whose gradient is ~1e-8 (tests/test_course_programs.py's float32 LSTM)
        bs = None if b_hh is None else b_hh * scale
        # (H, 4H) in C order: of the layouts timed with NumPy's OpenBLAS (docs/speed.md), the
        # one that is never the slow one on either of its kernels (Haswell, SkylakeX); the
        # transposed product gates^T = W_hh h^T would need a transposed add and store per step.
        w = np.multiply(w_hh.T, row_scale, order="C")
        acts = np.empty((T, B, G), x_proj.dtype)  # i, f, g, o per step
        cs, tanh_c = np.empty((2, T, B, H), x_proj.dtype)
        out = np.empty((T + 1, B, H), x_proj.dtype)  # h_1 .. h_T, c_last
        h, c = h0, c0
        for t in _steps(T, reverse):
            a = np.matmul(h, w, out=acts[t])  # (B, H) @ (H, 4H)
            a += xs[t]
            if bs is not None:
                a += bs
            np.tanh(a, out=a)
            a *= scale
            a += shift
            i, f, g, o = a[:, :H], a[:, H : 2 * H], a[:, 2 * H : 3 * H], a[:, 3 * H :]
            c = np.multiply(f, c, out=cs[t])
            c += i * g
            h = np.multiply(o, np.tanh(c, out=tanh_c[t]), out=out[t])
        out[T] = c
        if any(ctx.needs_input_grad) and is_grad_enabled():
            ctx.save_for_backward(x_proj, h0, c0, w_hh, b_hh, acts, cs, tanh_c, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x_proj, h0, c0, w_hh, b_hh, acts, cs, tanh_c, out = ctx.saved_tensors
        reverse = ctx.reverse
        if is_grad_enabled():  # create_graph: the forward values as functions of the inputs
            acts, cs, out = _recorded_forward(x_proj, h0, c0, w_hh, b_hh, reverse)
            tanh_c = cs.tanh()
        grad_output, h0, c0, w_hh, acts, cs, tanh_c, out = operands(
            grad_output, h0, c0, w_hh, acts, cs, tanh_c, out
        )
        T, B, H = tanh_c.shape
        i, f, g, o = (acts[..., k * H : (k + 1) * H] for k in range(4))  # each (T, B, H)
        c_prev = _previous(cs, c0, reverse)
        partner = [g * i * (1 - i), c_prev * f * (1 - f), i * (1 - g * g), tanh_c * o * (1 - o)]
        partner = _cat(partner)  # (T, B, 4H)
        q = o * (1 - tanh_c * tanh_c)  # d h_t / d c_t
        arrays = isinstance(q, np.ndarray)
        grad_gates = np.empty((T, B, 4 * H), q.dtype) if arrays else [None] * T
        grad_h, dc_next, dh = grad_output[:T], grad_output[T], None
        steps = _steps(T, not reverse)
        for t in steps:  # (on arrays dh, gh * q[t] and dc are temporaries of ours: in place)
            gh = grad_h[t] if dh is None else iadd(dh, grad_h[t])
            dc = iadd(gh * q[t], dc_next)
            gg = _gate_gradient(partner[t], dc, gh, out=grad_gates[t] if arrays else None)
            if not arrays:  # (on arrays gg is that row already)
                grad_gates[t] = gg
            dc_next = imul(dc, f[t])
            if t != steps[-1] or ctx.needs_input_grad[1]:  # the last dh is grad_h0
                dh = gg @ w_hh  # (B, 4H) @ (4H, H)
        if not arrays:
            grad_gates = Cat.apply(*(gg.unsqueeze(0) for gg in grad_gates), dim=0)
        rows = grad_gates.reshape(T * B, 4 * H)
        needs_w, needs_b = ctx.needs_input_grad[3:5]
        h_prev = _previous(out[:T], h0, reverse).reshape(T * B, H)
        grad_w = rows.swapaxes(0, 1) @ h_prev if needs_w else None  # (4H, T*B) @ (T*B, H)
        grad_b = rows.sum(0) if needs_b else None
        grad_h0 = dh if ctx.needs_input_grad[1] else None
        return grad_gates, grad_h0, dc_next, grad_w, grad_b


def _steps(T: int, reverse: bool) -> range:
    return range(T - 1, -1, -1) if reverse else range(T)


def _cat(parts):
    """Join along the last axis, arrays or Tensors."""
    if isinstance(parts[0], np.ndarray):
        return np.concatenate(parts, axis=-1)
    return Cat.apply(*parts, dim=parts[0].ndim - 1)


def _previous(sequence, first, reverse: bool):
    """The state each step started from: (T, B, H) with `first` (B, H) where the run began."""
    first = first.reshape((1,) + tuple(first.shape))
    if isinstance(sequence, np.ndarray):
        parts = [sequence[1:], first] if reverse else [first, sequence[:-1]]
        return np.concatenate(parts, axis=0)
    parts = (sequence[1:], first) if reverse else (first, sequence[:-1])
    return Cat.apply(*parts, dim=0)


def _gate_gradient(partner, dc, gh, out=None):
    """[dc, dc, dc, gh] * partner, (B, 4H): on arrays written into `out` (this step's row of
    grad_gates), two NumPy calls; on Tensors a new node."""
    if isinstance(dc, np.ndarray):
        B, H = dc.shape
        by_gate = out.reshape(B, 4, H)
        np.multiply(partner.reshape(B, 4, H)[:, :3], dc[:, None], out=by_gate[:, :3])
        np.multiply(partner[:, 3 * H :], gh, out=by_gate[:, 3])
        return out
    return partner * Cat.apply(dc, dc, dc, gh, dim=dc.ndim - 1)


def _recorded_forward(x_proj, h0, c0, w_hh, b_hh, reverse: bool):
    """The forward loop on Tensors (recorded): the activations (T, B, 4H), every c_t
    (T, B, H), and the output [h_1, ..., h_T, c_last] (T + 1, B, H)."""
    T = x_proj.shape[0]
    acts, hs, cs = [None] * T, [None] * T, [None] * T
    h, c = h0, c0
    for t in _steps(T, reverse):
        i, f, g, o = _activations(_gates(x_proj[t], h, w_hh, b_hh))
        c = f * c + i * g
        h = o * c.tanh()
        acts[t], hs[t], cs[t] = Cat.apply(i, f, g, o, dim=1), h, c
    acts, cs = (Cat.apply(*(x.unsqueeze(0) for x in seq), dim=0) for seq in (acts, cs))
    return acts, cs, Cat.apply(*(x.unsqueeze(0) for x in hs + [c]), dim=0)


def lstm_layer_reference(x_proj, h0, c0, w_hh, b_hh=None, reverse=False):
    """The same layer as a loop of `lstm_cell_reference` steps composed from primitives (autograd
    derives the gradient): the test reference of `LSTMLayer`, (T + 1, B, H)."""
    H = h0.shape[-1]
    h, c = h0, c0
    hs = [None] * x_proj.shape[0]
    for t in _steps(x_proj.shape[0], reverse):
        hc = lstm_cell_reference(x_proj[t], c, h, w_hh, b_hh)
        h, c = hc[..., :H], hc[..., H:]
        hs[t] = h.unsqueeze(0)
    return Cat.apply(*hs, c.unsqueeze(0), dim=0)


def lstm_layer(x_proj, h0, c0, w_hh, b_hh=None, reverse=False):
    """[h_1, ..., h_T, c_last] (T + 1, B, H) of one LSTM layer over x_proj (T, B, 4H) from h0,
    c0 (B, H) (see `LSTMLayer`)."""
    return LSTMLayer.apply(x_proj, h0, c0, w_hh, b_hh, reverse=reverse)
