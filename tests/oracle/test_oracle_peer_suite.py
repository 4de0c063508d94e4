"""What a peer suite (tinygrad's test_ops.py through a torch-alias shim) found missing, against
PyTorch: scaled_dot_product_attention with attn_mask, dropout_p and is_causal together and with
enable_gqa; pooling with a different padding per axis; negative convolution padding refused as
PyTorch refuses it."""

import numpy as np
import pytest

import tinygrad_norm as tg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(2)


def _sdpa(lib, q, k, v, **options):
    tensors = [lib.tensor(a, requires_grad=True) for a in (q, k, v)]
    mask = options.pop("mask", None)
    if mask is not None:
        options["attn_mask"] = lib.tensor(mask)
    out = lib.nn.functional.scaled_dot_product_attention(*tensors, **options)
    out.sum().backward()
    return [out.detach().numpy()] + [t.grad.numpy() for t in tensors]


@pytest.mark.parametrize("mask", ["bool", "float"])
def test_sdpa_with_a_mask_and_is_causal_together(mask):
    q, k, v = (RNG.normal(size=(2, 3, 4, 5)) for _ in range(3))
    m = RNG.random((4, 4)) > 0.3 if mask == "bool" else RNG.normal(size=(4, 4))
    if mask == "bool":
        m[:, 0] = True  # every query keeps a key
    ours = _sdpa(tg, q, k, v, mask=m, is_causal=True)
    theirs = _sdpa(torch, q, k, v, mask=m, is_causal=True)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, atol=1e-10)


def test_sdpa_with_mask_causal_and_dropout_drops_as_dropout():
    q, k, v = (RNG.normal(size=(2, 3, 4, 5)) for _ in range(3))
    m = RNG.normal(size=(4, 4))
    tg.manual_seed(0)
    out = tg.nn.functional.scaled_dot_product_attention(
        tg.tensor(q), tg.tensor(k), tg.tensor(v), attn_mask=tg.tensor(m), dropout_p=0.5,
        is_causal=True,
    )  # fmt: skip
    full = _sdpa(tg, q, k, v, mask=m, is_causal=True)[0]
    assert out.shape == full.shape and not np.allclose(out.numpy(), full)
    # the expectation is the undropped output: average many draws
    draws = np.mean([
        tg.nn.functional.scaled_dot_product_attention(
            tg.tensor(q), tg.tensor(k), tg.tensor(v), attn_mask=tg.tensor(m), dropout_p=0.5,
            is_causal=True).numpy() for _ in range(400)], axis=0)  # fmt: skip
    np.testing.assert_allclose(draws, full, atol=0.25)


def test_sdpa_grouped_query_attention():
    q = RNG.normal(size=(2, 6, 4, 5))
    k, v = RNG.normal(size=(2, 2, 3, 5)), RNG.normal(size=(2, 2, 3, 7))
    ours = _sdpa(tg, q, k, v, enable_gqa=True)
    theirs = _sdpa(torch, q, k, v, enable_gqa=True)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, atol=1e-10)
    with pytest.raises(RuntimeError):
        _sdpa(tg, q, RNG.normal(size=(2, 4, 3, 5)), RNG.normal(size=(2, 4, 3, 5)), enable_gqa=True)


@pytest.mark.parametrize(
    "op, options",
    [("max_pool2d", dict(kernel_size=(3, 2), padding=(1, 0))),
     ("max_pool2d", dict(kernel_size=(5, 3), padding=(2, 1), stride=(2, 1))),
     ("avg_pool2d", dict(kernel_size=(2, 4), padding=(1, 2))),
     ("avg_pool2d", dict(kernel_size=(3, 2), padding=(0, 1), count_include_pad=False)),
     ("max_pool1d", dict(kernel_size=4, padding=2, stride=3))],
    ids=str,
)  # fmt: skip
def test_pooling_with_a_padding_per_axis(op, options):
    x = RNG.normal(size=(2, 3, 7, 8)) if op.endswith("2d") else RNG.normal(size=(2, 3, 9))
    results = []
    for lib in (tg, torch):
        t = lib.tensor(x, requires_grad=True)
        out = getattr(lib.nn.functional, op)(t, **options)
        out.sum().backward()
        results.append((out.detach().numpy(), t.grad.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, atol=1e-12)


@pytest.mark.parametrize("padding", [-1, (-1, 1)])
def test_negative_convolution_padding_is_refused_as_pytorch(padding):
    x, w = RNG.normal(size=(1, 2, 7, 8)), RNG.normal(size=(3, 2, 3, 3))
    with pytest.raises(RuntimeError, match="negative padding is not supported"):
        torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), padding=padding)
    with pytest.raises(RuntimeError, match="negative padding is not supported.*F.pad"):
        tg.nn.functional.conv2d(tg.tensor(x), tg.tensor(w), padding=padding)
