"""Normalization modules and weight_norm: NumPy formulas, gradient checks, running statistics,
LayerNorm's giagrad form (`dimensions`), and errors that name the shapes."""

import math

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm import nn


# --- NumPy references ---------------------------------------------------------------------------
def normalize(x, axes, eps, ddof=0):
    """(x - mean) / sqrt(var + eps) over `axes`."""
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, ddof=ddof, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def per_channel(v, ndim):
    """A (C,) vector shaped (1, C, 1, ...) to broadcast along (N, C, *)."""
    return v.reshape((1, -1) + (1,) * (ndim - 2))


def channel_affine(y, m):
    if m.weight is None:
        return y
    return y * per_channel(m.weight.data, y.ndim) + per_channel(m.bias.data, y.ndim)


def ref_layer_norm(m, x, training):
    axes = tuple(range(x.ndim - len(m.normalized_shape), x.ndim))
    y = normalize(x, axes, m.eps)
    if m.weight is not None:
        y = y * m.weight.data
    return y if m.bias is None else y + m.bias.data


def ref_batch_norm(m, x, training):
    axes = (0,) + tuple(range(2, x.ndim))
    if training or m.running_mean is None:
        return channel_affine(normalize(x, axes, m.eps), m)
    mean, var = per_channel(m.running_mean.data, x.ndim), per_channel(m.running_var.data, x.ndim)
    return channel_affine((x - mean) / np.sqrt(var + m.eps), m)


def ref_instance_norm(m, x, training):
    if training or not m.track_running_stats:
        return channel_affine(normalize(x, tuple(range(2, x.ndim)), m.eps), m)
    mean, var = per_channel(m.running_mean.data, x.ndim), per_channel(m.running_var.data, x.ndim)
    return channel_affine((x - mean) / np.sqrt(var + m.eps), m)


def ref_group_norm(m, x, training):
    grouped = x.reshape(x.shape[0], m.num_groups, -1)  # (N, G, C/G * spatial)
    return channel_affine(normalize(grouped, (2,), m.eps).reshape(x.shape), m)


def ref_rms_norm(m, x, training):
    axes = tuple(range(x.ndim - len(m.normalized_shape), x.ndim))
    eps = np.finfo(x.dtype).eps if m.eps is None else m.eps
    y = x / np.sqrt((x * x).mean(axis=axes, keepdims=True) + eps)
    return y if m.weight is None else y * m.weight.data


CASES = {
    "LayerNorm((3, 5))": (lambda: nn.LayerNorm((3, 5)), (4, 3, 5), ref_layer_norm),
    "LayerNorm(dimensions=2)": (lambda: nn.LayerNorm(dimensions=2), (4, 3, 5), ref_layer_norm),
    "LayerNorm(5, affine=False)": (
        lambda: nn.LayerNorm(5, elementwise_affine=False),
        (4, 3, 5),
        ref_layer_norm,
    ),
    "LayerNorm(5, bias=False)": (lambda: nn.LayerNorm(5, bias=False), (2, 5), ref_layer_norm),
    "BatchNorm1d (N, C)": (lambda: nn.BatchNorm1d(3), (6, 3), ref_batch_norm),
    "BatchNorm1d (N, C, L)": (lambda: nn.BatchNorm1d(3), (4, 3, 5), ref_batch_norm),
    "BatchNorm1d untracked": (
        lambda: nn.BatchNorm1d(3, affine=False, track_running_stats=False),
        (4, 3, 5),
        ref_batch_norm,
    ),
    "BatchNorm2d": (lambda: nn.BatchNorm2d(3), (2, 3, 4, 5), ref_batch_norm),
    "InstanceNorm1d": (lambda: nn.InstanceNorm1d(3), (4, 3, 5), ref_instance_norm),
    "InstanceNorm1d affine tracked": (
        lambda: nn.InstanceNorm1d(3, affine=True, track_running_stats=True),
        (4, 3, 5),
        ref_instance_norm,
    ),
    "InstanceNorm2d affine": (
        lambda: nn.InstanceNorm2d(3, affine=True),
        (2, 3, 4, 5),
        ref_instance_norm,
    ),
    "GroupNorm(2, 4)": (lambda: nn.GroupNorm(2, 4), (3, 4, 5), ref_group_norm),
    "GroupNorm(3, 6) 4D": (lambda: nn.GroupNorm(3, 6), (2, 6, 2, 3), ref_group_norm),
    "RMSNorm(5)": (lambda: nn.RMSNorm(5), (4, 3, 5), ref_rms_norm),
    "RMSNorm((3, 5), eps=1e-3)": (lambda: nn.RMSNorm((3, 5), eps=1e-3), (4, 3, 5), ref_rms_norm),
}


