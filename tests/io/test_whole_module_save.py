"""`torch.save(model, f)` of a whole module, and loading it back without pickle's power:
only tinygrad_norm's own classes and those listed in `torch.serialization.safe_globals` are
rebuilt, without calling them; any other global is refused with PyTorch's message."""

import io
import pickle
import zipfile

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm import nn
from tinygrad_norm.compat import serialization
from tinygrad_norm.testing.module_cases import CASES

CALLS = []  # what the classes below record when their code runs
TorchNet = None  # a PyTorch model class, made by the oracle test


class Net(nn.Module):
    """A user's model: nested modules, a container, a tied weight, a buffer, plain attributes."""

    def __init__(self, vocab=7, width=4):
        super().__init__()
        CALLS.append("Net.__init__")
        self.embed = nn.Embedding(vocab, width)
        self.rnn = nn.LSTM(width, width)
        self.blocks = nn.ModuleList([nn.Sequential(nn.Linear(width, width), nn.Tanh())])
        self.heads = nn.ModuleDict({"out": nn.Linear(width, vocab)})
        self.heads["out"].weight = self.embed.weight  # tied
        self.register_buffer("scale", tg.tensor(0.5))
        self.vocab, self.note, self.rate, self.flags = vocab, "tiny", 0.25, (True, False, None)
        self.sizes, self.table, self.activation = [1, 2], {"a": [1.5]}, tg.nn.functional.relu

    def forward(self, x):
        h, _ = self.rnn(self.embed(x))
        for block in self.blocks:
            h = block(h)
        return self.heads["out"](self.activation(h)) * self.scale


class Config:
    """A plain object a model holds (as nanoGPT's GPTConfig)."""

    def __init__(self, width):
        CALLS.append("Config.__init__")
        self.width = width


class WithConfig(nn.Module):
    def __init__(self):
        super().__init__()
        self.config = Config(3)
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x)


def _saved(obj) -> io.BytesIO:
    file = io.BytesIO()
    tg.save(obj, file)
    file.seek(0)
    return file


def _outputs_and_state(model, x):
    with tg.no_grad():
        out = model.eval()(x).numpy()
    return out, {k: v.numpy() for k, v in model.state_dict().items()}


# --- round trips -----------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_every_module_of_the_module_table_round_trips(case):
    module, inputs = case.build(0)
    module.eval()
    loaded = tg.load(_saved(module))
    assert type(loaded) is type(module) and repr(loaded) == repr(module)
    tensors = [tg.tensor(a) for a in inputs]
    with tg.no_grad():
        ours, theirs = module(*tensors), loaded(*tensors)
    ours, theirs = (o if isinstance(o, tuple) else (o,) for o in (ours, theirs))
    for a, b in zip(ours, theirs):
        if isinstance(a, tg.Tensor):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    state, state_back = module.state_dict(), loaded.state_dict()
    assert list(state) == list(state_back)
    for name in state:
        np.testing.assert_array_equal(state[name].numpy(), state_back[name].numpy())


def test_a_user_model_comes_back_whole_without_its_init_running():
    tg.manual_seed(0)
    model = Net()
    x = tg.tensor([[1, 2, 3], [4, 5, 6]])
    CALLS.clear()
    with serialization.safe_globals([Net]):
        loaded = tg.load(_saved(model))
    assert CALLS == []  # rebuilt with object.__new__ and its attributes
    assert type(loaded) is Net and loaded.training is model.training
    for (out, state), (out_back, state_back) in [
        (_outputs_and_state(model, x), _outputs_and_state(loaded, x))
    ]:
        np.testing.assert_array_equal(out, out_back)
        assert state.keys() == state_back.keys()
        for name in state:
            np.testing.assert_array_equal(state[name], state_back[name])
    assert loaded.heads["out"].weight is loaded.embed.weight  # tied weights stay tied
    assert len(list(loaded.parameters())) == len(list(model.parameters()))
    assert isinstance(loaded.embed.weight, nn.Parameter) and loaded.embed.weight.requires_grad
    assert (loaded.vocab, loaded.note, loaded.rate, loaded.flags) == (
        7,
        "tiny",
        0.25,
        (True, False, None),
    )
    assert loaded.sizes == [1, 2] and loaded.table == {"a": [1.5]}
    assert loaded.activation is tg.nn.functional.relu
    assert isinstance(loaded.blocks, nn.ModuleList) and isinstance(loaded.heads, nn.ModuleDict)


