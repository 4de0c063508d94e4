"""Convolution, pooling and resampling: the identities that define them, their gradients, and
their errors. (Values against naive NumPy loops and PyTorch: the op table, tests/ops/test_ops.py and
tests/oracle/test_oracle_ops.py; more PyTorch comparisons: tests/oracle/test_oracle_conv.py.)"""

import numpy as np
import pytest
from helpers import COURSE_FUNCTIONS, COURSE_MODULES

import tinygrad_norm as tg
import tinygrad_norm.nn.functional as F

rng = np.random.default_rng(0)


def t(*shape, requires_grad=True):
    return tg.tensor(rng.standard_normal(shape), requires_grad=requires_grad)


def test_fold_is_the_adjoint_of_unfold():
    """<fold(c), x> = <c, unfold(x)> for every c and x: col2im is im2col transposed."""
    x, c = rng.standard_normal((2, 3, 5, 6)), rng.standard_normal((2, 3 * 6, 9))
    kw = dict(kernel_size=(2, 3), padding=1, stride=2)
    lhs = (F.fold(tg.tensor(c), (5, 6), **kw).numpy() * x).sum()
    rhs = (c * F.unfold(tg.tensor(x), **kw).numpy()).sum()
    assert lhs == pytest.approx(rhs, rel=1e-12)


def test_conv2d_is_weight_times_unfold():
    """im2col: conv2d(x, w) = w.reshape(C_out, -1) @ unfold(x), reshaped to the output grid."""
    x, w = t(2, 3, 6, 5), t(4, 3, 3, 2)
    y = F.conv2d(x, w, stride=(2, 1), padding=1)
    cols = F.unfold(x, (3, 2), padding=1, stride=(2, 1))  # (N, C·k, L)
    np.testing.assert_allclose(
        y.numpy(), (w.reshape(4, -1) @ cols).reshape(y.shape).numpy(), rtol=1e-12
    )


