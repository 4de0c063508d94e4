"""nn.MultiheadAttention and the Transformer layers: the attention formula in NumPy, PyTorch's
parameter names and masks, errors, a gradcheck, and PyTorch oracles in float64 (outputs and
gradients of every input and parameter, rtol 1e-10) after loading PyTorch's state dict."""

import copy

import numpy as np
import pytest
from helpers import perturbed, randn

import tinygrad_norm as tg
from tinygrad_norm import nn

RTOL, ATOL = 1e-10, 1e-12


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


# --- MultiheadAttention -------------------------------------------------------------------------
def test_mha_matches_the_formula_in_numpy_with_masks():
    mha = perturbed(nn.MultiheadAttention(4, 2))
    L, S, N, hd = 3, 4, 2, 2
    q_in, k_in, v_in = randn(L, N, 4), randn(S, N, 4, seed=1), randn(S, N, 4, seed=2)
    padding = np.array([[False, False, False, True], [False] * 4])  # True: ignore that key
    causal = np.triu(np.ones((L, S), bool), 1)  # True: may not attend
    w_q, w_k, w_v = np.split(mha.in_proj_weight.numpy(), 3)
    b_q, b_k, b_v = np.split(mha.in_proj_bias.numpy(), 3)
    q, k, v = q_in @ w_q.T + b_q, k_in @ w_k.T + b_k, v_in @ w_v.T + b_v
    out = np.zeros((L, N, 4))
    weights = np.zeros((N, 2, L, S))
    for n in range(N):
        for h in range(2):
            cut = slice(h * hd, (h + 1) * hd)
            scores = q[:, n, cut] @ k[:, n, cut].T / np.sqrt(hd)
            scores[causal | padding[n]] = -np.inf
            weights[n, h] = softmax(scores)
            out[:, n, cut] = weights[n, h] @ v[:, n, cut]
    out = out @ mha.out_proj.weight.numpy().T + mha.out_proj.bias.numpy()
    ours, ours_weights = mha(
        tg.tensor(q_in), tg.tensor(k_in), tg.tensor(v_in),
        key_padding_mask=padding, attn_mask=causal,
    )  # fmt: skip
    np.testing.assert_allclose(ours.numpy(), out, rtol=1e-12)
    np.testing.assert_allclose(ours_weights.numpy(), weights.mean(1), rtol=1e-12)
    float_mask = np.where(causal, -np.inf, 0.0)  # the same mask as a float mask
    again, _ = mha(
        tg.tensor(q_in), tg.tensor(k_in), tg.tensor(v_in), need_weights=False,
        key_padding_mask=padding, attn_mask=float_mask,
    )  # fmt: skip
    np.testing.assert_allclose(again.numpy(), out, rtol=1e-12)


def test_mha_parameters_are_pytorchs():
    names = {k: v.shape for k, v in nn.MultiheadAttention(6, 3).state_dict().items()}
    assert names == {
        "in_proj_weight": (18, 6), "in_proj_bias": (18,),
        "out_proj.weight": (6, 6), "out_proj.bias": (6,),
    }  # fmt: skip
    names = {
        k: v.shape for k, v in nn.MultiheadAttention(6, 3, kdim=4, vdim=5).state_dict().items()
    }
    assert names["k_proj_weight"] == (6, 4) and names["v_proj_weight"] == (6, 5)
    assert "in_proj_weight" not in names
    mha = nn.MultiheadAttention(6, 3)
    assert not mha.in_proj_bias.numpy().any() and not mha.out_proj.bias.numpy().any()
    assert repr(mha) == (
        "MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear(in_features=6, "
        "out_features=6, bias=True)\n)"
    )


