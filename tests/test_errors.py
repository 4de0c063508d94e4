"""Errors are messages for a learner (STYLE 8): each mistake raises an error of PyTorch's type
whose message names the op, the shapes or values involved, and what to do instead.

First a table of learners' mistakes across the library: each row of `CASES` is (case, call,
error type, op, values, advice), and the message must contain the op's name, every one of
`values` and every one of `advice`. The rows that change state (load_state_dict, tg.load)
check, before the error leaves them, that nothing was changed and nothing was unpickled.
Then focused checks of the messages of one kind of mistake over several ops, dims or inputs
(`re.escape` wherever a message quotes a shape, so "(2, 3)" is matched literally).

`python tests/test_errors.py` prints the table with the messages the library produces.
"""

from __future__ import annotations

import os
import pickle
import re
import sys
import tempfile
from dataclasses import dataclass, field

import numpy as np
import pytest

import tinygrad_norm as tg
import tinygrad_norm.nn.functional as F
from tinygrad_norm import nn
from tinygrad_norm.convert import RaggedError
from tinygrad_norm.dtypes import DtypeError


@dataclass
class Case:
    name: str
    call: object  # () -> anything; must raise
    error: type
    op: str  # the message names the operation ...
    values: list = field(default_factory=list)  # ... the shapes or values involved ...
    advice: list = field(default_factory=list)  # ... and what to do instead


# --- helpers for the rows that need a little set-up ---------------------------------------------
def _u8(values):
    return tg.tensor(values, dtype=tg.uint8)


def _backward_twice():
    x = tg.ones(2, requires_grad=True)
    y = x.exp().sum()
    y.backward()
    y.backward()


def _small_gpt():
    tg.manual_seed(0)
    config = tg.models.GPTConfig(vocab_size=5, n_ctx=4, d_model=8, n_layer=1, n_head=2)
    return tg.models.GPT(config)


def _grad_of_another_shape():
    p = tg.ones(3, requires_grad=True)
    p.grad = tg.tensor([1.0])  # by hand, and of the wrong shape: refused, as PyTorch


def _leaf64():
    return tg.tensor([0.5, 1.5], dtype=tg.float64, requires_grad=True)


def _hook_of_another_shape():
    x = tg.ones(2, requires_grad=True)
    x.register_hook(lambda g: tg.ones(3))
    (x * 2).sum().backward()


def _in_place_on_a_view():
    h = tg.ones(2, 3, requires_grad=True) * 2
    h.expand(2, 2, 3).mul_(3)


def _saved_then_changed():
    x, w = tg.ones(3, requires_grad=True), tg.ones(3)
    y = x * w
    w.mul_(2)
    y.sum().backward()


def _net():
    tg.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 3), nn.LayerNorm(3))


def _load_and_check_nothing_changed(edit):
    """Load a state dict that `edit` spoilt; before the error leaves, compare every
    parameter and buffer with its value before the call: none may have changed."""
    net = _net()
    before = {k: v.numpy().copy() for k, v in net.state_dict().items()}
    state = {k: v.numpy() + 1 for k, v in net.state_dict().items()}  # all valid, all new
    edit(state)
    try:
        net.load_state_dict(state)
    finally:
        for name, value in net.state_dict().items():
            np.testing.assert_array_equal(value.numpy(), before[name], err_msg=name)


def _without(key):
    return lambda state: state.pop(key)


def _with(key, value):
    return lambda state: state.__setitem__(key, value)


class _RunsCodeWhenUnpickled:
    """Unpickling this creates a directory: proof that a file's code was run."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def _load_and_check_nothing_unpickled(write):
    """Write a file with `write(path, payload)` and tg.load it; the payload must not run."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "weights.npz")
        marker = os.path.join(folder, "code-was-run")
        write(path, _RunsCodeWhenUnpickled(marker))
        try:
            tg.load(path)
        finally:
            assert not os.path.exists(marker), "tg.load unpickled the file"


def _write_object_array(path, payload):
    np.savez(path, weight=np.ones(2), payload=np.array([payload, None], dtype=object))


def _write_pickle(path, payload):
    with open(path, "wb") as f:
        pickle.dump({"weight": payload}, f)


def _save_to_a_temporary_file(obj):
    with tempfile.TemporaryDirectory() as folder:
        tg.save(obj, os.path.join(folder, "checkpoint.npz"))


