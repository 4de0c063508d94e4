"""nn.RNN / LSTM / GRU and their cells: the gate equations (plain NumPy), PyTorch's parameter
names, shapes and init, the shape rules and errors, gradchecks (first order; second order on
the cells), and PyTorch oracles in float64 (outputs and gradients of the input, the initial
state and every parameter, rtol 1e-10) after loading the PyTorch module's state dict."""

import inspect
import math

import numpy as np
import pytest
from helpers import perturbed, randn

import tinygrad_norm as tg
from tinygrad_norm import nn

RTOL, ATOL = 1e-10, 1e-12


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


# --- the equations, in NumPy --------------------------------------------------------------------
def test_lstm_cell_matches_the_gate_equations_in_numpy():
    cell = perturbed(nn.LSTMCell(3, 4))
    x, h, c = randn(2, 3), randn(2, 4, seed=1), randn(2, 4, seed=2)
    w_ih, w_hh = cell.weight_ih.numpy(), cell.weight_hh.numpy()
    gates = x @ w_ih.T + cell.bias_ih.numpy() + h @ w_hh.T + cell.bias_hh.numpy()
    i, f, g, o = np.split(gates, 4, axis=1)  # PyTorch's order: input, forget, cell, output
    c_next = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
    h_next = sigmoid(o) * np.tanh(c_next)
    h_ours, c_ours = cell(tg.tensor(x), (tg.tensor(h), tg.tensor(c)))
    np.testing.assert_allclose(h_ours.numpy(), h_next, rtol=1e-12)
    np.testing.assert_allclose(c_ours.numpy(), c_next, rtol=1e-12)


def test_gru_cell_keeps_b_hn_inside_the_reset_product():
    cell = perturbed(nn.GRUCell(3, 4))
    x, h = randn(2, 3), randn(2, 4, seed=1)
    xr, xz, xn = np.split(x @ cell.weight_ih.numpy().T + cell.bias_ih.numpy(), 3, axis=1)
    hr, hz, hn = np.split(h @ cell.weight_hh.numpy().T + cell.bias_hh.numpy(), 3, axis=1)
    r, z = sigmoid(xr + hr), sigmoid(xz + hz)
    n = np.tanh(xn + r * hn)  # r multiplies (W_hn h + b_hn)
    expected = (1 - z) * n + z * h
    np.testing.assert_allclose(cell(tg.tensor(x), tg.tensor(h)).numpy(), expected, rtol=1e-12)


def test_rnn_runs_the_cell_along_time_and_stacks_layers():
    rnn = perturbed(nn.RNN(3, 4, num_layers=2, nonlinearity="relu"))
    x = randn(5, 2, 3)
    h = np.zeros((2, 2, 4))
    outputs = []
    for t in range(5):
        inp = x[t]
        for layer in range(2):
            w_ih, w_hh = (getattr(rnn, f"weight_{k}_l{layer}").numpy() for k in ("ih", "hh"))
            b = (
                getattr(rnn, f"bias_ih_l{layer}").numpy()
                + getattr(rnn, f"bias_hh_l{layer}").numpy()
            )
            h[layer] = np.maximum(inp @ w_ih.T + h[layer] @ w_hh.T + b, 0)
            inp = h[layer]
        outputs.append(inp.copy())
    output, h_n = rnn(tg.tensor(x))
    np.testing.assert_allclose(output.numpy(), np.stack(outputs), rtol=1e-12)
    np.testing.assert_allclose(h_n.numpy(), h, rtol=1e-12)


def test_bidirectional_output_is_forward_then_reversed_direction():
    gru = perturbed(nn.GRU(2, 3, bidirectional=True))
    x = randn(4, 1, 2)
    output, h_n = gru(tg.tensor(x))
    assert output.shape == (4, 1, 6) and h_n.shape == (2, 1, 3)
    np.testing.assert_allclose(output.numpy()[-1, :, :3], h_n.numpy()[0])  # forward ends at T-1
    np.testing.assert_allclose(output.numpy()[0, :, 3:], h_n.numpy()[1])  # reverse ends at 0
    reverse = nn.GRUCell(2, 3).double()
    reverse.load_state_dict({k: getattr(gru, k + "_l0_reverse") for k in reverse.state_dict()})
    h = tg.zeros(1, 3, dtype=tg.float64)
    for t in reversed(range(4)):
        h = reverse(tg.tensor(x[t]), h)
    np.testing.assert_allclose(h.numpy(), h_n.numpy()[1], rtol=1e-12)


