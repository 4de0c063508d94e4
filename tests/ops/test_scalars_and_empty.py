"""0-d (scalar) tensors and empty tensors (a size-0 axis) through every op.

NumPy returns scalars, not arrays, from ufuncs on 0-d arrays (so `np.tanh(a, out=a)` fails),
and reductions such as `np.max` raise on nothing; both have crashed ops before. Here:

* torch-free checks: values against NumPy formulas, gradients against the derivative,
  shapes, and clear errors (raised by tinygrad_norm, not deep inside NumPy) where an op has
  no value, such as the maximum of nothing;
* with PyTorch installed (`oracle`): every case of the op table (`testing/op_cases.py`) and
  the nn.functional ops with their inputs made 0-d, and with a first or last axis of size 0,
  forward and backward. Where PyTorch answers, we must give its values, gradients, shapes and
  dtypes; where it raises, we must raise a clear error of our own.
"""

from __future__ import annotations

import math
import traceback
import warnings

import numpy as np
import pytest

import tinygrad_norm as tg
import tinygrad_norm.nn.functional as F
from tinygrad_norm import nn
from tinygrad_norm.testing.op_cases import CASES, POSITIVE

EMPTY_SHAPES = [(0,), (0, 3), (2, 0), (2, 0, 3)]


def leaf(shape, positive=False, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.5, 2.0, shape) if positive else rng.standard_normal(shape)
    return tg.tensor(a.astype(dtype), requires_grad=True)


def raised_by_us(error: BaseException) -> bool:
    """True when the innermost frame of the error lies in tinygrad_norm: a message written for
    the learner, not NumPy's (e.g. 'zero-size array to reduction operation maximum')."""
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and "tinygrad_norm" in frames[-1].filename


