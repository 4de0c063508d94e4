"""The recurrent and Transformer layers' rows of `module_cases.CASES` (tiny shapes, float64).

Each row is `(name, module factory, inputs factory, second_order, fast_mode)`, made into a
`ModuleCase` by module_cases.py. A layer whose state is a tuple (LSTM's `(h, c)`) or whose
output nests one is wrapped in `Flat`, which takes the state as separate arguments and returns
one flat tuple of Tensors, so that every input is differentiated and every output checked.
Whole sequences are checked to first order; the cells also to second order.
"""

from __future__ import annotations

import numpy as np

from .. import nn
from ..tensor import Tensor


class Flat(nn.Module):
    """`module(x, (h, c))` called as `Flat(module)(x, h, c)`, its output flattened."""

    def __init__(self, module: nn.Module):
        super().__init__()
        self.module = module

    def forward(self, x, *state):
        output = self.module(x, tuple(state)) if state else self.module(x)
        return tuple(_flatten(output))


def _flatten(output):
    if isinstance(output, Tensor):
        yield output
    else:
        for item in output:
            yield from _flatten(item)


def _normal(*shapes):
    return lambda rng: tuple(rng.standard_normal(shape) for shape in shapes)


def _padded(*shapes, mask):
    """Normal inputs of `shapes`, then the bool mask (not differentiated)."""
    return lambda rng: (*(rng.standard_normal(shape) for shape in shapes), np.array(mask))


_PADDING = [[False, False, True], [False, False, False]]  # (N=2, S=3): one padded key

RNN_CASES = [
    ("RNNCell", lambda: nn.RNNCell(3, 2), _normal((2, 3), (2, 2)), True, False),
    ("RNNCell(relu)", lambda: nn.RNNCell(3, 2, nonlinearity="relu"), _normal((2, 3)), False, False),
    ("LSTMCell", lambda: nn.LSTMCell(3, 2), _normal((2, 3)), True, False),
    ("LSTMCell(hx)", lambda: Flat(nn.LSTMCell(2, 2)), _normal((2,), (2,), (2,)), True, False),
    ("GRUCell", lambda: nn.GRUCell(3, 2), _normal((3,), (2,)), True, False),
    (
        "RNN(2 layers, bidirectional)",
        lambda: nn.RNN(2, 2, num_layers=2, bidirectional=True),
        _normal((3, 2, 2), (4, 2, 2)),
        False,
        True,
    ),
    (
        "LSTM(batch_first, dropout)",
        lambda: nn.LSTM(2, 2, num_layers=2, batch_first=True, dropout=0.3),
        _normal((2, 3, 2)),
        False,
        True,
    ),
    ("LSTM(h0, c0)", lambda: Flat(nn.LSTM(2, 2)), _normal((3, 2), (1, 2), (1, 2)), False, False),
    ("GRU(unbatched)", lambda: nn.GRU(2, 2, bidirectional=True), _normal((3, 2)), False, True),
    (
        "MultiheadAttention",
        lambda: nn.MultiheadAttention(4, 2, dropout=0.2, kdim=3, vdim=2),
        _padded((2, 2, 4), (3, 2, 3), (3, 2, 2), mask=_PADDING),
        False,
        False,
    ),
    (
        "TransformerEncoderLayer(norm_first)",
        lambda: nn.TransformerEncoderLayer(4, 2, 6, dropout=0.2, norm_first=True),
        _padded((3, 2, 4), mask=np.triu(np.ones((3, 3), bool), 1)),
        False,
        True,
    ),
    (
        "TransformerDecoderLayer(gelu)",
        lambda: nn.TransformerDecoderLayer(4, 2, 6, dropout=0.2, activation="gelu"),
        _normal((2, 2, 4), (3, 2, 4)),
        False,
        True,
    ),
    (
        "TransformerEncoder",
        lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 4), 2, nn.LayerNorm(4)),
        _normal((3, 1, 4)),
        False,
        True,
    ),
    (
        "TransformerDecoder",
        lambda: nn.TransformerDecoder(nn.TransformerDecoderLayer(4, 1, 4, norm_first=True), 1),
        _normal((2, 1, 4), (3, 1, 4)),
        False,
        True,
    ),
    (
        "Transformer",
        lambda: nn.Transformer(4, 1, 1, 1, dim_feedforward=4),
        _normal((2, 1, 4), (2, 1, 4)),
        False,
        True,
    ),
]
