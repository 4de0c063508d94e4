"""The GPT training-step benchmark, shipped with the package: `python -m tinygrad_norm bench`.

- `gpt_step`: the benchmark itself (what is measured and how, the tables, `--alone`)
- `numpy_gpt`: the same GPT in plain NumPy with its backward written by hand (the reference)
- `course_suite`, `course/`: `--suite course`, PyTorch course code run on both libraries
- `gpt2_suite`: `--suite gpt2`, GPT-2 small training step and generation
- `ops_suite`, `ops_cases`, `ops_limits`: `--suite ops`, every op of the op table against its
  hand-written NumPy limit and PyTorch eager
- `torch_gpt`: the same GPT in PyTorch eager (imported only when PyTorch is installed)
"""

# The PyTorch the tests and benchmarks compare with: keep in sync with TORCH_PIN in the Makefile
# and the `oracle` extra in pyproject.toml. Named by every "PyTorch is not installed" hint.
TORCH_PIN = "torch==2.13.0"
TRANSFORMERS_PIN = "transformers==5.24.0"  # as TRANSFORMERS_PIN in the Makefile
NO_TORCH_HINT = (
    f"PyTorch is not installed: pip install {TORCH_PIN} (the version the tests compare with; "
    "`make bench` installs it into .venv)"
)