def test_mha_shapes_batch_first_unbatched_and_per_head_weights():
    mha = nn.MultiheadAttention(4, 2, batch_first=True)
    out, weights = mha(tg.randn(2, 3, 4), tg.randn(2, 5, 4), tg.randn(2, 5, 4))
    assert out.shape == (2, 3, 4) and weights.shape == (2, 3, 5)
    out, weights = mha(tg.randn(3, 4), tg.randn(5, 4), tg.randn(5, 4), average_attn_weights=False)
    assert out.shape == (3, 4) and weights.shape == (2, 3, 5)
    assert mha(tg.randn(3, 4), tg.randn(5, 4), tg.randn(5, 4), need_weights=False)[1] is None


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda m: nn.MultiheadAttention(5, 2), AssertionError, "divisible by num_heads"),
        (lambda m: nn.MultiheadAttention(4, 2, add_bias_kv=True), NotImplementedError, "add_bias"),
        (lambda m: m(*[tg.randn(3, 2, 5)] * 3), AssertionError, "embedding dimension of 4"),
        (lambda m: m(*[tg.randn(3, 2, 4)] * 3, attn_mask=np.ones((2, 3))), RuntimeError, "2D"),
        (lambda m: m(*[tg.randn(3, 2, 4)] * 3, is_causal=True), RuntimeError, "Need attn_mask"),
        (
            lambda m: m(*[tg.randn(3, 2, 4)] * 3, key_padding_mask=np.zeros((2, 4), bool)),
            AssertionError,
            "(2, 3)",
        ),
        (
            lambda m: m(*[tg.randn(3, 2, 4)] * 3, attn_mask=np.zeros((3, 3), int)),
            AssertionError,
            "bool",
        ),
    ],
)
def test_mha_errors(call, error, words):
    with pytest.raises(error) as info:
        call(nn.MultiheadAttention(4, 2))
    assert words in str(info.value)


def test_mha_gradcheck():
    mha = perturbed(nn.MultiheadAttention(4, 2, kdim=3))
    q = tg.tensor(randn(2, 1, 4), requires_grad=True)
    k = tg.tensor(randn(3, 1, 3, seed=1), requires_grad=True)
    v = tg.tensor(randn(3, 1, 4, seed=2), requires_grad=True)
    assert tg.gradcheck(lambda q, k, v: mha(q, k, v, attn_mask=np.eye(2, 3) * 0.5), (q, k, v))


# --- Transformer layers -------------------------------------------------------------------------
def test_encoder_layer_post_norm_formula():
    layer = perturbed(nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0)).eval()
    x = tg.tensor(randn(3, 2, 4))
    attn = layer.self_attn(x, x, x, need_weights=False)[0]
    h = layer.norm1(x + attn)
    expected = layer.norm2(h + layer.linear2(layer.linear1(h).relu()))
    np.testing.assert_allclose(layer(x).numpy(), expected.numpy(), rtol=1e-12)


def test_encoder_clones_are_deep_copies_with_pytorchs_names():
    layer = nn.TransformerEncoderLayer(4, 2, 6)
    encoder = nn.TransformerEncoder(layer, num_layers=2)
    assert "layers.1.self_attn.in_proj_weight" in encoder.state_dict()
    assert "layers.0.linear2.bias" in dict(encoder.named_parameters())
    a, b = encoder.layers[0].linear1.weight, encoder.layers[1].linear1.weight
    assert a is not b and a is not layer.linear1.weight and np.array_equal(a.numpy(), b.numpy())
    clone = copy.deepcopy(encoder)
    assert clone.layers[0].linear1.weight is not a
    assert len(list(encoder.parameters())) == 2 * len(list(layer.parameters()))


def test_activation_choices():
    assert (
        nn.TransformerEncoderLayer(4, 2, 6, activation="gelu").activation is tg.nn.functional.gelu
    )
    layer = nn.TransformerEncoderLayer(4, 2, 6, activation=nn.GELU())
    assert "activation" in dict(layer.named_children())  # a Module is registered
    with pytest.raises(RuntimeError, match="relu/gelu"):
        nn.TransformerEncoderLayer(4, 2, activation="tanh")


def test_generate_square_subsequent_mask():
    from tinygrad_norm.nn.transformer import generate_square_subsequent_mask

    mask = generate_square_subsequent_mask(3).numpy()
    assert (mask[np.triu_indices(3, 1)] == -np.inf).all() and (mask[np.tril_indices(3)] == 0).all()


# --- PyTorch ------------------------------------------------------------------------------------
def _torch():
    return pytest.importorskip("torch")


