"""nn.Module, nn.Parameter and the containers (Sequential, ModuleList, ModuleDict, ParameterList,
ParameterDict): registration, walking the tree, modes, dtype conversion, repr. (state_dict /
load_state_dict: test_state_dict.py; hooks: test_module_hooks.py.)"""

import copy
from collections import OrderedDict

import numpy as np
import pytest
from helpers import Affine, Net

import tinygrad_norm as tg
from tinygrad_norm import nn


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


@pytest.mark.oracle
def test_named_parameters_options_requires_grad_and_get_submodule_like_pytorch():
    torch = pytest.importorskip("torch")
    results = []
    for mod in (nn, torch.nn):
        shared = mod.Linear(2, 2)
        model = mod.Sequential(shared, mod.Sequential(mod.Tanh(), shared), mod.LSTM(2, 3))
        results.append(
            (
                [n for n, _ in model.named_parameters(prefix="net")],
                [n for n, _ in model.named_parameters(remove_duplicate=False)],
                [n for n, _ in model[1].named_parameters(recurse=False)],
                type(model.get_submodule("1.1")).__name__,
                sum(p.numel() for p in model.parameters()),
                [p.requires_grad for p in model.requires_grad_(False).parameters()],
            )
        )
    assert results[0] == results[1]


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


def test_parameter_list_registers_and_wraps():
    params = nn.ParameterList([tg.zeros(2, 3), nn.Parameter(tg.ones(3))])
    params.append(tg.ones(1))
    params += [tg.ones(4)]
    assert [n for n, _ in params.named_parameters()] == ["0", "1", "2", "3"]
    assert all(isinstance(p, nn.Parameter) for p in params) and len(params) == 4
    assert params[-1].shape == (4,) and len(params[1:3]) == 2
    model = nn.Module()
    model.weights = params
    assert list(model.state_dict()) == ["weights.0", "weights.1", "weights.2", "weights.3"]
    optimizer = tg.optim.SGD(model.parameters(), lr=1.0)
    sum(p.sum() for p in params).backward()
    optimizer.step()
    assert params[0].tolist() == [[-1.0] * 3] * 2


def test_parameter_dict_keeps_order_and_wraps():
    params = nn.ParameterDict({"b": tg.zeros(2)})
    params["a"] = tg.ones(3)
    params.update([("c", nn.Parameter(tg.ones(1)))])
    assert list(params) == ["b", "a", "c"] and "a" in params
    assert isinstance(params["a"], nn.Parameter)
    assert [n for n, _ in params.named_parameters()] == ["b", "a", "c"]
    assert params.pop("b").shape == (2,) and list(params.keys()) == ["a", "c"]
    assert params.get("zzz") is None


@pytest.mark.oracle
def test_parameter_containers_repr_like_pytorch():
    torch = pytest.importorskip("torch")
    for lib, mod in ((tg, nn), (torch, torch.nn)):
        holder = mod.Module()
        holder.plist = mod.ParameterList([lib.zeros(2, 3), lib.ones(3)])
        holder.pdict = mod.ParameterDict({"a": lib.zeros(2)})
        holder.one = mod.ParameterList([lib.zeros(2)])
        if lib is tg:
            ours = repr(holder)
        else:
            assert ours == repr(holder)
