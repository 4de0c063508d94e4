"""PyTorch-only module paths against PyTorch on a CPU: what they return, the exceptions they
raise, and SummaryWriter's event files read back with TensorBoard's own reader."""

import importlib
import subprocess
import sys

import numpy as np
import pytest

import tinygrad_norm as tg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


@pytest.fixture
def as_torch():
    tg.install_as_torch()
    yield importlib.import_module("torch")
    tg.uninstall_as_torch()


def test_version_accelerator_and_cuda_answer_as_pytorch_on_a_cpu():
    fake = tg
    assert fake.version.cuda is None and torch.version.cuda is None
    assert fake.version.hip is None and torch.version.hip is None
    for name in ("is_available", "device_count", "current_accelerator"):
        assert getattr(fake.accelerator, name)() == getattr(torch.accelerator, name)()
    for name in ("current_device_index", "synchronize"):
        with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
            getattr(fake.accelerator, name)()
        with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
            getattr(torch.accelerator, name)()
    for call in ("get_device_capability()", "mem_get_info()"):
        with pytest.raises(AssertionError):
            eval(f"torch.cuda.{call}")
        with pytest.raises(AssertionError, match="CPU"):
            eval(f"fake.cuda.{call}")
    for call in ("Event(enable_timing=True)", "Stream()"):
        with pytest.raises(RuntimeError):
            eval(f"torch.cuda.{call}")
        with pytest.raises(RuntimeError, match="CPU"):
            eval(f"fake.cuda.{call}")
    with fake.cuda.stream(None), torch.cuda.stream(None):
        pass
    tg.install_as_torch()
    try:
        from torch.cuda.amp.grad_scaler import GradScaler
    finally:
        tg.uninstall_as_torch()
    assert GradScaler is fake.amp.GradScaler


def test_jit_gives_back_the_module_and_computes_what_pytorch_computes():
    model = tg.nn.Linear(3, 2)
    assert tg.jit.script(model) is model
    assert tg.jit.trace(model, tg.ones(1, 3)) is model
    assert tg.jit.ignore(len) is len and tg.jit.unused()(len) is len
    assert tg.jit.is_scripting() is torch.jit.is_scripting() is False
    real = torch.nn.Linear(3, 2)
    with torch.no_grad():
        real.weight.copy_(torch.tensor(model.weight.numpy()))
        real.bias.copy_(torch.tensor(model.bias.numpy()))
    x = np.ones((1, 3), np.float32)
    np.testing.assert_allclose(
        tg.jit.script(model)(tg.tensor(x)).detach().numpy(),
        torch.jit.script(real)(torch.tensor(x)).detach().numpy(),
        rtol=1e-6,
    )


def test_onnx_and_dynamo_import(as_torch):
    import torch._dynamo  # noqa: F401 - under install_as_torch: tinygrad_norm's
    import torch._dynamo.config  # noqa: F401
    import torch.onnx

    torch._dynamo.config.suppress_errors = True
    torch._dynamo.reset()
    assert torch.onnx.is_in_onnx_export() is False
    with pytest.raises(NotImplementedError, match="torch.onnx.export: exporting to ONNX"):
        torch.onnx.export(torch.nn.Linear(2, 2), (torch.ones(1, 2),), "model.onnx")


def test_variable_is_a_tensor_as_in_pytorch():
    results = []
    for lib in (torch, tg):
        if lib is tg:
            tg.install_as_torch()
        try:
            from torch.autograd import Variable

            v = Variable(lib.ones(2) * 3, requires_grad=True)
            (v * v).sum().backward()
            results.append((v.is_leaf, v.grad.tolist(), isinstance(lib.ones(1), Variable)))
        finally:
            tg.uninstall_as_torch()
    assert results[0] == results[1] == (True, [6.0, 6.0], True)


def test_data_parallel_and_distributed_sampler_on_one_process():
    from tinygrad_norm.utils.data.distributed import DistributedSampler

    fake = tg
    model = fake.nn.Linear(2, 2)
    wrapped = fake.nn.DataParallel(model)
    x = fake.ones(3, 2)
    assert wrapped.module is model and wrapped(x).tolist() == model(x).tolist()
    real = torch.utils.data.distributed.DistributedSampler
    data = list(range(10))
    for options in (dict(num_replicas=1, rank=0, shuffle=False),
                    dict(num_replicas=3, rank=1, shuffle=False),
                    dict(num_replicas=3, rank=2, shuffle=False, drop_last=True)):  # fmt: skip
        ours, theirs = DistributedSampler(data, **options), real(data, **options)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)
    ours = DistributedSampler(data)  # defaults: one process, shuffled
    assert sorted(ours) == data
    first = list(ours)
    ours.set_epoch(1)
    assert list(ours) != first and sorted(ours) == data


