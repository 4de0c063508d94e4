"""Model files written the way PyTorch courses write them, for `bench --suite course`.

Each file imports `torch` and is loaded twice by `tinygrad_norm/bench/course_suite.py`: once
with real PyTorch, once with tinygrad_norm in its place (`tg.install_as_torch()`). Each defines
`make(cfg)` -> (model, optimizer), `make_batch(rng, cfg)` and `train_step(model, optimizer,
batch)` -> loss; a file may import another, as a course's files do (`gpt_sdpa.py` reuses the
blocks of `gpt_composed.py`). The table below gives each its name in the benchmark's table,
the benchmark's sizes (`config`) and tiny sizes for the tests (`tiny`).
"""

from typing import NamedTuple


class Course(NamedTuple):
    name: str
    config: dict
    tiny: dict


_GPT = {"vocab": 65, "block": 64, "embd": 128, "heads": 4, "layers": 4, "batch": 12}
_GPT_TINY = {"vocab": 11, "block": 8, "embd": 16, "heads": 2, "layers": 1, "batch": 2}

MODELS = {
    "gpt_composed": Course("GPT, composed attention, exact GELU", _GPT, _GPT_TINY),
    "gpt_sdpa": Course("GPT, F.scaled_dot_product_attention", _GPT, _GPT_TINY),
    "mingpt_style": Course(
        "minGPT style (NewGELU with torch.pow), gpt-micro T32 B16",
        {"vocab": 65, "block": 32, "embd": 128, "heads": 4, "layers": 4, "batch": 16, "pdrop": 0.0},
        {**_GPT_TINY, "pdrop": 0.0},
    ),
    "makemore_mlp": Course(
        "makemore MLP + BatchNorm, batch 32",
        {"vocab": 27, "block": 3, "embd": 10, "hidden": 100, "layers": 4, "batch": 32},
        {"vocab": 7, "block": 3, "embd": 4, "hidden": 8, "layers": 1, "batch": 4},
    ),
    "lenet": Course(
        "LeNet CNN, 28x28, batch 64",
        {"batch": 64, "channels": 6, "classes": 10},
        {"batch": 2, "channels": 2, "classes": 3},
    ),
    "lstm_lm": Course(
        "LSTM language model, 2 layers",
        {"vocab": 65, "embd": 64, "hidden": 128, "layers": 2, "block": 32, "batch": 16},
        {"vocab": 7, "embd": 4, "hidden": 6, "layers": 1, "block": 4, "batch": 2},
    ),
    "mlp_2d": Course(
        "MLP on 2-D points, 2 classes", {"hidden": 16, "points": 100}, {"hidden": 4, "points": 8}
    ),
}
