"""PyTorch habits: devices, Size, dtype names, formatting, small functions, the module paths
PyTorch code imports (cuda, amp, backends, distributed, nn.parallel, nn.utils) and grad modes.
Printing is compared with PyTorch's own output where PyTorch is installed (oracle tests)."""

import importlib
import pickle

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm import nn
from tinygrad_norm.nn import functional as F

# --- devices ------------------------------------------------------------------------------------
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


# --- Size and dtypes ----------------------------------------------------------------------------
def test_size_is_a_tuple_printed_as_pytorch():
    s = tg.zeros(2, 3).shape
    assert isinstance(s, tuple) and isinstance(s, tg.Size)
    assert s == (2, 3) and hash(s) == hash((2, 3)) and tg.zeros(2, 3).size() == (2, 3)
    assert repr(s) == str(s) == "torch.Size([2, 3])"
    assert repr(s[1:]) == "torch.Size([3])" and s[0] == 2 and type(s[0]) is int
    assert repr(s + (4,)) == "torch.Size([2, 3, 4])" and repr((1,) + s) == "torch.Size([1, 2, 3])"
    assert (
        s.numel() == 6 and tg.Size([]).numel() == 1 and repr(tg.zeros(()).shape) == "torch.Size([])"
    )
    a, b = s
    assert (a, b) == (2, 3)
    assert f"{s}" == "torch.Size([2, 3])" and f"{s!s:>20}" == "  torch.Size([2, 3])"
    with pytest.raises(ValueError, match=r"shape \(2, 3\)"):  # the library's messages: tuples
        tg.zeros(2, 3).item()


def test_dtypes_print_by_pytorch_names_and_work_as_numpy_dtypes():
    assert repr(tg.float32) == str(tg.float32) == "torch.float32"
    assert str(tg.ones(2, dtype=tg.int64).dtype) == "torch.int64"
    assert (
        tg.float32 == np.float32 and tg.float32 == np.dtype("float32") and tg.float64 != tg.float32
    )
    assert np.dtype("float32") == tg.float32 and tg.ones(1).dtype in (np.float32, np.float64)
    assert np.zeros(2, tg.float64).dtype == np.float64
    assert np.ones(2).astype(tg.float16).dtype == np.float16
    assert {np.dtype("int64"): "yes"}[tg.int64] == "yes"
    assert (
        tg.float32.is_floating_point and not tg.int64.is_floating_point and tg.float64.itemsize == 8
    )
    assert pickle.loads(pickle.dumps(tg.float64)) == tg.float64
    assert tg.half == tg.float16 and tg.long == tg.int64 and tg.int == tg.int32
    assert isinstance(tg.float32, tg.dtype)
    assert f"{tg.float32}" == "torch.float32" and f"{tg.int64:>14}" == "   torch.int64"


def test_bfloat16_has_a_name_and_a_clear_error_on_use():
    assert repr(tg.bfloat16) == "torch.bfloat16"
    assert {"bfloat16": tg.bfloat16, "float16": tg.float16}["bfloat16"] is tg.bfloat16
    for use in (lambda: tg.zeros(2, dtype=tg.bfloat16), lambda: tg.ones(2).to(tg.bfloat16)):
        with pytest.raises(TypeError, match="bfloat16 is not supported"):
            use()


@pytest.mark.oracle
def test_printing_matches_pytorch():
    torch = pytest.importorskip("torch")
    for name in (
        "float16",
        "float32",
        "float64",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "bool",
    ):
        assert str(getattr(tg, name)) == str(getattr(torch, name))
        assert repr(tg.zeros(2, dtype=getattr(tg, name))) == repr(
            torch.zeros(2, dtype=getattr(torch, name))
        )
    assert str(tg.bfloat16) == str(torch.bfloat16)
    for shape in ((2, 3), (), (0,), (1, 2, 1)):
        assert repr(tg.zeros(shape).shape) == repr(torch.zeros(shape).shape)
        assert repr(tg.zeros(shape).size()) == repr(torch.zeros(shape).size())
    assert repr(tg.zeros(1).device) == repr(torch.zeros(1).device)
    assert str(tg.zeros(1).device) == str(torch.zeros(1).device)
    assert repr(tg.device("cuda:1")) == repr(torch.device("cuda:1"))