# --- 0-d tensors, against NumPy ---------------------------------------------------------------
UNARY = {  # name: (op, value formula, derivative formula, positive domain)
    "exp": (lambda x: x.exp(), np.exp, np.exp, False),
    "log": (lambda x: x.log(), np.log, lambda a: 1 / a, True),
    "sqrt": (lambda x: x.sqrt(), np.sqrt, lambda a: 0.5 / np.sqrt(a), True),
    "rsqrt": (lambda x: x.rsqrt(), lambda a: a**-0.5, lambda a: -0.5 * a**-1.5, True),
    "tanh": (lambda x: x.tanh(), np.tanh, lambda a: 1 - np.tanh(a) ** 2, False),
    "sigmoid": (
        lambda x: x.sigmoid(),
        lambda a: 1 / (1 + np.exp(-a)),
        lambda a: np.exp(-a) / (1 + np.exp(-a)) ** 2,
        False,
    ),
    "relu": (lambda x: x.relu(), lambda a: np.maximum(a, 0), lambda a: (a > 0) * 1.0, False),
    "abs": (lambda x: x.abs(), np.abs, np.sign, False),
    "erf": (
        lambda x: x.erf(),
        lambda a: math.erf(a),
        lambda a: 2 / math.sqrt(math.pi) * np.exp(-(a**2)),
        False,
    ),
    "gelu": (
        lambda x: F.gelu(x),
        lambda a: a * 0.5 * (1 + math.erf(a / math.sqrt(2))),
        lambda a: (
            0.5 * (1 + math.erf(a / math.sqrt(2)))
            + a * np.exp(-(a**2) / 2) / math.sqrt(2 * math.pi)
        ),
        False,
    ),
    "pow": (lambda x: x**3, lambda a: a**3, lambda a: 3 * a**2, False),
    "rpow": (lambda x: 2.0**x, lambda a: 2.0**a, lambda a: 2.0**a * math.log(2), False),
    "rdiv": (lambda x: 2.0 / x, lambda a: 2.0 / a, lambda a: -2.0 / a**2, True),
    "softmax": (lambda x: x.softmax(-1), lambda a: 1.0, lambda a: 0.0, False),
    "log_softmax": (lambda x: x.log_softmax(0), lambda a: 0.0, lambda a: 0.0, False),
    "sum": (lambda x: x.sum(), lambda a: a, lambda a: 1.0, False),
    "mean_dim": (lambda x: x.mean(dim=0), lambda a: a, lambda a: 1.0, False),
    "amax": (lambda x: x.amax(-1), lambda a: a, lambda a: 1.0, False),
    "norm": (lambda x: x.norm(), np.abs, np.sign, False),
    "transpose": (lambda x: x.transpose(0, -1), lambda a: a, lambda a: 1.0, False),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", UNARY)
def test_unary_op_of_a_0d_tensor_matches_numpy(name, dtype):
    op, value, derivative, positive = UNARY[name]
    x = leaf((), positive, dtype=dtype)
    y = op(x)
    assert y.shape == () and y.dtype == dtype and isinstance(y.numpy(), np.ndarray)
    y.backward()
    assert x.grad.shape == () and x.grad.dtype == dtype and isinstance(x.grad.numpy(), np.ndarray)
    a = float(x.numpy())
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(float(y.numpy()), value(a), rtol=rtol, atol=rtol)
    np.testing.assert_allclose(float(x.grad.numpy()), derivative(a), rtol=rtol, atol=rtol)


def test_max_and_min_with_keepdim_keep_a_0d_tensor_0d():
    x = tg.tensor(2.5, requires_grad=True)
    for values, indices in (x.max(dim=0, keepdim=True), x.min(dim=-1, keepdim=True)):
        assert values.shape == () and indices.shape == () and int(indices) == 0
    x.max(dim=0, keepdim=True).values.backward()
    assert float(x.grad.numpy()) == 1.0


def test_argmax_along_a_dim_of_a_0d_tensor_is_0():
    x = tg.tensor(-1.0)
    for out in (x.argmax(dim=0), x.argmin(dim=-1, keepdim=True)):
        assert out.shape == () and out.dtype == np.int64 and int(out) == 0
    with pytest.raises(IndexError, match="out of range"):
        x.argmax(dim=1)


def test_flatten_of_a_0d_tensor_takes_only_dims_0_and_minus_1():
    assert tg.tensor(3.0).flatten(0, -1).shape == (1,)
    with pytest.raises(IndexError, match="out of range"):
        tg.tensor(3.0).flatten(1)


@pytest.mark.parametrize(
    "op, message",
    [
        (lambda x: x.tril(), "needs a matrix"),
        (lambda x: x.triu(1), "needs a matrix"),
        (lambda x: tg.cat([x, x]), "at least 1 dimension"),
        (lambda x: x.split(1), "at least 1 dimension"),
        (lambda x: x.chunk(2), "at least 1 dimension"),
        (lambda x: x.swapaxes(0, 1), "out of range"),
    ],
)
def test_ops_that_need_an_axis_reject_a_0d_tensor_clearly(op, message):
    with pytest.raises((ValueError, IndexError), match=message):
        op(tg.tensor(1.0))


def test_tril_of_a_vector_is_an_error_not_a_square_matrix():
    with pytest.raises(ValueError, match="needs a matrix"):
        tg.ones(3).tril()  # np.tril would broadcast it to (3, 3)


def test_std_gradient_is_0_where_the_std_is_0():
    """sqrt is infinitely steep at 0; PyTorch's std backward gives 0 there, not 0 * inf."""
    for x, std in [
        (tg.tensor(1.5, requires_grad=True), lambda x: x.std(unbiased=False)),
        (tg.tensor([2.0, 2.0], requires_grad=True), lambda x: x.std()),
        (tg.tensor([[1.0], [3.0]], requires_grad=True), lambda x: x.std(dim=1, unbiased=False)),
    ]:
        y = std(x)
        np.testing.assert_array_equal(y.numpy(), 0.0)
        y.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.zeros(x.shape))


