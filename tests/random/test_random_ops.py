"""Random numbers: tg.Generator, generator= on every random op, and the random ops themselves.

Distribution tests draw from a seeded generator, so they give the same numbers on every run
(they cannot flake); their bounds are at least 5 standard errors wide, so they would still
hold for any other seed, and they fail when the distribution is wrong (e.g. weights not
normalised, a zero-weight category drawn, sampling with replacement when asked without).
The draws are PyTorch's numbers (tests/random/ compares them value by value); the PyTorch
comparisons here are of shapes, dtypes and errors.
"""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm import nn
from tinygrad_norm.nn import functional as F
from tinygrad_norm.nn.functional.dropout import SELU_SATURATION


def gen(seed=0):
    return tg.Generator().manual_seed(seed)


# --- the global generator: manual_seed and fork_rng -----------------------------------------------
def test_manual_seed_makes_random_ops_repeatable():
    tg.manual_seed(1234)
    first = (tg.randn(5).numpy(), tg.rand(2, 2).numpy(), tg.randint(0, 100, size=(4,)).numpy())
    tg.manual_seed(1234)
    second = (tg.randn(5).numpy(), tg.rand(2, 2).numpy(), tg.randint(0, 100, size=(4,)).numpy())
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    tg.manual_seed(4321)
    assert not np.array_equal(tg.randn(5).numpy(), first[0])


def test_fork_rng_restores_the_generator_state():
    tg.manual_seed(7)
    with tg.random.fork_rng():
        inside = tg.randn(10).numpy()
    after = tg.randn(10).numpy()
    np.testing.assert_array_equal(inside, after)  # the draws inside did not advance it

    tg.manual_seed(7)
    with pytest.raises(KeyError), tg.random.fork_rng():
        tg.randn(3)
        raise KeyError("restored even on an exception")
    np.testing.assert_array_equal(tg.randn(10).numpy(), inside)


# --- Generator --------------------------------------------------------------------------------
RANDOM_CALLS = {
    "randn": lambda g: tg.randn(2, 3, generator=g),
    "rand": lambda g: tg.rand(4, generator=g),
    "randint": lambda g: tg.randint(0, 10, (5,), generator=g),
    "randperm": lambda g: tg.randperm(6, generator=g),
    "multinomial": lambda g: tg.multinomial(tg.ones(5), 3, generator=g),
    "multinomial_method": lambda g: tg.ones(5).multinomial(3, replacement=True, generator=g),
    "normal": lambda g: tg.normal(tg.zeros(4), 1.0, generator=g),
    "normal_": lambda g: tg.empty(4).normal_(generator=g),
    "uniform_": lambda g: tg.empty(4).uniform_(-1, 1, generator=g),
    "bernoulli": lambda g: tg.bernoulli(tg.full((8,), 0.5), generator=g),
    "bernoulli_": lambda g: tg.empty(8).bernoulli_(0.5, generator=g),
    "poisson": lambda g: tg.poisson(tg.full((6,), 3.0), generator=g),
    "rand_like": lambda g: tg.rand_like(tg.zeros(4), generator=g),
    "randn_like": lambda g: tg.randn_like(tg.zeros(4), generator=g),
    "randint_like": lambda g: tg.randint_like(tg.zeros(4), 100, generator=g),
    "dropout": lambda g: F.dropout(tg.ones(8), 0.5, generator=g),
    "dropout1d": lambda g: F.dropout1d(tg.ones(2, 4, 3), 0.5, generator=g),
    "dropout2d": lambda g: F.dropout2d(tg.ones(2, 4, 3, 3), 0.5, generator=g),
    "alpha_dropout": lambda g: F.alpha_dropout(tg.ones(8), 0.5, training=True, generator=g),
}


@pytest.mark.parametrize("name", RANDOM_CALLS)
def test_generator_seeded_alike_repeats_and_leaves_the_global_generator_alone(name):
    call = RANDOM_CALLS[name]
    tg.manual_seed(123)
    before = tg.get_rng_state()
    first, second = call(gen(7)), call(gen(7))
    np.testing.assert_array_equal(first.numpy(), second.numpy())
    assert np.array_equal(tg.get_rng_state(), before), "the global generator was used"
    draws = [call(gen(seed)).numpy() for seed in range(8)]
    assert any(not np.array_equal(draws[0], d) for d in draws[1:]), "the seed changes nothing"


@pytest.mark.parametrize("name", RANDOM_CALLS)
def test_without_a_generator_the_global_one_is_used_and_manual_seed_repeats_it(name):
    call = RANDOM_CALLS[name]
    tg.manual_seed(5)
    first = call(None)
    tg.manual_seed(5)
    np.testing.assert_array_equal(call(None).numpy(), first.numpy())