def make(case, seed=0):
    """The module of `case` in float64 with random weights (and running statistics), called
    once (a lazy LayerNorm gets its shapes), and an input."""
    factory, shape, ref = CASES[case]
    rng = np.random.default_rng(seed)
    module = factory().double()
    x = rng.standard_normal(shape) * 2.0 + 0.5
    with tg.no_grad():
        module.eval()(tg.tensor(x))
    module.train()
    for p in module.parameters():
        p.data[...] = 1.0 + 0.5 * rng.standard_normal(p.shape)
    if getattr(module, "running_mean", None) is not None:
        module.running_mean.data[...] = rng.standard_normal(module.running_mean.shape)
        module.running_var.data[...] = rng.uniform(0.5, 2.0, module.running_var.shape)
    return module, x, ref


@pytest.mark.parametrize("case", CASES)
def test_check_module_train_and_eval(case):
    module, x, _ = make(case)
    result = tg.check_module(module, tg.tensor(x))
    assert result and set(result.results) == {"train", "eval"}
    assert result.names == ["input 0"] + [name for name, _ in module.named_parameters()]


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("case", CASES)
def test_forward_equals_numpy_formula(case, training):
    module, x, ref = make(case)
    module.train(training)
    expected = ref(module, x, training)  # before the call: it may update running statistics
    y = module(tg.tensor(x))
    assert y.shape == x.shape and y.dtype == np.float64
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", CASES)
def test_float32_in_float32_out(case):
    factory, shape, _ = CASES[case]
    module = factory()
    x = tg.tensor(np.random.default_rng(1).standard_normal(shape).astype(np.float32))
    assert module(x).dtype == np.float32
    assert all(p.dtype == np.float32 for p in module.parameters())


# --- LayerNorm ----------------------------------------------------------------------------------
def test_layer_norm_pytorch_form_normalizes_over_the_last_axes():
    x = np.random.default_rng(2).standard_normal((2, 4, 5))
    ln = nn.LayerNorm([4, 5], eps=0.0).double()
    assert ln.normalized_shape == (4, 5)
    assert ln.weight.shape == ln.bias.shape == (4, 5)
    y = ln(tg.tensor(x)).numpy()
    np.testing.assert_allclose(y.mean(axis=(1, 2)), 0.0, atol=1e-14)
    np.testing.assert_allclose(y.var(axis=(1, 2)), 1.0, rtol=1e-12)  # biased variance: exactly 1


def test_layer_norm_dimensions_nlp_example():
    """giagrad's NLP example: (batch, sentence_length, embedding_dim), dimensions=1."""
    tg.manual_seed(0)
    batch, sentence_length, embedding_dim = 20, 5, 10
    embedding = tg.Tensor.empty(batch, sentence_length, embedding_dim, dtype=tg.float64).uniform()
    layer_norm = nn.LayerNorm(dimensions=1)
    weight, bias = layer_norm.weight, layer_norm.bias  # the objects an optimizer would hold
    assert isinstance(weight, nn.Parameter) and weight.shape == (0,) and bias.shape == (0,)

    out = layer_norm(embedding)

    assert layer_norm.weight is weight and layer_norm.bias is bias
    assert weight.shape == bias.shape == (embedding_dim,)
    assert weight.dtype == bias.dtype == np.float64
    assert (weight.numpy() == 1).all() and (bias.numpy() == 0).all()
    assert layer_norm.normalized_shape == (embedding_dim,)
    expected = normalize(embedding.numpy(), (2,), 1e-5)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)


def test_layer_norm_dimensions_image_example():
    """(N, C, H, W) with dimensions=3: each image normalized over channels and space."""
    N, C, H, W = 20, 5, 10, 10
    x = tg.tensor(np.random.default_rng(3).standard_normal((N, C, H, W)) * 3 + 1)
    layer_norm = nn.LayerNorm(dimensions=3, eps=0.0)
    output = layer_norm(x).numpy()
    assert layer_norm.weight.shape == layer_norm.bias.shape == (C, H, W)
    np.testing.assert_allclose(output.mean(axis=(1, 2, 3)), 0.0, atol=1e-12)
    np.testing.assert_allclose(output.var(axis=(1, 2, 3)), 1.0, rtol=1e-12)
    np.testing.assert_allclose(output, normalize(x.numpy(), (1, 2, 3), 0.0), rtol=1e-12)


