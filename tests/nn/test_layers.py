"""nn layers: Linear, Conv1D, Embedding, the activations and Dropout (and its channel variants).

For each: the forward equals a plain NumPy formula, `tg.check_module` passes (train mode with
a fixed random state, and eval mode, in float64), and the errors a learner meets name the
sizes involved.
"""

import math

import numpy as np
import pytest
from helpers import randn, t64

import tinygrad_norm as tg
from tinygrad_norm import nn

RTOL = 1e-12


# --- Linear --------------------------------------------------------------------------------------
def test_linear_forward_is_x_times_w_transposed_plus_b():
    tg.manual_seed(0)
    layer = nn.Linear(4, 3).double()
    x = randn(2, 5, 4)
    expected = x @ layer.weight.numpy().T + layer.bias.numpy()
    np.testing.assert_allclose(layer(t64(x)).numpy(), expected, rtol=RTOL)
    assert layer.weight.shape == (3, 4) and layer.bias.shape == (3,)


def test_linear_init_is_pytorchs_uniform_with_bound_one_over_sqrt_fan_in():
    tg.manual_seed(0)
    layer = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)  # kaiming_uniform_(a=sqrt(5)) gives exactly this bound
    for p in (layer.weight, layer.bias):
        assert p.dtype == np.float32 and p.requires_grad
        assert np.abs(p.numpy()).max() <= bound
        assert np.abs(p.numpy()).max() > 0.95 * bound  # fills the interval: not a narrower one
    np.testing.assert_allclose(layer.weight.numpy().std(), bound / math.sqrt(3), rtol=0.01)
    tg.manual_seed(0)
    again = nn.Linear(400, 300)
    np.testing.assert_array_equal(
        again.weight.numpy(), layer.weight.numpy()
    )  # the global generator


def test_linear_without_bias():
    layer = nn.Linear(3, 2, bias=False)
    assert layer.bias is None and [n for n, _ in layer.named_parameters()] == ["weight"]
    assert repr(layer) == "Linear(in_features=3, out_features=2, bias=False)"
    np.testing.assert_allclose(layer(tg.eye(3)).numpy(), layer.weight.numpy().T, rtol=1e-6)


def test_linear_check_module():
    tg.manual_seed(0)
    assert tg.check_module(nn.Linear(4, 3), tg.randn(2, 3, 4))
    assert tg.check_module(nn.Linear(4, 3, bias=False), tg.randn(5, 4))


def test_linear_wrong_width_names_both_sizes():
    layer = nn.Linear(4, 3)
    with pytest.raises(ValueError, match=r"(?s)\b5\b.*in_features = 4"):
        layer(tg.randn(2, 5))


# --- Conv1D (GPT-2's) ----------------------------------------------------------------------------
def test_conv1d_shapes_and_init_are_gpt2s():
    tg.manual_seed(0)
    layer = nn.Conv1D(300, 200)  # nf = 300 outputs, nx = 200 inputs
    assert layer.weight.shape == (200, 300) and layer.bias.shape == (300,)
    np.testing.assert_array_equal(layer.bias.numpy(), 0)
    np.testing.assert_allclose(layer.weight.numpy().std(), 0.02, rtol=0.02)
    assert abs(layer.weight.numpy().mean()) < 1e-3


def test_conv1d_forward_is_x_times_w_plus_b():
    tg.manual_seed(0)
    layer = nn.Conv1D(6, 4).double()
    layer.bias.numpy()[...] = randn(6, seed=1)  # nonzero, so the test sees the bias
    x = randn(2, 3, 4)
    np.testing.assert_allclose(
        layer(t64(x)).numpy(), x @ layer.weight.numpy() + layer.bias.numpy(), rtol=RTOL
    )


def test_conv1d_check_module():
    tg.manual_seed(0)
    layer = nn.Conv1D(5, 4)
    nn.init.normal_(layer.bias)
    assert tg.check_module(layer, tg.randn(2, 3, 4))
    assert tg.check_module(nn.Conv1D(5, 4, bias=False), tg.randn(3, 4))


def test_conv1d_wrong_width_names_both_sizes_and_the_argument_order():
    layer = nn.Conv1D(12, 4)
    with pytest.raises(ValueError, match=r"(?s)last axis 7.*nx = 4.*Conv1D\(nf, nx\)"):
        layer(tg.randn(2, 3, 7))
    # The seed's mistake: Conv1D(nx, nf) in the wrong order builds a (12, 4) weight.
    with pytest.raises(ValueError, match=r"OUTPUT size nf first"):
        nn.Conv1D(4, 12)(tg.randn(2, 3, 4))