def test_generator_state_saves_and_restores_the_stream():
    g = gen(3)
    state = g.get_state()
    assert state.dtype == tg.uint8 and state.ndim == 1
    a = tg.randn(5, generator=g)
    g.set_state(state)
    np.testing.assert_array_equal(tg.randn(5, generator=g).numpy(), a.numpy())


def test_global_rng_state_initial_seed_and_seed():
    assert tg.manual_seed(42) is tg.default_generator
    assert tg.initial_seed() == 42
    state = tg.get_rng_state()
    a = tg.rand(3)
    tg.set_rng_state(state)
    np.testing.assert_array_equal(tg.rand(3).numpy(), a.numpy())
    fresh = tg.seed()
    assert isinstance(fresh, int) and tg.initial_seed() == fresh
    assert gen(9).initial_seed() == 9


def test_generator_errors():
    with pytest.raises(TypeError, match="generator must be a tg.Generator"):
        tg.randn(2, generator=np.random.default_rng(0))
    with pytest.raises(TypeError, match="seed must be an int"):
        tg.Generator().manual_seed(1.5)
    with pytest.raises(RuntimeError, match="get_state"):
        tg.set_rng_state(tg.tensor([1, 2, 3], dtype=tg.uint8))
    with pytest.raises(RuntimeError, match="runs on the CPU"):
        tg.Generator(device="cuda")


# --- randint's two forms ------------------------------------------------------------------------
RANDINT_FORMS = [  # (args, kwargs, the range [low, high) they mean)
    ((10, (2, 3)), {}, (0, 10)),
    ((3, 10, (4,)), {}, (3, 10)),
    ((), {"high": 5, "size": (2,)}, (0, 5)),
    ((0, 5), {"size": (2, 2)}, (0, 5)),
    ((5, (2,)), {"dtype": "int32"}, (0, 5)),
    ((-3, 3, (6,)), {}, (-3, 3)),
]


@pytest.mark.parametrize("args, kwargs, bounds", RANDINT_FORMS)
def test_randint_forms_give_values_in_range(args, kwargs, bounds):
    kwargs = {k: getattr(tg, v) if k == "dtype" else v for k, v in kwargs.items()}
    x = tg.randint(*args, generator=gen(), **kwargs).numpy()
    assert x.min() >= bounds[0] and x.max() < bounds[1]


def test_randint_draws_every_value_of_the_range_and_none_outside():
    assert set(tg.randint(5, (4000,), generator=gen()).tolist()) == set(range(5))
    assert set(tg.randint(-3, 3, (4000,), generator=gen()).tolist()) == set(range(-3, 3))


@pytest.mark.oracle
@pytest.mark.parametrize("args, kwargs, bounds", RANDINT_FORMS)
def test_randint_forms_have_pytorchs_shape_and_dtype(args, kwargs, bounds):
    torch = pytest.importorskip("torch")
    ours = tg.randint(
        *args, **{k: getattr(tg, v) if k == "dtype" else v for k, v in kwargs.items()}
    )
    theirs = torch.randint(
        *args, **{k: getattr(torch, v) if k == "dtype" else v for k, v in kwargs.items()}
    )
    assert ours.shape == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)


def test_randint_errors():
    with pytest.raises(RuntimeError, match="low < high"):
        tg.randint(5, 3, (2,))
    with pytest.raises(TypeError, match="give the size"):
        tg.randint(5)


# --- multinomial --------------------------------------------------------------------------------
def test_multinomial_with_replacement_draws_in_proportion_to_unnormalised_weights():
    weights = tg.tensor([1.0, 2.0, 3.0, 4.0, 0.0])
    n = 20000
    draws = tg.multinomial(weights, n, replacement=True, generator=gen()).numpy()
    frequencies = np.bincount(draws, minlength=5) / n
    # each standard error is at most sqrt(0.25 / 20000) = 0.0035
    np.testing.assert_allclose(frequencies, [0.1, 0.2, 0.3, 0.4, 0.0], atol=0.02)
    assert frequencies[4] == 0.0  # a zero weight is never drawn


def test_multinomial_2d_draws_each_row_from_its_own_distribution():
    weights = tg.tensor([[0.0, 1.0, 0.0], [0.5, 0.0, 0.5]])
    draws = tg.multinomial(weights, 1000, replacement=True, generator=gen()).numpy()
    assert draws.shape == (2, 1000) and draws.dtype == np.int64
    assert np.all(draws[0] == 1) and set(np.unique(draws[1])) == {0, 2}
    assert abs((draws[1] == 0).mean() - 0.5) < 0.08  # standard error 0.016