def _load_legacy_torch_file_naming(module: str, name: str):
    """A legacy torch.save file whose object is module.name("x"); never called by tg.load."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "weights.pt")
        with open(path, "wb") as f:
            for header in (0x1950A86A20F9469CFC6C, 1001, {"little_endian": True}):
                pickle.dump(header, f, protocol=2)
            f.write(b"\x80\x02c" + f"{module}\n{name}\n".encode() + b"X\x01\x00\x00\x00xtR.")
        tg.load(path)


def _load_text_file():
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "notes.txt")
        with open(path, "w") as f:
            f.write("not an archive\n")
        tg.load(path)


def _load_single_npy():
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "array.npy")
        np.save(path, np.ones(3))
        tg.load(path)


CASES = [
    # --- Tensor construction ----------------------------------------------------------------
    Case("tensor: ragged list", lambda: tg.tensor([[1.0, 2.0], [3.0]]), RaggedError,
         "Tensor", ["list"], ["nested list of numbers of equal lengths"]),
    Case("tensor: strings", lambda: tg.tensor(["a", "b"]), TypeError,
         "Tensor", ["<U1"], ["np.ndarray of numbers"]),
    Case("tensor: dtype=str", lambda: tg.tensor([1.0], dtype=str), TypeError,
         "Tensor", ["'str'"], ["tg.float32"]),
    Case("tensor: integer requires_grad", lambda: tg.tensor([1, 2], requires_grad=True),
         RuntimeError, "requires_grad", ["int64"], ["dtype=tg.float32", ".float()"]),
    Case("zeros: float size", lambda: tg.zeros(2.5, 3), TypeError,
         "zeros", ["2.5", "(2.5, 3)"], ["n // 2", "int(...)"]),
    Case("randn: negative size", lambda: tg.randn(2, -3), ValueError,
         "randn", ["(2, -3)"], [">= 0"]),
    # --- shape-checking ops -------------------------------------------------------------------
    Case("add: shapes do not broadcast", lambda: tg.ones(2, 3) + tg.ones(4), ValueError,
         "add", ["(2, 3)", "(4,)"], ["reshape or unsqueeze"]),
    Case("mul: while recording a graph", lambda: tg.ones(3, 2, requires_grad=True) * tg.ones(3),
         ValueError, "mul", ["(3, 2)", "(3,)"], ["equal or one of them 1"]),
    Case("matmul: inner sizes differ", lambda: tg.ones(2, 3) @ tg.ones(4, 5), ValueError,
         "matmul", ["(2, 3)", "(4, 5)", "(3)", "(4)"], ["transpose one of them"]),
    Case("matmul: batch shapes differ", lambda: tg.ones(2, 3, 4) @ tg.ones(5, 4, 2), ValueError,
         "matmul", ["(2, 3, 4)", "(5, 4, 2)", "batch", "(2,)", "(5,)"],
         ["equal or one of them 1"]),
    Case("matmul: a 0-d operand", lambda: tg.tensor(2.0) @ tg.ones(2), ValueError,
         "matmul", ["()", "(2,)"], ["use *"]),
    Case("cat: sizes differ off the dim", lambda: tg.cat([tg.ones(2, 3), tg.ones(2, 4)]),
         ValueError, "cat", ["tensor 1", "(2, 4)", "(2, 3)", "dim 0"], ["must match"]),
    Case("cat: empty list", lambda: tg.cat([]), ValueError, "cat", [], ["non-empty list"]),
    Case("stack: shapes differ", lambda: tg.stack([tg.ones(2), tg.ones(3)]), ValueError,
         "stack", ["(2,)", "(3,)"], ["must have the same shape"]),
    Case("stack: empty list", lambda: tg.stack([]), ValueError, "stack", [], ["non-empty list"]),
    Case("split: sizes do not add up", lambda: tg.ones(5, 2).split([2, 2]), ValueError,
         "split", ["[2, 2]", "4", "(5, 2)", "size 5"], ["add up to"]),
    Case("chunk: zero chunks", lambda: tg.ones(4).chunk(0), ValueError,
         "chunk", ["0"], ["positive integer"]),
    Case("reshape: element count", lambda: tg.ones(2, 3).reshape(4, 2), ValueError,
         "reshape", ["(2, 3)", "(4, 2)", "6 elements"], ["one size may be -1"]),
    Case("reshape: float size", lambda: tg.ones(6).reshape(3.0, 2), TypeError,
         "reshape", ["3.0"], ["n // 2", "int(...)"]),
    Case("expand: a size that is not 1", lambda: tg.ones(2, 3).expand(4, 3), ValueError,
         "expand", ["(2, 3)", "(4, 3)"], ["only grow where it is 1"]),
    Case("permute: missing axis", lambda: tg.ones(2, 3, 4).permute(0, 1), ValueError,
         "permute", ["(0, 1)", "(2, 3, 4)", "3 axes"], ["exactly once"]),
    Case("transpose: dim out of range", lambda: tg.ones(2, 3).transpose(0, 2), IndexError,
         "transpose", ["dim 2", "2 dimensions"], ["-2 to 1"]),
    Case("unsqueeze: dim out of range", lambda: tg.ones(2, 3).unsqueeze(4), IndexError,
         "unsqueeze", ["dim 4", "2 dimensions"], ["-3 to 2"]),
    Case("sum: float dim", lambda: tg.ones(2, 3).sum(dim=1.0), TypeError,
         "sum", ["1.0"], ["an int or a tuple of ints"]),
    Case("max: float dim (not an elementwise max)", lambda: tg.ones(2, 3).max(dim=1.0),
         TypeError, "max", ["1.0"], ["an int or a tuple of ints"]),
    Case("softmax: dim out of range", lambda: tg.ones(2, 3).softmax(2), IndexError,
         "softmax", ["dim 2", "2 dimensions"], ["-2 to 1"]),
    Case("softmax: no dim", lambda: F.softmax(tg.ones(2, 3)), TypeError,
         "softmax", ["dim"], ["pass dim="]),
    Case("where: shapes do not broadcast",
         lambda: tg.where(tg.ones(2, 3) > 0, tg.ones(2, 3), tg.ones(4)), ValueError,
         "where", ["(2, 3)", "(4,)"], ["equal or one of them 1"]),
    Case("where: float condition", lambda: tg.where(tg.ones(2), tg.ones(2), 0.0), DtypeError,
         "where", ["float32"], ["comparison", ".bool()"]),
    Case("masked_fill: mask shape", lambda: tg.ones(2, 3).masked_fill(tg.ones(3, 2) > 0, 0.0),
         ValueError, "masked_fill", ["(3, 2)", "(2, 3)"], ["equal or one of them 1"]),
    Case("masked_fill: float mask", lambda: tg.ones(2, 3).masked_fill(tg.ones(2, 3), 0.0),
         DtypeError, "masked_fill", ["float32"], ["comparison", ".bool()"]),
    # --- indexing -----------------------------------------------------------------------------
    Case("index: int out of range", lambda: tg.ones(2, 3)[2], IndexError,
         "index", ["index 2", "size 2", "shape (2, 3)", "[2]"], ["-n to n - 1"]),
    Case("index: list out of range", lambda: tg.ones(2, 3)[:, [0, 3]], IndexError,
         "index", ["index 3", "size 3", "shape (2, 3)", "[:, array(2,)]"], ["-n to n - 1"]),
    Case("index: too many indices", lambda: tg.ones(2, 3)[0, 0, 0], IndexError,
         "index", ["2-dimensional", "3 were indexed", "(2, 3)"], []),
    Case("index: a float", lambda: tg.ones(2, 3)[0.5], IndexError,
         "index", ["0.5", "(2, 3)"], ["integers, slices"]),
    # --- autograd -----------------------------------------------------------------------------
    Case("backward: twice without retain_graph", _backward_twice, RuntimeError,
         "Backward", ["second time"], ["retain_graph=True"]),
    Case("backward: tensor does not require grad", lambda: tg.ones(2).sum().backward(),
         RuntimeError, "backward", ["does not require grad"], ["requires_grad=True", "no_grad()"]),
    Case("backward: non-scalar without gradient",
         lambda: (tg.ones(2, 3, requires_grad=True) * 2.0).backward(), RuntimeError,
         "backward", ["(2, 3)"], ["y.sum().backward()", "gradient="]),
    Case("backward: gradient of the wrong shape",
         lambda: (tg.ones(2, 3, requires_grad=True) * 2.0).backward(tg.ones(3)), RuntimeError,
         "backward", ["(3,)", "(2, 3)"], ["must be equal"]),
    Case("gradcheck: float32 input",
         lambda: tg.gradcheck(lambda x: x * x, tg.ones(2, requires_grad=True)), TypeError,
         "gradcheck", ["input 0", "float32", "(2,)"], [".double()", "dtype=tg.float64"]),
    # --- optimizers ---------------------------------------------------------------------------
    Case("optimizer: a NumPy array", lambda: tg.optim.SGD([np.ones(2)], lr=0.1), TypeError,
         "optimizer", ["ndarray"], ["model.parameters()"]),
    Case("optimizer: a Module", lambda: tg.optim.Adam(nn.Linear(2, 2)), TypeError,
         "Adam", ["Module", "Linear"], ["model.parameters()"]),
    Case("optimizer: .grad of another shape", _grad_of_another_shape, RuntimeError,
         ".grad", ["(3,)", "(1,)"], ["the tensor's shape"]),
    # --- nn layers ----------------------------------------------------------------------------
    Case("Linear: input width", lambda: nn.Linear(3, 2)(tg.ones(4, 5)), ValueError,
         "linear", ["(4, 5)", "5 features", "in_features = 3"], ["build the layer"]),
    Case("Conv1D: input width", lambda: nn.Conv1D(6, 3)(tg.ones(4, 6)), ValueError,
         "conv1d_gpt2", ["(4, 6)", "last axis 6", "nx = 3"], ["OUTPUT size nf first"]),
    Case("Embedding: index out of range", lambda: nn.Embedding(5, 2)(tg.tensor([1, 5])),
         IndexError, "Embedding", ["index 5", "num_embeddings=5"], ["0 .. 4", "too small"]),
    Case("Embedding: float indices", lambda: nn.Embedding(5, 2)(tg.tensor([1.0, 2.0])),
         DtypeError, "embedding", ["float32"], [".long()"]),
    Case("LayerNorm: trailing shape", lambda: nn.LayerNorm((3, 4))(tg.ones(2, 4, 3)),
         ValueError, "LayerNorm", ["(3, 4)", "(2, 4, 3)", "(4, 3)"], ["trailing shape"]),
    Case("LayerNorm: more dimensions than the input",
         lambda: nn.LayerNorm(dimensions=3)(tg.ones(2, 3)), ValueError,
         "LayerNorm", ["dimensions=3", "(2, 3)"], ["last 3 axes"]),
    Case("RMSNorm: trailing shape", lambda: nn.RMSNorm(4)(tg.ones(2, 3)), ValueError,
         "RMSNorm", ["(4,)", "(2, 3)"], ["trailing shape"]),
    Case("BatchNorm1d: channels", lambda: nn.BatchNorm1d(4)(tg.ones(2, 3)), ValueError,
         "BatchNorm1d", ["4 channels", "3 channels", "(2, 3)"], ["x.transpose(1, 2)"]),
    Case("BatchNorm2d: rank", lambda: nn.BatchNorm2d(4)(tg.ones(2, 4, 5)), ValueError,
         "BatchNorm2d", ["4D", "(2, 4, 5)"], ["(N, C, H, W)"]),
    Case("BatchNorm1d: one value per channel", lambda: nn.BatchNorm1d(4)(tg.ones(1, 4)),
         ValueError, "batch_norm", ["(1, 4)"], ["batch of 2 or more", ".eval()"]),
    Case("InstanceNorm1d: channels", lambda: nn.InstanceNorm1d(4)(tg.ones(2, 3, 5)), ValueError,
         "InstanceNorm1d", ["4 channels", "3 channels", "(2, 3, 5)"], ["x.transpose(1, 2)"]),
    Case("GroupNorm: groups do not divide channels", lambda: nn.GroupNorm(3, 4), ValueError,
         "GroupNorm", ["num_channels (4)", "num_groups (3)"], ["divisors of 4: [1, 2, 4]"]),
    Case("GroupNorm: channels", lambda: nn.GroupNorm(2, 4)(tg.ones(2, 6, 3)), ValueError,
         "GroupNorm", ["C = 4", "6 channels", "(2, 6, 3)"], ["x.transpose(1, 2)"]),
    Case("Attention: T > n_ctx", lambda: nn.Attention(8, 2, 4)(tg.ones(1, 5, 8)), ValueError,
         "Attention", ["T = 5", "n_ctx = 4"], ["crop the input", "larger n_ctx"]),
    Case("Attention: d_model % n_head", lambda: nn.Attention(10, 3, 4), ValueError,
         "Attention", ["d_model=10", "n_head=3", "3.33333"], ["choose n_head dividing d_model"]),
    Case("Attention: input width", lambda: nn.Attention(8, 2, 4)(tg.ones(1, 3, 6)), ValueError,
         "Attention", ["d_model = 8", "(1, 3, 6)", "C = 6"], ["d_model = 6"]),
    Case("Attention: no batch axis", lambda: nn.Attention(8, 2, 4)(tg.ones(3, 8)), ValueError,
         "Attention", ["(B, T, C)", "(3, 8)"], ["x.unsqueeze(0)"]),
    Case("GPT: T > n_ctx", lambda: _small_gpt()(tg.zeros(1, 6, dtype=tg.int64)), ValueError,
         "GPT", ["6 tokens", "n_ctx = 4"], ["crop it", "larger model"]),
    Case("GPT: targets shape",
         lambda: _small_gpt()(tg.tensor([[1, 2]]), targets=tg.tensor([[1, 2, 3]])), ValueError,
         "GPT", ["(1, 2)", "(1, 3)"], ["data[:, 1:]"]),
    Case("cross_entropy: class out of range",
         lambda: F.cross_entropy(tg.ones(2, 3), tg.tensor([0, 3])), IndexError,
         "cross_entropy", ["target 3", "3 classes"], ["0 to 2"]),
    Case("cross_entropy: target shape",
         lambda: F.cross_entropy(tg.ones(2, 3), tg.tensor([0, 1, 2])), ValueError,
         "cross_entropy", ["(2, 3)", "(2,)", "(3,)"], ["needs class indices of shape"]),
    Case("mse_loss: shapes do not broadcast", lambda: F.mse_loss(tg.ones(2, 3), tg.ones(3, 2)),
         ValueError, "mse_loss", ["(2, 3)", "(3, 2)"], ["give the target the input's shape"]),
    Case("l1_loss: shapes do not broadcast", lambda: F.l1_loss(tg.ones(2, 3), tg.ones(3, 2)),
         ValueError, "l1_loss", ["input (2, 3)", "target (3, 2)"], ["target.reshape(input.shape)"]),
    Case("normal: mean and std do not broadcast", lambda: tg.normal(tg.zeros(2), tg.ones(3)),
         ValueError, "normal", ["mean (2,)", "std (3,)"], ["unsqueeze one side"]),
    # --- load_state_dict: every parameter is compared afterwards ------------------------------
    Case("load_state_dict: missing key",
         lambda: _load_and_check_nothing_changed(_without("1.bias")), RuntimeError,
         "state_dict", ["missing key(s): '1.bias'", "nothing was changed"], ["strict=False"]),
    Case("load_state_dict: unexpected key",
         lambda: _load_and_check_nothing_changed(_with("2.weight", np.ones(3, np.float32))),
         RuntimeError, "state_dict", ["unexpected key(s): '2.weight'", "nothing was changed"],
         ["strict=False"]),
    Case("load_state_dict: shape",
         lambda: _load_and_check_nothing_changed(_with("0.weight", np.ones((2, 3), np.float32))),
         RuntimeError, "state_dict", ["'0.weight'", "(2, 3)", "(3, 2)", "nothing was changed"],
         ["model built with other sizes"]),
    Case("load_state_dict: dtype",
         lambda: _load_and_check_nothing_changed(_with("0.bias", np.ones(3, np.float64))),
         RuntimeError, "state_dict", ["'0.bias'", "float64", "float32", "nothing was changed"],
         [".astype(np.float32)", "model.to(tg.float64)"]),
    # --- tg.load: refused, never unpickled ----------------------------------------------------
    Case("load: a text file", _load_text_file, ValueError,
         "load", ["notes.txt"], ["expected a .npz file written by tinygrad_norm.save"]),
    Case("load: a single .npy", _load_single_npy, ValueError,
         "load", ["array.npy", "single .npy"], ["expected a .npz file"]),
    Case("load: a pickle named .npz", lambda: _load_and_check_nothing_unpickled(_write_pickle),
         ValueError, "load", ["weights.npz"], ["expected a .npz file", "never unpickled"]),
    Case("save: a Module", lambda: _save_to_a_temporary_file(nn.Linear(2, 3)), TypeError,
         "save", ["Module (Linear)"], ["tg.save(model.state_dict(), path)"]),
    Case("save: a set in the structure", lambda: _save_to_a_temporary_file({"a": {1}}),
         TypeError, "save", ["obj['a'] is a set"], ["nested dicts, lists and tuples"]),
    Case("load: a PyTorch file naming os.system",
         lambda: _load_legacy_torch_file_naming("os", "system"), pickle.UnpicklingError,
         "load", ["weights.pt", "os.system"], ["never runs code", "weights_only=False"]),
    Case("load: an object array",
         lambda: _load_and_check_nothing_unpickled(_write_object_array), ValueError,
         "object array", ["'payload'", "weights.npz"], ["refused", "unpickling can run"]),
    # --- dtypes, in-place changes and ranges a PyTorch user meets --------------------------------
    Case("tensor: integer beyond int64", lambda: tg.tensor(2**63), ValueError,
         "Tensor", ["9223372036854775808", "int64"], ["dtype=tg.float64"]),
    Case("mean: integer tensor", lambda: tg.tensor([1, 2]).mean(), RuntimeError,
         "mean", ["int64"], ["x.float().mean()"]),
    Case("var: integer tensor", lambda: tg.tensor([1, 2]).var(), RuntimeError,
         "var", ["int64"], ["x.float().var()"]),
    Case("std_mean: integer tensor", lambda: tg.std_mean(tg.tensor([1, 2])), RuntimeError,
         "std_mean", ["int64"], ["tg.std_mean(x.float())"]),
    Case("rms_norm: integer tensor", lambda: F.rms_norm(tg.tensor([[1, 2, 3]]), (3,)),
         NotImplementedError, "rms_norm", ["int64", "(1, 3)"], ["x.float()"]),
    Case("histc: integer tensor", lambda: tg.histc(tg.tensor([1, 2])), NotImplementedError,
         "histc", ["int64"], ["x.float()"]),
    Case("max_pool1d: integer tensor", lambda: F.max_pool1d(tg.ones(1, 1, 2, dtype=tg.int64), 2),
         NotImplementedError, "max_pool1d", ["int64"], ["x.float()"]),
    Case("sub: two bool tensors", lambda: tg.tensor([True]) - tg.tensor([False]), RuntimeError,
         "sub", ["bool"], ["~mask"]),
    Case("neg: a bool tensor", lambda: -tg.tensor([True]), RuntimeError, "neg", ["bool"],
         ["logical_not()"]),
    Case("softmax: integer tensor", lambda: tg.tensor([1, 2]).softmax(0), NotImplementedError,
         "softmax", ["int64"], ["x.float()"]),
    Case("log_softmax: bool tensor", lambda: F.log_softmax(tg.tensor([True, False]), 0),
         NotImplementedError, "log_softmax", ["bool"], ["x.float()"]),
    Case("huber_loss: uint8 input", lambda: F.huber_loss(_u8([1]), _u8([2])),
         NotImplementedError, "huber_loss", ["uint8", "(1,)"], ["F.huber_loss(input.float()"]),
    Case("nll_loss: uint8 input", lambda: F.nll_loss(_u8([[3, 1]]), tg.tensor([0])),
         NotImplementedError, "nll_loss", ["uint8", "(1, 2)"], ["input.float()"]),
    Case("l1_loss: bool input", lambda: F.l1_loss(tg.tensor([True]), tg.tensor([False])),
         NotImplementedError, "l1_loss", ["bool", "(1,)"], ["input.float()"]),
    Case("mse_loss: integer input", lambda: F.mse_loss(tg.tensor([1, 2]), tg.tensor([1, 2])),
         NotImplementedError, "mse_loss", ["int64", "(2,)"], ["input.float()"]),
    Case("lerp: uint8 ends", lambda: tg.lerp(_u8([3]), _u8([1]), 0.5), NotImplementedError,
         "lerp", ["uint8", "(1,)"], ["input.float(), end.float()"]),
    Case("addcdiv: integer tensors", lambda: tg.addcdiv(tg.tensor([1]), tg.tensor([1]),
         tg.tensor([0])), RuntimeError, "addcdiv", ["int64"], ["tensor1.float()"]),
    Case("abs: bool tensor", lambda: tg.tensor([True]).abs(), NotImplementedError,
         "abs", ["bool"], ["x.long().abs()"]),
    Case("trace: bool tensor", lambda: tg.eye(2).bool().trace(), NotImplementedError,
         "trace", ["bool"], ["x.long().trace()"]),
    Case("pow: integer ** negative integer", lambda: tg.tensor([2, 1]) ** -1, RuntimeError,
         "pow", ["int64", "-1"], ["x.float() ** -1"]),
    Case("full_like: value out of range", lambda: tg.full_like(tg.tensor([1], dtype=tg.uint8), 256),
         RuntimeError, "full_like", ["256", "uint8", "[0, 255]"], ["wider dtype"]),
    Case("masked_fill: value out of range", lambda: tg.tensor([1, 2]).masked_fill(
         tg.tensor([True, False]), float("inf")), RuntimeError, "masked_fill", ["inf", "int64"],
         ["wider dtype"]),
    Case("masked_fill: a value tensor that is not 0-d", lambda: tg.ones(2).masked_fill(
         tg.tensor([True, False]), tg.ones(2)), RuntimeError, "masked_fill", ["(2,)"],
         ["tg.where"]),
    Case("hardtanh: bool tensor", lambda: F.relu6(tg.tensor([True])), RuntimeError,
         "hardtanh", ["bool"], ["x.long()"]),
    Case("hardtanh: unsigned with negative limits", lambda: F.hardtanh(tg.ones(2).to(tg.uint8)),
         RuntimeError, "hardtanh", ["uint8", "-1.0"], ["min_val >= 0"]),
    Case("sum: a dim twice", lambda: tg.ones(2, 3).sum(dim=(0, 0)), RuntimeError,
         "sum", ["(0, 0)"], ["give each dim once"]),
    Case("gradcheck: fn returns a float", lambda: tg.gradcheck(lambda x: 1.0, _leaf64()),
         TypeError, "gradcheck", ["float", "1.0"], ["Tensor operations"]),
    Case("gradcheck: fn returns None", lambda: tg.gradcheck(lambda x: None, _leaf64()),
         TypeError, "gradcheck", ["NoneType"], ["Tensor operations"]),
    Case("hook: returns another shape", _hook_of_another_shape, RuntimeError,
         "hook", ["(2,)", "(3,)"], ["same shape"]),
    Case("add_: result of another shape", lambda: tg.zeros(3).add_(tg.ones(2, 3)), RuntimeError,
         "add_", ["(2, 3)", "(3,)"], ["y = x + z"]),
    Case("add_: float into an int tensor", lambda: tg.tensor([1, 2]).add_(0.5), RuntimeError,
         "add_", ["float32", "int64"], ["x.float()"]),
    Case("zero_: a leaf that requires grad", lambda: tg.ones(2, requires_grad=True).zero_(),
         RuntimeError, "zero_", ["leaf"], ["tg.no_grad()"]),
    Case("mul_: an expanded view of a tensor that requires grad", _in_place_on_a_view,
         RuntimeError, "in-place change", ["single memory location"], ["clone()"]),
    Case("backward: a saved tensor changed in place", _saved_then_changed, RuntimeError,
         "MulBackward", ["version 1", "version 0", "[3]"], ["clone()"]),
    Case("np.cbrt: on a tensor that requires grad", lambda: np.cbrt(_leaf64()), TypeError,
         "np.cbrt", ["Tensor.cbrt"], ["x.detach()"]),
    Case("arange: step 0", lambda: tg.arange(0, 1, 0), RuntimeError,
         "arange", ["step=0"], ["positive step"]),
    Case("linspace: negative steps", lambda: tg.linspace(0, 1, -1), RuntimeError,
         "linspace", ["steps=-1"], ["non-negative"]),
    Case("eye: negative size", lambda: tg.eye(-1), RuntimeError, "eye", ["n=-1"], [">= 0"]),
    Case("full: a string fill", lambda: tg.full((2,), "a"), TypeError,
         "full", ["str", "'a'"], ["a number"]),
    Case("repeat: a negative count", lambda: tg.ones(3).repeat(-1), ValueError,
         "repeat", ["(-1,)"], [">= 0"]),
    Case("uniform_: from > to", lambda: tg.zeros(2).uniform_(1, 0), RuntimeError,
         "uniform_", ["from=1 > to=0"], ["[from, to)"]),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_gets_an_error_that_teaches(case):
    with pytest.raises(case.error) as info:
        case.call()
    # Exactly this type, not a subclass or a bare error; a shape mismatch is tg.ShapeError,
    # both PyTorch's RuntimeError and NumPy's ValueError.
    expected = (
        tg.ShapeError if case.error is ValueError and _about_shapes(info.value) else case.error
    )
    assert type(info.value) is expected
    message = str(info.value)
    for part in [case.op, *case.values, *case.advice]:
        assert part in message, f"{part!r} is not in the message:\n{message}"


def _about_shapes(error) -> bool:
    return isinstance(error, tg.ShapeError)


def test_the_table_covers_every_kind_of_mistake():
    names = " ".join(c.name for c in CASES)
    assert len(CASES) >= 30
    for needed in ["tensor:", "add:", "matmul:", "cat:", "stack:", "split:", "reshape:",
                   "expand:", "permute:", "where:", "masked_fill:", "index:", "Linear:",
                   "Conv1D:", "Embedding:", "LayerNorm:", "BatchNorm1d:", "GroupNorm:",
                   "T > n_ctx", "d_model % n_head", "missing key", "unexpected key",
                   "load_state_dict: shape", "load_state_dict: dtype", "load: a text file",
                   "object array", "gradcheck: float32", "optimizer: a NumPy array",
                   "backward: twice", "does not require grad"]:  # fmt: skip
        assert needed in names, needed


# --- focused checks: one kind of mistake over several ops, dims or inputs --------------------
def message(excinfo) -> str:
    return str(excinfo.value)


# --- broadcasting -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "op, name",
    [
        (lambda a, b: a + b, "add"),
        (lambda a, b: a * b, "mul"),
        (lambda a, b: a - b, "sub"),
        (lambda a, b: a / b, "div"),
    ],
)
def test_broadcast_mismatch_names_the_op_and_both_shapes(op, name):
    with pytest.raises(ValueError) as info:
        op(tg.ones(2, 3), tg.ones(4))
    text = message(info)
    assert text.startswith(f"{name}:")
    assert "(2, 3)" in text and "(4,)" in text
    assert "broadcast" in text


def test_broadcast_mismatch_with_a_numpy_array_on_the_left():
    with pytest.raises(ValueError, match=re.escape("add: shapes (4,) and (2, 3)")):
        np.ones(4) + tg.ones(2, 3)


# --- matmul -------------------------------------------------------------------------------------


def test_matmul_matrix_vector_mismatch():
    with pytest.raises(
        ValueError, match=re.escape("matmul: cannot multiply shapes (2, 3) and (2,)")
    ):
        tg.matmul(tg.ones(2, 3), tg.ones(2))


# --- autograd misuse ----------------------------------------------------------------------------


def test_requires_grad_on_an_integer_tensor_names_the_dtype_and_the_fix():
    for make in (
        lambda: tg.tensor([1, 2], requires_grad=True),
        lambda: tg.tensor([1, 2]).requires_grad_(),
        lambda: tg.arange(3, requires_grad=True),
        lambda: tg.tensor([True], requires_grad=True),
    ):
        with pytest.raises(RuntimeError, match="floating") as info:
            make()
        text = message(info)
        assert "int64" in text or "bool" in text
        assert "dtype=tg.float32" in text and ".float()" in text


def test_autograd_grad_of_an_input_that_does_not_require_grad():
    x = tg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="input 1 does not require grad"):
        tg.autograd.grad((x * 2.0).sum(), [x, tg.ones(2)])


def test_custom_function_returning_too_many_gradients_names_the_op():
    class Twice(tg.Function):
        @staticmethod
        def forward(ctx, a):
            return 2 * a

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * 2.0, grad_output

    with pytest.raises(RuntimeError, match="TwiceBackward: backward returned 2 gradients"):
        Twice.apply(tg.ones(2, requires_grad=True)).sum().backward()


# --- shapes, indices and dims -------------------------------------------------------------------


def test_reshape_with_two_inferred_sizes():
    with pytest.raises(ValueError, match="-1"):
        tg.ones(2, 3).reshape(-1, -1)


@pytest.mark.parametrize("index", [5, (0, 7), -3])
def test_index_out_of_range_names_the_shape(index):
    with pytest.raises(IndexError) as info:
        tg.ones(2, 3)[index]
    text = message(info)
    assert "shape (2, 3)" in text and "out of bounds" in text


def test_array_index_out_of_range_names_the_shape():
    with pytest.raises(IndexError, match=re.escape("shape (2, 3)")):
        tg.ones(2, 3)[tg.tensor([0, 5])]


@pytest.mark.parametrize(
    "call, op",
    [
        (lambda t: t.sum(dim=2), "sum"),
        (lambda t: t.mean(dim=-3), "mean"),
        (lambda t: t.var(dim=(0, 5)), "var"),
        (lambda t: t.softmax(4), "softmax"),
        (lambda t: t.transpose(0, 3), "transpose"),
        (lambda t: t.amax(dim=2), "amax"),
    ],
)
def test_dim_out_of_range_names_the_op_the_dim_and_the_valid_range(call, op):
    with pytest.raises(IndexError) as info:
        call(tg.ones(2, 3))
    text = message(info)
    assert text.startswith(f"{op}:")
    assert "out of range" in text and "2 dimensions" in text and "-2 to 1" in text


def test_cat_of_mismatched_shapes_names_both():
    with pytest.raises(ValueError) as info:
        tg.cat([tg.ones(2, 3), tg.ones(2, 3), tg.ones(2, 4)])
    text = message(info)
    assert text.startswith("cat:")
    assert "tensor 2" in text and "(2, 4)" in text and "(2, 3)" in text and "dim 0" in text


def test_item_of_a_tensor_with_several_elements():
    with pytest.raises(ValueError, match=re.escape("shape (2, 2)")):
        tg.ones(2, 2).item()


def test_truth_value_of_a_tensor_with_several_elements():
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(tg.ones(3) > 0)


@pytest.mark.parametrize("data", [[[1.0, 2.0], [3.0]], "abc", None, [object()]])
def test_tensor_from_data_that_is_not_numbers(data):
    with pytest.raises(TypeError, match="nested list of numbers of equal lengths") as info:
        tg.tensor(data)
    assert type(data).__name__ in message(info)


def message_table() -> str:
    """The table as Markdown: case, error type and the message each case produces."""
    rows = ["| case | error | message |", "| --- | --- | --- |"]
    for case in CASES:
        try:
            case.call()
            error, text = "(no error)", ""
        except Exception as caught:  # whatever it raised, to show it
            error, text = type(caught).__name__, str(caught)
        text = text.replace("|", "\\|").replace("\n", "<br>")
        rows.append(f"| {case.name} | {error} | {text} |")
    return "\n".join(rows)


if __name__ == "__main__":
    sys.stdout.write(message_table() + "\n")
