"""The fused operations (ops/fused/): each equals its reference, the same computation composed
from primitives that lives beside it (`fused.layer_norm_reference`, ...): values, gradients and
second derivatives, float64. Each passes gradcheck and gradgradcheck, and stays finite on huge
and infinite logits where the mathematics is finite."""

import math

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.ops import fused
from tinygrad_norm.ops.fused.batch_norm import channel_sum
from tinygrad_norm.ops.fused.embedding import ONE_HOT_LIMIT, sum_rows_by_index

RTOL, ATOL = 1e-12, 1e-13


def leaf(shape, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    return tg.tensor(rng.standard_normal(shape) * scale, requires_grad=True)


def probabilities(shape, seed=0):
    p = np.random.default_rng(seed).uniform(0.1, 1.0, shape)
    return p / p.sum(axis=1, keepdims=True)


def assert_same(fused_fn, composed_fn, inputs, seed=1):
    """Same values, same gradients, and same second derivatives (gradient of a random
    projection of the gradient, through create_graph)."""
    out_f, out_c = fused_fn(*inputs), composed_fn(*inputs)
    np.testing.assert_allclose(out_f.data, out_c.data, rtol=RTOL, atol=ATOL)
    rng = np.random.default_rng(seed)
    weight = tg.tensor(rng.standard_normal(out_f.shape))
    wants = [x for x in inputs if x.requires_grad]
    grads_f = tg.autograd.grad((out_f * weight).sum(), wants, create_graph=True)
    grads_c = tg.autograd.grad((out_c * weight).sum(), wants, create_graph=True)
    for g_f, g_c in zip(grads_f, grads_c):
        np.testing.assert_allclose(g_f.data, g_c.data, rtol=RTOL, atol=ATOL)
    directions = [tg.tensor(rng.standard_normal(g.shape)) for g in grads_f]
    for h_f, h_c in zip(second(grads_f, directions, wants), second(grads_c, directions, wants)):
        np.testing.assert_allclose(h_f, h_c, rtol=1e-10, atol=1e-12)


def second(grads, directions, wants):
    """d/dx of sum(grad * direction): one Hessian-vector product per input (zeros where the
    gradient does not depend on that input, e.g. the bias of layer_norm)."""
    projected = sum((g * d).sum() for g, d in zip(grads, directions))
    if not projected.requires_grad:  # the gradient is constant: every Hessian is zero
        return [np.zeros(x.shape) for x in wants]
    hvps = tg.autograd.grad(projected, wants, allow_unused=True)
    return [np.zeros(x.shape) if h is None else h.data for h, x in zip(hvps, wants)]


_CAUSAL = np.tril(np.ones((4, 4), dtype=bool))
_PADDED = _CAUSAL & np.array([True, True, False, True])[None, None, None, :]  # (1, 1, 4, 4)
_NOWHERE = np.ones((2, 1, 4, 4), dtype=bool)
_NOWHERE[1, :, 2] = False  # query 2 of sample 1 may attend to no key: zero weights


def _attention(allowed, n_head=2, scale=0.5):
    return (
        lambda qkv: fused.self_attention(qkv, n_head, allowed, scale),
        lambda qkv: fused.self_attention_reference(qkv, n_head, allowed, scale),
    )


# --- the cases: (name, fused fn, composed fn, inputs) --------------------------------------------
def _ce(target, label_smoothing=0.0, **kw):
    fused_fn = lambda x: fused.cross_entropy(x, target, label_smoothing=label_smoothing, **kw)
    composed_fn = lambda x: fused.cross_entropy_reference(x, target, eps=label_smoothing, **kw)
    return fused_fn, composed_fn


def _reverse_lstm_layer():
    return (
        lambda *args: fused.lstm_layer(*args, reverse=True),
        lambda *args: fused.lstm_layer_reference(*args, reverse=True),
    )


def _bce(**kw):
    return (
        lambda x, t: fused.bce_with_logits(x, t, **kw),
        lambda x, t: fused.bce_with_logits_reference(x, t, **kw),
    )


_BCE_TARGET = np.array([[1.0, 0.0, 0.3], [0.0, 1.0, 0.8]])
_TARGET = tg.tensor([0, 3, -100, 2, 3])
_TARGET_ND = tg.tensor([[0, 2, 1], [-1, 1, 1]])
_CLASS_WEIGHT = np.array([0.5, 2.0, 1.0, 1.5])

CASES = [
    ("softmax_last", lambda x: fused.softmax(x, -1), lambda x: fused.softmax_reference(x, -1),
     lambda: (leaf((3, 5)),)),
    ("softmax_dim0_3d", lambda x: fused.softmax(x, 0), lambda x: fused.softmax_reference(x, 0),
     lambda: (leaf((3, 2, 4)),)),
    ("softmax_0d", lambda x: fused.softmax(x, 0), lambda x: fused.softmax_reference(x, 0),
     lambda: (leaf(()),)),
    ("log_softmax_last", lambda x: fused.log_softmax(x, -1),
     lambda x: fused.log_softmax_reference(x, -1), lambda: (leaf((3, 5)),)),
    ("log_softmax_dim1_3d", lambda x: fused.log_softmax(x, 1),
     lambda x: fused.log_softmax_reference(x, 1), lambda: (leaf((2, 4, 3)),)),
    ("layer_norm_plain", lambda x: fused.layer_norm(x, None, None, 1, 1e-5),
     lambda x: fused.layer_norm_reference(x, None, None, 1, 1e-5), lambda: (leaf((4, 6)),)),
    ("layer_norm_affine", lambda x, w, b: fused.layer_norm(x, w, b, 1, 1e-5),
     lambda x, w, b: fused.layer_norm_reference(x, w, b, 1, 1e-5),
     lambda: (leaf((2, 3, 5)), leaf((5,), 1), leaf((5,), 2))),
    ("layer_norm_two_axes", lambda x, w, b: fused.layer_norm(x, w, b, 2, 1e-5),
     lambda x, w, b: fused.layer_norm_reference(x, w, b, 2, 1e-5),
     lambda: (leaf((2, 3, 4)), leaf((3, 4), 1), leaf((3, 4), 2))),
    ("layer_norm_three_axes", lambda x, w, b: fused.layer_norm(x, w, b, 3, 1e-3),
     lambda x, w, b: fused.layer_norm_reference(x, w, b, 3, 1e-3),
     lambda: (leaf((2, 2, 3, 2)), leaf((2, 3, 2), 1), leaf((2, 3, 2), 2))),
    ("layer_norm_all_axes", lambda x, w: fused.layer_norm(x, w, None, 2, 1e-5),
     lambda x, w: fused.layer_norm_reference(x, w, None, 2, 1e-5),
     lambda: (leaf((3, 4)), leaf((3, 4), 1))),
    ("layer_norm_broadcast_weight", lambda x, w, b: fused.layer_norm(x, w, b, 2, 1e-5),
     lambda x, w, b: fused.layer_norm_reference(x, w, b, 2, 1e-5),
     lambda: (leaf((2, 3, 4)), leaf((4,), 1), leaf((3, 1), 2))),
    ("layer_norm_bias_only", lambda x, b: fused.layer_norm(x, None, b, 1, 1e-5),
     lambda x, b: fused.layer_norm_reference(x, None, b, 1, 1e-5),
     lambda: (leaf((3, 4)), leaf((4,), 2))),
    ("linear", fused.linear, fused.linear_reference,
     lambda: (leaf((2, 3, 4)), leaf((4, 5), 1), leaf((5,), 2))),
    ("linear_no_bias_2d", fused.linear, fused.linear_reference,
     lambda: (leaf((3, 4)), leaf((4, 2), 1))),
    ("linear_out_in", lambda x, w, b: fused.linear(x, w, b, out_in=True),
     lambda x, w, b: fused.linear_reference(x, w, b, out_in=True),
     lambda: (leaf((2, 3, 4)), leaf((5, 4), 1), leaf((5,), 2))),
    ("attention_causal", *_attention(_CAUSAL), lambda: (leaf((2, 4, 12)),)),
    ("attention_one_head_padding", *_attention(_PADDED, n_head=1, scale=1.0),
     lambda: (leaf((2, 4, 6)),)),
    ("attention_query_with_no_key", *_attention(_NOWHERE), lambda: (leaf((2, 4, 12)),)),
    ("gelu", lambda x: fused.gelu(x), fused.gelu_reference, lambda: (leaf((3, 4), scale=2.0),)),
    ("gelu_tanh", lambda x: fused.gelu(x, "tanh"), lambda x: fused.gelu_reference(x, "tanh"),
     lambda: (leaf((3, 4), scale=2.0),)),
    ("gelu_0d", lambda x: fused.gelu(x), fused.gelu_reference, lambda: (leaf((), scale=2.0),)),
    ("gelu_tanh_0d", lambda x: fused.gelu(x, "tanh"), lambda x: fused.gelu_reference(x, "tanh"),
     lambda: (leaf((), scale=2.0),)),
    ("batch_norm_2d", fused.batch_norm, fused.batch_norm_reference,
     lambda: (leaf((5, 3)), leaf((3,), 1), leaf((3,), 2))),
    ("batch_norm_4d", fused.batch_norm, fused.batch_norm_reference,
     lambda: (leaf((2, 3, 2, 2)), leaf((3,), 1), leaf((3,), 2))),
    ("batch_norm_no_affine", fused.batch_norm, fused.batch_norm_reference,
     lambda: (leaf((4, 2, 3)),)),
    ("lstm_cell", fused.lstm_cell, fused.lstm_cell_reference,
     lambda: (leaf((3, 8), scale=2.0), leaf((3, 2)), leaf((3, 2), 1), leaf((8, 2), 2),
              leaf((8,), 3))),
    ("lstm_cell_unbatched_no_bias", fused.lstm_cell, fused.lstm_cell_reference,
     lambda: (leaf((12,), scale=2.0), leaf((3,)), leaf((3,), 1), leaf((12, 3), 2))),
    ("lstm_layer", fused.lstm_layer, fused.lstm_layer_reference,
     lambda: (leaf((3, 2, 8), scale=2.0), leaf((2, 2)), leaf((2, 2), 1), leaf((8, 2), 2),
              leaf((8,), 3))),
    ("lstm_layer_reverse_no_bias", *_reverse_lstm_layer(),
     lambda: (leaf((4, 1, 12), scale=2.0), leaf((1, 3)), leaf((1, 3), 1), leaf((12, 3), 2))),
    ("bce_with_logits_mean", *_bce(), lambda: (leaf((2, 3), scale=3.0), tg.tensor(_BCE_TARGET))),
    ("bce_with_logits_sum_grad_target", *_bce(reduction="sum"),
     lambda: (leaf((2, 3), scale=3.0), tg.tensor(_BCE_TARGET, requires_grad=True))),
    ("bce_with_logits_none_weights",
     *_bce(pos_weight=np.array([2.0, 0.5, 1.5]), weight=np.array([[1.0, 0.2, 3.0]]),
           reduction="none"),
     lambda: (leaf((2, 3), scale=3.0), tg.tensor(_BCE_TARGET, requires_grad=True))),
    ("cross_entropy_mean", *_ce(_TARGET), lambda: (leaf((5, 4)),)),
    ("cross_entropy_sum", *_ce(_TARGET, reduction="sum"), lambda: (leaf((5, 4)),)),
    ("cross_entropy_none", *_ce(_TARGET, reduction="none"), lambda: (leaf((5, 4)),)),
    ("cross_entropy_smoothing", *_ce(_TARGET, label_smoothing=0.2), lambda: (leaf((5, 4)),)),
    ("cross_entropy_weight_smoothing",
     *_ce(_TARGET, weight=_CLASS_WEIGHT, label_smoothing=0.3), lambda: (leaf((5, 4)),)),
    ("cross_entropy_weight_none",
     *_ce(_TARGET, weight=_CLASS_WEIGHT, reduction="none", label_smoothing=0.1),
     lambda: (leaf((5, 4)),)),
    ("cross_entropy_nd_ignore_index", *_ce(_TARGET_ND, ignore_index=-1, label_smoothing=0.1),
     lambda: (leaf((2, 3, 3)),)),
    ("cross_entropy_probabilities",
     lambda x, p: fused.cross_entropy(x, p, label_smoothing=0.25),
     lambda x, p: fused.cross_entropy_reference(x, p, eps=0.25),
     lambda: (leaf((3, 4)), tg.tensor(probabilities((3, 4)), requires_grad=True))),
    ("cross_entropy_probabilities_nd_weight",
     lambda x, p: fused.cross_entropy(x, p, tg.tensor(_CLASS_WEIGHT), reduction="sum"),
     lambda x, p: fused.cross_entropy_reference(x, p, _CLASS_WEIGHT, reduction="sum"),
     lambda: (leaf((2, 4, 3)), tg.tensor(probabilities((2, 4, 3)), requires_grad=True))),
]  # fmt: skip
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name, fused_fn, composed_fn, make_inputs", CASES, ids=IDS)
def test_fused_equals_composed(name, fused_fn, composed_fn, make_inputs):
    assert_same(fused_fn, composed_fn, make_inputs())


@pytest.mark.parametrize("name, fused_fn, composed_fn, make_inputs", CASES, ids=IDS)
def test_gradcheck(name, fused_fn, composed_fn, make_inputs):
    assert tg.gradcheck(fused_fn, make_inputs())


@pytest.mark.parametrize("name, fused_fn, composed_fn, make_inputs", CASES, ids=IDS)
def test_gradgradcheck(name, fused_fn, composed_fn, make_inputs):
    assert tg.gradgradcheck(fused_fn, make_inputs())


def test_each_fused_op_is_one_node_with_a_formula():
    x = leaf((2, 3))
    outputs = {
        "SoftmaxBackward": x.softmax(-1),  # Tensor.softmax is the fused op
        "LogSoftmaxBackward": x.log_softmax(-1),
        "LayerNormBackward": fused.layer_norm(x),
        "GeluBackward": fused.gelu(x),
        "CrossEntropyBackward": fused.cross_entropy(x, tg.tensor([0, 2])),
        "EmbeddingBackward": fused.Embedding.apply(x, index=np.array([1, 0, 1])),
        "LinearBackward": fused.linear(x, tg.ones(3, 2)),
        "BCEWithLogitsBackward": fused.bce_with_logits(x, tg.zeros(2, 3)),
    }
    qkv = leaf((1, 2, 3))
    outputs["SelfAttentionBackward"] = fused.self_attention(qkv, 1, _CAUSAL[:2, :2], 1.0)
    for name, out in outputs.items():
        assert out.grad_fn.name == name
        assert out.grad_fn.edges[0] is (qkv if name == "SelfAttentionBackward" else x)  # one node
        assert "grad" in out.grad_fn.formula


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_matches_its_formula_in_numpy(approximate):
    x = np.linspace(-6, 6, 49)
    erf = np.vectorize(math.erf)
    if approximate == "none":
        expected = x * 0.5 * (1 + erf(x / math.sqrt(2)))
    else:
        expected = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    out = fused.gelu(tg.tensor(x), approximate)
    np.testing.assert_allclose(out.data, expected, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("name, fused_fn, composed_fn, make_inputs", CASES, ids=IDS)
def test_fast_path_and_create_graph_path_agree(name, fused_fn, composed_fn, make_inputs):
    """Backward uses the arrays saved in forward unless the backward itself is recorded
    (create_graph); then it recomputes from the saved inputs. Both give the same gradients."""
    inputs = make_inputs()
    out = fused_fn(*inputs)
    g = tg.tensor(np.random.default_rng(3).standard_normal(out.shape))
    wants = [x for x in inputs if x.requires_grad]
    fast = tg.autograd.grad(out, wants, g, retain_graph=True)
    recorded = tg.autograd.grad(out, wants, g, create_graph=True)
    assert recorded[0].requires_grad and not fast[0].requires_grad
    for f, r in zip(fast, recorded):
        np.testing.assert_allclose(f.data, r.data, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("name, fused_fn, composed_fn, make_inputs", CASES, ids=IDS)
def test_fast_path_applies_no_tensor_operation(
    name, fused_fn, composed_fn, make_inputs, monkeypatch
):
    """When nothing is recorded, each fused backward formula runs on the arrays themselves
    (`ops/xp.py`): no Function is applied inside it (no Tensor op overhead). (The engine's
    Sum that undoes broadcasting runs outside the backward, and is not counted.)"""
    inputs = make_inputs()
    out = fused_fn(*inputs)
    g = tg.tensor(np.random.default_rng(3).standard_normal(out.shape))
    fn, inside, applied = out.grad_fn.fn, [], []
    backward, apply = fn.backward, tg.Function.apply.__func__

    def counting_apply(cls, *args, **kwargs):
        applied.extend([cls] if inside else [])
        return apply(cls, *args, **kwargs)

    def watched_backward(ctx, grad_output):
        inside.append(True)
        try:
            return backward(ctx, grad_output)
        finally:
            inside.pop()

    monkeypatch.setattr(tg.Function, "apply", classmethod(counting_apply))
    monkeypatch.setattr(fn, "backward", staticmethod(watched_backward))
    tg.autograd.grad(out, [x for x in inputs if x.requires_grad], g)
    assert applied == []


def test_float32_stays_float32():
    x = tg.randn(4, 6, requires_grad=True)
    w, b = tg.ones(6, requires_grad=True), tg.zeros(6, requires_grad=True)
    outs = [
        fused.softmax(x, -1),
        fused.log_softmax(x, -1),
        fused.layer_norm(x, w, b),
        fused.gelu(x),
        fused.gelu(x, "tanh"),
        fused.cross_entropy(x, tg.tensor([0, 1, 2, 5]), label_smoothing=0.1),
    ]
    for out in outs:
        assert out.dtype == tg.float32
        out.sum().backward()
    assert x.grad.dtype == w.grad.dtype == b.grad.dtype == tg.float32


# --- numerical stability -------------------------------------------------------------------------
def test_huge_logits_give_finite_values_and_gradients():
    rows = [[1e4, -1e4, 0.0, 1e4 - 1.0], [-1e4, -1e4 + 2, -1e4, -1e4]]
    x = tg.tensor(rows, dtype=tg.float64, requires_grad=True)
    y = fused.softmax(x, -1)
    e = math.exp(-1) / (1 + math.exp(-1))
    np.testing.assert_allclose(y.data[0], [1 - e, 0, 0, e], rtol=1e-12, atol=0)
    logp = fused.log_softmax(x, -1)
    np.testing.assert_allclose(logp.data[0, 1], -2e4 - math.log(1 + math.exp(-1)), rtol=1e-12)
    loss = fused.cross_entropy(x, tg.tensor([1, 1]), label_smoothing=0.1)
    (y.sum() + logp[:, 0].sum() + loss).backward()
    assert np.isfinite(y.data).all() and np.isfinite(logp.data).all()
    assert np.isfinite(loss.item()) and loss.item() > 1e3  # class 1 of row 0 is very unlikely
    assert np.isfinite(x.grad.data).all()


def test_minus_inf_logits_give_exact_zeros_not_nan():
    inf = math.inf
    rows = [[0.0, -inf, math.log(3.0)], [-inf, 2.0, -inf]]
    x = tg.tensor(rows, dtype=tg.float64, requires_grad=True)
    y = fused.softmax(x, -1)
    np.testing.assert_allclose(y.data, [[0.25, 0, 0.75], [0, 1, 0]], rtol=1e-15)
    logp = fused.log_softmax(x, -1)
    assert logp.data[0, 1] == -inf and logp.data[1, 1] == 0.0
    loss = fused.cross_entropy(x, tg.tensor([2, 1]))  # the -inf classes are never the target
    np.testing.assert_allclose(loss.item(), -math.log(0.75) / 2, rtol=1e-15)
    g = tg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    grad_softmax, grad_log_softmax, grad_loss = (
        tg.autograd.grad(out, x, grad, retain_graph=True)[0]
        for out, grad in ((y, g), (logp.masked_fill(logp.data == -inf, 0.0), g), (loss, None))
    )
    for grad in (grad_softmax, grad_log_softmax, grad_loss):
        assert np.isfinite(grad.data).all()
        assert grad.data[0, 1] == 0.0 and grad.data[1, 0] == 0.0 and grad.data[1, 2] == 0.0
    # softmax: y * (g - sum(g * y)), row 0: sum(g * y) = 0.25 + 2.25 = 2.5
    np.testing.assert_allclose(grad_softmax.data[0], [0.25 * -1.5, 0, 0.75 * 0.5], rtol=1e-15)
    # cross-entropy: (p - onehot) / N
    np.testing.assert_allclose(grad_loss.data[0], [0.125, 0, -0.125], rtol=1e-15)


def test_second_derivatives_stay_finite_with_minus_inf():
    x = tg.tensor([[0.5, -math.inf, 1.0]], dtype=tg.float64, requires_grad=True)
    for f in (lambda x: fused.softmax(x, -1)[:, 0], lambda x: fused.log_softmax(x, -1)[:, 2]):
        (grad,) = tg.autograd.grad(f(x).sum(), x, create_graph=True)
        (hess_row,) = tg.autograd.grad(grad[0, 0], x)
        assert np.isfinite(hess_row.data).all() and hess_row.data[0, 1] == 0.0


def test_a_slice_of_only_minus_inf_is_nan_as_in_pytorch():
    with np.errstate(invalid="ignore"):
        y = fused.softmax(tg.tensor([-math.inf, -math.inf]), 0)
    assert np.isnan(y.data).all()


# --- embedding -----------------------------------------------------------------------------------
def test_embedding_gradient_adds_repeated_rows_like_np_add_at():
    rng = np.random.default_rng(0)
    weight = tg.tensor(rng.standard_normal((7, 3)), requires_grad=True)
    index = rng.integers(0, 7, (4, 5))
    index[0, :3] = 2  # repeats
    out = fused.Embedding.apply(weight, index=index)
    np.testing.assert_array_equal(out.data, weight.data[index])
    g = rng.standard_normal(out.shape)
    out.backward(tg.tensor(g))
    expected = np.zeros((7, 3))
    np.add.at(expected, index, g)
    np.testing.assert_allclose(weight.grad.data, expected, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("n_rows", [5, 700])  # a one-hot matmul, then sorting (> 16k entries)
def test_sum_rows_by_index_both_ways_equal_np_add_at(n_rows):
    rng = np.random.default_rng(1)
    index = rng.integers(0, n_rows, (6, 5))
    index[0, :4] = 3  # repeats
    grad = rng.standard_normal((6, 5, 4))
    expected = np.zeros((n_rows, 4))
    np.add.at(expected, index, grad)
    assert (n_rows * index.size <= ONE_HOT_LIMIT) == (n_rows == 5)
    np.testing.assert_allclose(sum_rows_by_index(grad, index, n_rows), expected, rtol=1e-14,
                               atol=1e-15)  # fmt: skip


@pytest.mark.filterwarnings("error")
def test_sum_rows_by_index_keeps_inf_and_nan_in_their_own_rows():
    # A small table takes the one-hot product, where 0 * inf = NaN would reach every row.
    index = np.array([0, 1, 1, 3])
    grad = np.ones((4, 3))
    grad[0, 0], grad[2, 1] = np.inf, np.nan
    expected = np.zeros((5, 3))
    np.add.at(expected, index, grad)  # row 0: inf in column 0; row 1: NaN in column 1
    np.testing.assert_array_equal(sum_rows_by_index(grad, index, 5), expected)


def test_embedding_gradcheck_and_gradgradcheck():
    index = np.array([[0, 2, 2], [3, 0, 2]])
    fn = lambda w: fused.Embedding.apply(w, index=index)
    assert tg.gradcheck(fn, (leaf((4, 3)),))
    assert tg.gradgradcheck(fn, (leaf((4, 3)),))
    assert_same(fn, lambda w: fused.embedding_reference(w, index), (leaf((4, 3)),))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_of_integers_is_computed_in_float64(approximate):
    out = fused.gelu(tg.tensor([-1, 0, 2]), approximate)
    expected = fused.gelu(tg.tensor([-1.0, 0.0, 2.0], dtype=tg.float64), approximate)
    assert out.dtype == tg.float64
    np.testing.assert_array_equal(out.data, expected.data)


def test_layer_norm_with_a_float64_bias_promotes_as_numpy_does():
    """The library's rule for mixed dtypes is NumPy's: float32 with float64 gives float64
    (PyTorch refuses the mix). The bias must not be added in place into a float32 output."""
    x = tg.tensor(np.random.default_rng(0).standard_normal((2, 3)), dtype=tg.float32)
    w, b = tg.ones(3), tg.tensor([0.1, 0.2, 0.3], dtype=tg.float64)
    y = fused.layer_norm(x, w, b)
    assert y.dtype == tg.float64
    # NOTE: the normalization itself ran in float32 (about 1e-7 relative, and outputs near 0
    # have no relative accuracy, hence atol); only the bias was added in float64, exactly
    expected = fused.layer_norm(x.double(), w.double(), b)
    np.testing.assert_allclose(y.data, expected.data, rtol=1e-5, atol=1e-6)
    unbiased = fused.layer_norm(x, w, None).data
    np.testing.assert_allclose(y.data - b.data, unbiased, rtol=0, atol=1e-15)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch_norm_channel_sum_fast_kernel_equals_its_reference(dtype):
    """BatchNorm's per-channel sums: an (N, C) array takes a (1, N) row @ a product; every
    other input the plain sum over the axes (0, 2, ...). Both times `times`, kept (1, C, 1, ...)."""
    rng = np.random.default_rng(3)
    a = rng.normal(size=(7, 5)).astype(dtype)
    tall = rng.normal(size=(5000, 3)).astype(dtype)  # past the cached rows' 4096
    for array in (a, a[::2], np.asfortranarray(a), tall):  # contiguous, strided, F-order, tall
        for times in (1.0, 1 / len(array)):
            got = channel_sum(array, times)
            assert got.shape == (1, array.shape[1]) and got.dtype == dtype
            expected = array.sum(0, keepdims=True, dtype=np.float64) * times
            # rounding of a sum: a small multiple of eps times the sum of the magnitudes
            bound = 8 * np.finfo(dtype).eps * np.abs(array).sum(0, keepdims=True) * times
            assert (np.abs(got - expected) <= bound).all()
    b = rng.normal(size=(3, 4, 2, 2)).astype(dtype)
    np.testing.assert_allclose(channel_sum(b, 0.5), b.sum((0, 2, 3), keepdims=True) * 0.5)
    t = tg.tensor(a, requires_grad=True)  # a Tensor: the recorded sum
    assert channel_sum(t).grad_fn is not None
    np.testing.assert_allclose(channel_sum(t).data, a.sum(0, keepdims=True), rtol=1e-6)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # inf * 0 in the reference's gradient
def test_exact_gelu_in_float32_equals_its_composed_form():
    """float32 (erf's float32 polynomial, dy/dx computed in forward): the composed form's
    values and gradients, to float32 rounding, on both sides of |x| = sqrt(2)."""
    rng = np.random.default_rng(4)
    edges = [0.0, -0.0, 1.4142135, -1.4142135, 5.7, -5.7, 12.0, -12.0, np.inf, np.nan]
    x = np.concatenate([rng.standard_normal(5000) * 3, np.linspace(-8, 8, 3001), edges])
    x = x.astype(np.float32)
    g = rng.standard_normal(x.shape).astype(np.float32)
    results = []
    for fn in (fused.gelu, fused.gelu_reference):
        t = tg.tensor(x, requires_grad=True)
        out = fn(t)
        out.backward(tg.tensor(g))
        assert out.dtype == tg.float32 and t.grad.dtype == tg.float32
        results.append((out.detach().numpy(), t.grad.numpy()))
    for fast, ref in zip(*results):
        np.testing.assert_allclose(fast, ref, rtol=1e-6, atol=2e-7, equal_nan=True)
