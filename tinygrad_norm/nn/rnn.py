"""Recurrent layers over whole sequences: `nn.RNN`, `nn.LSTM`, `nn.GRU`, as PyTorch's.

A layer runs its cell (`rnn_cells.py`) along the time axis. For each layer and direction:

    x_proj = x @ W_ih^T + b_ih          one matmul for every time step at once: (T, B, G*H)
    for t in 0 .. T-1 (T-1 .. 0 for the reverse direction):
        h = step(x_proj[t], h)          the recurrence: only h @ W_hh^T is left per step

For the LSTM that loop, forward and backward, is one node (`ops/fused/lstm_layer.py`, with the
same loop composed from the cell's primitives beside it as its test reference); RNN and GRU
run the loop here, one cell step of nodes at a time.

The output of layer l (both directions concatenated along the features, forward first) is the
input of layer l + 1, with dropout between layers in training mode. Parameters are named as in
PyTorch -- `weight_ih_l0`, `weight_hh_l0`, `bias_ih_l0`, `bias_hh_l0`, then `..._reverse` for the
backward direction, then `..._l1` -- with the gates stacked in PyTorch's order (LSTM i, f, g, o;
GRU r, z, n), so a PyTorch state dict loads unchanged. All are drawn from
U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).

Shapes (D = 2 if bidirectional else 1):
    input (T, B, input_size), or (B, T, input_size) with batch_first, or unbatched (T, input_size)
    output (T, B, D * hidden_size) (batch first with batch_first), unbatched (T, D * hidden_size)
    h_n, c_n (D * num_layers, B, hidden_size), unbatched (D * num_layers, hidden_size);
    row k = layer * D + direction. They are never batch first, as in PyTorch.
"""

from __future__ import annotations

import math
import numbers
import warnings