def _compare(ours, theirs, arrays, masks=None, eval_mode=True, seed=7, **options):
    """Load theirs' state dict into ours (float64, perturbed first), run both on `arrays`
    (differentiated) and masks/options, backpropagate the same random gradient, compare."""
    torch = _torch()
    theirs = theirs.double()
    rng = np.random.default_rng(seed)
    state = {
        k: v.numpy() + 0.2 * rng.standard_normal(v.shape) for k, v in theirs.state_dict().items()
    }
    theirs.load_state_dict({k: torch.tensor(v) for k, v in state.items()})
    ours.double().load_state_dict(state)
    if eval_mode:
        ours.eval(), theirs.eval()
    masks = masks or {}

    def run(module, lib):
        inputs = [lib.tensor(a, requires_grad=True) for a in arrays]
        kw = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in masks.items()}
        out = module(*inputs, **kw, **options)
        outs = [o for o in (out if isinstance(out, tuple) else (out,)) if o is not None]
        sum(
            (o * lib.tensor(randn(*o.shape, seed=seed + i))).sum() for i, o in enumerate(outs)
        ).backward()
        return outs, inputs

    ours_out, ours_in = run(ours, tg)
    theirs_out, theirs_in = run(theirs, torch)
    assert len(ours_out) == len(theirs_out)
    for a, b in zip(ours_out, theirs_out):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=RTOL, atol=ATOL)
    for a, b in zip(ours_in, theirs_in):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=RTOL, atol=ATOL)
    theirs_params = dict(theirs.named_parameters())
    assert set(theirs_params) == set(dict(ours.named_parameters()))
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(
            p.grad.numpy(), theirs_params[name].grad.numpy(), rtol=RTOL, atol=ATOL, err_msg=name
        )
    # PyTorch 2.13's LayerNorm prints bias=True; tinygrad_norm's LayerNorm repr does not (yet)
    assert repr(ours) == repr(theirs).replace(
        "elementwise_affine=True, bias=True)", "elementwise_affine=True)"
    )


PADDING = np.array([[False, False, False, True], [False] * 4])
CAUSAL = np.triu(np.ones((4, 4), bool), 1)

MHA_CASES = {
    "plain": (dict(), dict(), dict()),
    "bool masks": (dict(), dict(key_padding_mask=PADDING, attn_mask=CAUSAL[:3]), dict()),
    "float masks, no weights": (
        dict(bias=False),
        dict(key_padding_mask=np.where(PADDING, -1.5, 0.0), attn_mask=randn(3, 4, seed=3)),
        dict(need_weights=False),
    ),
    "3D mask, per-head weights": (
        dict(),
        dict(attn_mask=randn(2 * 2, 3, 4, seed=4)),
        dict(average_attn_weights=False),
    ),
    "kdim vdim": (dict(kdim=3, vdim=5), dict(key_padding_mask=PADDING), dict()),
    "batch_first": (dict(batch_first=True), dict(key_padding_mask=PADDING), dict()),
    "dropout in eval": (dict(dropout=0.5), dict(attn_mask=CAUSAL[:3]), dict()),
}


@pytest.mark.oracle
@pytest.mark.parametrize("case", MHA_CASES)
def test_mha_matches_pytorch(case):
    torch = _torch()
    kwargs, masks, options = MHA_CASES[case]
    shapes = [(3, 2, 4), (4, 2, kwargs.get("kdim", 4)), (4, 2, kwargs.get("vdim", 4))]
    if kwargs.get("batch_first"):
        shapes = [(n, t, e) for t, n, e in shapes]
    arrays = [randn(*s, seed=i) for i, s in enumerate(shapes)]
    theirs, ours = (
        torch.nn.MultiheadAttention(4, 2, **kwargs),
        nn.MultiheadAttention(4, 2, **kwargs),
    )
    _compare(ours, theirs, arrays, masks, **options)


@pytest.mark.oracle
def test_mha_self_attention_causal_hint_matches_pytorch():
    torch = _torch()
    theirs, ours = torch.nn.MultiheadAttention(4, 2), nn.MultiheadAttention(4, 2)
    x = randn(4, 2, 4)
    _compare(ours, theirs, [x, x, x], dict(attn_mask=CAUSAL, is_causal=True), need_weights=False)