@pytest.mark.oracle
def test_f_strings_of_shapes_and_dtypes_match_pytorch():
    torch = pytest.importorskip("torch")
    ours, theirs = tg.zeros(2, 3, dtype=tg.float64), torch.zeros(2, 3, dtype=torch.float64)
    assert f"{ours.shape} {ours.dtype} {ours.size()} {ours.device}" == (
        f"{theirs.shape} {theirs.dtype} {theirs.size()} {theirs.device}"
    )
    assert "{}|{}".format(ours.shape, ours.dtype) == "{}|{}".format(theirs.shape, theirs.dtype)  # noqa: UP032


@pytest.mark.oracle
def test_format_type_and_sizes_match_pytorch():
    torch = pytest.importorskip("torch")
    for value in (3.14159, -2.5, 1e-8):
        for spec in (".4f", ".2e", "", ">12.3f", "g"):
            assert format(tg.tensor(value), spec) == format(torch.tensor(value), spec)
    assert (
        f"{tg.tensor(7)}" == f"{torch.tensor(7)}"
        and f"{tg.tensor(7):>4}" == f"{torch.tensor(7):>4}"
    )
    assert f"{tg.ones(2)}" == f"{torch.ones(2)}"
    with pytest.raises(TypeError):
        f"{torch.ones(2):.2f}"
    with pytest.raises(TypeError, match="only a 0-d tensor"):
        f"{tg.ones(2):.2f}"
    for name in (
        "float32",
        "float64",
        "float16",
        "int64",
        "int32",
        "int16",
        "int8",
        "uint8",
        "bool",
    ):
        ours, theirs = (
            tg.zeros(3, dtype=getattr(tg, name)),
            torch.zeros(3, dtype=getattr(torch, name)),
        )
        assert ours.type() == theirs.type()
        assert ours.element_size() == theirs.element_size()
        assert ours.is_floating_point() == theirs.is_floating_point()
        assert ours.nelement() == theirs.nelement() == tg.numel(ours)
    assert tg.ones(2).type(tg.float64).dtype == tg.float64
    assert tg.ones(2).type("torch.DoubleTensor").dtype == tg.float64
    with pytest.raises(ValueError, match="invalid type"):
        tg.ones(2).type("torch.Bogus")


# --- small functions ----------------------------------------------------------------------------
def test_is_tensor_numel_all_any_as_tensor():
    assert tg.is_tensor(tg.ones(1)) and not tg.is_tensor(np.ones(1))
    assert tg.numel(tg.ones(2, 3)) == 6 and tg.is_floating_point(tg.ones(1))
    assert tg.all(tg.tensor([1, 1])).item() is True and tg.all(tg.tensor([1, 0])).item() is False
    np.testing.assert_array_equal(tg.all(tg.tensor([[1, 1], [0, 1]]), dim=1).numpy(), [True, False])
    np.testing.assert_array_equal(
        tg.any(tg.tensor([[0, 0], [0, 1]]), 1, keepdim=True).numpy(), [[False], [True]]
    )
    a = np.ones(3, dtype=np.float32)
    shared = tg.as_tensor(a)
    a[0] = 5
    assert shared[0].item() == 5  # shares memory, as torch.as_tensor
    t = tg.ones(2)
    assert tg.as_tensor(t) is t and tg.as_tensor([1, 2]).dtype == tg.int64


