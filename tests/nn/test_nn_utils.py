"""nn.utils: gradient clipping (by norm and by value), parameters as one vector, pad_sequence,
and weight_norm still importable from nn.utils; against their formulas and, where PyTorch is
installed, against torch.nn.utils."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm import nn


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