def test_conv_transpose_is_the_input_gradient_of_conv():
    """d <conv2d(x, w), g> / dx = conv_transpose2d(g, w) with the same stride, padding, ..."""
    x, w, kw = t(1, 4, 7, 6), t(6, 2, 3, 3), dict(stride=2, padding=1, dilation=1, groups=2)
    y = F.conv2d(x, w, **kw)
    g = rng.standard_normal(y.shape)
    (grad_x,) = tg.autograd.grad((y * tg.tensor(g)).sum(), [x])
    # output_padding recovers the input size lost to the stride's rounding down
    back = F.conv_transpose2d(tg.tensor(g), w, output_padding=(0, 1), **kw)
    np.testing.assert_allclose(back.numpy(), grad_x.numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(stride=2, padding="valid"),
        dict(padding="same", dilation=(2, 1)),
        dict(groups=3),
    ],
)
def test_conv2d_first_and_second_derivatives(kw):
    x, w, b = t(1, 3, 5, 4), t(3, 3 // kw.get("groups", 1), 2, 3), t(3)
    assert tg.gradcheck(lambda *a: F.conv2d(*a, **kw), (x, w, b))
    assert tg.gradgradcheck(lambda *a: F.conv2d(*a, **kw), (x, w, b))


def test_conv2d_gradcheck_fast_mode_on_a_bigger_layer():
    x, w = t(2, 4, 9, 9), t(8, 4, 3, 3)
    assert tg.gradcheck(lambda a, b: F.conv2d(a, b, padding=1), (x, w), fast_mode=True)


def test_padding_same_keeps_the_size_and_pads_the_odd_extra_after():
    x = tg.tensor([[[0.0, 1.0, 2.0, 3.0, 4.0]]])
    y = F.conv1d(x, tg.tensor([[[1.0, 0.0]]]), padding="same")  # total pad 1: (0, 1)
    assert y.tolist() == [[[0.0, 1.0, 2.0, 3.0, 4.0]]]
    y = F.conv1d(x, tg.tensor([[[0.0, 0.0, 1.0, 0.0]]]), padding="same")  # pad (1, 2)
    assert y.tolist() == [[[1.0, 2.0, 3.0, 4.0, 0.0]]]


def test_unbatched_inputs_give_unbatched_outputs():
    x, w = t(3, 5, 5, requires_grad=False), t(2, 3, 3, 3, requires_grad=False)
    assert F.conv2d(x, w).shape == (2, 3, 3)
    np.testing.assert_allclose(F.conv2d(x, w).numpy(), F.conv2d(x.unsqueeze(0), w)[0].numpy())
    assert F.max_pool2d(x, 2).shape == (3, 2, 2)
    assert F.conv_transpose1d(t(3, 4), t(3, 2, 2)).shape == (2, 5)


def test_max_pool_sends_each_window_gradient_to_its_maximum_only():
    x = tg.tensor([[[1.0, 5.0, 2.0, 0.0, 3.0]]], requires_grad=True)
    y = F.max_pool1d(x, 3, stride=1)  # windows [1 5 2] [5 2 0] [2 0 3]: maxima 5, 5, 3
    assert y.tolist() == [[[5.0, 5.0, 3.0]]]
    y.backward(tg.tensor([[[1.0, 10.0, 100.0]]]))
    assert x.grad.tolist() == [[[0.0, 11.0, 0.0, 0.0, 100.0]]]  # overlapping windows add up


def test_max_pool_ties_go_to_the_first_maximum_as_pytorch():
    x = tg.tensor([[[[2.0, 2.0], [1.0, 2.0]]]], requires_grad=True)
    F.max_pool2d(x, 2).sum().backward()
    assert x.grad.tolist() == [[[[1.0, 0.0], [0.0, 0.0]]]]


@pytest.mark.parametrize(
    "kernel, stride, pads",
    [((2, 2), (2, 2), ((0, 0), (0, 0))), ((3, 2), (1, 2), ((1, 1), (0, 0)))],
)
def test_fused_max_pool_equals_its_composed_reference(kernel, stride, pads):
    """`MaxPool` (one node) and `max_pool_reference` (Unfold, masked_fill, sum): the same
    values, gradients and second derivatives; overlapping windows add their gradients."""
    from tinygrad_norm.ops import pool
    from tinygrad_norm.ops.conv import windows

    rng = np.random.default_rng(0)
    x = tg.tensor(rng.standard_normal((2, 3, 5, 6)), requires_grad=True)
    g = windows("max_pool2d", x.shape[2:], kernel, stride, (1, 1), pads)
    fused, composed = pool.MaxPool.apply(x, g), pool.max_pool_reference(x, g)
    np.testing.assert_array_equal(fused.data, composed.data)
    upstream = tg.tensor(rng.standard_normal(fused.shape))
    (a,) = tg.autograd.grad(fused, [x], upstream)
    (b,) = tg.autograd.grad(composed, [x], upstream)
    np.testing.assert_allclose(a.data, b.data, rtol=1e-15)
    assert fused.grad_fn.name == "MaxPoolBackward" and fused.grad_fn.edges[0] is x
    assert tg.gradcheck(lambda t: pool.MaxPool.apply(t, g), (x,))
    assert tg.gradgradcheck(lambda t: pool.MaxPool.apply(t, g), (x,))


@pytest.mark.parametrize(
    "x_shape, w_shape, stride, dilation, pads, groups",
    [
        ((2, 3, 6, 5), (4, 3, 3, 2), (2, 1), (1, 1), ((1, 1), (0, 2)), 1),
        ((3, 4, 7), (6, 2, 3), (1,), (2,), ((1, 2),), 2),
        ((1, 2, 4, 3, 4), (2, 1, 2, 2, 1), (1, 2, 1), (1, 1, 2), ((0, 0), (1, 0), (0, 1)), 2),
    ],
)
def test_fused_conv_equals_its_composed_reference(x_shape, w_shape, stride, dilation, pads, groups):
    """`Conv` (one node, the batch's columns in one GEMM) and `conv_reference` (Unfold, a
    batched MatMul, Add): the same values, gradients and second derivatives, in 1-d, 2-d, 3-d,
    with stride, dilation, uneven padding and groups."""
    from tinygrad_norm.ops.conv import windows
    from tinygrad_norm.ops.fused.conv import Conv, conv_reference

    x, w, b = t(*x_shape), t(*w_shape), t(w_shape[0])
    g = windows("conv", x.shape[2:], w.shape[2:], stride, dilation, pads)
    fused, composed = Conv.apply(x, w, b, g, groups), conv_reference(x, w, b, g, groups)
    np.testing.assert_allclose(fused.data, composed.data, rtol=1e-12, atol=1e-12)
    upstream = tg.tensor(rng.standard_normal(fused.shape))
    grads = tg.autograd.grad(fused, [x, w, b], upstream)
    expected = tg.autograd.grad(composed, [x, w, b], upstream)
    for a, e in zip(grads, expected):
        np.testing.assert_allclose(a.data, e.data, rtol=1e-12, atol=1e-12)
    assert fused.grad_fn.name == "ConvBackward"
    assert tg.gradcheck(lambda *a: Conv.apply(*a, g, groups), (x, w, b))
    assert tg.gradgradcheck(lambda *a: Conv.apply(*a, g, groups), (x, w, b))


def test_fused_conv_keeps_float32_and_needs_no_input_gradient():
    """float32 stays float32; an input that needs no gradient (the images) gets none, and
    the weight's gradient is still right."""
    from tinygrad_norm.ops.conv import windows
    from tinygrad_norm.ops.fused.conv import Conv, conv_reference

    x = tg.tensor(rng.standard_normal((2, 1, 6, 6)).astype(np.float32))
    w = tg.tensor(rng.standard_normal((3, 1, 3, 3)).astype(np.float32), requires_grad=True)
    g = windows("conv2d", (6, 6), (3, 3), (1, 1), (1, 1), ((1, 1), (1, 1)))
    y = Conv.apply(x, w, None, g, 1)
    assert y.dtype == tg.float32
    y.sum().backward()
    (expected,) = tg.autograd.grad(conv_reference(x, w, None, g, 1).sum(), [w])
    assert w.grad.dtype == tg.float32 and x.grad is None
    np.testing.assert_allclose(w.grad.numpy(), expected.numpy(), rtol=1e-5)


@pytest.mark.oracle
def test_max_pool_nan_and_ties_as_pytorch():
    """A NaN in a window wins (its value and its gradient), ties go to the first maximum."""
    torch = pytest.importorskip("torch")
    a = np.array([[[[1.0, np.nan, 2.0, 2.0], [np.nan, 0.0, 2.0, 1.0], [3, 3, 0, 0], [3, 3, 0, 0]]]])
    x, xt = tg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    y, yt = F.max_pool2d(x, 2), torch.nn.functional.max_pool2d(xt, 2)
    np.testing.assert_array_equal(y.numpy(), yt.detach().numpy())
    y.sum().backward()
    yt.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), xt.grad.numpy())


