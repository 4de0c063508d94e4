"""`tg.install_as_torch()` and `python -m tinygrad_norm run SCRIPT`: PyTorch code, unchanged,
on tinygrad_norm. Each test runs in a fresh Python process (the alias changes `sys.modules`,
which must not leak into the other tests, some of which use real PyTorch as the oracle)."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tinygrad_norm

ROOT = Path(tinygrad_norm.__file__).resolve().parents[1]
PROGRAMS = Path(__file__).resolve().parents[1] / "programs"  # tests/programs/
PROGRAM = PROGRAMS / "makemore_mlp.py"


def python(*args, cwd=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120
    )


def run_code(code: str) -> subprocess.CompletedProcess:
    return python("-c", textwrap.dedent(code))


def test_install_as_torch_resolves_every_torch_path():
    result = run_code(
        """
        import tinygrad_norm as tg
        tg.install_as_torch()
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from torch.nn import functional
        from torch.nn import init
        from torch.nn.utils import clip_grad_norm_
        from torch.nn.utils.rnn import pad_sequence
        from torch.nn.parallel import DistributedDataParallel as DDP
        import torch.optim
        from torch.optim.lr_scheduler import StepLR
        from torch.utils.data import DataLoader, TensorDataset
        import torch.utils.data
        import torch.autograd
        import torch.backends.cudnn
        from torch.cuda.amp import GradScaler
        from torch.amp import autocast
        from torch.distributed import init_process_group, destroy_process_group
        import torch.distributed as dist
        assert torch is tg and nn is tg.nn and F is tg.nn.functional is functional
        assert torch.backends.cudnn is tg.backends.cudnn and dist is tg.distributed
        assert torch.utils.data.DataLoader is DataLoader is tg.utils.data.DataLoader
        loader = DataLoader(TensorDataset(torch.arange(6)), batch_size=4, shuffle=True,
                            generator=torch.Generator().manual_seed(0))
        assert [len(b[0]) for b in loader] == [4, 2]
        assert torch.cuda.is_available() is False
        torch.backends.cuda.matmul.allow_tf32 = True
        x = torch.ones(2, 3, device="cpu")
        print(x.shape, x.dtype, x.device, torch.Tensor is tg.Tensor)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "torch.Size([2, 3]) torch.float32 cpu True"


