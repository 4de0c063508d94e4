"""Models built from tinygrad_norm's layers: `GPT` (GPT-2's layout) and GPT-2's tokenizer;
`ShapesCNN` and `ParityLSTM`, small models for `train --task shapes` and `--task parity`."""

from .gpt import GPT, Block, GPTConfig
from .small import ParityLSTM, ShapesCNN
from .tokenizer import BPETokenizer

__all__ = ["GPT", "Block", "GPTConfig", "BPETokenizer", "ShapesCNN", "ParityLSTM"]
