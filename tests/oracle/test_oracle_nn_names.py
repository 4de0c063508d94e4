"""The layers and functions course code names, against PyTorch (values and gradients): Lazy
layers, padding layers, 3-d layers, max-unpooling, affine_grid and grid_sample."""

import numpy as np
import pytest

import tinygrad_norm as tg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(1)


def _both(build, *arrays):
    """build(lib, *tensors) under tinygrad_norm and PyTorch: (outputs, input gradients) each."""
    results = []
    for lib in (tg, torch):
        tensors = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
        out = build(lib, *tensors)
        weights = RNG.normal(size=tuple(out.shape)) if not results else results[0][2]
        (out * lib.tensor(weights)).sum().backward()
        grads = [t.grad.numpy() if t.grad is not None else None for t in tensors]
        results.append((out.detach().numpy(), grads, weights))
    return results


def _assert_same(build, *arrays, atol=1e-10):
    (ours, our_grads, _), (theirs, their_grads, _) = _both(build, *arrays)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, atol=atol)
    for g, h in zip(our_grads, their_grads):
        if h is not None:
            np.testing.assert_allclose(g, h, atol=atol)


X4 = RNG.normal(size=(2, 3, 6, 7))
X5 = RNG.normal(size=(2, 3, 5, 6, 4))


@pytest.mark.parametrize(
    "layer, padding",
    [("ReflectionPad1d", (2, 3)), ("ReflectionPad2d", (5, 6, 3, 5)), ("ReflectionPad2d", 2),
     ("ReplicationPad2d", (9, 7, 3, 8)), ("ReplicationPad1d", 20), ("CircularPad2d", (7, 7, 6, 0)),
     ("ReflectionPad3d", 1), ("ZeroPad3d", (1, 0, 2, 1, 0, 1))],
    ids=str,
)  # fmt: skip
def test_padding_layers(layer, padding):
    ndim = int(layer[-2])
    x = X5 if ndim == 3 else X4 if ndim == 2 else X4[0]
    _assert_same(lambda lib, t: getattr(lib.nn, layer)(padding)(t), x)


def test_constant_padding_layer():
    _assert_same(lambda lib, t: lib.nn.ConstantPad2d((1, -2, 0, 3), 1.5)(t), X4)


@pytest.mark.parametrize("mode, pad", [("reflect", (7, 0)), ("circular", (8, 0))])
def test_padding_beyond_what_pytorch_allows_is_refused_as_pytorch(mode, pad):
    with pytest.raises(RuntimeError):
        torch.nn.functional.pad(torch.tensor(X4[0]), pad, mode=mode)
    with pytest.raises(RuntimeError, match="at most"):
        tg.nn.functional.pad(tg.tensor(X4[0]), pad, mode=mode)


def test_3d_layers():
    _assert_same(lambda lib, t: lib.nn.functional.max_pool3d(t, 2, (1, 2, 2), (1, 0, 1)), X5)
    _assert_same(lambda lib, t: lib.nn.MaxPool3d((2, 3, 2), ceil_mode=True)(t), X5)
    _assert_same(
        lambda lib, t: lib.nn.functional.avg_pool3d(t, (2, 3, 2), padding=(1, 1, 0),
                                                    count_include_pad=False), X5)  # fmt: skip
    _assert_same(lambda lib, t: lib.nn.AvgPool3d(2, divisor_override=3)(t), X5)
    w = RNG.normal(size=(3, 4, 2, 3, 2))
    _assert_same(
        lambda lib, t, v: lib.nn.functional.conv_transpose3d(t, v, stride=2, padding=1,
                                                             output_padding=1), X5, w)  # fmt: skip

    def batch_norm(lib, t):
        return lib.nn.BatchNorm3d(3).double()(t)

    _assert_same(batch_norm, X5)


def test_conv_transpose3d_layer_from_the_same_weights():
    results = []
    for lib in (tg, torch):
        layer = lib.nn.ConvTranspose3d(3, 2, (2, 3, 2), stride=(1, 2, 1)).double()
        with lib.no_grad():
            layer.weight.copy_(lib.tensor(RNG.normal(size=(3, 2, 2, 3, 2)) if not results
                                          else results[0][1]))  # fmt: skip
            layer.bias.zero_()
        results.append((layer(lib.tensor(X5)).detach().numpy(), layer.weight.detach().numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], atol=1e-10)


@pytest.mark.parametrize("n_space", [1, 2, 3])
def test_max_unpool_puts_the_maxima_back(n_space):
    x = {1: X4[0], 2: X4, 3: X5}[n_space]

    def roundtrip(lib, t):
        pool = getattr(lib.nn.functional, f"max_pool{n_space}d")
        unpool = getattr(lib.nn.functional, f"max_unpool{n_space}d")
        values, indices = pool(t, 2, return_indices=True)
        return unpool(values, indices, 2, output_size=t.shape[-n_space:])

    _assert_same(roundtrip, x)


