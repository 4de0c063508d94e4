"""Models built from tinygrad_norm's layers: `GPT` (GPT-2's layout) and GPT-2's tokenizer."""

from .gpt import GPT, Block, GPTConfig
from .tokenizer import BPETokenizer

__all__ = ["GPT", "Block", "GPTConfig", "BPETokenizer"]