def test_multinomial_without_replacement_never_repeats_and_draws_in_sequence():
    p = np.array([0.5, 0.3, 0.2])
    rows = 20000
    draws = tg.multinomial(tg.tensor(np.tile(p, (rows, 1))), 2, generator=gen()).numpy()
    assert np.all(draws[:, 0] != draws[:, 1])
    first = np.bincount(draws[:, 0], minlength=3) / rows
    second = np.bincount(draws[:, 1], minlength=3) / rows
    # the second draw picks j != i with probability p_j / (1 - p_i)
    expected_second = [sum(p[i] * p[j] / (1 - p[i]) for i in range(3) if i != j) for j in range(3)]
    np.testing.assert_allclose(first, p, atol=0.02)
    np.testing.assert_allclose(second, expected_second, atol=0.02)
    whole = tg.multinomial(tg.ones(6), 6, generator=gen()).numpy()
    assert sorted(whole.tolist()) == list(range(6))


def test_multinomial_without_replacement_draws_zero_weights_last_as_pytorch():
    draws = tg.multinomial(tg.tensor([0.0, 1.0, 0.0]), 2, generator=gen()).numpy()
    assert draws[0] == 1 and draws[1] in (0, 2)


MULTINOMIAL_ERRORS = [
    ("negative", lambda m: m([-1.0, 1.0], 1)),
    ("nan", lambda m: m([float("nan"), 1.0], 1)),
    ("inf", lambda m: m([float("inf"), 1.0], 1)),
    ("all zero", lambda m: m([0.0, 0.0], 1)),
    ("3-D", lambda m: m(np.ones((2, 2, 2)), 1)),
    ("no samples", lambda m: m([1.0, 1.0], 0)),
    ("too many without replacement", lambda m: m([1.0, 1.0], 3)),
    ("integer weights", lambda m: m([1, 2], 1)),
]


@pytest.mark.parametrize(
    "case", [c[1] for c in MULTINOMIAL_ERRORS], ids=[c[0] for c in MULTINOMIAL_ERRORS]
)
def test_multinomial_errors_are_runtime_errors_that_explain(case):
    with pytest.raises(RuntimeError, match="multinomial"):
        case(lambda w, n: tg.multinomial(tg.tensor(w), n))


@pytest.mark.oracle
@pytest.mark.parametrize(
    "case", [c[1] for c in MULTINOMIAL_ERRORS], ids=[c[0] for c in MULTINOMIAL_ERRORS]
)
def test_multinomial_errors_are_pytorchs_class(case):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        case(lambda w, n: torch.multinomial(torch.tensor(np.asarray(w)), n))


@pytest.mark.oracle
@pytest.mark.parametrize(
    "shape, n, replacement", [((4,), 3, False), ((3, 5), 2, True), ((2, 3), 3, False)]
)
def test_multinomial_shapes_and_dtype_match_pytorch(shape, n, replacement):
    torch = pytest.importorskip("torch")
    ours = tg.multinomial(tg.rand(*shape) + 0.1, n, replacement)
    theirs = torch.multinomial(torch.rand(*shape) + 0.1, n, replacement)
    assert ours.shape == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)


# --- randperm, bernoulli, normal, poisson, *_like -----------------------------------------------
def test_randperm_is_a_uniform_permutation():
    g = gen()
    firsts = np.array([tg.randperm(4, generator=g).numpy()[0] for _ in range(4000)])
    np.testing.assert_allclose(np.bincount(firsts, minlength=4) / 4000, 0.25, atol=0.04)
    x = tg.randperm(10, generator=g)
    assert sorted(x.tolist()) == list(range(10)) and x.dtype == tg.int64
    assert tg.randperm(0).shape == (0,)
    with pytest.raises(RuntimeError, match="non-negative"):
        tg.randperm(-1)


def test_bernoulli_mean_is_p_and_keeps_the_dtype():
    p = tg.tensor([0.0, 0.25, 1.0], dtype=tg.float64)
    draws = tg.bernoulli(p.expand(20000, 3), generator=gen())
    assert draws.dtype == tg.float64 and set(np.unique(draws.numpy())) <= {0.0, 1.0}
    np.testing.assert_allclose(draws.numpy().mean(axis=0), [0.0, 0.25, 1.0], atol=0.02)
    fixed = tg.bernoulli(tg.zeros(20000), p=0.3, generator=gen())
    assert abs(fixed.numpy().mean() - 0.3) < 0.02
    filled = tg.empty(20000).bernoulli_(0.7, generator=gen())
    assert abs(filled.numpy().mean() - 0.7) < 0.02
    with pytest.raises(RuntimeError, match="0 <= p <= 1"):
        tg.bernoulli(tg.tensor([1.5]))