def test_a_missing_torch_attribute_or_module_names_itself():
    result = run_code(
        """
        import tinygrad_norm as tg
        tg.install_as_torch()
        import torch
        for get in (lambda: torch.fft, lambda: torch.nn.functional.bogus_op, lambda: torch.special):
            try:
                get()
            except AttributeError as error:
                print(error)
        try:
            import torch.sparse
        except ImportError as error:
            print(error)
        print(hasattr(torch, "__wrapped__"), hasattr(torch, "bogus"))
        """
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("tinygrad_norm does not implement torch.fft yet")
    assert lines[1].startswith("tinygrad_norm does not implement torch.nn.functional.bogus_op yet")
    assert lines[2].startswith("tinygrad_norm does not implement torch.special yet")
    assert lines[3].startswith("tinygrad_norm does not implement torch.sparse yet")
    assert lines[4] == "False False"


def test_install_after_real_torch_shadows_it_and_uninstall_restores_it():
    pytest.importorskip("torch")
    result = run_code(
        """
        import torch as real
        import torch.nn.functional
        import tinygrad_norm as tg
        tg.install_as_torch()
        import torch
        import torch.nn.functional as F
        assert torch is tg and F is tg.nn.functional
        tg.uninstall_as_torch()
        import torch
        import torch.nn.functional as F
        print(torch is real, F is real.nn.functional)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True True"


def test_uninstall_gives_real_torch_back():
    pytest.importorskip("torch")
    result = run_code(
        """
        import tinygrad_norm as tg
        tg.install_as_torch()
        import torch
        assert torch is tg
        tg.uninstall_as_torch()
        del torch
        import torch
        try:
            tg.bogus
        except AttributeError as error:
            assert "does not implement" not in str(error), error
        print(torch is tg, torch.__name__)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False torch"


def test_run_passes_the_arguments_and_runs_as_main(tmp_path):
    script = tmp_path / "show.py"
    script.write_text(
        "import sys, torch\n"
        "print(__name__, sys.argv, torch.__name__)\n"
        "print(torch.randint(10, (2, 3)).shape)\n"
    )
    result = python("-m", "tinygrad_norm", "run", str(script), "--lr", "3", "x")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"__main__ {[str(script), '--lr', '3', 'x']} tinygrad_norm",
        "torch.Size([2, 3])",
    ]


WHERE_A_31_MIB_ARRAY_COMES_FROM = """
import ctypes
import numpy as np

libc = ctypes.CDLL("libc.so.6")
libc.sbrk.restype = ctypes.c_void_p
array = np.empty(31 * 2**20 // 8)
print("heap" if array.ctypes.data < libc.sbrk(0) else "mmap")  # the heap ends at the break
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="tune_malloc needs glibc")
def test_run_tune_malloc_serves_large_arrays_from_the_heap(tmp_path):
    # glibc maps an allocation over 128 KiB fresh from the OS (mmap) and unmaps it when freed,
    # so a training loop faults its activations in again every step; tuned, allocations up to
    # 32 MiB come from the heap, where freed memory stays for the next step.
    script = tmp_path / "where.py"
    script.write_text(WHERE_A_31_MIB_ARRAY_COMES_FROM)
    tuned = python("-m", "tinygrad_norm", "run", "--tune-malloc", str(script))
    plain = python("-m", "tinygrad_norm", "run", str(script))
    assert tuned.returncode == 0 and plain.returncode == 0, tuned.stderr + plain.stderr
    assert (tuned.stdout, plain.stdout) == ("heap\n", "mmap\n")


def test_run_on_a_script_using_something_missing_says_which_torch_x(tmp_path):
    script = tmp_path / "uses_fft.py"
    script.write_text("import torch\nx = torch.ones(4)\nprint(torch.fft.rfft(x))\n")
    result = python("-m", "tinygrad_norm", "run", str(script))
    assert result.returncode != 0
    assert "AttributeError: tinygrad_norm does not implement torch.fft yet" in result.stderr
    missing = python("-m", "tinygrad_norm", "run", str(tmp_path / "nope.py"))
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_run_on_a_script_that_uses_the_gpu_explains_the_cpu(tmp_path):
    script = tmp_path / "gpu.py"
    script.write_text("import torch\nx = torch.ones(2).cuda()\n")
    result = python("-m", "tinygrad_norm", "run", str(script))
    assert result.returncode != 0 and "tinygrad_norm runs on the CPU" in result.stderr


def test_run_a_course_program():
    result = python("-m", "tinygrad_norm", "run", str(PROGRAM), "--steps", "3")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[1] == "data torch.Size([60, 3]) torch.int64 torch.Size([60]) torch.int64 cpu"
    losses = [float(line.split()[3]) for line in lines if line.startswith("step")]
    assert len(losses) == 3 and losses[0] > losses[1] > losses[2]
    assert sum(line.startswith("sample") for line in lines) == 3


def test_run_a_gpt_trainer_program():
    result = python("-m", "tinygrad_norm", "run", str(PROGRAMS / "gpt_trainer.py"), "--steps", "4")
    assert result.returncode == 0, result.stderr
    losses = [
        float(line.split()[3]) for line in result.stdout.splitlines() if line.startswith("step")
    ]
    assert len(losses) == 4 and losses[-1] < losses[0]
    assert "x torch.Size([4, 6])" in result.stdout  # f"{x.shape}" in the script, as PyTorch


@pytest.mark.oracle
@pytest.mark.parametrize("program", ["makemore_mlp.py", "gpt_trainer.py"])
def test_a_course_program_prints_the_same_under_pytorch_and_tinygrad_norm(program):
    """The same file, unchanged: every line is equal, losses and gradient norms to the 4
    printed decimals, and the tokens sampled with a seeded torch.Generator (PyTorch's stream)."""
    pytest.importorskip("torch")
    ours = python("-m", "tinygrad_norm", "run", str(PROGRAMS / program), "--steps", "6")
    theirs = python(str(PROGRAMS / program), "--steps", "6")
    assert ours.returncode == 0, ours.stderr
    assert theirs.returncode == 0, theirs.stderr
    assert any(line.startswith("sample") for line in theirs.stdout.splitlines())
    assert ours.stdout.splitlines() == theirs.stdout.splitlines()