@pytest.mark.oracle
def test_histogram_histc_bincount_match_pytorch():
    torch = pytest.importorskip("torch")
    x = np.array([1.0, 2.0, 1.0, 4.0, 2.5, -1.0], dtype=np.float32)
    for kwargs in ({"bins": 4}, {"bins": 3, "range": (0.0, 3.0)}, {"bins": 4, "density": True}):
        ours, theirs = (
            tg.histogram(tg.tensor(x), **kwargs),
            torch.histogram(torch.tensor(x), **kwargs),
        )
        np.testing.assert_allclose(ours.hist.numpy(), theirs.hist.numpy(), rtol=1e-6)
        np.testing.assert_allclose(ours.bin_edges.numpy(), theirs.bin_edges.numpy(), rtol=1e-6)
    edges = np.array([0.0, 2.0, 5.0], dtype=np.float32)
    ours = tg.histogram(tg.tensor(x), tg.tensor(edges), weight=tg.tensor(x * 0 + 2))
    theirs = torch.histogram(torch.tensor(x), torch.tensor(edges), weight=torch.tensor(x * 0 + 2))
    np.testing.assert_allclose(ours.hist.numpy(), theirs.hist.numpy())
    for kwargs in ({"bins": 4}, {"bins": 4, "min": 0, "max": 3}, {"bins": 5, "min": -2, "max": 2}):
        np.testing.assert_allclose(
            tg.histc(tg.tensor(x), **kwargs).numpy(), torch.histc(torch.tensor(x), **kwargs).numpy()
        )
    np.testing.assert_array_equal(
        tg.histc(tg.full((3,), 2.0), 4).numpy(), torch.histc(torch.full((3,), 2.0), 4).numpy()
    )
    i = np.array([0, 1, 1, 3])
    assert tg.bincount(tg.tensor(i)).tolist() == torch.bincount(torch.tensor(i)).tolist()
    assert (
        tg.bincount(tg.tensor(i), minlength=6).tolist()
        == torch.bincount(torch.tensor(i), minlength=6).tolist()
    )
    w = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
    ours, theirs = (
        tg.bincount(tg.tensor(i), tg.tensor(w)),
        torch.bincount(torch.tensor(i), torch.tensor(w)),
    )
    assert ours.tolist() == theirs.tolist() and str(ours.dtype) == str(theirs.dtype)
    for bad in (np.array([-1]), np.array([[1]]), np.array([1.0])):
        with pytest.raises(RuntimeError):
            torch.bincount(torch.tensor(bad))
        with pytest.raises(RuntimeError, match="bincount"):
            tg.bincount(tg.tensor(bad))


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


def test_set_printoptions_exists():
    tg.set_printoptions(precision=2)
    try:
        assert repr(tg.tensor([1.23456])) == "tensor([1.23])"
    finally:
        tg.set_printoptions(precision=4)


# --- grad modes ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "mode", [tg.no_grad, tg.inference_mode, lambda: tg.set_grad_enabled(False)]
)
def test_grad_off_as_context_manager_and_decorator(mode):
    x = tg.ones(2, requires_grad=True)
    with mode():
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad

    @mode()
    def double(t):
        return t * 2

    assert not double(x).requires_grad and tg.is_grad_enabled()


def test_inference_mode_without_parentheses_and_false_and_enable_grad():
    x = tg.ones(2, requires_grad=True)

    @tg.inference_mode
    def double(t):
        return t * 2

    assert not double(x).requires_grad
    with tg.inference_mode(False):
        assert (x * 2).requires_grad
    with tg.no_grad():
        with tg.enable_grad():
            assert (x * 2).requires_grad

        @tg.enable_grad()
        def triple(t):
            return t * 3

        assert triple(x).requires_grad


# --- the module paths PyTorch code imports ------------------------------------------------------
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
    assert importlib.import_module(f"tinygrad_norm.{path}") is not None


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


def test_f_tanh_and_sigmoid():
    x = tg.tensor([-1.0, 0.0, 2.0], dtype=tg.float64, requires_grad=True)
    np.testing.assert_allclose(F.tanh(x).detach().numpy(), np.tanh(x.detach().numpy()))
    np.testing.assert_allclose(F.sigmoid(x).detach().numpy(), 1 / (1 + np.exp(-x.detach().numpy())))
    assert tg.gradcheck(F.tanh, (x,)) and tg.gradcheck(F.sigmoid, (x,))