def test_layer_norm_dimensions_takes_the_input_dtype():
    ln32, ln64 = nn.LayerNorm(dimensions=2), nn.LayerNorm(dimensions=2)
    ln32(tg.ones(2, 3, 4, dtype=tg.float32))
    ln64(tg.ones(2, 3, 4, dtype=tg.float64))
    assert ln32.weight.dtype == ln32.bias.dtype == np.float32
    assert ln64.weight.dtype == ln64.bias.dtype == np.float64


def test_gamma_and_beta_are_weight_and_bias():
    ln = nn.LayerNorm(dimensions=1)
    assert ln.gamma is ln.weight and ln.beta is ln.bias
    ln(tg.randn(2, 3))
    assert ln.gamma is ln.weight and ln.beta is ln.bias
    assert list(ln.state_dict()) == ["weight", "bias"]
    assert [name for name, _ in ln.named_parameters()] == ["weight", "bias"]

    new = nn.Parameter(tg.full((3,), 2.0))
    ln.gamma = new  # writing an alias writes the parameter
    assert ln.weight is new and ln.gamma is new
    assert list(ln.state_dict()) == ["weight", "bias"]
    plain = nn.LayerNorm(4, bias=False)
    assert plain.beta is None and list(plain.state_dict()) == ["weight"]


def test_layer_norm_dimensions_trains_with_an_optimizer_built_before_the_first_call():
    """The lazy weights are the Parameter objects the optimizer was given: they train."""
    rng = np.random.default_rng(4)
    x = tg.tensor(rng.standard_normal((8, 3, 4)))
    # The target is a LayerNorm with other weights: reachable only by training the weights.
    target = normalize(x.numpy(), (1, 2), 1e-5) * rng.uniform(0.5, 2, (3, 4)) + rng.normal(
        size=(3, 4)
    )
    model = nn.Sequential(nn.LayerNorm(dimensions=2))
    optimizer = tg.optim.Adam(model.parameters(), lr=0.05)
    ln = model[0]
    assert ln.weight.shape == (0,)

    losses = []
    for _ in range(100):
        optimizer.zero_grad()
        loss = ((model(x) - tg.tensor(target)) ** 2).mean()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())

    assert ln.weight.shape == (3, 4) and ln.weight.grad is not None
    assert not np.allclose(ln.weight.numpy(), 1.0) and not np.allclose(ln.bias.numpy(), 0.0)
    assert losses[-1] < 0.01 * losses[0]


def test_layer_norm_dimensions_rejects_a_new_trailing_shape():
    ln = nn.LayerNorm(dimensions=2)
    ln(tg.randn(2, 3, 4))
    ln(tg.randn(7, 3, 4))  # another batch size is fine
    with pytest.raises(ValueError, match=r"LayerNorm\(dimensions=2\).*\(3, 4\) from its first"):
        ln(tg.randn(2, 5, 4))
    with pytest.raises(ValueError, match=r"last 2 axes are \(5, 4\)"):
        ln(tg.randn(2, 5, 4))
    with pytest.raises(ValueError, match=r"last 2 axes.*\(4,\)"):
        ln(tg.randn(4))


def test_layer_norm_dimensions_without_affine_accepts_any_trailing_shape():
    ln = nn.LayerNorm(dimensions=1, elementwise_affine=False)
    assert list(ln.parameters()) == []
    for shape in [(2, 3), (2, 7)]:
        x = np.random.default_rng(5).standard_normal(shape)
        np.testing.assert_allclose(ln(tg.tensor(x)).numpy(), normalize(x, (1,), 1e-5), rtol=1e-12)


def test_check_module_on_an_uncalled_lazy_layer_norm_says_to_call_it_first():
    with pytest.raises(RuntimeError, match="call it once"):
        tg.check_module(nn.LayerNorm(dimensions=1), tg.randn(2, 3))