# --- Embedding -----------------------------------------------------------------------------------
def test_embedding_forward_picks_rows():
    tg.manual_seed(0)
    emb = nn.Embedding(6, 3)
    idx = np.array([[0, 5, 2], [2, 2, 1]])
    np.testing.assert_array_equal(emb(tg.tensor(idx)).numpy(), emb.weight.numpy()[idx])
    assert emb(tg.tensor(idx)).shape == (2, 3, 3)


def test_embedding_checks_indices_against_its_weight_in_its_own_words():
    """One scan of the indices (F.embedding's); the layer re-words an index past
    num_embeddings, and a weight put in by hand is read as it is, as in PyTorch."""
    emb = nn.Embedding(10, 3)
    with pytest.raises(IndexError, match=r"index 12 is out of range for num_embeddings=10"):
        emb(tg.tensor([1, 12]))
    with pytest.raises(IndexError, match=r"index -1 is out of range for num_embeddings=10"):
        emb(tg.tensor([-1]))
    emb.weight = nn.Parameter(tg.randn(20, 3))  # a larger table: row 15 exists
    np.testing.assert_array_equal(emb(tg.tensor([15])).numpy(), emb.weight.numpy()[[15]])
    emb.weight = nn.Parameter(tg.randn(4, 3))  # a smaller one: F.embedding's words
    with pytest.raises(IndexError, match=r"out of range for a table of 4 rows"):
        emb(tg.tensor([6]))


def test_embedding_init_is_standard_normal():
    tg.manual_seed(0)
    w = nn.Embedding(500, 200).weight.numpy()
    assert abs(w.mean()) < 0.01 and abs(w.std() - 1) < 0.01


def test_embedding_repeated_indices_accumulate_gradients():
    tg.manual_seed(0)
    emb = nn.Embedding(5, 3).double()
    idx = np.array([[1, 3, 1], [1, 0, 3]])
    grad_out = randn(2, 3, 3)
    emb(tg.tensor(idx)).backward(t64(grad_out))
    expected = np.zeros((5, 3))
    np.add.at(expected, idx, grad_out)  # row 1 three times, row 3 twice, 2 and 4 never
    np.testing.assert_allclose(emb.weight.grad.numpy(), expected, rtol=RTOL)
    np.testing.assert_array_equal(emb.weight.grad.numpy()[[2, 4]], 0)


def test_embedding_check_module():
    tg.manual_seed(0)
    assert tg.check_module(nn.Embedding(5, 3), tg.tensor([[1, 3, 1], [4, 0, 3]]))


def test_embedding_padding_idx_row_is_zero_and_gets_no_gradient():
    tg.manual_seed(0)
    emb = nn.Embedding(4, 2, padding_idx=0).double()
    np.testing.assert_array_equal(emb.weight.numpy()[0], 0)
    emb(tg.tensor([0, 1, 0])).sum().backward()
    np.testing.assert_array_equal(emb.weight.grad.numpy(), [[0, 0], [1, 1], [0, 0], [0, 0]])


@pytest.mark.parametrize("bad", [7, -1])
def test_embedding_index_out_of_range_names_index_and_num_embeddings(bad):
    emb = nn.Embedding(7, 2)
    with pytest.raises(IndexError, match=rf"index {bad} .*num_embeddings=7"):
        emb(tg.tensor([[0, bad]]))


def test_embedding_float_indices_are_a_clear_error():
    with pytest.raises(TypeError, match=r"integer indices.*float"):
        nn.Embedding(7, 2)(tg.tensor([0.0, 1.0]))


def test_embedding_padding_row_is_zero_and_gets_no_gradient():
    emb = nn.Embedding(5, 3, padding_idx=1)
    assert not emb.weight[1].numpy().any()
    emb(tg.tensor([[1, 2, 1]])).sum().backward()
    assert not emb.weight.grad[1].numpy().any() and emb.weight.grad[2].tolist() == [1.0] * 3


def test_embedding_from_pretrained_shares_and_freezes():
    table = tg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    emb = nn.Embedding.from_pretrained(table, padding_idx=0)
    assert emb.weight.numpy() is table.numpy() and not emb.weight.requires_grad
    assert emb(tg.tensor([0, 2])).tolist() == [[1.0, 2.0], [5.0, 6.0]]  # row 0 kept
    trainable = nn.Embedding.from_pretrained(table, freeze=False)
    trainable(tg.tensor([2, 2])).sum().backward()
    assert trainable.weight.grad.tolist() == [[0.0, 0.0], [0.0, 0.0], [2.0, 2.0]]
    assert repr(emb) == "Embedding(3, 2, padding_idx=0)"
    with pytest.raises(ValueError, match="2-dimensional"):
        nn.Embedding.from_pretrained(tg.ones(3))
    with pytest.raises(NotImplementedError, match="max_norm"):
        nn.Embedding(3, 2, max_norm=1.0)


