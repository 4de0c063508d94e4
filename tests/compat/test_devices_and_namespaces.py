"""tinygrad_norm runs on the CPU, and PyTorch code written for GPUs and clusters still runs: every
creation function takes device="cpu" and refuses "cuda" with one clear message, device objects
and `.to()` behave as PyTorch's, and the namespaces such code imports (cuda, amp, backends,
distributed, nn.parallel, compile, the thread count) are accepted, do nothing on the CPU, or
explain why not."""

import importlib
import pickle

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm import nn
from tinygrad_norm.compat.torch_import import MODULES

# --- devices --------------------------------------------------------------------------------------
CREATORS = {
    "tensor": lambda d: tg.tensor([1.0, 2.0], device=d),
    "zeros": lambda d: tg.zeros(2, device=d),
    "ones": lambda d: tg.ones(2, device=d),
    "empty": lambda d: tg.empty(2, device=d),
    "full": lambda d: tg.full((2,), 3.0, device=d),
    "zeros_like": lambda d: tg.zeros_like(tg.ones(2), device=d),
    "ones_like": lambda d: tg.ones_like(tg.ones(2), device=d),
    "full_like": lambda d: tg.full_like(tg.ones(2), 2.0, device=d),
    "empty_like": lambda d: tg.empty_like(tg.ones(2), device=d),
    "randn": lambda d: tg.randn(2, device=d),
    "rand": lambda d: tg.rand(2, device=d),
    "randint": lambda d: tg.randint(0, 5, (2,), device=d),
    "randperm": lambda d: tg.randperm(2, device=d),
    "arange": lambda d: tg.arange(2, device=d),
    "linspace": lambda d: tg.linspace(0, 1, 2, device=d),
    "eye": lambda d: tg.eye(2, device=d),
    "normal": lambda d: tg.normal(0.0, 1.0, (2,), device=d),
    "rand_like": lambda d: tg.rand_like(tg.ones(2), device=d),
    "randn_like": lambda d: tg.randn_like(tg.ones(2), device=d),
    "randint_like": lambda d: tg.randint_like(tg.ones(2), 3, device=d),
    "as_tensor": lambda d: tg.as_tensor([1.0], device=d),
    "new_zeros": lambda d: tg.ones(2).new_zeros(2, device=d),
}


@pytest.mark.parametrize("name", CREATORS)
def test_every_creation_function_takes_device_cpu_and_refuses_cuda(name):
    make = CREATORS[name]
    for device in ("cpu", "cpu:0", tg.device("cpu"), None):
        assert make(device).device == tg.device("cpu")
    with pytest.raises(RuntimeError, match="tinygrad_norm runs on the CPU"):
        make("cuda")
    with pytest.raises(RuntimeError, match="runs on the CPU"):
        make(tg.device("cuda", 0))


def test_device_objects_print_and_compare_as_pytorch():
    assert repr(tg.device("cpu")) == "device(type='cpu')"
    assert str(tg.device("cpu")) == "cpu"
    assert repr(tg.device("cuda:1")) == "device(type='cuda', index=1)"
    assert tg.device("cuda", 1) == tg.device("cuda:1") and tg.device("cpu") != tg.device("cuda")
    assert tg.ones(1).device.type == "cpu"
    assert pickle.loads(pickle.dumps(tg.device("cpu"))) == tg.device("cpu")
    with pytest.raises(RuntimeError, match="device type"):
        tg.device("gpu")


def test_to_cpu_cuda_and_the_forms_of_to():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    assert x.to("cpu") is x and x.cpu() is x and x.to(tg.device("cpu")) is x
    assert x.to("cpu", tg.float64).dtype == tg.float64
    assert x.to(device="cpu", dtype=tg.float64).dtype == tg.float64
    assert x.to(tg.zeros(1, dtype=tg.float64)).dtype == tg.float64
    assert x.to(tg.float32, copy=True) is not x
    assert x.to("cpu", non_blocking=True) is x
    y = x.to(tg.float64)
    y.sum().backward()  # to(dtype) stays differentiable
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])
    for bad in (lambda: x.cuda(), lambda: x.to("cuda"), lambda: x.to("cuda:0", tg.float64)):
        with pytest.raises(RuntimeError, match="runs on the CPU") as info:
            bad()
        assert isinstance(info.value, AssertionError)  # PyTorch without CUDA: AssertionError
    with pytest.raises(TypeError, match="unexpected keyword"):
        x.to(tg.float64, colour="red")
    assert x.is_cuda is False and x.get_device() == -1


def test_a_module_moves_to_cpu_and_refuses_cuda():
    model = nn.Linear(2, 2)
    assert model.to("cpu") is model
    with pytest.raises(RuntimeError, match="runs on the CPU"):
        model.to("cuda")


def test_module_cpu_and_cuda():
    model = nn.Linear(2, 2)
    assert model.cpu() is model and model.to(tg.device("cpu"), tg.float64) is model
    assert model.weight.dtype == tg.float64
    with pytest.raises(RuntimeError, match="runs on the CPU"):
        model.cuda()


