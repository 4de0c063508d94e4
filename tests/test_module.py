"""nn.Module, nn.Parameter, the containers and nn.init: registration, walking the tree,
state_dict / load_state_dict (check everything, then copy in place), dtype conversion, repr."""

import copy
import math
from collections import OrderedDict

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm import nn


class Affine(nn.Module):
    """y = x @ W.T + b: a Linear of our own, so these tests depend on nothing but Module."""

    def __init__(self, n_in, n_out, bias=True):
        super().__init__()
        self.in_features, self.out_features = n_in, n_out
        self.weight = nn.Parameter(tg.randn(n_out, n_in))
        self.bias = nn.Parameter(tg.randn(n_out)) if bias else None

    def extra_repr(self):
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )

    def forward(self, x):
        y = x @ self.weight.T
        return y if self.bias is None else y + self.bias


class Net(nn.Module):
    """Own parameter assigned after a child, a buffer of each kind, a tied weight."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(Affine(2, 3), Affine(3, 3))
        self.scale = nn.Parameter(tg.ones(1))
        self.head = Affine(3, 2)
        self.register_buffer("steps", tg.zeros(1, dtype=tg.int64))
        self.register_buffer("mask", tg.ones(2), persistent=False)

    def forward(self, x):
        return self.head(self.body(x)) * self.scale


def snapshot(module):
    """A copy of every parameter and buffer, by name (duplicates included)."""
    state = module.state_dict()
    state.update({f"buffer:{k}": b for k, b in module.named_buffers()})
    return {k: np.array(v.numpy(), copy=True) for k, v in state.items()}


def assert_unchanged(module, before):
    after = snapshot(module)
    assert after.keys() == before.keys()
    for name in before:
        assert after[name].dtype == before[name].dtype, name
        np.testing.assert_array_equal(after[name], before[name], err_msg=name)


# --- Parameter -----------------------------------------------------------------------------------
def test_parameter_shares_memory_with_a_tensor_and_an_array():
    t = tg.tensor([1.0, 2.0])
    p = nn.Parameter(t)
    assert p.numpy() is t.numpy()
    t.numpy()[0] = 5.0
    assert p.numpy()[0] == 5.0
    a = np.zeros((2, 2), dtype=np.float64)
    q = nn.Parameter(a)
    q.numpy()[1, 1] = 3.0
    assert a[1, 1] == 3.0 and q.dtype == np.float64


def test_parameter_is_a_leaf_tensor_that_requires_grad():
    p = nn.Parameter([1.0, 2.0])  # a list is converted (default dtype)
    assert isinstance(p, tg.Tensor) and p.is_leaf and p.requires_grad
    assert p.dtype == np.float32 and p.grad is None
    (p * p).sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), [2.0, 4.0])
    assert not nn.Parameter(tg.ones(2), requires_grad=False).requires_grad
    assert nn.Parameter().shape == (0,)


def test_parameter_of_a_non_leaf_is_a_new_leaf_on_the_same_data():
    x = tg.ones(2, requires_grad=True)
    y = x * 2
    p = nn.Parameter(y)
    assert p.is_leaf and p.grad_fn is None and p.numpy() is y.numpy()


def test_parameter_refuses_integer_data():
    with pytest.raises(TypeError, match="floating-point.*int64"):
        nn.Parameter(tg.tensor([1, 2]))
    with pytest.raises(TypeError, match="floating-point"):
        nn.Parameter(np.arange(3))


def test_parameter_repr_like_pytorch():
    assert repr(nn.Parameter(tg.tensor([1.0, 2.0]))) == (
        "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    )
    assert repr(nn.Parameter(tg.tensor([0.5]), requires_grad=False)) == (
        "Parameter containing:\ntensor([0.5000])"
    )


# --- registration --------------------------------------------------------------------------------
def test_assignment_registers_parameters_modules_and_buffers():
    net = Net()
    assert list(net._parameters) == ["scale"]
    assert list(net._modules) == ["body", "head"]
    assert list(net._buffers) == ["steps", "mask"]
    assert net.head.weight is net.head._parameters["weight"]
    assert net.steps is net._buffers["steps"]
    net.plain = 3  # anything else is an ordinary attribute
    assert net.plain == 3 and "plain" not in net._parameters


def test_reassigning_a_parameter_keeps_its_place():
    layer = Affine(2, 3)
    new = nn.Parameter(tg.zeros(3, 2))
    layer.weight = new
    assert list(layer._parameters) == ["weight", "bias"]
    assert layer.weight is new


def test_assigning_none_or_a_plain_tensor_to_a_parameter_name():
    layer = Affine(2, 3)
    with pytest.raises(TypeError, match="parameter 'weight'.*nn.Parameter or None"):
        layer.weight = tg.zeros(3, 2)
    layer.bias = None  # as PyTorch: the name stays registered, with no value
    assert "bias" in layer._parameters and layer.bias is None
    assert [n for n, _ in layer.named_parameters()] == ["weight"]
    assert list(layer.state_dict()) == ["weight"]
    del layer.weight  # after del, a plain tensor is an ordinary attribute
    layer.weight = tg.zeros(3, 2)
    assert "weight" not in layer._parameters and layer.weight.shape == (3, 2)


def test_a_module_replaces_a_buffer_or_attribute_but_not_a_parameter():
    net = Net()
    net.steps = Affine(1, 1)
    assert "steps" not in net._buffers and net._modules["steps"] is net.steps
    net.plain = 1
    net.plain = Affine(1, 1)
    assert "plain" not in net.__dict__ and net._modules["plain"] is net.plain
    with pytest.raises(TypeError, match="child module 'head'"):
        net.head = 5
    with pytest.raises(TypeError, match="parameter 'scale'"):  # as PyTorch
        net.scale = Affine(1, 1)


def test_register_buffer_and_parameter_checks():
    net = Net()
    with pytest.raises(KeyError, match="already exists"):
        net.register_buffer("head", tg.zeros(1))
    with pytest.raises(KeyError, match="contain"):
        net.register_buffer("a.b", tg.zeros(1))
    with pytest.raises(TypeError, match="Tensor or None"):
        net.register_buffer("arr", np.zeros(1))
    with pytest.raises(TypeError, match="nn.Parameter or None"):
        net.register_parameter("w", tg.zeros(1))
    net.register_parameter("w", None)
    assert "w" in net._parameters and net.w is None


def test_forgetting_super_init_is_a_clear_error():
    class Broken(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(tg.zeros(1))

    with pytest.raises(AttributeError, match=r"super\(\).__init__\(\)"):
        Broken()


def test_missing_attribute_names_the_class():
    with pytest.raises(AttributeError, match="'Affine' object has no attribute 'wieght'"):
        _ = Affine(1, 1).wieght


def test_call_runs_forward_and_hooks():
    layer = Affine(2, 3)
    x = tg.randn(4, 2)
    np.testing.assert_allclose(
        layer(x).numpy(), x.numpy() @ layer.weight.numpy().T + layer.bias.numpy(), rtol=1e-6
    )
    seen = []
    pre = layer.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    post = layer.register_forward_hook(lambda m, args, out: seen.append(out.shape))
    np.testing.assert_allclose(layer(x).numpy(), np.broadcast_to(layer.bias.numpy(), (4, 3)))
    assert seen == [(4, 3)]
    pre.remove()
    post.remove()
    layer(x)
    assert seen == [(4, 3)]
    with pytest.raises(NotImplementedError, match="forward"):
        nn.Module()(x)


# --- walking the tree ----------------------------------------------------------------------------
def test_named_parameters_order_and_names_as_pytorch():
    # Own parameters first, then the children depth first, in the order of assignment.
    names = [n for n, _ in Net().named_parameters()]
    assert names == [
        "scale",
        "body.0.weight",
        "body.0.bias",
        "body.1.weight",
        "body.1.bias",
        "head.weight",
        "head.bias",
    ]
    net = Net()
    assert [n for n, _ in net.named_parameters(recurse=False)] == ["scale"]
    assert [n for n, _ in net.named_parameters(prefix="model")][1] == "model.body.0.weight"
    assert [id(p) for p in net.parameters()] == [id(p) for _, p in net.named_parameters()]


def test_named_modules_children_and_buffers():
    net = Net()
    assert [n for n, _ in net.named_modules()] == ["", "body", "body.0", "body.1", "head"]
    assert [n for n, _ in net.named_children()] == ["body", "head"]
    assert list(net.children()) == [net.body, net.head]
    assert list(net.modules())[0] is net and len(list(net.modules())) == 5
    assert [n for n, _ in net.named_buffers()] == ["steps", "mask"]
    assert [b is net.steps for b in net.buffers()] == [True, False]
    assert net.get_submodule("body.1") is net.body[1]
    assert net.get_submodule("") is net
    with pytest.raises(AttributeError, match="no submodule 'x'"):
        net.get_submodule("body.x")


def test_tied_parameter_is_counted_once_but_saved_under_both_names():
    net = Net()
    net.tied = Affine(2, 3)
    net.tied.weight = net.body[0].weight  # like GPT's lm_head.weight and wte.weight
    params = list(net.parameters())
    assert len(params) == 8 and len({id(p) for p in params}) == 8
    assert "tied.weight" not in dict(net.named_parameters())
    state = net.state_dict()
    assert "tied.weight" in state and "body.0.weight" in state
    assert state["tied.weight"].numpy() is state["body.0.weight"].numpy()
    # A shared module also comes once in named_modules.
    net.again = net.head
    assert [n for n, _ in net.named_modules()].count("again") == 0


def test_modules_and_parameters_follow_the_named_walk():
    """modules() and parameters() walk without names (a stack, for speed): the same modules and
    parameters, in the same order, each once, as named_modules() / named_parameters()."""
    net = Net()
    net.again = net.body  # a shared subtree, met a second time
    net.add_module("absent", None)
    net.last = Affine(3, 1)
    assert list(net.modules()) == [m for _, m in net.named_modules()]
    assert list(net.parameters()) == [p for _, p in net.named_parameters()]
    assert list(net.parameters(recurse=False)) == list(net._parameters.values())


# --- modes and gradients -------------------------------------------------------------------------
def test_train_and_eval_reach_every_module():
    net = Net()
    assert all(m.training for m in net.modules())
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    net.body.train(False)
    assert [m.training for m in net.modules()] == [True, False, False, False, True]
    with pytest.raises(ValueError, match="bool"):
        net.train("no")


def test_zero_grad_sets_none_or_zeros():
    net = Net()
    net(tg.randn(4, 2)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    for p in net.parameters():
        assert p.grad.shape == p.shape and not p.grad.numpy().any()
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_requires_grad_freezes_every_parameter():
    net = Net()
    assert net.requires_grad_(False) is net
    assert not any(p.requires_grad for p in net.parameters())


def test_apply_visits_children_first_then_self():
    net = Net()
    visited = []
    assert net.apply(lambda m: visited.append(type(m).__name__)) is net
    assert visited == ["Affine", "Affine", "Sequential", "Affine", "Net"]
    net.apply(lambda m: nn.init.zeros_(m.bias) if isinstance(m, Affine) else None)
    assert all(not m.bias.numpy().any() for m in net.modules() if isinstance(m, Affine))


# --- state_dict / load_state_dict ----------------------------------------------------------------
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


# --- dtype conversion ----------------------------------------------------------------------------
def test_to_float64_keeps_the_parameter_objects():
    net = Net()
    params = list(net.parameters())
    net(tg.randn(4, 2)).sum().backward()
    opt = tg.optim.SGD(net.parameters(), lr=0.1)
    assert net.to(tg.float64) is net
    assert [id(p) for p in net.parameters()] == [id(p) for p in params]
    assert all(p.dtype == np.float64 and p.grad.dtype == np.float64 for p in params)
    assert net.mask.dtype == np.float64
    assert net.steps.dtype == np.int64  # integer buffers keep their dtype
    before = net.scale.numpy().copy()
    opt.step()  # the optimizer made before still updates them
    np.testing.assert_array_equal(net.scale.numpy(), before - 0.1 * net.scale.grad.numpy())
    net.float()
    assert all(p.dtype == np.float32 for p in params) and net.mask.dtype == np.float32
    assert net.double().head.weight.dtype == np.float64
    assert net.to("cpu") is net and net.head.weight.dtype == np.float64
    with pytest.raises(TypeError, match="floating"):
        net.to(tg.int64)


def test_deepcopy_gives_separate_memory_and_keeps_ties():
    net = Net()
    net.tied = Affine(2, 3)
    net.tied.weight = net.body[0].weight
    clone = copy.deepcopy(net)
    assert clone.tied.weight is clone.body[0].weight
    assert isinstance(clone.tied.weight, nn.Parameter)
    assert clone.head.weight.numpy() is not net.head.weight.numpy()
    np.testing.assert_array_equal(clone.head.weight.numpy(), net.head.weight.numpy())


# --- containers ----------------------------------------------------------------------------------
def test_sequential_indexing_iteration_and_forward():
    a, b, c = Affine(2, 3), Affine(3, 3), Affine(3, 1)
    seq = nn.Sequential(a, b)
    assert len(seq) == 2 and seq[0] is a and seq[-1] is b and list(seq) == [a, b]
    assert seq.append(c) is seq and seq[2] is c
    x = tg.randn(5, 2)
    np.testing.assert_array_equal(seq(x).numpy(), c(b(a(x))).numpy())
    head = seq[1:]
    assert isinstance(head, nn.Sequential) and list(head) == [b, c]
    assert list(head._modules) == ["1", "2"]  # slices keep the names, as PyTorch
    seq[0] = nn.Identity()
    assert isinstance(seq[0], nn.Identity) and list(seq._modules) == ["0", "1", "2"]
    with pytest.raises(IndexError, match="out of range"):
        seq[3]
    named = nn.Sequential(OrderedDict(first=a, second=b))
    assert [n for n, _ in named.named_children()] == ["first", "second"]
    assert "first.weight" in named.state_dict()


def test_module_list_append_extend_insert_index_delete():
    layers = nn.ModuleList([Affine(1, 1) for _ in range(2)])
    extra = [Affine(1, 2), Affine(2, 1)]
    layers.extend(extra)
    layers.append(nn.Identity())
    first = nn.Identity()
    layers.insert(0, first)
    assert len(layers) == 6 and layers[0] is first and layers[3] is extra[0]
    assert list(layers._modules) == [str(i) for i in range(6)]
    assert layers[-1] is list(layers)[-1]
    assert isinstance(layers[1:3], nn.ModuleList) and len(layers[1:3]) == 2
    del layers[0]
    assert list(layers._modules) == [str(i) for i in range(5)] and layers[2] is extra[0]
    assert len(list(layers.parameters())) == 8
    layers += [Affine(1, 1)]
    assert len(layers) == 6


def test_module_dict():
    d = nn.ModuleDict({"enc": Affine(2, 2), "dec": Affine(2, 1)})
    assert list(d) == ["enc", "dec"] and "enc" in d and len(d) == 2
    d["out"] = nn.Identity()
    assert list(d.keys()) == ["enc", "dec", "out"]
    assert [n for n, _ in d.named_parameters()] == [
        "enc.weight",
        "enc.bias",
        "dec.weight",
        "dec.bias",
    ]
    assert d.pop("out").__class__ is nn.Identity and "out" not in d


def test_identity_returns_its_input():
    x = tg.randn(2)
    assert nn.Identity(54, unused="yes")(x) is x


def test_repr_tree_like_pytorch():
    tg.manual_seed(0)
    model = nn.Sequential(
        Affine(2, 3),
        nn.ModuleList([Affine(3, 3), Affine(3, 3), Affine(3, 3, bias=False)]),
        nn.ModuleDict({"head": Affine(3, 1), "body": nn.Sequential(Affine(2, 3), nn.Identity())}),
        nn.ModuleList(),
    )
    # Checked against torch 2.13 with the same structure.
    assert repr(model) == (
        "Sequential(\n"
        "  (0): Affine(in_features=2, out_features=3, bias=True)\n"
        "  (1): ModuleList(\n"
        "    (0-1): 2 x Affine(in_features=3, out_features=3, bias=True)\n"
        "    (2): Affine(in_features=3, out_features=3, bias=False)\n"
        "  )\n"
        "  (2): ModuleDict(\n"
        "    (head): Affine(in_features=3, out_features=1, bias=True)\n"
        "    (body): Sequential(\n"
        "      (0): Affine(in_features=2, out_features=3, bias=True)\n"
        "      (1): Identity()\n"
        "    )\n"
        "  )\n"
        "  (3): ModuleList()\n"
        ")"
    )


def test_repr_with_a_multiline_extra_repr_and_children():
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = Affine(1, 1)

        def extra_repr(self):
            return "eps=1e-05"

    assert repr(Block()) == (
        "Block(\n  eps=1e-05\n  (fc): Affine(in_features=1, out_features=1, bias=True)\n)"
    )


# --- nn.init -------------------------------------------------------------------------------------
def test_init_draws_from_the_global_generator_in_place():
    w = nn.Parameter(tg.empty(300, 200, dtype=tg.float64))
    array = w.numpy()
    tg.manual_seed(3)
    assert nn.init.uniform_(w, -2.0, 5.0) is w
    assert w.numpy() is array  # in place: same memory, same Parameter
    # PyTorch's float64 uniform: 53 bits of two mt19937 words (hi, lo) seeded as RandomState
    bits = np.random.MT19937()
    key = np.random.RandomState(3).get_state()[1]
    bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": 624}}
    words = bits.random_raw(2 * 300 * 200).reshape(-1, 2)
    u = (((words[:, 0] << np.uint64(32)) | words[:, 1]) & np.uint64(2**53 - 1)) * 2.0**-53
    np.testing.assert_allclose(w.numpy(), (u * 7.0 - 2.0).reshape(300, 200), atol=1e-15)
    tg.manual_seed(4)
    nn.init.normal_(w, 1.0, 0.5)
    z = tg.randn(300, 200, generator=tg.Generator().manual_seed(4), dtype=tg.float64).numpy()
    np.testing.assert_allclose(w.numpy(), z * 0.5 + 1.0, rtol=1e-15)
    assert w.grad_fn is None and w.requires_grad


def test_init_statistics_over_a_large_tensor():
    tg.manual_seed(0)
    t = tg.empty(1000, 1000)
    nn.init.normal_(t, mean=2.0, std=3.0)
    assert abs(t.numpy().mean() - 2.0) < 0.01 and abs(t.numpy().std() - 3.0) < 0.01
    nn.init.uniform_(t, -1.0, 3.0)
    assert t.numpy().min() >= -1.0 and t.numpy().max() < 3.0
    assert abs(t.numpy().mean() - 1.0) < 0.01 and abs(t.numpy().var() - 16 / 12) < 0.01
    assert t.dtype == np.float32


def test_constant_zeros_ones():
    t = tg.empty(2, 3)
    assert (nn.init.constant_(t, 0.25).numpy() == 0.25).all()
    assert (nn.init.ones_(t).numpy() == 1).all()
    assert (nn.init.zeros_(t).numpy() == 0).all()


def test_fan_in_and_fan_out():
    assert nn.init._calculate_fan_in_and_fan_out(tg.empty(30, 20)) == (20, 30)
    assert nn.init._calculate_fan_in_and_fan_out(tg.empty(8, 4, 3, 3)) == (36, 72)
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        nn.init._calculate_fan_in_and_fan_out(tg.empty(5))


def test_xavier_bounds_and_variance():
    tg.manual_seed(1)
    fan_out, fan_in = 400, 600
    w = nn.init.xavier_uniform_(tg.empty(fan_out, fan_in, dtype=tg.float64), gain=2.0)
    bound = 2.0 * math.sqrt(6.0 / (fan_in + fan_out))
    assert np.abs(w.numpy()).max() <= bound and np.abs(w.numpy()).max() > 0.999 * bound
    assert abs(w.numpy().var() / (bound**2 / 3) - 1) < 0.01
    w = nn.init.xavier_normal_(tg.empty(fan_out, fan_in, dtype=tg.float64), gain=0.5)
    std = 0.5 * math.sqrt(2.0 / (fan_in + fan_out))
    assert abs(w.numpy().std() / std - 1) < 0.01 and abs(w.numpy().mean()) < 0.01 * std


def test_kaiming_uniform_bounds():
    tg.manual_seed(2)
    w = nn.init.kaiming_uniform_(tg.empty(500, 200, dtype=tg.float64), a=math.sqrt(5))
    bound = 1 / math.sqrt(200)  # sqrt(3) * sqrt(2 / (1 + 5)) / sqrt(fan_in): nn.Linear's
    assert np.abs(w.numpy()).max() <= bound and np.abs(w.numpy()).max() > 0.999 * bound
    w = nn.init.kaiming_uniform_(tg.empty(500, 200), mode="fan_out", nonlinearity="relu")
    bound = math.sqrt(2) * math.sqrt(3 / 500)
    assert np.abs(w.numpy()).max() <= bound * (1 + 1e-6) and np.abs(w.numpy()).max() > 0.999 * bound
    w = nn.init.kaiming_normal_(tg.empty(500, 200, dtype=tg.float64), nonlinearity="relu")
    assert abs(w.numpy().std() / math.sqrt(2 / 200) - 1) < 0.01
    with pytest.raises(ValueError, match="fan_in"):
        nn.init.kaiming_uniform_(tg.empty(2, 2), mode="fan")


def test_calculate_gain():
    assert nn.init.calculate_gain("linear") == 1.0
    assert nn.init.calculate_gain("sigmoid") == 1.0
    assert nn.init.calculate_gain("tanh") == 5 / 3
    assert nn.init.calculate_gain("relu") == math.sqrt(2)
    assert nn.init.calculate_gain("leaky_relu") == math.sqrt(2 / (1 + 0.01**2))
    assert nn.init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2 / 1.04)
    assert nn.init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="unsupported nonlinearity"):
        nn.init.calculate_gain("swish")