def test_training_goes_on_after_loading_as_it_would_have():
    tg.manual_seed(0)
    model = Net()
    x, target = tg.tensor([[1, 2, 3]]), tg.tensor([2, 3, 4])
    with serialization.safe_globals([Net]):
        loaded = tg.load(_saved(model))
    for m in (model, loaded):
        m.train()
        optimizer = tg.optim.Adam(m.parameters(), lr=0.01)
        for _ in range(3):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(m(x).reshape(-1, 7), target)
            loss.backward()
            optimizer.step()
    for (name, a), (_, b) in zip(model.named_parameters(), loaded.named_parameters()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=0, atol=0, err_msg=name)
    assert loaded.heads["out"].weight is loaded.embed.weight


def test_a_dict_holding_modules_and_a_plain_listed_object():
    model = WithConfig()
    optimizer = tg.optim.SGD(model.parameters(), lr=0.1)
    CALLS.clear()
    file = _saved({"model": model, "epoch": 3, "optimizer": optimizer.state_dict()})
    with serialization.safe_globals([WithConfig, Config]):
        back = tg.load(file)
    assert CALLS == [] and back["epoch"] == 3 and back["model"].config.width == 3
    assert type(back["model"].config) is Config
    tg.optim.SGD(back["model"].parameters(), lr=0.1).load_state_dict(back["optimizer"])


def test_add_get_and_clear_safe_globals_and_path_pairs():
    file = _saved(Net())
    serialization.clear_safe_globals()
    try:
        serialization.add_safe_globals([(Net, f"{Net.__module__}.Net")])
        assert serialization.get_safe_globals() == [(Net, f"{Net.__module__}.Net")]
        assert type(tg.load(file)) is Net
    finally:
        serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []


def test_a_lambda_or_a_local_class_cannot_be_saved_and_says_where():
    model = nn.Linear(2, 2)
    model.act = lambda t: t
    with pytest.raises(TypeError, match=r"obj\['act'\] is the function .*<lambda>.* no import"):
        tg.save(model, io.BytesIO())
    with pytest.raises(TypeError, match="optimizer"):
        tg.save({"o": tg.optim.SGD(model.parameters(), lr=1)}, io.BytesIO())
    with pytest.raises(TypeError, match=r"a Module \(Linear\).*\.pt"):
        tg.save(nn.Linear(2, 2), _named("model.npz"))


def _named(name):
    file = io.BytesIO()
    file.name = name
    return file


# --- refusals ----------------------------------------------------------------------------------
FIRST_LINE = (
    "Weights only load failed. This file can still be loaded, to do so you have two options, "
    "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
)


@pytest.mark.parametrize("weights_only", [True, False, None])
def test_a_class_not_listed_is_refused_with_pytorchs_message(weights_only):
    file = _saved(Net())
    with pytest.raises(pickle.UnpicklingError) as refused:
        tg.load(file, weights_only=weights_only)
    message, path = str(refused.value), f"{Net.__module__}.Net"
    assert f"GLOBAL {path} was not an allowed global by default" in message
    assert f"`torch.serialization.add_safe_globals([{path}])`" in message
    if weights_only is False:
        assert "even with weights_only=False" in message
    else:
        assert message.splitlines()[0] == FIRST_LINE.splitlines()[0]


def _zip(data_pkl: bytes) -> io.BytesIO:
    file = io.BytesIO()
    with zipfile.ZipFile(file, "w") as archive:
        archive.writestr("archive/data.pkl", data_pkl)
        archive.writestr("archive/version", "3\n")
    file.seek(0)
    return file