def test_unbiased_variance_differs_from_layer_norm_by_exactly_the_convention():
    """Seed 002 normalizes with the unbiased variance (ddof 1) and finds it "pretty close" to
    nn.LayerNorm. Without eps the two differ by exactly the factor sqrt((N - 1) / N)."""
    tg.manual_seed(42)
    imgs = tg.rand(3, 4, 5, dtype=tg.float64)
    _, H, W = imgs.size()
    n = H * W
    layer_norm = nn.LayerNorm([H, W], eps=0.0)
    mean = imgs.mean(dim=(-1, -2), keepdims=True)
    var = imgs.var(dim=(-1, -2), keepdims=True, unbiased=True)
    scratch = (imgs - mean) / tg.sqrt(var)

    ours = layer_norm(imgs).numpy()
    np.testing.assert_allclose(scratch.numpy(), ours * math.sqrt((n - 1) / n), rtol=1e-13)
    assert not np.allclose(scratch.numpy(), ours, rtol=1e-3)  # not "the same" at all
    biased = (imgs - mean) / tg.sqrt(imgs.var(dim=(-1, -2), keepdims=True, unbiased=False))
    np.testing.assert_allclose(biased.numpy(), ours, rtol=1e-13)


def test_layer_norm_constructor_errors():
    with pytest.raises(TypeError, match="exactly one of normalized_shape .* and dimensions"):
        nn.LayerNorm()
    with pytest.raises(TypeError, match=r"normalized_shape=4, dimensions=1"):
        nn.LayerNorm(4, dimensions=1)
    with pytest.raises(ValueError, match="positive int, got 0"):
        nn.LayerNorm(dimensions=0)


def test_layer_norm_wrong_trailing_shape_names_both_shapes():
    ln = nn.LayerNorm(8)
    with pytest.raises(ValueError, match=r"normalized_shape \(8,\).*\(2, 3, 4\)"):
        ln(tg.randn(2, 3, 4))
    with pytest.raises(ValueError, match=r"normalized_shape \(3, 4\).*\(4,\)"):
        nn.LayerNorm((3, 4))(tg.randn(4))


# --- BatchNorm and InstanceNorm running statistics ----------------------------------------------
def batches(shape, steps, seed=6):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) * (i + 1) + i for i in range(steps)]