# --- activations ---------------------------------------------------------------------------------
def _erf(x):
    return np.vectorize(math.erf)(x)


ACTIVATIONS = [
    (nn.GELU(), lambda x: x * 0.5 * (1 + _erf(x / math.sqrt(2)))),
    (
        nn.GELU(approximate="tanh"),
        lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    ),
    (nn.ReLU(), lambda x: np.maximum(x, 0)),
    (nn.Tanh(), np.tanh),
    (nn.Sigmoid(), lambda x: 1 / (1 + np.exp(-x))),
    (nn.Softmax(dim=1), lambda x: np.exp(x) / np.exp(x).sum(1, keepdims=True)),
    (nn.Softmax(dim=-1), lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True)),
    (nn.LogSoftmax(dim=1), lambda x: x - np.log(np.exp(x).sum(1, keepdims=True))),
]
IDS = ["gelu", "gelu_tanh", "relu", "tanh", "sigmoid", "softmax1", "softmax-1", "log_softmax1"]


@pytest.mark.parametrize("module, formula", ACTIVATIONS, ids=IDS)
def test_activation_forward_equals_numpy(module, formula):
    x = randn(2, 3, 4) * 2
    np.testing.assert_allclose(module(t64(x)).numpy(), formula(x), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("module, formula", ACTIVATIONS, ids=IDS)
def test_activation_check_module(module, formula):
    x = randn(2, 3, 4) * 2
    x[np.abs(x) < 1e-3] = 0.5  # keep ReLU away from its kink at 0
    assert tg.check_module(module, t64(x))


def test_gelu_approximations_differ_and_are_named():
    x = t64([1.5])
    assert abs(nn.GELU()(x).item() - nn.GELU("tanh")(x).item()) > 1e-5
    assert repr(nn.GELU("tanh")) == "GELU(approximate='tanh')"
    with pytest.raises(ValueError, match="approximate"):
        nn.GELU("fast")


def test_softmax_without_dim_is_a_clear_error():
    with pytest.raises(TypeError, match="dim="):
        nn.Softmax()(tg.randn(2, 3))


# --- Dropout -------------------------------------------------------------------------------------
def test_dropout_statistics_in_training_mode():
    tg.manual_seed(0)
    p = 0.3
    y = nn.Dropout(p)(tg.ones(200_000, dtype=tg.float64)).numpy()
    dropped = y == 0
    assert abs(dropped.mean() - p) < 0.005  # std of the fraction is ~0.001
    np.testing.assert_allclose(y[~dropped], 1 / (1 - p), rtol=1e-15)  # inverted: survivors scaled
    assert abs(y.mean() - 1) < 0.01  # so the expectation is unchanged


def test_dropout_is_the_identity_in_eval_mode():
    tg.manual_seed(0)
    drop = nn.Dropout(0.9).eval()
    x = t64(randn(3, 4), requires_grad=True)
    y = drop(x)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    y.backward(t64(np.full((3, 4), 2.0)))
    np.testing.assert_array_equal(x.grad.numpy(), 2.0)


def test_dropout_gradient_uses_the_same_mask():
    tg.manual_seed(0)
    x = t64(np.ones((50, 40)), requires_grad=True)
    y = nn.Dropout(0.5)(x)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.numpy())  # d(m * x / (1-p))/dx = m / (1-p)


def test_dropout_check_module_train_and_eval():
    tg.manual_seed(0)
    result = tg.check_module(nn.Dropout(0.4), tg.randn(3, 5))
    assert result and set(result.results) == {"train", "eval"}


def test_dropout_p_out_of_range():
    with pytest.raises(ValueError, match=r"\[0, 1\].*1.5"):
        nn.Dropout(1.5)
    assert repr(nn.Dropout(0.1)) == "Dropout(p=0.1, inplace=False)"


def test_channel_dropout_modules():
    tg.manual_seed(0)
    out = nn.Dropout2d(p=0.5)(tg.ones(4, 8, 3, 3)).numpy()
    assert set(np.unique(out)) <= {0.0, 2.0}
    assert (out.min(axis=(2, 3)) == out.max(axis=(2, 3))).all()  # whole channels
    assert nn.Dropout1d(0.5).eval()(tg.ones(2, 3, 4)).tolist() == tg.ones(2, 3, 4).tolist()
    assert repr(nn.AlphaDropout(0.2)) == "AlphaDropout(p=0.2, inplace=False)"
    x = tg.tensor(randn(1000))
    assert nn.AlphaDropout(0.2).eval()(x) is x