# --- in-place helpers and new_* -----------------------------------------------------------------
def test_copy_and_new_tensors():
    x = tg.zeros(2, 3)
    assert x.copy_(tg.tensor([1.0, 2.0, 3.0])) is x
    np.testing.assert_array_equal(x.numpy(), [[1, 2, 3], [1, 2, 3]])
    w = tg.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="in-place"):
        w.copy_(tg.ones(2))
    with tg.no_grad():
        w.copy_(tg.ones(2))
    assert w.tolist() == [1.0, 1.0]
    d = tg.ones(1, dtype=tg.float64)
    assert d.new_zeros(2, 3).shape == (2, 3) and d.new_zeros((2,)).dtype == tg.float64
    assert d.new_ones(2).tolist() == [1.0, 1.0] and d.new_full((2,), 7).tolist() == [7.0, 7.0]
    assert d.new_tensor([1, 2]).dtype == tg.float64 and d.new_empty(3).shape == (3,)
    assert tg.zeros(4).random_(0, 3, generator=tg.Generator().manual_seed(0)).numpy().max() < 3
    assert tg.zeros(1000).exponential_(2.0).numpy().mean() == pytest.approx(0.5, abs=0.1)


# --- nn.utils -----------------------------------------------------------------------------------
@pytest.mark.oracle
@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_pytorch(norm_type, max_norm):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    grads = [rng.standard_normal((3, 2)), rng.standard_normal(4)]
    ours = [tg.zeros(g.shape, dtype=tg.float64, requires_grad=True) for g in grads]
    theirs = [torch.zeros(g.shape, dtype=torch.float64, requires_grad=True) for g in grads]
    for o, t, g in zip(ours, theirs, grads):
        o.grad, t.grad = tg.tensor(g), torch.tensor(g)
    total = nn.utils.clip_grad_norm_(ours, max_norm, norm_type)
    expected = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    assert total.item() == pytest.approx(expected.item(), rel=1e-12)
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_clip_grad_norm_formula_and_errors():
    w = tg.zeros(2, requires_grad=True)
    w.grad = tg.tensor([3.0, 4.0])
    assert nn.utils.clip_grad_norm_(w, 1.0).item() == pytest.approx(5.0)
    np.testing.assert_allclose(w.grad.numpy(), [0.6, 0.8], rtol=1e-5)  # (3, 4) / 5
    w.grad = tg.tensor([float("inf"), 0.0])
    with pytest.raises(RuntimeError, match="error_if_nonfinite"):
        nn.utils.clip_grad_norm_([w], 1.0, error_if_nonfinite=True)
    assert nn.utils.clip_grad_norm_([tg.zeros(2, requires_grad=True)], 1.0).item() == 0.0


def test_clip_grad_value_and_parameters_as_a_vector():
    model = nn.Linear(2, 3)
    for p in model.parameters():
        p.grad = tg.full(p.shape, 5.0)
    nn.utils.clip_grad_value_(model.parameters(), 0.5)
    assert all(np.all(p.grad.numpy() == 0.5) for p in model.parameters())
    vector = nn.utils.parameters_to_vector(model.parameters())
    assert vector.shape == (9,)
    np.testing.assert_array_equal(vector[:6].numpy(), model.weight.numpy().ravel())
    nn.utils.vector_to_parameters(tg.arange(9).float(), model.parameters())
    np.testing.assert_array_equal(model.bias.numpy(), [6.0, 7.0, 8.0])
    with pytest.raises(RuntimeError, match="9"):
        nn.utils.vector_to_parameters(tg.ones(5), model.parameters())


@pytest.mark.oracle
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence_matches_pytorch_and_is_differentiable(batch_first, padding_side):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((n, 2)) for n in (3, 1, 2)]
    ours = nn.utils.rnn.pad_sequence(
        [tg.tensor(a) for a in arrays], batch_first, -1.0, padding_side
    )
    theirs = torch.nn.utils.rnn.pad_sequence(
        [torch.tensor(a) for a in arrays], batch_first, -1.0, padding_side
    )
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    leaves = [tg.tensor(a, requires_grad=True) for a in arrays]
    assert tg.gradcheck(lambda *s: nn.utils.rnn.pad_sequence(list(s), batch_first), leaves)


def test_weight_norm_still_importable_from_nn_utils():
    m = nn.utils.weight_norm(nn.Linear(2, 2))
    assert {"weight_g", "weight_v"} <= dict(m.named_parameters()).keys()
    nn.utils.remove_weight_norm(m)


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