@pytest.mark.parametrize(
    "cls, shape",
    [(nn.BatchNorm1d, (6, 3)), (nn.BatchNorm1d, (4, 3, 5)), (nn.BatchNorm2d, (2, 3, 4, 5))],
)
@pytest.mark.parametrize("momentum", [0.1, 0.3, None])
def test_batch_norm_running_statistics_equal_numpy(cls, shape, momentum):
    bn = cls(3, momentum=momentum).double()
    xs = batches(shape, 5)
    mean, var = np.zeros(3), np.ones(3)
    axes = (0,) + tuple(range(2, len(shape)))
    n = np.prod(shape) // 3
    for k, x in enumerate(xs, start=1):
        bn(tg.tensor(x))
        factor = 1 / k if momentum is None else momentum
        mean = (1 - factor) * mean + factor * x.mean(axis=axes)
        var = (1 - factor) * var + factor * x.var(axis=axes, ddof=1)
        assert x.var(axis=axes, ddof=1)[0] == pytest.approx(x.var(axis=axes)[0] * n / (n - 1))
    np.testing.assert_allclose(bn.running_mean.numpy(), mean, rtol=1e-12)
    np.testing.assert_allclose(bn.running_var.numpy(), var, rtol=1e-12)
    assert bn.num_batches_tracked.item() == 5 and bn.num_batches_tracked.dtype == np.int64
    if momentum is None:  # the cumulative average is the plain mean of the batch statistics
        np.testing.assert_allclose(mean, np.mean([x.mean(axis=axes) for x in xs], axis=0))

    bn.eval()
    x = xs[0]
    y = bn(tg.tensor(x)).numpy()
    expected = (x - per_channel(mean, x.ndim)) / np.sqrt(per_channel(var, x.ndim) + 1e-5)
    np.testing.assert_allclose(y, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(bn.running_mean.numpy(), mean, rtol=1e-12)  # eval: no update
    assert bn.num_batches_tracked.item() == 5


def test_batch_norm_eval_normalizes_each_sample_on_its_own():
    bn = nn.BatchNorm1d(3).double()
    for x in batches((8, 3), 3):
        bn(tg.tensor(x))
    bn.eval()
    x = np.random.default_rng(7).standard_normal((5, 3))
    whole = bn(tg.tensor(x)).numpy()
    one = bn(tg.tensor(x[2:3])).numpy()
    np.testing.assert_allclose(one, whole[2:3], rtol=1e-14)
    bn.train()
    assert not np.allclose(bn(tg.tensor(x[:2])).numpy(), whole[:2])


def test_batch_norm_without_running_statistics_uses_the_batch_in_eval():
    bn = nn.BatchNorm2d(3, track_running_stats=False).double().eval()
    assert bn.running_mean is None and list(bn.buffers()) == []
    assert list(bn.state_dict()) == ["weight", "bias"]
    x = np.random.default_rng(8).standard_normal((2, 3, 4, 4))
    np.testing.assert_allclose(bn(tg.tensor(x)).numpy(), normalize(x, (0, 2, 3), 1e-5), rtol=1e-12)


def test_batch_norm_switching_off_tracking_keeps_the_running_statistics():
    """As PyTorch: with track_running_stats set to False after construction, training uses
    batch statistics and leaves the buffers alone; evaluation still uses them."""
    bn = nn.BatchNorm1d(3).double()
    bn(tg.tensor(batches((6, 3), 1)[0]))
    mean, var = bn.running_mean.numpy().copy(), bn.running_var.numpy().copy()
    bn.track_running_stats = False
    x = batches((6, 3), 2)[1]
    np.testing.assert_allclose(bn(tg.tensor(x)).numpy(), normalize(x, (0,), 1e-5), rtol=1e-12)
    np.testing.assert_array_equal(bn.running_mean.numpy(), mean)
    np.testing.assert_array_equal(bn.running_var.numpy(), var)
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    expected = (x - mean) / np.sqrt(var + 1e-5)
    np.testing.assert_allclose(bn(tg.tensor(x)).numpy(), expected, rtol=1e-12)


def test_batch_norm_state_dict_and_reset():
    bn = nn.BatchNorm1d(4)
    keys = ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert list(bn.state_dict()) == keys
    bn(tg.randn(5, 4) * 3 + 2)
    assert not np.allclose(bn.running_mean.numpy(), 0)
    bn.reset_running_stats()
    assert (bn.running_mean.numpy() == 0).all() and (bn.running_var.numpy() == 1).all()
    assert bn.num_batches_tracked.item() == 0


@pytest.mark.parametrize("momentum", [0.1, None])
def test_instance_norm_running_statistics_equal_numpy(momentum):
    m = nn.InstanceNorm1d(3, momentum=momentum, track_running_stats=True).double()
    mean, var = np.zeros(3), np.ones(3)
    xs = batches((4, 3, 5), 4)
    for x in xs:
        y = m(tg.tensor(x)).numpy()
        np.testing.assert_allclose(y, normalize(x, (2,), 1e-5), rtol=1e-12, atol=1e-12)
        # PyTorch's InstanceNorm counts no batches: momentum=None leaves the statistics as they are
        factor = 0.0 if momentum is None else momentum
        mean = (1 - factor) * mean + factor * x.mean(axis=2).mean(axis=0)
        var = (1 - factor) * var + factor * x.var(axis=2, ddof=1).mean(axis=0)
    np.testing.assert_allclose(m.running_mean.numpy(), mean, rtol=1e-12)
    np.testing.assert_allclose(m.running_var.numpy(), var, rtol=1e-12)
    assert int(m.num_batches_tracked) == 0
    m.eval()
    x = xs[0]
    expected = (x - mean[:, None]) / np.sqrt(var[:, None] + 1e-5)
    np.testing.assert_allclose(m(tg.tensor(x)).numpy(), expected, rtol=1e-12)


def test_instance_norm_takes_an_input_without_batch_axis():
    m = nn.InstanceNorm2d(2, affine=True).double()
    m.weight.data[...] = [2.0, 3.0]
    x = np.random.default_rng(9).standard_normal((2, 3, 4))
    y = m(tg.tensor(x))
    assert y.shape == (2, 3, 4)
    np.testing.assert_allclose(y.numpy(), m(tg.tensor(x[None])).numpy()[0], rtol=1e-14)
    np.testing.assert_allclose(y.numpy()[1], 3 * normalize(x[1], (0, 1), 1e-5), rtol=1e-12)


def test_seed_003_instance_norm_over_the_time_axis():
    """Seed 003: InstanceNorm1d on (N, C, L) = the (N, L, C) input normalized over L."""
    input_data = np.random.default_rng(10).standard_normal((2, 3, 4))  # N * L * C
    out = nn.InstanceNorm1d(4)(tg.tensor(input_data).transpose(-1, -2)).transpose(-1, -2)
    np.testing.assert_allclose(out.numpy(), normalize(input_data, (1,), 1e-5), rtol=1e-12)


def test_seed_003_group_norm_is_not_a_split_into_chunks_of_num_groups():
    """Seed 003 splits 4 channels into chunks of num_groups = 2 channels, which is 2 groups
    only because 4 / 2 = 2. With 6 channels and 2 groups the groups have 3 channels each."""
    x = np.random.default_rng(11).standard_normal((2, 6, 5))
    y = nn.GroupNorm(2, 6, affine=False).double()(tg.tensor(x)).numpy()
    groups = [normalize(x[:, :3], (1, 2), 1e-5), normalize(x[:, 3:], (1, 2), 1e-5)]
    np.testing.assert_allclose(y, np.concatenate(groups, axis=1), rtol=1e-12)
    chunks = [normalize(x[:, i : i + 2], (1, 2), 1e-5) for i in range(0, 6, 2)]
    assert not np.allclose(y, np.concatenate(chunks, axis=1))


def test_rms_norm_default_eps_is_the_dtype_epsilon():
    x = np.full((1, 2), 1e-9)  # mean(x^2) = 1e-18, far below float64's eps 2.2e-16
    y = nn.RMSNorm(2).double()(tg.tensor(x)).numpy()
    np.testing.assert_allclose(y, x / np.sqrt(1e-18 + np.finfo(np.float64).eps), rtol=1e-12)
    assert [name for name, _ in nn.RMSNorm(2).named_parameters()] == ["weight"]


# --- errors -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "module, shape, pattern",
    [
        (nn.BatchNorm1d(3), (4, 5), r"BatchNorm1d\(3\) expects 3 channels .* got 5 .*\(4, 5\)"),
        (nn.BatchNorm1d(3), (4, 5, 6), r"expects 3 channels .* got 5 .*\(4, 5, 6\)"),
        (
            nn.BatchNorm1d(3),
            (2, 3, 4, 4),
            r"expected a 2D or 3D input .* 4D input .*\(2, 3, 4, 4\)",
        ),
        (
            nn.BatchNorm2d(3),
            (2, 3, 4),
            r"expected a 4D input \(N, C, H, W\), got a 3D .*\(2, 3, 4\)",
        ),
        (nn.BatchNorm2d(3), (2, 4, 5, 5), r"expects 3 channels .* got 4 .*\(2, 4, 5, 5\)"),
        (nn.InstanceNorm1d(3), (2, 4, 5), r"InstanceNorm1d\(3\) expects 3 channels .* got 4"),
        (nn.InstanceNorm1d(3), (4, 5), r"expects 3 channels \(C\) in axis 0 .* got 4 .*\(4, 5\)"),
        (nn.InstanceNorm2d(3), (3, 4), r"expected a 3D or 4D input .* 2D input .*\(3, 4\)"),
        (
            nn.GroupNorm(2, 4),
            (2, 6, 3),
            r"GroupNorm\(2, 4\) expects .* C = 4 .* got 6 .*\(2, 6, 3\)",
        ),
        (nn.RMSNorm(4), (2, 5), r"normalized_shape \(4,\), got an input of shape \(2, 5\)"),
    ],
    ids=lambda v: str(v) if isinstance(v, tuple) else None,
)
def test_wrong_input_names_expected_and_actual(module, shape, pattern):
    with pytest.raises(ValueError, match=pattern):
        module(tg.randn(*shape))