from ..functions.creation import empty, zeros
from ..ops import fused
from ..ops.shape import cat, stack
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .rnn_cells import GATES, check_input, check_nonlinearity, gru_step, rnn_step


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the parameters, the checks and the loop over layers."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        *,
        device=None,  # accepted for PyTorch's signature: everything runs on the CPU
        dtype=None,
    ):
        super().__init__()
        name = type(self).__name__
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1:
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an "
                f"element being zeroed, got {dropout!r}"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}",
                stacklevel=3,
            )
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError(f"{name}: hidden_size must be a positive int, got {hidden_size!r}")
        if not isinstance(num_layers, int) or num_layers <= 0:
            raise ValueError(f"{name}: num_layers must be a positive int, got {num_layers!r}")
        if proj_size != 0:
            raise NotImplementedError(
                f"{name}: proj_size={proj_size} (LSTM with projections) is not implemented in "
                "tinygrad_norm; use proj_size=0 and a Linear layer on the output instead"
            )
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, 0
        directions = 2 if bidirectional else 1
        rows = GATES[mode] * hidden_size
        self._flat_weights_names = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else hidden_size * directions
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                shapes = {"weight_ih": (rows, layer_input), "weight_hh": (rows, hidden_size)}
                if bias:
                    shapes.update(bias_ih=(rows,), bias_hh=(rows,))
                for kind, shape in shapes.items():
                    setattr(self, kind + suffix, Parameter(empty(*shape, dtype=dtype)))
                    self._flat_weights_names.append(kind + suffix)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size)
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def flatten_parameters(self) -> None:
        """Nothing to do: PyTorch packs the weights into one buffer for cuDNN here."""

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters per layer and direction: [[w_ih, w_hh, b_ih, b_hh], ...]."""
        per = 4 if self.bias else 2
        flat = [getattr(self, name) for name in self._flat_weights_names]
        return [flat[i : i + per] for i in range(0, len(flat), per)]

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if self.batch_first is not False:
            text += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            text += f", bidirectional={self.bidirectional}"
        return text

    # --- forward ---------------------------------------------------------------------------------
    def _check_input(self, input) -> tuple[Tensor, bool]:  # noqa: A002
        """The input as (T, B, input_size), and whether it had a batch axis."""
        name = type(self).__name__
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{name}: input must be a Tensor (T, B, input_size), got {type(input).__name__}"
                " (packed sequences are not supported: pad the batch instead)"
            )
        order = "batch, seq_len" if self.batch_first else "seq_len, batch"
        check_input(self, input, (2, 3), f"({order}, input_size={self.input_size})")
        names = self._flat_weights_names
        weight = getattr(self, names[0], None) if names else None
        if weight is not None and input.dtype != weight.dtype:  # PyTorch's ValueError
            raise ValueError(
                f"{name}: input dtype ({input.dtype}) does not match weight dtype "
                f"({weight.dtype}); convert the input, input.to({weight.dtype}), or the model, "
                f"model.to({input.dtype})"
            )
        if input.ndim == 2:
            return input.unsqueeze(1), False  # (T, 1, I)
        return (input.transpose(0, 1) if self.batch_first else input), True

    def _initial_state(self, hx, batch: int, batched: bool, like: Tensor) -> Tensor:
        """hx as (D * num_layers, B, H), zeros if None, with PyTorch's checks."""
        directions = 2 if self.bidirectional else 1
        expected = (self.num_layers * directions, batch, self.hidden_size)
        if hx is None:
            return zeros(*expected, dtype=like.dtype)
        if batched and hx.ndim != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.ndim}-D")
        if not batched:
            if hx.ndim != 2:
                raise RuntimeError(
                    f"For unbatched 2-D input, hx should also be 2-D but got {hx.ndim}-D tensor"
                )
            hx = hx.unsqueeze(1)
        if tuple(hx.shape) != expected:
            raise RuntimeError(
                f"{type(self).__name__}: Expected hidden size {expected}, got {list(hx.shape)} "
                "((num_layers * num_directions, batch, hidden_size))"
            )
        return hx

    def _weights(self, layer: int, direction: int) -> tuple:
        """(weight_ih, weight_hh, bias_ih, bias_hh) of one layer and direction (biases None
        with bias=False)."""
        suffix = f"_l{layer}" + ("_reverse" if direction else "")
        names = ("weight_ih", "weight_hh") + (("bias_ih", "bias_hh") if self.bias else ())
        found = [getattr(self, name + suffix) for name in names]
        return tuple(found) if self.bias else (*found, None, None)

    def _run(self, x: Tensor, states: list[Tensor]) -> tuple[Tensor, list[list[Tensor]]]:
        """Every layer and direction over x (T, B, I); `states` holds one (D*L, B, H) tensor
        per kind of state (h, or h and c). Returns the output (T, B, D*H) and, per kind of
        state, the final one of each layer and direction."""
        directions = 2 if self.bidirectional else 1
        finals = [[] for _ in states]
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                k = layer * directions + direction
                w_ih, w_hh, b_ih, b_hh = self._weights(layer, direction)
                x_proj = F.linear(x, w_ih, b_ih)  # (T, B, G*H): all time steps in one matmul
                state = [s[k] for s in states]  # each (B, H)
                ys, state = self._direction(x_proj, state, w_hh, b_hh, reverse=direction == 1)
                outputs.append(ys)  # (T, B, H)
                for kept, s in zip(finals, state):
                    kept.append(s)
            x = outputs[0] if directions == 1 else cat(outputs, dim=2)  # (T, B, D*H)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, finals

    def _direction(self, x_proj, state, w_hh, b_hh, reverse: bool) -> tuple[Tensor, list]:
        """One layer in one direction: the outputs (T, B, H) and the final state, the cell's
        `_step` run along time."""
        ys = [None] * x_proj.shape[0]
        for t in range(x_proj.shape[0] - 1, -1, -1) if reverse else range(x_proj.shape[0]):
            state = self._step(x_proj[t], state, w_hh, b_hh)
            ys[t] = state[0]
        return stack(ys, 0), state

    def _forward(self, input, states) -> tuple[Tensor, list[Tensor]]:  # noqa: A002
        x, batched = self._check_input(input)
        states = [self._initial_state(s, x.shape[1], batched, x) for s in states]
        output, finals = self._run(x, states)
        finals = [stack(f, 0) for f in finals]  # each (D*L, B, H)
        if not batched:
            return output.squeeze(1), [f.squeeze(1) for f in finals]
        return (output.transpose(0, 1) if self.batch_first else output), finals


