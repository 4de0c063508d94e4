"""The same GPT with its attention through F.scaled_dot_product_attention(is_causal=True), as
nanoGPT's flash path: the blocks of gpt_composed.py, only the attention's core replaced."""

from gpt_composed import CausalSelfAttention, make_batch, train_step  # noqa: F401
from gpt_composed import make as make_gpt


class FlashAttention(CausalSelfAttention):
    flash = True


def make(cfg):
    return make_gpt(cfg, attention=FlashAttention)