def test_group_norm_groups_must_divide_channels():
    with pytest.raises(
        ValueError, match=r"num_channels \(6\) must be divisible by num_groups \(4\)"
    ):
        nn.GroupNorm(4, 6)
    with pytest.raises(ValueError, match=r"divisors of 6: \[1, 2, 3, 6\]"):
        nn.GroupNorm(0, 6)


def test_batch_norm_training_needs_more_than_one_value_per_channel():
    with pytest.raises(ValueError, match="more than one value per channel"):
        nn.BatchNorm1d(3)(tg.randn(1, 3))
    assert nn.BatchNorm1d(3).eval()(tg.randn(1, 3)).shape == (1, 3)


# --- repr ---------------------------------------------------------------------------------------
def test_reprs_are_pytorchs():
    assert repr(nn.LayerNorm(8)) == "LayerNorm((8,), eps=1e-05, elementwise_affine=True)"
    assert repr(nn.LayerNorm([4, 5], eps=1e-6, elementwise_affine=False)) == (
        "LayerNorm((4, 5), eps=1e-06, elementwise_affine=False)"
    )
    assert repr(nn.LayerNorm(dimensions=2)) == (
        "LayerNorm(dimensions=2, eps=1e-05, elementwise_affine=True)"
    )
    assert repr(nn.BatchNorm2d(3)) == (
        "BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)"
    )
    assert repr(nn.InstanceNorm1d(4)) == (
        "InstanceNorm1d(4, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False)"
    )
    assert repr(nn.GroupNorm(2, 4, affine=False)) == "GroupNorm(2, 4, eps=1e-05, affine=False)"
    assert repr(nn.RMSNorm([2, 3], eps=1e-6)) == (
        "RMSNorm((2, 3), eps=1e-06, elementwise_affine=True)"
    )


