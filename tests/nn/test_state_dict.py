"""state_dict / load_state_dict: the keys and values a module's state holds (parameters, then
persistent buffers; shared memory), and loading that checks everything first and then copies in
place: every problem named in one error, nothing changed when it fails, strict=False, tied
weights, the filter hook, and optimizers that keep working after a load."""

from collections import OrderedDict

import numpy as np
import pytest
from helpers import Affine, Net, assert_unchanged, snapshot

import tinygrad_norm as tg


def test_state_dict_keys_values_and_shared_memory():
    net = Net()
    state = net.state_dict()
    assert isinstance(state, OrderedDict)
    assert list(state) == [
        "scale",
        "steps",
        "body.0.weight",
        "body.0.bias",
        "body.1.weight",
        "body.1.bias",
        "head.weight",
        "head.bias",
    ]  # "mask" is a non-persistent buffer
    for value in state.values():
        assert type(value) is tg.Tensor and not value.requires_grad and value.grad_fn is None
    assert state["head.weight"].numpy() is net.head.weight.numpy()
    state["head.weight"].numpy()[0, 0] = 42.0
    assert net.head.weight.numpy()[0, 0] == 42.0
    assert net.state_dict(keep_vars=True)["head.weight"] is net.head.weight


def test_load_state_dict_from_numpy_arrays_and_from_tensors():
    source, target = Net(), Net()
    target_params = list(target.parameters())
    arrays = {k: np.array(v.numpy(), copy=True) + 1 for k, v in source.state_dict().items()}
    result = target.load_state_dict(arrays)
    assert result == ([], []) and result.missing_keys == [] and result.unexpected_keys == []
    for name, value in target.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), arrays[name])
    # The same Parameter objects, with their own memory (not the checkpoint's).
    assert list(target.parameters()) == target_params
    assert target.head.weight.numpy() is not arrays["head.weight"]
    target.load_state_dict(source.state_dict())  # Tensors
    for (name, a), b in zip(source.state_dict().items(), target.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)
        assert a.numpy() is not b.numpy()


def test_load_state_dict_reports_every_problem_in_one_error_and_changes_nothing():
    net = Net()
    state = {k: np.array(v.numpy(), copy=True) + 1 for k, v in net.state_dict().items()}
    del state["head.bias"]  # missing
    state["body.0.weight"] = np.zeros((9, 9), np.float32)  # wrong shape
    state["scale"] = np.ones(1, np.float64)  # wrong dtype
    state["extra.weight"] = np.zeros(1, np.float32)  # unexpected
    before = snapshot(net)
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(state)
    message = str(info.value)
    assert "missing key(s): 'head.bias'" in message
    assert "unexpected key(s): 'extra.weight'" in message
    assert "size mismatch for 'body.0.weight'" in message and "(9, 9)" in message
    assert "(3, 2)" in message
    assert "dtype mismatch for 'scale'" in message and "float64" in message
    assert "nothing was changed" in message
    # Every other entry was valid and would have been copied: none was.
    assert_unchanged(net, before)


def test_load_state_dict_missing_key_and_wrong_shape_only():
    net = Net()
    state = {k: np.array(v.numpy(), copy=True) * 0 for k, v in net.state_dict().items()}
    del state["steps"]
    state["head.weight"] = np.zeros((3, 2), np.float32)
    before = snapshot(net)
    with pytest.raises(RuntimeError, match="(?s)missing key.*'steps'.*size mismatch.*head.weight"):
        net.load_state_dict(state)
    assert_unchanged(net, before)


def test_unexpected_key_alone_is_an_error_when_strict():
    net = Net()
    state = dict(net.state_dict(), **{"head.scale": tg.zeros(1)})
    before = snapshot(net)
    with pytest.raises(RuntimeError, match="unexpected key.*'head.scale'"):
        net.load_state_dict({k: v.numpy() + 1 for k, v in state.items()})
    assert_unchanged(net, before)


def test_dtype_mismatch_alone_is_an_error():
    net = Net()
    state = {k: v.numpy() for k, v in net.state_dict().items()}
    state["head.bias"] = state["head.bias"].astype(np.float64)
    with pytest.raises(RuntimeError, match="dtype mismatch for 'head.bias'.*model.to"):
        net.load_state_dict(state)


def test_non_strict_loads_what_matches_and_returns_the_rest():
    net = Net()
    new_weight = np.full((2, 3), 7.0, np.float32)
    result = net.load_state_dict({"head.weight": new_weight, "junk": np.zeros(1)}, strict=False)
    assert result.unexpected_keys == ["junk"]
    assert "head.weight" not in result.missing_keys and "head.bias" in result.missing_keys
    assert len(result.missing_keys) == 7
    np.testing.assert_array_equal(net.head.weight.numpy(), new_weight)
    # A shape mismatch is an error even when not strict (as in PyTorch).
    with pytest.raises(RuntimeError, match="size mismatch"):
        net.load_state_dict({"head.weight": np.zeros((1, 1), np.float32)}, strict=False)


def test_a_tied_parameter_loads_from_either_name():
    def tied_net():
        net = Net()
        net.tied = Affine(2, 3)
        net.tied.weight = net.body[0].weight
        return net

    net = tied_net()
    state = {k: np.array(v.numpy(), copy=True) for k, v in tied_net().state_dict().items()}
    for drop in ("tied.weight", "body.0.weight"):
        one_name = {k: v for k, v in state.items() if k != drop}
        assert net.load_state_dict(one_name) == ([], [])
        np.testing.assert_array_equal(net.tied.weight.numpy(), state["body.0.weight"])
        assert net.tied.weight is net.body[0].weight
    conflicting = dict(state, **{"tied.weight": state["tied.weight"] + 1})
    with pytest.raises(RuntimeError, match="tied"):
        net.load_state_dict(conflicting)


def test_filter_state_dict_hook_drops_foreign_entries():
    class Checkpointed(Affine):
        def _filter_state_dict(self, state):
            return {k: v for k, v in state.items() if not k.endswith(".masked_bias")}

    layer = Checkpointed(2, 3)
    state = {k: v.numpy() * 2 for k, v in layer.state_dict().items()}
    state["attn.masked_bias"] = np.zeros(1)
    expected = state["weight"].copy()
    layer.load_state_dict(state)
    np.testing.assert_array_equal(layer.weight.numpy(), expected)


def test_save_and_load_round_trip(tmp_path):
    source, target = Net(), Net()
    source.steps.numpy()[...] = 5
    path = tmp_path / "net.npz"
    tg.save(source.state_dict(), path)
    target.load_state_dict(tg.load(path))
    for (name, a), b in zip(source.state_dict().items(), target.state_dict().values()):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)
    x = tg.randn(4, 2)
    np.testing.assert_array_equal(source(x).numpy(), target(x).numpy())


def test_optimizer_keeps_working_after_load_state_dict():
    net = Net()
    opt = tg.optim.SGD(net.parameters(), lr=0.5)
    net.load_state_dict({k: v.numpy() * 0 + 1 for k, v in Net().state_dict().items()})
    net(tg.ones(1, 2)).sum().backward()
    expected = net.head.bias.numpy() - 0.5 * net.head.bias.grad.numpy()
    opt.step()
    np.testing.assert_allclose(net.head.bias.numpy(), expected)
