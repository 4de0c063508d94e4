"""One table of every nn module, small enough to gradcheck: `python -m tinygrad_norm gradcheck`.

Each `ModuleCase` names a module factory and an input factory. `build(seed)` makes the module
in float64, calls it once (a lazy `LayerNorm(dimensions=...)` learns its shape), moves every
parameter away from its initial value (ones and zeros would hide a weight gradient swapped
with a bias gradient) and sets random running statistics, so each check has something to find.

`check_module_case` runs the checks:
- first order: `tg.check_module`, with respect to the floating inputs and every parameter, in
  training mode (Dropout active with a fixed seed, BatchNorm on batch statistics) and in
  evaluation mode;
- second order, where the module is smooth: `gradgradcheck` of the same function, inputs and
  parameters together, in training mode. It differentiates the backward itself, so a backward
  written with NumPy arrays (a constant to autograd) fails here even when its values are right.

>>> case = next(c for c in CASES if c.name == "Linear")
>>> check = check_module_case(case)
>>> check.first.ok, check.second.ok
(True, True)
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import nn, random
from ..autograd.grad_mode import no_grad
from ..gradcheck import check_module, gradgradcheck
from ..models.gpt import GPT, GPTConfig
from ..tensor import Tensor


@dataclass(frozen=True)
class ModuleCase:
    name: str
    module: Callable  # () -> a fresh nn.Module
    inputs: Callable  # (rng) -> the call's arguments: float arrays are differentiated, ints not
    second_order: bool = True  # False where the module has kinks (ReLU)
    fast_mode: bool = False  # compare vᵀJu instead of the whole Jacobian (large modules)

    def build(self, seed: int = 0):
        """The module in float64 with perturbed parameters, and its inputs (arrays)."""
        rng = np.random.default_rng(seed)
        inputs = self.inputs(rng)
        module = self.module().to(np.float64)
        with no_grad(), random.fork_rng():
            module.eval()(*[Tensor(a) for a in inputs])  # lazy shapes; leaves buffers alone
        module.train()
        for p in module.parameters():
            p.array[...] += 0.5 * rng.standard_normal(p.shape)
        if getattr(module, "running_mean", None) is not None:
            module.running_mean.array[...] = rng.standard_normal(module.running_mean.shape)
            module.running_var.array[...] = rng.uniform(0.5, 2.0, module.running_var.shape)
        return module, inputs

    def shapes(self, inputs) -> str:
        def one(a):
            shape = "x".join(map(str, a.shape)) or "()"
            return shape if a.dtype.kind == "f" else f"{shape} int"

        return " ".join(one(a) for a in inputs)


@dataclass
class ModuleCaseCheck:
    """The outcome of one case: `first` (a `ModuleCheck`), `second` (a `GradcheckResult` or
    None when skipped), the input shapes and the time taken."""

    case: ModuleCase
    first: object
    second: object
    shapes: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.first.ok and (self.second is None or self.second.ok)


def check_module_case(case: ModuleCase, seed: int = 0) -> ModuleCaseCheck:
    """First-order `check_module` (train and eval) and, if `case.second_order`, a
    `gradgradcheck` in training mode with respect to the inputs and every parameter."""
    start = time.perf_counter()
    module, inputs = case.build(seed)
    first = check_module(
        module, *inputs, seed=seed, raise_exception=False, fast_mode=case.fast_mode
    )
    second = None
    if case.second_order:
        fn, leaves = module_function(module, inputs)
        with random.fork_rng():
            random.manual_seed(seed)
            second = gradgradcheck(fn, leaves, raise_exception=False, fast_mode=case.fast_mode)
    return ModuleCaseCheck(case, first, second, case.shapes(inputs), time.perf_counter() - start)


def module_function(module, inputs):
    """`module(*inputs)` as a function of (floating inputs..., parameters...), on a float64
    copy in training mode, and those leaves: what gradcheck and gradgradcheck need.

    Each call puts the tensors it is given into the copy's parameter slots (a tied parameter
    fills all of its slots) and restores the originals afterwards.
    """
    model = copy.deepcopy(module).to(np.float64).train()
    slots: dict[int, list] = {}  # id(parameter) -> [(owner, attribute), ...]
    params = []
    for _, owner in model.named_modules():
        for attr, p in owner._parameters.items():
            if p is None:
                continue
            if id(p) not in slots:
                slots[id(p)] = []
                params.append(p)
            slots[id(p)].append((owner, attr))
    args = [Tensor(a) if a.dtype.kind != "f" else None for a in inputs]
    floating = [i for i, a in enumerate(inputs) if a.dtype.kind == "f"]
    leaves = tuple(Tensor(inputs[i], requires_grad=True) for i in floating) + tuple(
        Tensor(p.array.copy(), requires_grad=True) for p in params
    )

    def fn(*tensors):
        call = list(args)
        for i, t in zip(floating, tensors):
            call[i] = t
        try:
            for p, t in zip(params, tensors[len(floating) :]):
                for owner, attr in slots[id(p)]:
                    owner._parameters[attr] = t
            out = model(*call)
        finally:
            for p in params:
                for owner, attr in slots[id(p)]:
                    owner._parameters[attr] = p
        if isinstance(out, tuple):  # GPT: (logits, loss)
            return tuple(o for o in out if isinstance(o, Tensor))
        return out

    fn.__name__ = type(module).__name__
    return fn, leaves


# --- the cases ----------------------------------------------------------------------------------
def _normal(*shape, scale=1.0, shift=0.0):
    return lambda rng: (rng.standard_normal(shape) * scale + shift,)


def _classes(n, c):
    """Logits (n, c) and class indices (n,) for the losses."""
    return lambda rng: (rng.standard_normal((n, c)), rng.integers(0, c, n))


def _two_normals(*shape):
    return lambda rng: (rng.standard_normal(shape), rng.standard_normal(shape))


def _tiny_gpt():
    config = GPTConfig(vocab_size=7, n_ctx=4, d_model=4, n_layer=1, n_head=2, dropout=0.1)
    return GPT(config)


_NORM_INPUT = dict(scale=2.0, shift=0.5)  # not already normalized

CASES = [
    # --- linear layers -------------------------------------------------------------------------
    ModuleCase("Linear", lambda: nn.Linear(4, 3), _normal(2, 3, 4)),
    ModuleCase("Conv1D", lambda: nn.Conv1D(3, 4), _normal(2, 3, 4)),
    ModuleCase(
        "Embedding",  # with respect to the weight: the indices are not differentiable
        lambda: nn.Embedding(5, 3),
        lambda rng: (np.array([[1, 3, 1], [4, 0, 3]]),),
    ),
    ModuleCase("weight_norm(Linear)", lambda: nn.utils.weight_norm(nn.Linear(4, 3)), _normal(2, 4)),
    # --- normalization --------------------------------------------------------------------------
    ModuleCase("LayerNorm(5)", lambda: nn.LayerNorm(5), _normal(2, 3, 5, **_NORM_INPUT)),
    ModuleCase(
        "LayerNorm(dimensions=2)",
        lambda: nn.LayerNorm(dimensions=2),
        _normal(2, 3, 4, **_NORM_INPUT),
    ),
    ModuleCase("BatchNorm1d", lambda: nn.BatchNorm1d(3), _normal(4, 3, 2, **_NORM_INPUT)),
    ModuleCase("BatchNorm2d", lambda: nn.BatchNorm2d(2), _normal(2, 2, 2, 3, **_NORM_INPUT)),
    ModuleCase(
        "InstanceNorm1d",
        lambda: nn.InstanceNorm1d(3, affine=True, track_running_stats=True),
        _normal(2, 3, 4, **_NORM_INPUT),
    ),
    ModuleCase("InstanceNorm2d", lambda: nn.InstanceNorm2d(2, affine=True), _normal(2, 2, 2, 3)),
    ModuleCase("GroupNorm(2, 4)", lambda: nn.GroupNorm(2, 4), _normal(2, 4, 3, **_NORM_INPUT)),
    ModuleCase("RMSNorm(5)", lambda: nn.RMSNorm(5), _normal(2, 3, 5, **_NORM_INPUT)),
    # --- activations ----------------------------------------------------------------------------
    ModuleCase("GELU", lambda: nn.GELU(), _normal(3, 4)),
    ModuleCase("GELU(tanh)", lambda: nn.GELU(approximate="tanh"), _normal(3, 4)),
    ModuleCase("ReLU", lambda: nn.ReLU(), _normal(3, 4), second_order=False),  # kink at 0
    ModuleCase("Tanh", lambda: nn.Tanh(), _normal(3, 4)),
    ModuleCase("Sigmoid", lambda: nn.Sigmoid(), _normal(3, 4)),
    ModuleCase("Softmax(dim=-1)", lambda: nn.Softmax(dim=-1), _normal(3, 4)),
    ModuleCase("LogSoftmax(dim=1)", lambda: nn.LogSoftmax(dim=1), _normal(2, 3, 4)),
    ModuleCase("Dropout(0.4)", lambda: nn.Dropout(0.4), _normal(3, 5)),
    ModuleCase("Dropout1d(0.4)", lambda: nn.Dropout1d(0.4), _normal(2, 4, 3)),
    ModuleCase("Dropout2d(0.4)", lambda: nn.Dropout2d(0.4), _normal(2, 4, 2, 2)),
    ModuleCase("AlphaDropout(0.3)", lambda: nn.AlphaDropout(0.3), _normal(3, 5)),
    # --- losses ---------------------------------------------------------------------------------
    ModuleCase("CrossEntropyLoss", lambda: nn.CrossEntropyLoss(), _classes(4, 5)),
    ModuleCase(
        "CrossEntropyLoss(smoothing)",
        lambda: nn.CrossEntropyLoss(label_smoothing=0.1, reduction="sum"),
        _classes(4, 5),
    ),
    ModuleCase("NLLLoss", lambda: nn.NLLLoss(), _classes(4, 5)),
    ModuleCase("MSELoss", lambda: nn.MSELoss(), _two_normals(3, 4)),
    # --- GPT-2's layers and a tiny GPT --------------------------------------------------------
    ModuleCase("Attention", lambda: nn.Attention(4, 2, n_ctx=4), _normal(2, 3, 4)),
    ModuleCase("FeedForward", lambda: nn.FeedForward(4, 8), _normal(2, 3, 4)),
    ModuleCase(
        "GPT (tiny)",
        _tiny_gpt,
        lambda rng: (rng.integers(0, 7, (2, 4)), rng.integers(0, 7, (2, 4))),
        fast_mode=True,
    ),
]

from .module_cases_math import MATH_CASES  # noqa: E402 - the activation modules
from .module_cases_nn import MORE_NN_CASES, NN_CASES  # noqa: E402 - conv, pooling, losses, ...
from .module_cases_rnn import RNN_CASES  # noqa: E402 - recurrent and Transformer layers

CASES += [ModuleCase(*row) for row in NN_CASES]
CASES += [ModuleCase(*row) for row in MORE_NN_CASES]
CASES += [ModuleCase(*row) for row in MATH_CASES]
CASES += [ModuleCase(*row) for row in RNN_CASES]