# --- weight_norm --------------------------------------------------------------------------------
class TinyLinear(nn.Module):
    """A Linear-like module: weight (out, in), y = x @ weight.T + bias."""

    def __init__(self, n_in, n_out, seed=0):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.weight = nn.Parameter(rng.standard_normal((n_out, n_in)))
        self.bias = nn.Parameter(rng.standard_normal(n_out))

    def forward(self, x):
        return x @ self.weight.T + self.bias


def linear_like(kind):
    if kind == "nn.Linear":
        tg.manual_seed(0)
        return nn.Linear(3, 4).double()
    return TinyLinear(3, 4)


def weight_from(g, v, dim):
    if dim is None:
        return g * v / np.linalg.norm(v)
    axes = tuple(a for a in range(v.ndim) if a != dim)
    return g * v / np.sqrt((v * v).sum(axis=axes, keepdims=True))


LINEARS = ["TinyLinear", "nn.Linear"]


@pytest.mark.parametrize("kind", LINEARS)
@pytest.mark.parametrize("dim, g_shape", [(0, (4, 1)), (1, (1, 3)), (-1, (1, 3)), (None, ())])
def test_weight_norm_parameters_and_shapes(kind, dim, g_shape):
    module = linear_like(kind)
    w = module.weight.numpy().copy()
    assert nn.utils.weight_norm(module, dim=dim) is module
    assert [n for n, _ in module.named_parameters()] == ["bias", "weight_g", "weight_v"]
    assert list(module.state_dict()) == ["bias", "weight_g", "weight_v"]
    assert module.weight_g.shape == g_shape and module.weight_v.shape == (4, 3)
    np.testing.assert_array_equal(module.weight_v.numpy(), w)  # v starts as w
    axes = None if dim is None else (1 - dim % 2,)
    np.testing.assert_allclose(
        module.weight_g.numpy(), np.sqrt((w * w).sum(axis=axes, keepdims=dim is not None))
    )
    # readable before any forward, and equal to the old weight: g * v / ||v|| = w at the start
    assert not isinstance(module.weight, nn.Parameter)
    np.testing.assert_allclose(module.weight.numpy(), w, rtol=1e-14)


def test_weight_norm_of_seed_004_linear_rows():
    """Seed 004: with dim=0 the magnitude is one norm per output row, (out, 1)."""
    linear = nn.utils.weight_norm(TinyLinear(4, 3))
    direction = linear.weight / tg.norm(linear.weight.detach(), dim=1, keepdim=True)
    np.testing.assert_allclose((direction * linear.weight_g).numpy(), linear.weight.numpy())
    np.testing.assert_allclose(((direction**2).sum(dim=-1)).numpy(), 1.0, rtol=1e-14)


@pytest.mark.parametrize("kind", LINEARS)
@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_is_recomputed_before_every_forward(kind, dim):
    module = nn.utils.weight_norm(linear_like(kind), dim=dim)
    rng = np.random.default_rng(12)
    module.weight_g.data[...] = rng.uniform(0.5, 2.0, module.weight_g.shape)
    module.weight_v.data[...] = rng.standard_normal((4, 3))
    x = rng.standard_normal((5, 3))
    y = module(tg.tensor(x))
    w = weight_from(module.weight_g.numpy(), module.weight_v.numpy(), dim)
    np.testing.assert_allclose(module.weight.numpy(), w, rtol=1e-14)  # read after the call
    np.testing.assert_allclose(y.numpy(), x @ w.T + module.bias.numpy(), rtol=1e-12)
    norms = np.linalg.norm(w, axis=1 if dim == 0 else 0) if dim is not None else np.linalg.norm(w)
    np.testing.assert_allclose(norms, module.weight_g.numpy().reshape(-1), rtol=1e-12)