# --- empty tensors, against NumPy --------------------------------------------------------------
ELEMENTWISE = {
    "exp": lambda x: x.exp(),
    "tanh": lambda x: x.tanh(),
    "sigmoid": lambda x: x.sigmoid(),
    "erf": lambda x: x.erf(),
    "relu": lambda x: x.relu(),
    "abs": lambda x: x.abs(),
    "gelu": lambda x: F.gelu(x),
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "pow": lambda x: x**2,
    "clamp": lambda x: x.clamp(-0.5, 0.5),
    "maximum": lambda x: tg.maximum(x, x * 2),
    "where": lambda x: tg.where(x.numpy() > 0, x, 0.0),
    "add_0d": lambda x: x + tg.tensor(2.0),
    "softmax_last": lambda x: x.softmax(-1),
    "softmax_first": lambda x: x.softmax(0),
    "log_softmax_last": lambda x: x.log_softmax(-1),
    "log_softmax_first": lambda x: F.log_softmax(x, dim=0),
    "softmax_composed": lambda x: tg.ops.fused.softmax_reference(x, -1),
    "log_softmax_composed": lambda x: tg.ops.fused.log_softmax_reference(x, 0),
    "dropout": lambda x: F.dropout(x, 0.5),
    "flatten": lambda x: x.flatten(),
    "clone": lambda x: x.clone(),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # composed: log(sum of nothing)
@pytest.mark.parametrize("shape", EMPTY_SHAPES, ids=str)
@pytest.mark.parametrize("name", ELEMENTWISE)
def test_elementwise_op_of_an_empty_tensor_is_empty_with_an_empty_gradient(name, shape):
    x = leaf(shape, dtype=np.float32)
    y = ELEMENTWISE[name](x)
    assert y.shape == (math.prod(shape),) if name == "flatten" else y.shape == shape
    assert y.dtype == np.float32
    y.sum().backward()
    assert x.grad.shape == shape and x.grad.dtype == np.float32


@pytest.mark.parametrize("shape", EMPTY_SHAPES, ids=str)
def test_sum_of_nothing_is_0_and_norm_of_nothing_is_0(shape):
    x = leaf(shape)
    for y in (x.sum(), x.norm(), x.norm(p=1), x.norm(p=3)):
        assert y.shape == () and float(y.numpy()) == 0.0
        y.backward()
        assert x.grad.shape == shape


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # the mean of nothing
def test_reductions_over_a_nonempty_axis_of_an_empty_tensor_are_empty():
    x = leaf((0, 4))
    assert x.amax(dim=1).shape == (0,)
    assert x.max(dim=1).values.shape == (0,)
    assert x.argmin(dim=1).shape == (0,)
    assert x.mean(dim=0).shape == (4,)  # nan: the mean of nothing, as NumPy and PyTorch
    assert x.sum(dim=0, keepdim=True).tolist() == [[0.0] * 4]


@pytest.mark.parametrize(
    "op",
    [
        lambda x: x.max(),
        lambda x: x.amax(dim=0),
        lambda x: x.amin(),
        lambda x: x.max(dim=0),
        lambda x: x.min(dim=0, keepdim=True),
        lambda x: x.argmax(),
        lambda x: x.argmin(dim=0),
        lambda x: x.norm(p=float("inf")),
        lambda x: tg.max(x),
    ],
)
def test_max_and_min_of_nothing_are_clear_errors(op):
    with pytest.raises(IndexError, match="no elements along dim 0") as info:
        op(tg.zeros(0, 3))
    assert raised_by_us(info.value)


def test_flatten_of_an_empty_tensor_merges_its_sizes():
    assert tg.zeros(0, 3, 4).flatten(1).shape == (0, 12)
    assert tg.zeros(2, 0, 4).flatten(0, 1).shape == (0, 4)


def test_chunk_of_an_empty_axis_gives_chunks_empty_pieces():
    pieces = tg.zeros(2, 0).chunk(3, dim=1)
    assert [p.shape for p in pieces] == [(2, 0)] * 3


def test_attention_with_a_head_size_of_0_attends_uniformly():
    """E = 0: every score is an empty dot product, 0, so the weights are uniform (PyTorch)."""
    q = tg.zeros(2, 0, dtype=tg.float64)  # one dtype for q, k, v, as PyTorch requires
    v = leaf((2, 3))
    y = F.scaled_dot_product_attention(q, q, v)
    np.testing.assert_allclose(y.numpy(), np.broadcast_to(v.numpy().mean(0), (2, 3)), rtol=1e-12)


def test_attention_over_an_empty_sequence_is_empty():
    q = leaf((2, 0, 4))
    y = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    y.sum().backward()
    assert y.shape == (2, 0, 4) and q.grad.shape == (2, 0, 4)


def test_attention_module_with_returned_weights_takes_an_empty_sequence():
    attn = nn.Attention(8, 2, 16).eval()
    x = leaf((2, 0, 8), dtype=np.float32)
    y, weights = attn(x, return_weights=True)
    y.sum().backward()
    assert y.shape == (2, 0, 8) and weights.shape == (2, 2, 0, 0) and x.grad.shape == x.shape


def test_attention_module_fused_path_takes_an_empty_sequence():
    attn = nn.Attention(8, 2, 16).eval()
    x = leaf((2, 0, 8), dtype=np.float32)
    y = attn(x)
    y.sum().backward()
    assert y.shape == (2, 0, 8) and x.grad.shape == x.shape


@pytest.mark.parametrize("x_shape, w_shape", [((2, 0), (4, 0)), ((0,), (4, 0)), ((2, 3), (0, 3))])
def test_linear_with_0_in_or_out_features(x_shape, w_shape):
    """y = x @ w.T + b: with no input features every output is its bias."""
    x, w = leaf(x_shape), leaf(w_shape, seed=1)
    b = leaf(w_shape[:1], seed=2)
    y = F.linear(x, w, b)
    np.testing.assert_allclose(y.numpy(), x.numpy() @ w.numpy().T + b.numpy())
    y.sum().backward()
    assert x.grad.shape == x.shape and w.grad.shape == w.shape
    np.testing.assert_allclose(b.grad.numpy(), np.full(b.shape, np.prod(x_shape[:-1])))


def test_group_norm_of_an_empty_batch_is_empty():
    x = leaf((0, 4, 3))
    y = F.group_norm(x, 2)
    y.sum().backward()
    assert y.shape == (0, 4, 3) and x.grad.shape == x.shape


def test_batch_norm_with_no_channels_is_empty():
    x = leaf((2, 0, 4))
    y = F.batch_norm(x, None, None, training=True)
    y.sum().backward()
    assert y.shape == (2, 0, 4) and x.grad.shape == x.shape


def test_cross_entropy_with_no_classes_is_a_clear_error():
    """PyTorch answers nan; with no classes there is no distribution, so we say so."""
    for target in (tg.tensor([0, 0]), tg.zeros(2, 0)):
        with pytest.raises(ValueError, match="0 classes") as info:
            F.cross_entropy(tg.zeros(2, 0), target)
        assert raised_by_us(info.value)


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # the mean of nothing
def test_losses_of_an_empty_batch():
    """sum: 0 with an empty gradient; mean: nan (0 / 0), as in PyTorch."""
    x, t = leaf((0, 3)), tg.tensor(np.zeros(0, dtype=np.int64))
    for loss in (F.cross_entropy, F.nll_loss):
        total = loss(x, t, reduction="sum")
        assert float(total.numpy()) == 0.0 and loss(x, t, reduction="none").shape == (0,)
        total.backward()
        assert x.grad.shape == (0, 3)
        assert math.isnan(float(loss(x, t).numpy()))
    assert math.isnan(float(F.mse_loss(x, x.detach()).numpy()))


# --- against PyTorch ----------------------------------------------------------------------------
def _variants(shapes: tuple) -> dict:
    """The case's input shapes made 0-d, with a first axis of 0, and with a last axis of 0."""
    return {
        "0d": tuple(() for _ in shapes),
        "empty_first": tuple((0,) + s[1:] if s else () for s in shapes),
        "empty_last": tuple(s[:-1] + (0,) if s else () for s in shapes),
    }


def _table_params():
    for case in CASES:
        if case.torch:
            for variant, shapes in _variants(case.shapes).items():
                yield pytest.param(
                    case.fn, shapes, case.domain == POSITIVE, (), id=f"{case.name}-{variant}"
                )


def _fn(name):
    """lib.functional.<name> for tinygrad_norm and torch alike."""
    return lambda lib, *xs, **kw: getattr(F if lib is tg else _torch_f(), name)(*xs, **kw)


def _torch_f():
    import torch.nn.functional

    return torch.nn.functional


def _classes(n):
    return np.zeros(n, dtype=np.int64)


FUNCTIONAL = [  # (id, fn(lib, *xs), input arrays' shapes or arrays, positive, integer inputs)
    ("gelu", lambda lib, x: _fn("gelu")(lib, x), [(), (0, 3), (2, 0)]),
    ("gelu_tanh", lambda lib, x: _fn("gelu")(lib, x, approximate="tanh"), [(), (0, 3), (2, 0)]),
    ("relu", lambda lib, x: _fn("relu")(lib, x), [(), (0, 3)]),
    ("softmax", lambda lib, x: _fn("softmax")(lib, x, dim=-1), [(), (0,), (0, 3), (2, 0)]),
    ("log_softmax", lambda lib, x: _fn("log_softmax")(lib, x, dim=0), [(), (0,), (0, 3), (2, 0)]),
    ("layer_norm", lambda lib, x: _fn("layer_norm")(lib, x, x.shape[-1:]), [(0, 3), (2, 0)]),
    ("rms_norm", lambda lib, x: _fn("rms_norm")(lib, x, x.shape[-1:]), [(0, 3), (2, 0)]),
    ("mse_loss", lambda lib, x, y: _fn("mse_loss")(lib, x, y, reduction="sum"), [(), (0, 3)]),
    ("mse_loss_none", lambda lib, x, y: _fn("mse_loss")(lib, x, y, reduction="none"), [(), (2, 0)]),
    (
        "sdpa",
        lambda lib, q: _fn("scaled_dot_product_attention")(lib, q, q, q),
        [(0, 3), (2, 0), (2, 0, 3)],
    ),
    (
        "sdpa_causal",
        lambda lib, q: _fn("scaled_dot_product_attention")(lib, q, q, q, is_causal=True),
        [(2, 0), (2, 0, 3)],
    ),
    ("group_norm", lambda lib, x: _fn("group_norm")(lib, x, 1), [(0, 3), (0, 3, 4), (2, 0, 4)]),
    (
        "batch_norm_c0",
        lambda lib, x: _fn("batch_norm")(lib, x, None, None, training=True),
        [(2, 0, 4)],
    ),
    ("dropout_eval", lambda lib, x: _fn("dropout")(lib, x, 0.5, training=False), [(), (0, 3)]),
]


def _functional_params():
    for name, fn, shapes in FUNCTIONAL:
        arity = fn.__code__.co_argcount - 1
        for shape in shapes:
            yield pytest.param(fn, (shape,) * arity, False, (), id=f"{name}-{shape}")
    losses = [("cross_entropy", {}), ("cross_entropy", {"label_smoothing": 0.1}), ("nll_loss", {})]
    for name, kw in losses:
        for reduction in ("sum", "none", "mean"):
            fn = lambda lib, x, t, name=name, kw=kw, r=reduction: _fn(name)(
                lib, x, t, reduction=r, **kw
            )
            yield pytest.param(
                fn, ((0, 3), _classes(0)), False, (1,), id=f"{name}{kw}-{reduction}-(0, 3)"
            )
            yield pytest.param(
                fn, ((3,), np.array(1)), False, (1,), id=f"{name}{kw}-{reduction}-(3,)"
            )
            yield pytest.param(
                fn,
                ((2, 3, 0), np.zeros((2, 0), np.int64)),
                False,
                (1,),
                id=f"{name}{kw}-{reduction}-(2, 3, 0)",
            )
    fn = lambda lib, w, i: _fn("embedding")(lib, i, w)
    for index_shape in [(), (0,), (2, 0)]:
        yield pytest.param(
            fn,
            ((5, 3), np.zeros(index_shape, np.int64)),
            False,
            (1,),
            id=f"embedding-{index_shape}",
        )


def _run(lib, fn, arrays, integer):
    """Outputs and input gradients of fn, or the exception it raised."""
    xs = [
        lib.tensor(a) if i in integer else lib.tensor(a, requires_grad=True)
        for i, a in enumerate(arrays)
    ]
    try:
        outs = fn(lib, *xs)
        outs = outs if isinstance(outs, tuple) else (outs,)
        rng = np.random.default_rng(1)
        total = sum(
            (o * lib.tensor(rng.standard_normal(tuple(o.shape)))).sum()
            for o in outs
            if o.requires_grad
        )
        if not isinstance(total, int):
            total.backward()
    except Exception as error:  # noqa: BLE001 - compared with PyTorch's behaviour below
        return error
    grads = [x.grad for i, x in enumerate(xs) if i not in integer]
    return outs, grads


def _inputs(shapes, positive):
    rng = np.random.default_rng(0)
    return [
        s
        if isinstance(s, np.ndarray)
        else rng.uniform(0.5, 2.0, s)
        if positive
        else rng.standard_normal(s)
        for s in shapes
    ]


@pytest.mark.oracle
@pytest.mark.parametrize("fn, shapes, positive, integer", [*_table_params(), *_functional_params()])
def test_0d_and_empty_inputs_behave_as_in_pytorch(fn, shapes, positive, integer):
    torch = pytest.importorskip("torch")
    arrays = _inputs(shapes, positive)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # var of one element, mean of nothing: both warn
        ours, theirs = _run(tg, fn, arrays, integer), _run(torch, fn, arrays, integer)
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception), f"PyTorch raises {theirs!r}; we do not"
        assert raised_by_us(ours), f"a confusing error from inside NumPy: {ours!r}"
        return
    if isinstance(ours, Exception):
        raise AssertionError(f"PyTorch answers; we raise {ours!r}") from ours
    for o, t in zip([*ours[0], *ours[1]], [*theirs[0], *theirs[1]]):
        assert (o is None) == (t is None)
        if o is not None:
            mine, pytorchs = np.asarray(o.numpy()), t.detach().numpy()
            assert mine.shape == pytorchs.shape and mine.dtype == pytorchs.dtype
            np.testing.assert_allclose(mine, pytorchs, rtol=1e-10, atol=1e-12, equal_nan=True)