class RNN(RNNBase):
    """An Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_(t-1) W_hh^T + b_hh) (or relu).

    `RNN(input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
    batch_first=False, dropout=0.0, bidirectional=False)`; `forward(input, hx=None) ->
    (output, h_n)`. Shapes in the module docstring.

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> rnn = RNN(3, 4, num_layers=2, batch_first=True)
    >>> output, h_n = rnn(tg.randn(2, 5, 3))      # (batch, time, features)
    >>> list(output.shape), list(h_n.shape)
    ([2, 5, 4], [2, 2, 4])
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        nonlinearity: str = "tanh",
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        *,
        device=None,  # accepted for PyTorch's signature: everything runs on the CPU
        dtype=None,
    ):
        mode = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}[check_nonlinearity(nonlinearity)]
        super().__init__(
            mode, input_size, hidden_size, num_layers, bias, batch_first, dropout,
            bidirectional, dtype=dtype,
        )  # fmt: skip
        self.nonlinearity = nonlinearity

    def _step(self, x_proj, state, w_hh, b_hh):
        return [rnn_step(x_proj, state[0], w_hh, b_hh, self.nonlinearity)]

    def forward(self, input, hx=None) -> tuple[Tensor, Tensor]:  # noqa: A002 - PyTorch's name
        output, (h_n,) = self._forward(input, [hx])
        return output, h_n


class LSTM(RNNBase):
    """Long short-term memory (Hochreiter & Schmidhuber, 1997), gate order i, f, g, o:

        i, f, g, o = x_t W_ih^T + b_ih + h_(t-1) W_hh^T + b_hh   (split in four)
        c_t = sigmoid(f) * c_(t-1) + sigmoid(i) * tanh(g),   h_t = sigmoid(o) * tanh(c_t)

    `LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, proj_size=0)` (proj_size other than 0 is not implemented);
    `forward(input, hx=None) -> (output, (h_n, c_n))` with hx = (h_0, c_0) or None (zeros).

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> lstm = LSTM(3, 4, bidirectional=True)
    >>> output, (h_n, c_n) = lstm(tg.randn(5, 2, 3))    # (time, batch, features)
    >>> output.shape, h_n.shape, lstm.weight_ih_l0_reverse.shape
    (torch.Size([5, 2, 8]), torch.Size([2, 2, 4]), torch.Size([16, 3]))
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def _direction(self, x_proj, state, w_hh, b_hh, reverse: bool) -> tuple[Tensor, list]:
        # NOTE: the whole time loop as one node (`ops/fused/lstm_layer.py`, its composed
        # reference beside it), not one fused cell per time step
        T = x_proj.shape[0]
        out = fused.lstm_layer(x_proj, state[0], state[1], w_hh, b_hh, reverse=reverse)
        last = 0 if reverse else T - 1  # the step that ran last
        return out[:T], [out[last], out[T]]  # (T, B, H), [h_n, c_n] each (B, H)

    def forward(self, input, hx=None):  # noqa: A002 - PyTorch's name
        if hx is not None and (not isinstance(hx, (tuple, list)) or len(hx) != 2):
            raise TypeError(
                "LSTM: hx must be a tuple (h_0, c_0) of two tensors "
                "(num_layers * num_directions, batch, hidden_size), or None for zeros"
            )
        output, (h_n, c_n) = self._forward(input, [None, None] if hx is None else list(hx))
        return output, (h_n, c_n)


class GRU(RNNBase):
    """Gated recurrent unit (Cho et al., 2014), gate order r, z, n:

        r = sigmoid(W_ir x + b_ir + W_hr h + b_hr),   z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
        n = tanh(W_in x + b_in + r * (W_hn h + b_hn)),  h_t = (1 - z) * n + z * h_(t-1)

    `GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False)`; `forward(input, hx=None) -> (output, h_n)`.

    >>> import tinygrad_norm as tg
    >>> _ = tg.manual_seed(0)
    >>> output, h_n = GRU(3, 4)(tg.randn(5, 3))       # unbatched (time, features)
    >>> output.shape, h_n.shape
    (torch.Size([5, 4]), torch.Size([1, 4]))
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise TypeError("GRU.__init__() got an unexpected keyword argument 'proj_size'")
        super().__init__("GRU", *args, **kwargs)

    def _step(self, x_proj, state, w_hh, b_hh):
        return [gru_step(x_proj, state[0], w_hh, b_hh)]

    def forward(self, input, hx=None) -> tuple[Tensor, Tensor]:  # noqa: A002 - PyTorch's name
        output, (h_n,) = self._forward(input, [hx])
        return output, h_n