def test_default_device():
    tg.set_default_device("cpu")
    assert tg.get_default_device() == tg.device("cpu")
    with pytest.raises(RuntimeError, match="runs on the CPU"):
        tg.set_default_device("cuda")


# --- the module paths PyTorch code imports --------------------------------------------------------
@pytest.mark.parametrize(
    "path",
    [
        "nn",
        "nn.functional",
        "nn.init",
        "nn.utils",
        "nn.utils.rnn",
        "nn.parallel",
        "optim",
        "autograd",
        "cuda",
        "cuda.amp",
        "amp",
        "backends",
        "backends.cudnn",
        "backends.cuda",
        "backends.mps",
        "distributed",
        "random",
    ],
)
def test_module_paths_exist(path):
    """Each is in the import hook's table, and the module it names imports."""
    assert importlib.import_module(MODULES[f"torch.{path}"]) is not None


def test_cuda_reports_no_gpu_and_its_seeding_does_nothing():
    assert tg.cuda.is_available() is False and tg.cuda.device_count() == 0
    assert tg.cuda.is_bf16_supported() is False
    tg.manual_seed(1)
    state = tg.get_rng_state()
    tg.cuda.manual_seed(3)
    tg.cuda.manual_seed_all(3)
    tg.cuda.synchronize()
    tg.cuda.empty_cache()
    assert np.array_equal(tg.get_rng_state(), state)
    with pytest.raises(RuntimeError, match="runs on the CPU"):
        tg.cuda.get_device_name(0)


def test_grad_scaler_and_autocast_leave_a_cpu_step_unchanged():
    for scaler_class, autocast in (
        (tg.amp.GradScaler, tg.amp.autocast),
        (tg.cuda.amp.GradScaler, tg.cuda.amp.autocast),
    ):
        tg.manual_seed(0)
        model = nn.Linear(3, 1)
        plain = nn.Linear(3, 1)
        plain.load_state_dict(model.state_dict())
        x = tg.randn(4, 3)
        for m, scaled in ((model, True), (plain, False)):
            optimizer = tg.optim.SGD(m.parameters(), lr=0.1)
            scaler = scaler_class(enabled=True)
            with autocast(device_type="cpu", dtype=tg.bfloat16):
                loss = (m(x) ** 2).mean()
            assert loss.dtype == tg.float32  # no cast on the CPU here
            if scaled:
                assert scaler.scale(loss) is loss
                scaler.scale(loss).backward()
                scaler.unscale_(optimizer)
                scaler.step(optimizer)
                scaler.update()
            else:
                loss.backward()
                optimizer.step()
        np.testing.assert_array_equal(model.weight.numpy(), plain.weight.numpy())
        assert scaler.get_scale() == 1.0 and not scaler.is_enabled()
    assert tg.autocast is tg.amp.autocast

    @tg.autocast("cpu")
    def f(t):
        return t + 1

    assert f(tg.ones(1)).item() == 2.0


def test_backends_flags_are_accepted_and_ignored():
    tg.backends.cudnn.benchmark = True
    tg.backends.cudnn.deterministic = True
    tg.backends.cuda.matmul.allow_tf32 = True
    tg.backends.cudnn.allow_tf32 = True
    assert tg.backends.mps.is_available() is False and tg.backends.cudnn.is_available() is False
    with tg.backends.cuda.sdp_kernel(enable_flash=False):
        pass


def test_distributed_explains_that_it_is_pytorchs_job():
    assert tg.distributed.is_available() is False and tg.distributed.is_initialized() is False
    with pytest.raises(RuntimeError, match="distributed training .* is PyTorch's job"):
        tg.distributed.init_process_group(backend="nccl")
    with pytest.raises(RuntimeError, match="PyTorch's job"):
        nn.parallel.DistributedDataParallel(nn.Linear(2, 2), device_ids=[0])
    model = nn.Linear(2, 2)
    wrapped = nn.parallel.DataParallel(model)
    x = tg.ones(1, 2)
    np.testing.assert_array_equal(wrapped(x).detach().numpy(), model(x).detach().numpy())


def test_num_threads_are_the_blas_threads():
    before = tg.get_num_threads()
    assert before >= 1
    tg.set_num_threads(1)
    assert tg.get_num_threads() in (1, before)  # 1 where NumPy's BLAS is OpenBLAS
    tg.set_num_threads(before)
    with pytest.raises(RuntimeError, match="positive"):
        tg.set_num_threads(0)


def test_compile_returns_the_model_with_a_note_once(capsys):
    model = nn.Linear(2, 2)
    assert tg.compile(model) is model
    assert tg.compile(model, mode="max-autotune") is model
    assert tg.compile()(len) is len
    err = capsys.readouterr().err
    assert err.count("torch.compile does nothing here") <= 1
    tg.set_float32_matmul_precision("high")
    tg.use_deterministic_algorithms(True)