# --- names, shapes, init ------------------------------------------------------------------------
def test_parameter_names_and_shapes_are_pytorchs():
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    shapes = {k: v.shape for k, v in lstm.state_dict().items()}
    assert list(shapes)[:5] == [
        "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l0_reverse",
    ]  # fmt: skip
    assert shapes["weight_ih_l0"] == (16, 3) and shapes["weight_hh_l0"] == (16, 4)
    assert shapes["weight_ih_l1_reverse"] == (16, 8)  # layer 1 reads both directions
    assert len(shapes) == 16
    assert list(nn.GRU(3, 4, bias=False).state_dict()) == ["weight_ih_l0", "weight_hh_l0"]
    assert nn.GRUCell(3, 4).weight_hh.shape == (12, 4)
    assert len(nn.RNN(3, 4).all_weights[0]) == 4


def test_init_is_uniform_within_one_over_sqrt_hidden():
    tg.manual_seed(0)
    lstm = nn.LSTM(5, 16)
    bound = 1 / math.sqrt(16)
    values = np.concatenate([p.numpy().ravel() for p in lstm.parameters()])
    assert values.min() >= -bound and values.max() <= bound
    assert values.min() < -0.9 * bound and values.max() > 0.9 * bound
    assert abs(values.mean()) < 0.02


def test_shapes_batch_first_unbatched_and_states():
    lstm = nn.LSTM(3, 4, num_layers=2, batch_first=True)
    output, (h_n, c_n) = lstm(tg.randn(2, 5, 3))
    assert output.shape == (2, 5, 4) and h_n.shape == c_n.shape == (2, 2, 4)  # h_n not batch-first
    output, (h_n, c_n) = lstm(tg.randn(5, 3))  # unbatched: (T, input_size)
    assert output.shape == (5, 4) and h_n.shape == (2, 4)
    output, h_n = nn.RNN(3, 4)(tg.randn(5, 2, 3), tg.zeros(1, 2, 4))
    assert output.shape == (5, 2, 4) and h_n.shape == (1, 2, 4)
    h, c = nn.LSTMCell(3, 4)(tg.randn(3))
    assert h.shape == c.shape == (4,)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_an_empty_batch_gives_empty_outputs_and_zero_gradients(kind):
    layer = getattr(nn, kind)(3, 4, num_layers=2, bidirectional=True)
    x = tg.zeros(5, 0, 3, requires_grad=True)
    output, state = layer(x)
    assert output.shape == (5, 0, 8)
    output.sum().backward()
    assert x.grad.shape == (5, 0, 3)
    assert all(np.array_equal(p.grad.numpy(), np.zeros(p.shape)) for p in layer.parameters())


def test_dropout_acts_between_layers_in_training_only():
    gru = nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = tg.randn(6, 2, 3)
    gru.eval()
    first, second = gru(x)[0], gru(x)[0]
    np.testing.assert_array_equal(first.numpy(), second.numpy())
    gru.train()
    assert not np.allclose(gru(x)[0].numpy(), first.numpy())
    with pytest.warns(UserWarning, match="num_layers greater than 1"):
        nn.LSTM(3, 4, dropout=0.2)


def test_repr_is_pytorchs():
    assert repr(nn.LSTM(3, 4, 2, batch_first=True, bidirectional=True)) == (
        "LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True)"
    )
    assert repr(nn.RNNCell(3, 4, nonlinearity="relu")) == "RNNCell(3, 4, nonlinearity=relu)"
    assert repr(nn.GRUCell(3, 4, bias=False)) == "GRUCell(3, 4, bias=False)"


# --- errors -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: nn.LSTM(3, 4)(tg.randn(5, 2, 7)), RuntimeError, "Expected 3, got 7"),
        (lambda: nn.GRU(3, 4)(tg.randn(1, 5, 2, 3)), ValueError, "2D or 3D"),
        (lambda: nn.RNN(3, 4)(tg.randn(5, 2, 3), tg.zeros(2, 2, 4)), RuntimeError, "hidden size"),
        (lambda: nn.RNN(3, 4)(tg.randn(5, 3), tg.zeros(1, 1, 4)), RuntimeError, "unbatched"),
        (lambda: nn.LSTM(3, 4)(tg.randn(5, 2, 3), tg.zeros(1, 2, 4)), TypeError, "(h_0, c_0)"),
        (lambda: nn.LSTM(3, 4, proj_size=2), NotImplementedError, "proj_size"),
        (lambda: nn.RNN(3, 4, nonlinearity="sigmoid"), ValueError, "'tanh' or 'relu'"),
        (lambda: nn.GRU(3, 4, dropout=1.5), ValueError, "range [0, 1]"),
        (lambda: nn.GRUCell(3, 4)(tg.randn(2, 5)), RuntimeError, "input_size=3"),
        (lambda: nn.LSTMCell(3, 4)(tg.randn(2, 3), (tg.zeros(3, 4),) * 2), RuntimeError, "(2, 4)"),
    ],
)
def test_errors_say_what_is_wrong(call, error, words):
    with pytest.raises(error, match=None) as info:
        call()
    assert words in str(info.value)