def test_normal_overloads_shapes_dtypes_and_moments():
    g = gen()
    both = tg.normal(tg.zeros(2, 1, dtype=tg.float64), tg.ones(3), generator=g)
    assert both.shape == (2, 3) and both.dtype == tg.float64
    assert tg.normal(tg.zeros(3), 2.0, generator=g).shape == (3,)
    assert tg.normal(0.0, tg.ones(5), generator=g).shape == (5,)
    sized = tg.normal(2.0, 3.0, (40000,), generator=g).numpy()
    assert sized.dtype == np.float32
    assert abs(sized.mean() - 2.0) < 0.08 and abs(sized.std() - 3.0) < 0.08  # se 0.015, 0.011
    per_element = tg.normal(
        tg.tensor([-5.0, 5.0]).expand(20000, 2), tg.tensor([0.1, 1.0]), generator=g
    )
    np.testing.assert_allclose(per_element.numpy().mean(axis=0), [-5.0, 5.0], atol=0.05)
    np.testing.assert_allclose(per_element.numpy().std(axis=0), [0.1, 1.0], rtol=0.05)
    with pytest.raises(RuntimeError, match="std >= 0"):
        tg.normal(tg.zeros(2), -1.0)
    with pytest.raises(TypeError, match="size"):
        tg.normal(0.0, 1.0)


def test_poisson_mean_and_variance_equal_the_rate():
    rate = tg.tensor([0.0, 1.0, 7.0], dtype=tg.float64).expand(20000, 3)
    draws = tg.poisson(rate, generator=gen())
    assert draws.dtype == tg.float64
    np.testing.assert_allclose(draws.numpy().mean(axis=0), [0, 1, 7], atol=0.15)
    np.testing.assert_allclose(draws.numpy().var(axis=0), [0, 1, 7], atol=0.5)
    with pytest.raises(RuntimeError, match="rate"):
        tg.poisson(tg.tensor([-1.0]))


def test_like_functions_keep_shape_and_dtype():
    x = tg.zeros(2, 3, dtype=tg.float64)
    assert tg.rand_like(x).shape == (2, 3) and tg.rand_like(x).dtype == tg.float64
    assert tg.randn_like(x, dtype=tg.float32).dtype == tg.float32
    ints = tg.randint_like(x, 2, 10)
    assert ints.dtype == tg.float64 and ints.numpy().min() >= 2 and ints.numpy().max() < 10
    u = tg.rand_like(tg.zeros(40000), generator=gen()).numpy()
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.01  # se 0.0014
    with pytest.raises(NotImplementedError, match="floating dtype"):
        tg.rand_like(tg.tensor([1, 2]))


@pytest.mark.oracle
def test_shapes_and_dtypes_of_the_random_ops_match_pytorch():
    torch = pytest.importorskip("torch")
    pairs = [
        (lambda m: m.normal(m.zeros(2, 1, dtype=m.float64), m.ones(3)), None),
        (lambda m: m.normal(0.0, m.ones(3)), None),
        (lambda m: m.normal(2.0, 3.0, (4,)), None),
        (lambda m: m.bernoulli(m.zeros(2, dtype=m.float64)), None),
        (lambda m: m.bernoulli(m.zeros(2), 0.3), None),
        (lambda m: m.poisson(m.ones(2, dtype=m.float64)), None),
        (lambda m: m.randperm(4), None),
        (lambda m: m.randint_like(m.zeros(3), 10), None),
        (lambda m: m.randint_like(m.zeros(3, dtype=m.int32), 2, 10), None),
        (lambda m: m.rand_like(m.zeros(2, 2, dtype=m.float64)), None),
        (lambda m: m.randn_like(m.zeros(3)), None),
    ]
    for make, _ in pairs:
        ours, theirs = make(tg), make(torch)
        assert ours.shape == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)


# --- channel dropout and alpha dropout ----------------------------------------------------------
@pytest.mark.parametrize(
    "fn, shape", [(F.dropout1d, (8, 50, 6)), (F.dropout2d, (8, 50, 3, 3)), (F.dropout1d, (50, 6))]
)
def test_channel_dropout_zeroes_whole_channels_at_rate_p(fn, shape):
    y = fn(tg.ones(*shape), p=0.3, generator=gen()).numpy()
    channels = y.reshape(*shape[: len(shape) - (2 if fn is F.dropout2d else 1)], -1)
    per_channel = channels.reshape(-1, channels.shape[-1])
    assert np.all((per_channel == 0).all(axis=1) | np.isclose(per_channel, 1 / 0.7).all(axis=1))
    dropped = (per_channel == 0).all(axis=1).mean()
    assert abs(dropped - 0.3) < 0.1  # at least 50 channels: se <= 0.065 / sqrt(8)
    x = tg.ones(*shape)
    assert fn(x, 0.3, training=False) is x


