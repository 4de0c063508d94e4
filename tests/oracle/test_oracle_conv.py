"""Convolution, pooling and resampling against PyTorch in float64: values, gradients of every
input, and returned indices, with non-default arguments."""

import inspect

import numpy as np
import pytest
from helpers import COURSE_FUNCTIONS, COURSE_MODULES

import tinygrad_norm as tg
import tinygrad_norm.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional
pytestmark = pytest.mark.oracle

rng = np.random.default_rng(0)
X2 = rng.standard_normal((2, 4, 7, 6))
X1 = rng.standard_normal((2, 4, 9))


def compare(name, arrays, **kw):
    """Values (and indices), then the gradient of <out, g> for every input, equal PyTorch's."""
    ours = [tg.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, tout = getattr(F, name)(*ours, **kw), getattr(TF, name)(*theirs, **kw)
    if isinstance(out, tuple):
        np.testing.assert_array_equal(out[1].numpy(), tout[1].numpy())
        assert out[1].dtype == tg.int64
        out, tout = out[0], tout[0]
    assert tuple(out.shape) == tuple(tout.shape)
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = rng.standard_normal(tuple(out.shape))
    (out * tg.tensor(g)).sum().backward()
    (tout * torch.tensor(g)).sum().backward()
    for a, ta in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(stride=2, padding=1),
        dict(padding="same", dilation=2),
        dict(padding="valid", stride=(1, 2)),
        dict(groups=2, stride=(2, 1), padding=(2, 0), dilation=(1, 2)),
        dict(groups=4, padding=(1, 2)),
    ],
    ids=str,
)
def test_conv2d(kw):
    g = kw.get("groups", 1)
    compare("conv2d", [X2, rng.standard_normal((8, 4 // g, 3, 2)), rng.standard_normal(8)], **kw)


@pytest.mark.filterwarnings("ignore::UserWarning")  # PyTorch's note on even kernels with "same"
@pytest.mark.parametrize("kw", [dict(padding="same"), dict(stride=3, dilation=2)], ids=str)
def test_conv1d(kw):
    compare("conv1d", [X1, rng.standard_normal((3, 4, 4)), rng.standard_normal(3)], **kw)
    compare("conv1d", [X1[0], rng.standard_normal((3, 4, 4))], **kw)  # unbatched


@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(stride=2, padding=1, output_padding=1),
        dict(groups=2, stride=(2, 3), dilation=(2, 1), output_padding=(1, 2)),
    ],
    ids=str,
)
def test_conv_transpose2d(kw):
    g = kw.get("groups", 1)
    arrays = [X2, rng.standard_normal((4, 3, 3, 2)), rng.standard_normal(3 * g)]
    compare("conv_transpose2d", arrays, **kw)


def test_conv_transpose1d():
    compare("conv_transpose1d", [X1, rng.standard_normal((4, 2, 3))], stride=3, padding=1)


def test_unfold_and_fold():
    kw = dict(dilation=(1, 2), padding=1, stride=2)
    compare("unfold", [X2], kernel_size=(2, 3), **kw)
    compare(
        "fold",
        [rng.standard_normal((2, 24, 12))],
        output_size=(7, 6),
        kernel_size=(2, 3),
        padding=1,
        stride=2,
    )


@pytest.mark.parametrize(
    "kw",
    [
        dict(kernel_size=2),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, return_indices=True),
        dict(kernel_size=(2, 3), dilation=2, return_indices=True),
        dict(kernel_size=(3, 2), stride=(1, 2), padding=(1, 0)),
    ],
    ids=str,
)
def test_max_pool2d(kw):
    compare("max_pool2d", [X2], **kw)


def test_max_pool1d():
    compare(
        "max_pool1d", [X1], kernel_size=3, stride=2, padding=1, ceil_mode=True, return_indices=True
    )


@pytest.mark.parametrize(
    "kw",
    [
        dict(kernel_size=2),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
        dict(kernel_size=(2, 3), divisor_override=5),
    ],
    ids=str,
)
def test_avg_pool2d(kw):
    compare("avg_pool2d", [X2], **kw)


def test_avg_pool1d():
    compare(
        "avg_pool1d",
        [X1],
        kernel_size=4,
        stride=3,
        padding=2,
        ceil_mode=True,
        count_include_pad=False,
    )


@pytest.mark.parametrize("size", [(3, 4), (5, None), 1, (7, 6)], ids=str)
def test_adaptive_pool2d(size):
    compare("adaptive_avg_pool2d", [X2], output_size=size)
    compare("adaptive_max_pool2d", [X2], output_size=size, return_indices=True)


def test_adaptive_pool1d():
    compare("adaptive_avg_pool1d", [X1], output_size=4)
    compare("adaptive_max_pool1d", [X1], output_size=4, return_indices=True)


@pytest.mark.parametrize(
    "kw",
    [
        dict(scale_factor=2),
        dict(size=(5, 11)),
        dict(size=(5, 11), mode="bilinear"),
        dict(size=(14, 4), mode="bilinear", align_corners=True),
        dict(scale_factor=1.7, mode="bilinear"),
        dict(scale_factor=(1.5, 0.5), mode="nearest-exact"),
        dict(size=(3, 4), mode="area"),
        dict(scale_factor=2.5, mode="bilinear", recompute_scale_factor=True),
    ],
    ids=str,
)
def test_interpolate(kw):
    compare("interpolate", [X2], **kw)


def test_interpolate_linear():
    compare("interpolate", [X1], scale_factor=1.3, mode="linear")
    compare("interpolate", [X1], size=4, mode="linear", align_corners=True)


def test_pixel_shuffle_and_unshuffle():
    compare("pixel_shuffle", [rng.standard_normal((2, 8, 3, 2))], upscale_factor=2)
    compare("pixel_unshuffle", [rng.standard_normal((2, 2, 4, 6))], downscale_factor=2)


# --- layers: PyTorch's state dicts load, and the layers then compute what PyTorch's do ----------
LAYERS = [
    ("Conv1d", (4, 6, 3), dict(stride=2, padding=1, groups=2), (2, 4, 9)),
    ("Conv2d", (4, 6, (3, 2)), dict(padding="same", dilation=2, bias=False), (2, 4, 7, 6)),
    ("Conv2d", (4, 6, 3), dict(stride=2, groups=2), (2, 4, 7, 6)),
    ("ConvTranspose1d", (4, 2, 3), dict(stride=3, padding=1), (2, 4, 9)),
    (
        "ConvTranspose2d",
        (4, 6, 3),
        dict(stride=2, padding=1, output_padding=1, groups=2),
        (2, 4, 7, 6),
    ),
]


@pytest.mark.parametrize("name, args, kwargs, shape", LAYERS, ids=lambda v: str(v))
def test_pytorch_state_dict_loads_and_the_layer_matches(name, args, kwargs, shape):
    theirs = getattr(torch.nn, name)(*args, **kwargs).double()
    ours = getattr(tg.nn, name)(*args, **kwargs).double()
    state = {k: v.detach().numpy() for k, v in theirs.state_dict().items()}
    assert {k: v.shape for k, v in ours.state_dict().items()} == {
        k: v.shape for k, v in state.items()
    }
    ours.load_state_dict(state)
    assert repr(ours) == repr(theirs)
    x = rng.standard_normal(shape)
    out, tout = ours(tg.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_conv_transpose_output_size_picks_the_output_padding():
    theirs = torch.nn.ConvTranspose2d(2, 3, 3, stride=3).double()
    ours = tg.nn.ConvTranspose2d(2, 3, 3, stride=3).double()
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    x = rng.standard_normal((1, 2, 4, 4))
    out = ours(tg.tensor(x), output_size=(13, 14))
    tout = theirs(torch.tensor(x), output_size=(13, 14))
    assert out.shape == (1, 3, 13, 14)
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-10)


@pytest.mark.parametrize(
    "name, args",
    [
        ("MaxPool2d", (3, 2, 1)),
        ("AvgPool2d", (3, 2, 1)),
        ("AdaptiveAvgPool2d", ((2, 3),)),
        ("Flatten", ()),
        ("Unflatten", (1, (2, 2))),
        ("ZeroPad2d", ((1, 2, 0, -1),)),
        ("PixelShuffle", (2,)),
        ("Upsample", (None, 2.0, "bilinear")),
    ],
    ids=lambda v: str(v),
)
def test_parameter_free_layers_match_pytorch(name, args):
    x = rng.standard_normal((2, 4, 5, 6))
    ours, theirs = getattr(tg.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    np.testing.assert_allclose(
        ours(tg.tensor(x)).numpy(), theirs(torch.tensor(x)).numpy(), rtol=1e-12
    )


# --- PyTorch's argument names, in PyTorch's order (where PyTorch's signature is readable) --------
FUNCTIONS = COURSE_FUNCTIONS
# NLLLoss left out: ours has no deprecated size_average / reduce arguments
MODULES = [name for name in COURSE_MODULES if name != "NLLLoss"]


def parameter_names(fn):
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):  # a builtin without a signature
        return None
    return None if names == ["args", "kwargs"] else names


@pytest.mark.parametrize("name", FUNCTIONS)
def test_functions_take_pytorchs_arguments(name):
    theirs = parameter_names(getattr(TF, name))
    if theirs is None:
        pytest.skip(f"torch.nn.functional.{name} has no readable signature")
    assert parameter_names(getattr(F, name)) == theirs


@pytest.mark.parametrize("name", MODULES)
def test_modules_take_pytorchs_arguments(name):
    ours, theirs = getattr(tg.nn, name), getattr(torch.nn, name)
    assert parameter_names(ours.__init__) == parameter_names(theirs.__init__)
    assert parameter_names(ours.forward) == parameter_names(theirs.forward)


def test_cdist_takes_pytorchs_arguments():
    assert parameter_names(tg.cdist) == parameter_names(torch.cdist)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("padding", [1, (2, 1), "same"], ids=str)
def test_padding_modes_match_pytorch(mode, padding):
    theirs = torch.nn.Conv2d(3, 4, 3, padding=padding, padding_mode=mode).double()
    ours = tg.nn.Conv2d(3, 4, 3, padding=padding, padding_mode=mode).double()
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    assert repr(ours) == repr(theirs)
    x = rng.standard_normal((2, 3, 6, 5))
    out, tout = ours(tg.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