@pytest.mark.parametrize("kind", LINEARS)
@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_gradients_reach_g_and_v(kind, dim):
    module = nn.utils.weight_norm(linear_like(kind), dim=dim)
    x = tg.tensor(np.random.default_rng(13).standard_normal((5, 3)))
    result = tg.check_module(module, x)
    assert result and result.names == ["input 0", "bias", "weight_g", "weight_v"]
    module(x).sum().backward()
    assert module.weight_g.grad.shape == module.weight_g.shape
    assert module.weight_v.grad.shape == (4, 3)
    assert np.abs(module.weight_v.grad.numpy()).sum() > 0


def test_weight_norm_trains_g_and_v_with_an_optimizer():
    module = nn.utils.weight_norm(TinyLinear(3, 2))
    optimizer = tg.optim.SGD(module.parameters(), lr=0.1)
    x = tg.tensor(np.random.default_rng(14).standard_normal((16, 3)))
    target = tg.tensor(np.random.default_rng(15).standard_normal((16, 2)))
    g0 = module.weight_g.numpy().copy()
    losses = []
    for _ in range(30):
        optimizer.zero_grad()
        loss = ((module(x) - target) ** 2).mean()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert not np.allclose(module.weight_g.numpy(), g0)


def test_remove_weight_norm_restores_a_plain_parameter():
    module = nn.utils.weight_norm(TinyLinear(3, 4))
    module.weight_g.data[...] = 2.0
    module(tg.ones(1, 3, dtype=tg.float64))
    expected = module.weight.numpy().copy()
    assert nn.utils.remove_weight_norm(module) is module
    assert isinstance(module.weight, nn.Parameter)
    np.testing.assert_allclose(module.weight.numpy(), expected, rtol=1e-14)
    assert sorted(module.state_dict()) == ["bias", "weight"]
    assert module._forward_pre_hooks == {}
    module.weight.data[...] = 0.0  # the weight is no longer recomputed from g and v
    np.testing.assert_array_equal(
        module(tg.ones(1, 3, dtype=tg.float64)).numpy(), module.bias.numpy()[None]
    )


def test_weight_norm_errors():
    module = nn.utils.weight_norm(TinyLinear(3, 4))
    with pytest.raises(RuntimeError, match="already weight-normalized"):
        nn.utils.weight_norm(module)
    with pytest.raises(AttributeError, match=r"no parameter 'kernel'.*\['weight', 'bias'\]"):
        nn.utils.weight_norm(TinyLinear(3, 4), name="kernel")
    with pytest.raises(IndexError, match=r"dim 2 is out of range .* \(4, 3\)"):
        nn.utils.weight_norm(TinyLinear(3, 4), dim=2)
    with pytest.raises(ValueError, match="not weight-normalized"):
        nn.utils.remove_weight_norm(TinyLinear(3, 4))


def test_nn_utils_is_reachable_from_nn():
    from tinygrad_norm import nn as nn_again

    assert nn_again.utils.weight_norm is nn.utils.weight_norm
    assert callable(nn_again.utils.remove_weight_norm)


def test_lazy_layer_norm_loads_a_checkpoint_before_its_first_call():
    trained = nn.LayerNorm(dimensions=2)
    x = tg.randn(3, 4, 5, dtype=tg.float64)
    trained(x)
    with tg.no_grad():
        trained.weight.data[...] = np.arange(20.0).reshape(4, 5)
    fresh = nn.LayerNorm(dimensions=2)
    weight = fresh.weight
    fresh.load_state_dict(trained.state_dict())
    assert fresh.weight is weight and fresh.weight.shape == (4, 5)
    assert fresh.weight.dtype == tg.float64
    np.testing.assert_array_equal(fresh(x).numpy(), trained(x).numpy())
    with pytest.raises(RuntimeError, match="size mismatch"):  # k = 2 axes, not 1
        nn.LayerNorm(dimensions=2).load_state_dict({"weight": np.ones(5), "bias": np.zeros(5)})