def test_max_pool_indices_point_at_the_maxima():
    x = t(2, 3, 7, 6, requires_grad=False)
    y, idx = F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, return_indices=True)
    assert idx.dtype == tg.int64 and idx.shape == y.shape
    picked = np.take_along_axis(x.numpy().reshape(2, 3, -1), idx.numpy().reshape(2, 3, -1), -1)
    np.testing.assert_array_equal(picked.reshape(y.shape), y.numpy())
    y, idx = F.adaptive_max_pool2d(x, (3, 4), return_indices=True)
    picked = np.take_along_axis(x.numpy().reshape(2, 3, -1), idx.numpy().reshape(2, 3, -1), -1)
    np.testing.assert_array_equal(picked.reshape(y.shape), y.numpy())


def test_avg_pool_counts_the_padding_only_when_asked():
    x = tg.ones(1, 1, 2, 2)
    assert F.avg_pool2d(x, 2, padding=1).tolist() == [[[[0.25, 0.25], [0.25, 0.25]]]]
    assert F.avg_pool2d(x, 2, padding=1, count_include_pad=False).tolist() == [
        [[[1.0, 1.0], [1.0, 1.0]]]
    ]
    assert F.avg_pool2d(x, 2, divisor_override=2).tolist() == [[[[2.0]]]]


def test_adaptive_avg_pool_to_one_is_the_mean():
    x = t(2, 3, 5, 7, requires_grad=False)
    np.testing.assert_allclose(
        F.adaptive_avg_pool2d(x, 1).numpy(), x.numpy().mean((2, 3), keepdims=True), rtol=1e-12
    )