# --- gradcheck ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_gradcheck_sequence_input_and_state(kind):
    module = perturbed(getattr(nn, kind)(2, 2, bidirectional=True))
    x = tg.tensor(randn(3, 1, 2), requires_grad=True)
    h0 = tg.tensor(randn(2, 1, 2, seed=3), requires_grad=True)

    def run(x, h0):
        hx = (h0, h0 * 0.5) if kind == "LSTM" else h0
        output, h_n = module(x, hx)
        return output, h_n[0] if kind == "LSTM" else h_n

    assert tg.gradcheck(run, (x, h0))


def test_lstm_runs_each_layer_and_direction_as_one_node_twice_differentiable():
    lstm = perturbed(nn.LSTM(2, 3, bidirectional=True))
    x = tg.tensor(randn(4, 2, 2), requires_grad=True)
    output, (h_n, c_n) = lstm(x)
    names = {n.name for n in _graph_nodes(output)}
    assert "LSTMLayerBackward" in names and "LSTMCellBackward" not in names
    np.testing.assert_array_equal(h_n[1].numpy(), output[0, :, 3:].numpy())  # reverse ends at 0
    assert tg.gradgradcheck(lambda x: lstm(x)[1][1], (x,))


def _graph_nodes(t):
    """Every node reachable from t's grad_fn."""
    seen, stack = [], [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and not isinstance(node, tg.Tensor) and node not in seen:
            seen.append(node)
            stack.extend(node.edges)
    return seen


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_are_twice_differentiable(kind):
    cell = perturbed(getattr(nn, kind)(2, 2))
    w = tg.tensor(cell.weight_hh.numpy().copy(), requires_grad=True)
    x = tg.tensor(randn(2, 2), requires_grad=True)
    h = tg.tensor(randn(2, 2, seed=4), requires_grad=True)

    def run(x, h, w):
        cell._parameters["weight_hh"] = w
        out = cell(x, (h, h * h)) if kind == "LSTMCell" else cell(x, h)
        return out[1] if kind == "LSTMCell" else out

    assert tg.gradcheck(run, (x, h, w))
    assert tg.gradgradcheck(run, (x, h, w))


# --- PyTorch --------------------------------------------------------------------------------------
def _torch():
    return pytest.importorskip("torch")


def _flatten(output):
    if isinstance(output, tuple):
        for item in output:
            yield from _flatten(item)
    else:
        yield output


def _compare(ours, theirs, x, hx=None, eval_mode=False, seed=7):
    """Load theirs' state dict into ours (float64), run both, backpropagate the same random
    gradients of every output, and compare outputs and gradients."""
    torch = _torch()
    theirs = theirs.double()
    ours.double().load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    if eval_mode:
        ours.eval(), theirs.eval()

    def run(module, lib):
        xt = lib.tensor(x, requires_grad=True)
        states = [lib.tensor(s, requires_grad=True) for s in (hx or [])]
        state = None if not states else (tuple(states) if len(states) == 2 else states[0])
        flat = list(_flatten(module(xt, state)))  # output, h_n (, c_n)
        total = sum(
            (f * lib.tensor(randn(*f.shape, seed=seed + i))).sum() for i, f in enumerate(flat)
        )
        total.backward()
        return flat, [xt, *states]

    ours_out, ours_in = run(ours, tg)
    theirs_out, theirs_in = run(theirs, torch)
    for a, b in zip(ours_out, theirs_out):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=RTOL, atol=ATOL)
    for a, b in zip(ours_in, theirs_in):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=RTOL, atol=ATOL)
    theirs_params = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(
            p.grad.numpy(), theirs_params[name].grad.numpy(), rtol=RTOL, atol=ATOL, err_msg=name
        )
    assert repr(ours) == repr(theirs)


CONFIGS = [
    dict(num_layers=2),
    dict(bidirectional=True),
    dict(num_layers=2, bidirectional=True, batch_first=True),
    dict(bias=False),
    dict(num_layers=2, dropout=0.5),  # compared in eval mode
]


@pytest.mark.oracle
@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: ",".join(c))
def test_sequence_layers_match_pytorch(kind, config):
    torch = _torch()
    torch.manual_seed(0)
    theirs = getattr(torch.nn, kind)(3, 4, **config)
    ours = getattr(nn, kind)(3, 4, **config)
    shape = (2, 5, 3) if config.get("batch_first") else (5, 2, 3)
    _compare(ours, theirs, randn(*shape), eval_mode="dropout" in config)


