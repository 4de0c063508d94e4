"""Models built from tinygrad_norm's layers: `GPT` (GPT-2's layout)."""

from .gpt import GPT, Block, GPTConfig

__all__ = ["GPT", "Block", "GPTConfig"]