def test_channel_dropout_errors_and_warning():
    with pytest.raises(RuntimeError, match="dropout1d: expected a 2D or 3D input"):
        F.dropout1d(tg.ones(2, 3, 4, 5))
    with pytest.raises(ValueError, match="p is the probability"):
        F.dropout2d(tg.ones(2, 3, 4), p=1.5)
    with pytest.warns(UserWarning, match="2-D input"):
        y = F.dropout2d(tg.ones(100, 100), 0.5, generator=gen())
    assert 0.4 < (y.numpy() == 0).mean() < 0.6  # element-wise, as PyTorch


def test_channel_dropout_gradient_is_the_mask():
    x = tg.randn(2, 3, 4, dtype=tg.float64, requires_grad=True)
    assert tg.gradcheck(lambda x: F.dropout1d(x, 0.5, generator=gen(1)), (x,))
    y = F.dropout1d(x, 0.5, generator=gen(1))
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (y.detach().numpy() != 0) * 2.0)


def test_alpha_dropout_keeps_mean_zero_and_variance_one():
    x = tg.randn(200000, generator=gen(1), dtype=tg.float64)
    y = F.alpha_dropout(x, p=0.2, training=True, generator=gen(2)).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.var() - 1.0) < 0.02  # se about 0.0022, 0.004
    a = 1 / np.sqrt(0.8 * (1 + 0.2 * SELU_SATURATION**2))
    dropped = np.isclose(y, -SELU_SATURATION * a * 0.8)  # every dropped element: one constant
    assert abs(dropped.mean() - 0.2) < 0.01
    assert F.alpha_dropout(x, 0.2) is x  # PyTorch's default training=False
    assert tg.gradcheck(
        lambda x: F.alpha_dropout(x, 0.5, True, generator=gen(3)),
        (x[:5].detach().requires_grad_(),),
    )


@pytest.mark.oracle
def test_alpha_dropout_formula_matches_pytorch_on_its_own_mask():
    """PyTorch's alpha dropout of x equals a * (x * keep + a' * (1 - keep)) + b for its mask:
    recover the mask from PyTorch's output and apply ours to it."""
    torch = pytest.importorskip("torch")
    p, x = 0.3, np.linspace(-2, 2, 400)
    theirs = torch.nn.functional.alpha_dropout(torch.tensor(x), p, training=True).numpy()
    a = 1 / np.sqrt((1 - p) * (1 + p * 1.7580993408473766**2))
    keep = ~np.isclose(theirs, -1.7580993408473766 * a * (1 - p))
    ours = a * (x * keep - 1.7580993408473766 * (1 - keep)) + a * 1.7580993408473766 * p
    np.testing.assert_allclose(theirs, ours, rtol=1e-12, atol=1e-12)
    assert SELU_SATURATION == pytest.approx(1.7580993408473766, rel=1e-15)


def test_dropout_modules_and_generator_keyword_of_f_dropout():
    y = F.dropout(tg.ones(10000), 0.25, generator=gen())
    assert abs((y.numpy() == 0).mean() - 0.25) < 0.03
    assert isinstance(nn.Dropout(0.1), nn.Module)


INIT_CALLS = {
    "uniform_": lambda w, g: nn.init.uniform_(w, -1, 1, generator=g),
    "normal_": lambda w, g: nn.init.normal_(w, 0, 1, generator=g),
    "xavier_uniform_": lambda w, g: nn.init.xavier_uniform_(w, generator=g),
    "xavier_normal_": lambda w, g: nn.init.xavier_normal_(w, generator=g),
    "kaiming_uniform_": lambda w, g: nn.init.kaiming_uniform_(w, generator=g),
    "kaiming_normal_": lambda w, g: nn.init.kaiming_normal_(w, generator=g),
}


@pytest.mark.parametrize("name", INIT_CALLS)
def test_nn_init_takes_a_generator(name):
    first, second = tg.empty(3, 4), tg.empty(3, 4)
    INIT_CALLS[name](first, gen(4))
    INIT_CALLS[name](second, gen(4))
    np.testing.assert_array_equal(first.numpy(), second.numpy())
    assert np.unique(first.numpy()).size == 12
