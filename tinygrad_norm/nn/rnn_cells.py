"""Recurrent cells: one time step of an Elman RNN, an LSTM and a GRU, as PyTorch computes them.

Each step takes `x_proj`, the input already multiplied by the input weights
(`x @ W_ih.T + b_ih`, done for all time steps at once by `nn.RNN` / `LSTM` / `GRU`), and the
previous state. The gates are stacked in the weights in PyTorch's order, so PyTorch state dicts
load unchanged:

- RNN:  h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)          (or relu)
- LSTM: i, f, g, o = chunks of (x W_ih^T + b_ih + h W_hh^T + b_hh)   (4 * hidden rows)
        c' = sigmoid(f) * c + sigmoid(i) * tanh(g),   h' = sigmoid(o) * tanh(c')
- GRU:  r, z, n rows of W (3 * hidden rows); with hr, hz, hn = chunks of h W_hh^T + b_hh,
        r = sigmoid(xr + hr),  z = sigmoid(xz + hz),  n = tanh(xn + r * hn),
        h' = (1 - z) * n + z * h

Everything is composed from Tensor ops, so autograd derives the gradients (also of second
order). The cells (`RNNCell`, `LSTMCell`, `GRUCell`) run one step on a batch (B, input_size) or
on one unbatched vector (input_size,).
"""

from __future__ import annotations

import math

from ..functions.creation import empty, zeros
from ..ops import fused
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}  # weight rows per hidden unit


def rnn_step(x_proj: Tensor, h: Tensor, w_hh, b_hh, nonlinearity: str = "tanh") -> Tensor:
    """h' = act(x_proj + h @ w_hh.T + b_hh); x_proj, h (B, H) -> (B, H)."""
    pre = x_proj + F.linear(h, w_hh, b_hh)
    return pre.tanh() if nonlinearity == "tanh" else pre.relu()


def lstm_step(x_proj: Tensor, h: Tensor, c: Tensor, w_hh, b_hh) -> tuple[Tensor, Tensor]:
    """(h', c') of one LSTM step; x_proj (B, 4H) in the gate order i, f, g, o."""
    # NOTE: the recurrent product and the gates' pointwise maths in one node
    # (`ops/fused/lstm_cell.py`, the composed form beside it): 15 nodes fewer per step
    hc = fused.lstm_cell(x_proj, c, h, w_hh, b_hh)  # [h' | c'] (B, 2H)
    H = c.shape[-1]
    return hc[..., :H], hc[..., H:]


