"""nn.utils.rnn: `pad_sequence`, which stacks sequences of different lengths into one
padded tensor (the shape an RNN or a masked attention takes)."""

from __future__ import annotations

from ...functions.creation import as_tensor, full
from ...ops.shape import cat, stack


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences of shapes (L_i, *) into (L_max, B, *), or (B, L_max, *) when
    `batch_first`, filling the missing steps with `padding_value` (after each sequence, or
    before it with `padding_side="left"`). Differentiable in the sequences.

    >>> import tinygrad_norm as tg
    >>> pad_sequence([tg.tensor([1, 2, 3]), tg.tensor([4])], batch_first=True)
    tensor([[1, 2, 3],
            [4, 0, 0]])
    """
    sequences = [as_tensor(s) for s in sequences]
    if not sequences:
        raise RuntimeError("pad_sequence: received an empty list of sequences")
    if padding_side not in ("right", "left"):
        raise ValueError(
            f"pad_sequence: padding_side must be 'right' or 'left', got {padding_side!r}"
        )
    trailing = sequences[0].array.shape[1:]
    if any(s.array.shape[1:] != trailing for s in sequences):
        raise RuntimeError(
            "pad_sequence: every sequence must have the same shape after its first (time) axis, "
            f"got {[tuple(s.array.shape) for s in sequences]}"
        )
    longest = max(len(s) for s in sequences)
    padded = []
    for s in sequences:
        missing = longest - len(s)
        if missing:
            pad = full((missing, *trailing), padding_value, dtype=s.array.dtype)
            s = cat([s, pad] if padding_side == "right" else [pad, s], 0)
        padded.append(s)
    return stack(padded, 0 if batch_first else 1)