def test_interpolate_align_corners_keeps_the_corners():
    x = t(1, 1, 3, 4, requires_grad=False)
    y = F.interpolate(x, size=(7, 10), mode="bilinear", align_corners=True).numpy()
    np.testing.assert_allclose(y[..., ::3, ::3], x.numpy(), rtol=1e-12)


def test_pixel_unshuffle_undoes_pixel_shuffle():
    x = t(2, 12, 3, 4, requires_grad=False)
    y = F.pixel_shuffle(x, 2)
    assert y.shape == (2, 3, 6, 8)
    np.testing.assert_array_equal(F.pixel_unshuffle(y, 2).numpy(), x.numpy())


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: F.conv2d(tg.ones(1, 3, 5, 5), tg.ones(2, 2, 3, 3)), "channels"),
        (
            lambda: F.conv2d(tg.ones(1, 2, 5, 5), tg.ones(2, 2, 3, 3), stride=2, padding="same"),
            "strided",
        ),
        (lambda: F.conv2d(tg.ones(1, 2, 2, 2), tg.ones(2, 2, 3, 3)), "no window fits"),
        (lambda: F.conv2d(tg.ones(1, 2, 5, 5), tg.ones(2, 2, 3, 3), padding="full"), "padding"),
        (lambda: F.conv2d(tg.ones(2, 5), tg.ones(2, 2, 3, 3)), "4-d input"),
        (lambda: F.conv2d(tg.ones(1, 2, 5, 5), tg.ones(2, 2, 3, 3, dtype=tg.float64)), "dtype"),
        (
            lambda: F.conv_transpose2d(
                tg.ones(1, 2, 3, 3), tg.ones(2, 1, 2, 2), stride=2, output_padding=2
            ),
            "output_padding",
        ),
        (lambda: F.max_pool2d(tg.ones(1, 1, 4, 4), 2, padding=2), "half"),
        (lambda: F.fold(tg.ones(1, 5, 4), (3, 3), 2), "fold"),
    ],
)
def test_mistakes_raise_runtime_error_with_the_reason(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


def test_interpolate_mistakes():
    with pytest.raises(ValueError, match="exactly one"):
        F.interpolate(tg.ones(1, 1, 2, 2))
    with pytest.raises(ValueError, match="bilinear"):
        F.interpolate(tg.ones(1, 1, 2), scale_factor=2, mode="bilinear")


@pytest.mark.parametrize(
    "fn, shape",
    [
        (lambda x: F.conv2d(x, tg.ones(3, 2, 3, 3, dtype=tg.float64)), (0, 3, 3, 3)),
        (lambda x: F.conv_transpose2d(x, tg.ones(2, 3, 2, 2, dtype=tg.float64)), (0, 3, 6, 6)),
        (lambda x: F.max_pool2d(x, 2), (0, 2, 2, 2)),
        (lambda x: F.avg_pool2d(x, 2, padding=1), (0, 2, 3, 3)),
        (lambda x: F.adaptive_max_pool2d(x, 2), (0, 2, 2, 2)),
        (lambda x: F.adaptive_avg_pool2d(x, 3), (0, 2, 3, 3)),
        (lambda x: F.unfold(x, 2), (0, 8, 16)),
        (lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), (0, 2, 10, 10)),
    ],
)
def test_an_empty_batch_gives_an_empty_batch(fn, shape):
    x = tg.zeros(0, 2, 5, 5, dtype=tg.float64, requires_grad=True)
    y = fn(x)
    assert y.shape == shape
    y.sum().backward()
    assert x.grad.shape == x.shape


def test_every_convolution_pooling_and_loss_name_exists():
    """Every convolution, pooling and loss name a course uses: in F and in F.__all__, as a module
    in nn, and tg.cdist."""
    missing = [f"F.{n}" for n in COURSE_FUNCTIONS if not callable(getattr(F, n, None))]
    missing += [f"F.__all__: {n}" for n in COURSE_FUNCTIONS if n not in F.__all__]
    missing += [f"nn.{n}" for n in COURSE_MODULES if not isinstance(getattr(tg.nn, n, None), type)]
    missing += [] if callable(getattr(tg, "cdist", None)) else ["tg.cdist"]
    assert not missing