def gru_step(x_proj: Tensor, h: Tensor, w_hh, b_hh) -> Tensor:
    """h' of one GRU step; x_proj (B, 3H) in the gate order r, z, n. Note b_hn sits inside the
    reset gate's product, as in PyTorch (and cuDNN): n = tanh(xn + r * (h W_hn^T + b_hn))."""
    xr, xz, xn = x_proj.chunk(3, dim=-1)  # each (B, H)
    hr, hz, hn = F.linear(h, w_hh, b_hh).chunk(3, dim=-1)
    r = (xr + hr).sigmoid()
    z = (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    return (1 - z) * n + z * h


def check_input(module, input, ranks: tuple[int, int], layout: str) -> None:  # noqa: A002
    """PyTorch's checks of a recurrent module's input: `ranks` (unbatched, batched) axes, then
    input_size features in the last axis; the message names `layout`, what to give instead."""
    problem = None
    if input.ndim not in ranks:
        kind = ValueError
        problem = f"Expected input to be {ranks[0]}D or {ranks[1]}D, got {input.ndim}D tensor"
    elif input.shape[-1] != module.input_size:
        kind = RuntimeError
        problem = "input.size(-1) must be equal to input_size. Expected "
        problem += f"{module.input_size}, got {input.shape[-1]}"
    if problem:
        shape = tuple(input.shape)
        raise kind(f"{type(module).__name__}: {problem} (input shape {shape}); give {layout}")


def check_nonlinearity(nonlinearity: str) -> str:
    if nonlinearity not in ("tanh", "relu"):
        raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
    return nonlinearity


class RNNCellBase(Module):
    """Holds weight_ih (G*H, I), weight_hh (G*H, H), bias_ih and bias_hh (G*H,) for G gates,
    all drawn from U(-1/sqrt(H), 1/sqrt(H)), PyTorch's initialisation."""

    gates = 1

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, *, device=None, dtype=None
    ):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        rows = self.gates * hidden_size
        self.weight_ih = Parameter(empty(rows, input_size, dtype=dtype))
        self.weight_hh = Parameter(empty(rows, hidden_size, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(rows, dtype=dtype))
            self.bias_hh = Parameter(empty(rows, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if not self.bias:
            text += ", bias=False"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text

    def _prepare(self, input, hx) -> tuple[Tensor, Tensor | None, bool]:  # noqa: A002
        """Check the input, make it (B, I), and the state (B, H) (zeros when absent)."""
        layout = f"(batch, input_size={self.input_size}): a cell runs one time step"
        check_input(self, input, (1, 2), layout)
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        if hx is None:
            return x, None, batched
        return x, self._state(hx, x.shape[0], batched), batched

    def _state(self, hx, batch: int, batched: bool) -> Tensor:
        expected = (batch, self.hidden_size) if batched else (self.hidden_size,)
        if tuple(hx.shape) != expected:
            raise RuntimeError(
                f"{type(self).__name__}: hidden state has shape {hx.shape}, expected "
                f"{expected} (batch, hidden_size)"
            )
        return hx if batched else hx.unsqueeze(0)

    def _zeros(self, x: Tensor) -> Tensor:
        return zeros(x.shape[0], self.hidden_size, dtype=x.dtype)

    def _project(self, x: Tensor) -> Tensor:
        return F.linear(x, self.weight_ih, self.bias_ih)  # (B, G*H)


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh).

    `RNNCell(input_size, hidden_size, bias=True, nonlinearity="tanh")`; forward(input, hx=None):
    input (B, input_size) or (input_size,), hx of the matching (B, hidden_size) -> h'.

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> RNNCell(3, 2)(tg.ones(4, 3)).shape
    torch.Size([4, 2])
    """

    def __init__(
        self, input_size, hidden_size, bias=True, nonlinearity="tanh", *, device=None, dtype=None
    ):
        check_nonlinearity(nonlinearity)
        super().__init__(input_size, hidden_size, bias, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None) -> Tensor:  # noqa: A002 - PyTorch's name
        x, h, batched = self._prepare(input, hx)
        h = self._zeros(x) if h is None else h
        out = rnn_step(self._project(x), h, self.weight_hh, self.bias_hh, self.nonlinearity)
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step (gate order i, f, g, o): c' = f*c + i*g, h' = o * tanh(c').

    forward(input, hx=None) with hx = (h, c) -> (h', c'); shapes as `RNNCell`.

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> h, c = LSTMCell(3, 2)(tg.ones(4, 3))
    >>> h.shape, c.shape
    (torch.Size([4, 2]), torch.Size([4, 2]))
    """

    gates = 4

    def forward(self, input, hx=None) -> tuple[Tensor, Tensor]:  # noqa: A002 - PyTorch's name
        x, _, batched = self._prepare(input, None)
        if hx is None:
            h = c = self._zeros(x)
        else:
            h, c = (self._state(s, x.shape[0], batched) for s in hx)
        h, c = lstm_step(self._project(x), h, c, self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step (gate order r, z, n): h' = (1 - z) * n + z * h.

    forward(input, hx=None) -> h'; shapes as `RNNCell`.

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> GRUCell(3, 2)(tg.ones(3)).shape
    torch.Size([2])
    """

    gates = 3

    def forward(self, input, hx=None) -> Tensor:  # noqa: A002 - PyTorch's name
        x, h, batched = self._prepare(input, hx)
        h = self._zeros(x) if h is None else h
        out = gru_step(self._project(x), h, self.weight_hh, self.bias_hh)
        return out if batched else out.squeeze(0)