def test_nn_modules_paths_hold_pytorchs_classes(as_torch):
    import torch.nn.modules.conv
    import torch.nn.modules.linear

    fake = as_torch
    assert torch.nn.modules.linear.Linear is fake.nn.Linear
    assert torch.nn.modules.rnn.LSTM is fake.nn.LSTM
    assert torch.nn.modules.module.Module is fake.nn.Module
    assert torch.nn.modules.conv.Conv2d is fake.nn.Conv2d
    assert torch.nn.modules.Linear is fake.nn.Linear
    attention = fake.nn.MultiheadAttention(4, 2)  # outside linear.__all__, named by courses
    assert type(attention.out_proj) is torch.nn.modules.linear.NonDynamicallyQuantizableLinear


def test_multiprocessing_spawns_processes_that_import_tinygrad_norm(tmp_path):
    script = tmp_path / "spawn.py"
    script.write_text(
        "import torch\nimport torch.multiprocessing as mp\n\n"
        "def work(rank, queue):\n"
        "    queue.put((rank, float(torch.ones(3).sum() * rank), torch.__name__))\n\n"
        "if __name__ == '__main__':\n"
        "    queue = mp.get_context('spawn').Queue()\n"
        "    mp.spawn(work, args=(queue,), nprocs=2)\n"
        "    print(sorted(queue.get() for _ in range(2)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "tinygrad_norm", "run", str(script)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.stdout.strip() == "[(0, 0.0, 'tinygrad_norm'), (1, 3.0, 'tinygrad_norm')]", (
        result.stderr
    )


def _events(folder):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    accumulator = EventAccumulator(str(folder), size_guidance={"tensors": 0, "histograms": 0})
    accumulator.Reload()
    return accumulator


def _write(lib, folder):
    from_module = importlib.import_module(
        "tinygrad_norm.utils.tensorboard" if lib is tg else "torch.utils.tensorboard"
    )
    writer = from_module.SummaryWriter(str(folder))
    values = np.random.default_rng(0).normal(size=200)
    for step in range(3):
        writer.add_scalar("loss/train", 1.0 / (step + 1), step)
        writer.add_scalars("loss", {"train": step * 0.5, "val": step * 0.25}, step)
    writer.add_histogram("weights", lib.tensor(values), 0)
    writer.add_histogram("small", lib.tensor(values), 1, bins=10)
    writer.add_text("notes", "lr **0.1**", 0)
    writer.flush()
    writer.close()


def test_summary_writer_writes_what_pytorchs_writes(tmp_path):
    pytest.importorskip("tensorboard")
    _write(tg, tmp_path / "ours")
    _write(torch, tmp_path / "theirs")
    ours, theirs = _events(tmp_path / "ours"), _events(tmp_path / "theirs")
    assert ours.Tags()["scalars"] == theirs.Tags()["scalars"] == ["loss/train"]
    assert [(e.step, e.value) for e in ours.Scalars("loss/train")] == [
        (e.step, e.value) for e in theirs.Scalars("loss/train")
    ]
    for curve in ("loss_train", "loss_val"):
        a, b = _events(tmp_path / "ours" / curve), _events(tmp_path / "theirs" / curve)
        assert [(e.step, e.value) for e in a.Scalars("loss")] == [
            (e.step, e.value) for e in b.Scalars("loss")
        ]
    for tag in ("weights", "small"):
        a, b = ours.Histograms(tag)[0].histogram_value, theirs.Histograms(tag)[0].histogram_value
        assert a == b, tag
    assert ours.Tags()["tensors"] == theirs.Tags()["tensors"] == ["notes/text_summary"]
    a, b = ours.Tensors("notes/text_summary")[0], theirs.Tensors("notes/text_summary")[0]
    assert a.tensor_proto == b.tensor_proto
    with pytest.raises(NotImplementedError, match="add_graph is not here"):
        importlib.import_module("tinygrad_norm.utils.tensorboard").SummaryWriter(
            str(tmp_path / "g")
        ).add_graph(None)


def test_without_tensorboard_the_import_error_is_pytorchs():
    code = (
        "import sys; sys.modules['tensorboard'] = None\n"
        "import tinygrad_norm as tg; tg.install_as_torch()\n"
        "try:\n    from torch.utils.tensorboard import SummaryWriter\n"
        "except ImportError as error:\n    print(type(error).__name__, error)\n"
    )
    ours = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    theirs = subprocess.run(
        [sys.executable, "-c", code.replace("import tinygrad_norm as tg; tg.install_as_torch()",
                                            "import torch")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert ours.stdout == theirs.stdout and "tensorboard" in ours.stdout, ours.stderr
