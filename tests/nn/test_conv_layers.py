"""The convolution, pooling and loss layers: gradient checks of every layer and parameter
(first and second order, from the module table), PyTorch's initialisation and shapes, errors."""

import math

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm import nn
from tinygrad_norm.testing.module_cases import CASES as ALL_CASES
from tinygrad_norm.testing.module_cases import check_module_case
from tinygrad_norm.testing.module_cases_nn import NN_CASES

CASES = [case for case in ALL_CASES if case.name in {row[0] for row in NN_CASES}]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_layer_gradients_first_and_second_order(case):
    check = check_module_case(case)
    assert check.first.ok, check.first
    assert check.second is None or check.second.ok, check.second


@pytest.mark.parametrize(
    "layer, weight_shape",
    [
        (lambda: nn.Conv2d(6, 8, (3, 2), groups=2), (8, 3, 3, 2)),
        (lambda: nn.Conv1d(4, 2, 5), (2, 4, 5)),
        (lambda: nn.ConvTranspose2d(6, 4, 3, groups=2), (6, 2, 3, 3)),
        (lambda: nn.ConvTranspose1d(3, 5, 2), (3, 5, 2)),
    ],
)
def test_parameters_have_pytorch_shapes_and_initialisation(layer, weight_shape):
    tg.manual_seed(0)
    module = layer()
    assert module.weight.shape == weight_shape
    assert module.bias.shape == (module.out_channels,)
    fan_in = weight_shape[1] * math.prod(weight_shape[2:])
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform_(a=sqrt(5)) and PyTorch's bias rule
    for p in (module.weight, module.bias):
        assert np.abs(p.numpy()).max() <= bound
    assert np.abs(module.weight.numpy()).max() > 0.5 * bound  # uses the interval's width
    assert [name for name, _ in module.named_parameters()] == ["weight", "bias"]


def test_conv2d_without_bias_has_no_bias_parameter():
    module = nn.Conv2d(2, 3, 3, bias=False)
    assert module.bias is None and list(module.state_dict()) == ["weight"]


def test_a_small_cnn_trains():
    """Conv, pool, flatten, linear: the loss of one fixed batch falls under SGD."""
    tg.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(16, 2)
    )
    x, y = tg.randn(8, 1, 4, 4), tg.tensor([0, 1] * 4)
    opt = tg.optim.SGD(model.parameters(), lr=0.5)
    losses = []
    for _ in range(20):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


def test_layer_mistakes():
    with pytest.raises(ValueError, match="divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="padding_mode"):
        nn.Conv2d(3, 4, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match="not reachable"):
        nn.ConvTranspose2d(2, 2, 3, stride=2)(tg.ones(1, 2, 3, 3), output_size=(10, 10))


def test_padding_mode_uses_f_pad():
    x = tg.tensor(np.arange(5.0, dtype=np.float32).reshape(1, 1, 5))
    layer = nn.Conv1d(1, 1, 3, padding=1, padding_mode="reflect", bias=False)
    layer.weight.data[...] = np.array([[[1.0, 0.0, 0.0]]])  # picks the left neighbour
    assert layer(x).tolist() == [[[1.0, 0.0, 1.0, 2.0, 3.0]]]
