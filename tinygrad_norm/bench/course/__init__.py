"""Model files written the way PyTorch courses write them, for `bench --suite course`.

Each file imports `torch` and is loaded twice by `tinygrad_norm/bench/course_suite.py`: once
with real PyTorch, once with tinygrad_norm in its place (`tg.install_as_torch()`). Each defines
NAME, CONFIG (the benchmark's size), TINY (a size for tests), `make(cfg)` -> (model,
optimizer), `make_batch(rng, cfg)` and `train_step(model, optimizer, batch)` -> loss.
"""

MODELS = ("gpt_composed", "gpt_sdpa", "makemore_mlp", "lenet", "lstm_lm", "mlp_2d")