@pytest.mark.oracle
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer_matches_pytorch(norm_first, activation):
    torch = _torch()
    kw = dict(dim_feedforward=6, dropout=0.3, norm_first=norm_first, activation=activation)
    theirs = torch.nn.TransformerEncoderLayer(4, 2, **kw)
    ours = nn.TransformerEncoderLayer(4, 2, **kw)
    masks = dict(src_mask=CAUSAL, src_key_padding_mask=PADDING, is_causal=True)
    _compare(ours, theirs, [randn(4, 2, 4)], masks)


@pytest.mark.oracle
@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_matches_pytorch(norm_first):
    torch = _torch()
    kw = dict(dim_feedforward=6, dropout=0.0, norm_first=norm_first, batch_first=True)
    theirs = torch.nn.TransformerDecoderLayer(4, 2, **kw)
    ours = nn.TransformerDecoderLayer(4, 2, **kw)
    masks = dict(
        tgt_mask=CAUSAL[:3, :3], tgt_is_causal=True, memory_key_padding_mask=PADDING,
        tgt_key_padding_mask=PADDING[:, :3], memory_mask=np.zeros((3, 4), bool),
    )  # fmt: skip
    _compare(ours, theirs, [randn(2, 3, 4), randn(2, 4, 4, seed=1)], masks, eval_mode=False)


@pytest.mark.oracle
def test_encoder_stack_with_norm_and_module_activation_matches_pytorch():
    torch = _torch()
    theirs = torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(4, 2, 6, activation=torch.nn.GELU()), 2,
        norm=torch.nn.LayerNorm(4), enable_nested_tensor=False,
    )  # fmt: skip
    ours = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(4, 2, 6, activation=nn.GELU()), 2, norm=nn.LayerNorm(4)
    )
    mask = np.triu(np.full((4, 4), -np.inf), 1)
    _compare(
        ours,
        theirs,
        [randn(4, 2, 4)],
        dict(mask=mask, src_key_padding_mask=np.where(PADDING, -np.inf, 0.0)),
    )


@pytest.mark.oracle
def test_decoder_stack_matches_pytorch():
    torch = _torch()
    theirs = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(4, 2, 6), 2)
    ours = nn.TransformerDecoder(nn.TransformerDecoderLayer(4, 2, 6), 2)
    _compare(ours, theirs, [randn(3, 2, 4), randn(4, 2, 4, seed=1)], dict(tgt_mask=CAUSAL[:3, :3]))


def test_transformer_shapes_and_xavier_init():
    tg.manual_seed(0)
    model = nn.Transformer(8, 2, 2, 1, dim_feedforward=16, batch_first=True)
    assert "encoder.layers.1.linear1.weight" in model.state_dict()
    assert "decoder.norm.bias" in model.state_dict()
    w = model.encoder.layers[0].linear1.weight.numpy()
    bound = np.sqrt(6 / (8 + 16))  # xavier_uniform_ on a (16, 8) matrix
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    out = model(tg.randn(2, 5, 8), tg.randn(2, 4, 8), tgt_mask=mask)
    assert out.shape == (2, 4, 8)
    with pytest.raises(RuntimeError, match="batch number"):
        model(tg.randn(2, 5, 8), tg.randn(3, 4, 8))


@pytest.mark.oracle
@pytest.mark.filterwarnings("ignore:enable_nested_tensor")  # PyTorch's own note
def test_transformer_matches_pytorch():
    torch = _torch()
    kw = dict(num_encoder_layers=1, num_decoder_layers=2, dim_feedforward=6, norm_first=True)
    theirs, ours = torch.nn.Transformer(4, 2, **kw), nn.Transformer(4, 2, **kw)
    masks = dict(
        tgt_mask=nn.Transformer.generate_square_subsequent_mask(3, dtype=np.float64).numpy(),
        src_key_padding_mask=PADDING, memory_key_padding_mask=PADDING,
    )  # fmt: skip
    _compare(ours, theirs, [randn(4, 2, 4), randn(3, 2, 4, seed=1)], masks)
