"""The GPT training-step benchmark, shipped with the package: `python -m tinygrad_norm bench`.

- `gpt_step`: the benchmark itself (what is measured and how, the tables, `--alone`)
- `numpy_gpt`: the same GPT in plain NumPy with its backward written by hand (the reference)
- `course_suite`, `course/`: `--suite course`, PyTorch course code run on both libraries
- `gpt2_suite`: `--suite gpt2`, GPT-2 small training step and generation
- `torch_gpt`: the same GPT in PyTorch eager (imported only when PyTorch is installed)
"""
