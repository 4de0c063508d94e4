"""The command line that tests/compat/test_course_programs.py gives each program in this folder.

The test runs a program twice, under PyTorch (`python prog.py`) and under tinygrad_norm
(`python -m tinygrad_norm run prog.py`), and compares the two runs:

    --init PATH   the initial weights: the PyTorch run saves them there (`torch.save`); the
                  tinygrad_norm run finds the file and loads them (`torch.load`), so both
                  runs start from the same numbers.
    --out PATH    where the program saves what the test compares (`np.savez`).

A program imports this file from its own folder, which both `python prog.py` and `run` put
first on sys.path. It uses no torch, so it is the same module under either framework.
"""

import argparse


def parse_args(**options) -> argparse.Namespace:
    """--init, --out, and one `--name` option per keyword, of its default's type:
    `parse_args(steps=5, dtype="float64")` also reads `--steps 3 --dtype float32`."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--init", help="initial weights: loaded if the file exists, else saved")
    parser.add_argument("--out", required=True, help="where to write the results (.npz)")
    for name, default in options.items():
        parser.add_argument("--" + name.replace("_", "-"), type=type(default), default=default)
    return parser.parse_args()