def _global(path: str) -> bytes:
    module, name = path.rsplit(".", 1)
    return b"c" + f"{module}\n{name}\n".encode()


SHELL = b"X\x0b\x00\x00\x00echo hacked\x85"  # the string "echo hacked", in a 1-tuple


@pytest.mark.parametrize(
    "payload, message",
    [
        (_global("os.system") + SHELL + b"R.", "GLOBAL os.system was not an allowed"),
        (_global("builtins.eval") + SHELL + b"R.", "GLOBAL eval was not an allowed"),
        (_global("posix.system") + SHELL + b"R.", "GLOBAL posix.system was not an allowed"),
        (b"(ios\nsystem\n.", "opcode that calls a class"),
        (_global("tinygrad_norm.nn.linear.Linear") + b"K\x02K\x03\x86R.", "asks to call"),
        (_global("tinygrad_norm.nn.functional.activation.relu") + b")R.", "asks to call"),
        (_global("collections.OrderedDict") + b")\x81.", "asks to make"),
        (b"]" + b"}b.", "set the attributes of a list"),
        (
            _global("tinygrad_norm.nn.linear.Linear") + b")\x81X\x01\x00\x00\x00xK\x01s.",
            "adds items",
        ),
        (_global("torch.nn.modules.linear.Linear") + b")\x81}b.", "a whole model saved by PyTorch"),
    ],
    ids=[
        "os.system",
        "eval",
        "posix",
        "INST",
        "reduce a class",
        "reduce an own function",
        "newobj",
        "build",
        "setitem",
        "pytorch's",
    ],
)
def test_malicious_or_foreign_pickles_are_refused_before_anything_runs(payload, message):
    with pytest.raises(pickle.UnpicklingError, match=message):
        tg.load(_zip(b"\x80\x02" + payload))


def test_a_listed_class_is_never_called_by_the_file():
    calls_init = _global(f"{Config.__module__}.Config") + b"K\x05\x85R."
    CALLS.clear()
    with serialization.safe_globals([Config]), pytest.raises(pickle.UnpicklingError, match="call"):
        tg.load(_zip(b"\x80\x02" + calls_init))
    assert CALLS == []


def test_a_rebuilt_module_with_a_damaged_state_is_refused():
    broken = _global("tinygrad_norm.nn.linear.Linear") + b")\x81}X\x0b\x00\x00\x00_parameters"
    broken += b"}X\x01\x00\x00\x00wX\x01\x00\x00\x00ss" + b"sb."
    with pytest.raises(ValueError, match="damaged _parameters"):
        tg.load(_zip(b"\x80\x02" + broken))


# --- PyTorch 2.13 ------------------------------------------------------------------------------
@pytest.mark.oracle
def test_pytorchs_refusal_reads_as_ours():
    torch = pytest.importorskip("torch")
    ours_file = _saved(Net())
    with pytest.raises(pickle.UnpicklingError) as ours:
        tg.load(ours_file)
    ours_file.seek(0)
    with pytest.raises(pickle.UnpicklingError) as theirs_on_ours:  # our file, PyTorch's loader
        torch.load(ours_file, weights_only=True)

    global TorchNet  # noqa: PLW0603 - pickle finds a class by its module and name
    TorchNet = type("TorchNet", (torch.nn.Sequential,), {})  # the same model, in PyTorch
    theirs_file = io.BytesIO()
    torch.save(TorchNet(torch.nn.Linear(2, 2)), theirs_file)
    theirs_file.seek(0)
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(theirs_file, weights_only=True)
    first = str(ours.value).splitlines()[0]
    assert first == str(theirs.value).splitlines()[0] == str(theirs_on_ours.value).splitlines()[0]

    def weights_unpickler_line(text):
        return next(line for line in text.splitlines() if "WeightsUnpickler error" in line)

    assert weights_unpickler_line(str(ours.value)) == weights_unpickler_line(
        str(theirs_on_ours.value)
    )