@pytest.mark.oracle
@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("batched", [True, False])
def test_sequence_layers_with_initial_state_match_pytorch(kind, batched):
    torch = _torch()
    torch.manual_seed(1)
    kwargs = dict(num_layers=2, bidirectional=True)
    if kind == "RNN":
        kwargs["nonlinearity"] = "relu"
    theirs, ours = getattr(torch.nn, kind)(3, 4, **kwargs), getattr(nn, kind)(3, 4, **kwargs)
    state = (4, 2, 4) if batched else (4, 4)
    hx = [randn(*state, seed=2)] + ([randn(*state, seed=3)] if kind == "LSTM" else [])
    _compare(ours, theirs, randn(5, 2, 3) if batched else randn(5, 3), hx)


@pytest.mark.oracle
@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("batched, with_state", [(True, True), (True, False), (False, True)])
def test_cells_match_pytorch(kind, batched, with_state):
    torch = _torch()
    torch.manual_seed(2)
    theirs, ours = getattr(torch.nn, kind)(3, 4), getattr(nn, kind)(3, 4)
    state = (2, 4) if batched else (4,)
    hx = None
    if with_state:
        hx = [randn(*state, seed=2)] + ([randn(*state, seed=3)] if kind == "LSTMCell" else [])
    _compare(ours, theirs, randn(2, 3) if batched else randn(3), hx)


@pytest.mark.oracle
def test_lstm_language_model_trains_like_pytorch():
    """Embedding -> 2-layer LSTM -> Linear -> cross-entropy, three SGD steps from the same
    weights: the same losses and the same final weights."""
    torch = _torch()
    torch.manual_seed(3)
    rng = np.random.default_rng(3)
    tokens = rng.integers(0, 10, (4, 7))  # (B, T + 1)

    def train(lib, mod, functional, state=None):
        model = mod.ModuleDict(
            {
                "emb": mod.Embedding(10, 4, padding_idx=0),
                "lstm": mod.LSTM(4, 5, num_layers=2, batch_first=True, dropout=0.0),
                "head": mod.Linear(5, 10),
            }
        ).double()
        if state is not None:
            model.load_state_dict(state)
        start = {k: v.numpy().copy() for k, v in model.state_dict().items()}
        optimizer = lib.optim.SGD(model.parameters(), lr=0.5)
        x, y = lib.tensor(tokens[:, :-1]), lib.tensor(tokens[:, 1:])
        losses = []
        for _ in range(3):
            out, _ = model["lstm"](model["emb"](x))  # (B, T, 5)
            logits = model["head"](out)  # (B, T, 10)
            loss = functional.cross_entropy(logits.reshape(-1, 10), y.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return start, losses, {k: v.numpy() for k, v in model.state_dict().items()}

    start, theirs_losses, theirs_end = train(torch, torch.nn, torch.nn.functional)
    _, ours_losses, ours_end = train(tg, nn, nn.functional, state=start)
    np.testing.assert_allclose(ours_losses, theirs_losses, rtol=RTOL)
    assert theirs_losses[-1] < theirs_losses[0]
    for name, value in theirs_end.items():
        np.testing.assert_allclose(ours_end[name], value, rtol=1e-9, atol=1e-12, err_msg=name)


def test_flatten_parameters_is_accepted():
    lstm = nn.LSTM(2, 3)
    before = [p.numpy().copy() for p in lstm.parameters()]
    assert lstm.flatten_parameters() is None
    assert all(np.array_equal(a, p.numpy()) for a, p in zip(before, lstm.parameters()))


MY_LAYERS = [
    "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell", "MultiheadAttention",
    "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
    "TransformerDecoder", "Transformer", "Embedding", "ParameterList", "ParameterDict",
]  # fmt: skip


@pytest.mark.oracle
@pytest.mark.parametrize("name", MY_LAYERS)
def test_constructor_and_forward_arguments_are_pytorchs(name):
    """The same argument names in the same order (PyTorch's RNN takes *args: ours is
    compared with its documented signature)."""
    torch = _torch()

    def names(fn):
        return list(inspect.signature(fn).parameters)

    theirs, ours = getattr(torch.nn, name), getattr(nn, name)
    expected = names(theirs.__init__)
    if name == "RNN":
        expected = ["self", "input_size", "hidden_size", "num_layers", "nonlinearity", "bias",
                    "batch_first", "dropout", "bidirectional", "device", "dtype"]  # fmt: skip
    assert names(ours.__init__) == expected
    if hasattr(theirs, "forward") and "Parameter" not in name:
        assert names(ours.forward) == names(theirs.forward)