def test_max_unpool_layer():
    def layers(lib, t):
        values, indices = lib.nn.MaxPool2d(2, stride=2, return_indices=True)(t)
        return lib.nn.MaxUnpool2d(2, stride=2)(values, indices)

    _assert_same(layers, X4[..., :6])


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 3, 4, 5, 3)], ids=["2d", "3d"])
def test_affine_grid(size, align_corners):
    theta = RNG.normal(size=(2, len(size) - 2, len(size) - 1))
    _assert_same(lambda lib, t: lib.nn.functional.affine_grid(t, size, align_corners), theta)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample(mode, padding_mode, align_corners):
    x, grid = RNG.normal(size=(2, 3, 5, 6)), RNG.uniform(-1.4, 1.4, size=(2, 4, 3, 2))

    def sample(lib, t, g):
        return lib.nn.functional.grid_sample(t, g, mode, padding_mode, align_corners)

    (ours, our_grads, _), (theirs, their_grads, _) = _both(sample, x, grid)
    np.testing.assert_allclose(ours, theirs, atol=1e-10)
    np.testing.assert_allclose(our_grads[0], their_grads[0], atol=1e-10)
    if mode == "bilinear":
        np.testing.assert_allclose(our_grads[1], their_grads[1], atol=1e-10)
    else:  # nearest: the grid gets no gradient (PyTorch's is zeros)
        assert our_grads[1] is None and not their_grads[1].any()


def test_a_spatial_transformer_trains_as_pytorch():
    x = RNG.normal(size=(2, 1, 6, 6))
    _assert_same(
        lambda lib, t, th: lib.nn.functional.grid_sample(
            t, lib.nn.functional.affine_grid(th, (2, 1, 4, 4), align_corners=False),
            align_corners=False),
        x, np.array([[[0.9, 0.1, 0.05], [-0.1, 1.1, 0.0]]] * 2),
    )  # fmt: skip


@pytest.mark.parametrize(
    "lazy, eager, shape",
    [("LazyLinear(4)", "Linear(7, 4)", (2, 7)),
     ("LazyConv2d(5, 3, padding=1)", "Conv2d(3, 5, 3, padding=1)", (2, 3, 6, 6)),
     ("LazyConv1d(4, 2, groups=2)", "Conv1d(2, 4, 2, groups=2)", (2, 2, 5)),
     ("LazyConvTranspose2d(4, 2, stride=2)", "ConvTranspose2d(3, 4, 2, stride=2)", (1, 3, 3, 3)),
     ("LazyBatchNorm1d()", "BatchNorm1d(7)", (4, 7)),
     ("LazyBatchNorm2d(momentum=0.5)", "BatchNorm2d(3, momentum=0.5)", (4, 3, 2, 2))],
    ids=lambda v: v if isinstance(v, str) else "",
)  # fmt: skip
def test_lazy_layers_become_the_eager_layer_with_its_draws(lazy, eager, shape):
    x = RNG.normal(size=shape).astype(np.float32)
    outputs = {}
    for name, spec in (("lazy", lazy), ("eager", eager)):
        for lib in (tg, torch):
            lib.manual_seed(0)
            layer = eval(f"lib.nn.{spec}")  # noqa: S307 - the parameters above
            y = layer(lib.tensor(x))
            assert type(layer).__name__ == eager.split("(")[0]
            outputs[name, lib.__name__] = (y.detach().numpy(), repr(layer))
            if lib is tg:
                state = {k: v.numpy() for k, v in layer.state_dict().items()}
            else:
                theirs = {k: v.numpy() for k, v in layer.state_dict().items()}
        assert state.keys() == theirs.keys()
        for key in state:
            assert state[key].shape == theirs[key].shape, key
    ours_lazy, ours_eager = outputs["lazy", "tinygrad_norm"], outputs["eager", "tinygrad_norm"]
    np.testing.assert_array_equal(ours_lazy[0], ours_eager[0])  # the same draws as the eager one
    assert ours_lazy[1] == ours_eager[1]  # the repr, once materialized


def test_a_lazy_layer_trains_with_an_optimizer_made_before_its_first_call():
    model = tg.nn.Sequential(tg.nn.LazyLinear(3), tg.nn.ReLU(), tg.nn.LazyLinear(1))
    opt = tg.optim.SGD(model.parameters(), lr=0.1)
    x, y = tg.randn(8, 5), tg.randn(8, 1)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = tg.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert [tuple(p.shape) for p in model.parameters()] == [(3, 5), (3,), (1, 3), (1,)]
