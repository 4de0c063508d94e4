"""Oracle: the same seed and the same calls give PyTorch's numbers (torch 2.13, CPU).

Integers and uniforms must be equal bit for bit, normals to float32 rounding; after every
call the generator states must be equal byte for byte, so the streams stay aligned."""

import numpy as np
import pytest

import tinygrad_norm as tg

pytestmark = pytest.mark.oracle
torch = pytest.importorskip("torch")

SEEDS = [0, 1, 42, 2147483647]
SIZES = [1, 2, 5, 15, 16, 17, 31, 100, 1000, 5000]
TG_DTYPES = {torch.float32: tg.float32, torch.float64: tg.float64}


def seed_both(seed):
    tg.manual_seed(seed)
    torch.manual_seed(seed)


def assert_aligned():
    np.testing.assert_array_equal(tg.get_rng_state().numpy(), torch.get_rng_state().numpy())


def same(ours, theirs, tol=None):
    ours = ours.numpy() if hasattr(ours, "numpy") else np.asarray(ours)
    theirs = theirs.numpy() if hasattr(theirs, "numpy") else np.asarray(theirs)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    if tol is None:
        np.testing.assert_array_equal(ours, theirs)
    else:
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)
    assert_aligned()


def probs(*shape):
    return np.random.default_rng(sum(shape)).random(shape).astype(np.float32)  # not the stream


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", SIZES)
def test_rand_randn_randint_randperm(seed, n):
    seed_both(seed)
    same(tg.rand(n), torch.rand(n))
    same(tg.rand(n, dtype=tg.float64), torch.rand(n, dtype=torch.float64))
    same(tg.randn(n), torch.randn(n), 1e-5)
    same(tg.randn(n, dtype=tg.float64), torch.randn(n, dtype=torch.float64), 1e-12)
    same(tg.randint(0, 10, (n,)), torch.randint(0, 10, (n,)))
    same(tg.randint(-3, 2**40, (n,)), torch.randint(-3, 2**40, (n,)))  # 64-bit words
    same(tg.randperm(n), torch.randperm(n))


@pytest.mark.parametrize("seed", SEEDS[:2])
@pytest.mark.parametrize("n", [1, 3, 17, 1000])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_in_place_fills(seed, n, dtype):
    ours, theirs = tg.empty(n, dtype=TG_DTYPES[dtype]), torch.empty(n, dtype=dtype)
    seed_both(seed)
    for a, b in [(-0.3, 0.7), (-1 / 3, 1 / 3), (2.0, 5.0)]:
        same(ours.uniform_(a, b), theirs.uniform_(a, b))
    same(ours.normal_(1.5, 0.02), theirs.normal_(1.5, 0.02), 1e-6)
    same(ours.exponential_(2.0), theirs.exponential_(2.0), 1e-6)
    same(ours.bernoulli_(0.3), theirs.bernoulli_(0.3))
    same(ours.random_(0, 3), theirs.random_(0, 3))
    same(ours.random_(7), theirs.random_(7))
    same(ours.random_(), theirs.random_())


@pytest.mark.parametrize("name", ["int64", "int32", "int16", "uint8", "bool"])
def test_random_without_bounds_per_dtype(name):
    seed_both(3)
    same(
        tg.empty(100, dtype=getattr(tg, name)).random_(),
        torch.empty(100, dtype=getattr(torch, name)).random_(),
    )


@pytest.mark.parametrize("n", [1, 17, 300])
def test_like_functions_normal_and_bernoulli(n):
    seed_both(4)
    same(
        tg.rand_like(tg.zeros(n, dtype=tg.float64)),
        torch.rand_like(torch.zeros(n, dtype=torch.float64)),
    )
    same(tg.randn_like(tg.zeros(n)), torch.randn_like(torch.zeros(n)), 1e-5)
    same(tg.randint_like(tg.zeros(n), 3, 9), torch.randint_like(torch.zeros(n), 3, 9))
    same(tg.normal(2.0, 3.0, (n,)), torch.normal(2.0, 3.0, (n,)), 1e-5)
    mean, std = probs(n), probs(n) * 3
    same(
        tg.normal(tg.tensor(mean), tg.tensor(std)),
        torch.normal(torch.tensor(mean), torch.tensor(std)),
        1e-5,
    )
    same(tg.bernoulli(tg.tensor(probs(n))), torch.bernoulli(torch.tensor(probs(n))))
    p64 = probs(n).astype(np.float64)
    same(tg.bernoulli(tg.tensor(p64)), torch.bernoulli(torch.tensor(p64)))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    ("shape", "k", "replacement"),
    [((27,), 1, True), ((27,), 1, False), ((27,), 5, True), ((27,), 5, False), ((27,), 300, True),
     ((4, 9), 1, True), ((4, 9), 3, False), ((4, 9), 50, True), ((3, 1000), 20, True)],
)  # fmt: skip
def test_multinomial(seed, shape, k, replacement):
    seed_both(seed)
    p = probs(*shape)
    p[..., 2] = 0.0  # a category that is never drawn
    same(
        tg.multinomial(tg.tensor(p), k, replacement),
        torch.multinomial(torch.tensor(p), k, replacement),
    )
    same(tg.tensor(p).multinomial(k, replacement), torch.tensor(p).multinomial(k, replacement))


def test_interleaved_calls_on_one_stream():
    seed_both(5)
    for n in [3, 40, 1, 17, 2, 600]:
        same(tg.randn(n, dtype=tg.float64), torch.randn(n, dtype=torch.float64), 1e-12)
        same(tg.rand(n), torch.rand(n))
        same(tg.randn(n), torch.randn(n), 1e-5)
        same(tg.randperm(n), torch.randperm(n))
        same(tg.randint(5, (n, 2)), torch.randint(5, (n, 2)))
        same(tg.randn(1, dtype=tg.float64), torch.randn(1, dtype=torch.float64), 1e-12)


def test_explicit_generators_leave_the_global_one_alone():
    seed_both(6)
    g, h = tg.Generator().manual_seed(11), torch.Generator().manual_seed(11)
    same(tg.randn(20, generator=g), torch.randn(20, generator=h), 1e-5)
    same(tg.rand(3, generator=g), torch.rand(3, generator=h))
    np.testing.assert_array_equal(g.get_state().numpy(), h.get_state().numpy())
    same(tg.rand(4), torch.rand(4))
    g, h = tg.Generator(), torch.Generator()  # PyTorch's fixed default seed
    same(tg.randperm(30, generator=g), torch.randperm(30, generator=h))


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_masks(p):
    seed_both(7)
    F, tF = tg.nn.functional, torch.nn.functional
    same(F.dropout(tg.ones(50, 3), p), tF.dropout(torch.ones(50, 3), p))
    same(tg.nn.Dropout(p)(tg.ones(40)), torch.nn.Dropout(p)(torch.ones(40)))
    same(F.dropout2d(tg.ones(4, 5, 3, 3), p), tF.dropout2d(torch.ones(4, 5, 3, 3), p))
    same(F.dropout1d(tg.ones(4, 5, 3), p), tF.dropout1d(torch.ones(4, 5, 3), p))
    same(F.alpha_dropout(tg.ones(40), p, True), tF.alpha_dropout(torch.ones(40), p, True), 1e-6)


INITS = [
    ("uniform_", {"a": -2.0, "b": 2.0}), ("normal_", {"std": 0.1}), ("xavier_uniform_", {}),
    ("xavier_normal_", {}), ("kaiming_uniform_", {"a": 5**0.5}), ("kaiming_normal_", {}),
    ("trunc_normal_", {"std": 0.02}),
    ("trunc_normal_", {"mean": 1.0, "std": 2.0, "a": 0.5, "b": 1.5}),
    ("orthogonal_", {}),
]  # fmt: skip


@pytest.mark.parametrize(("fn", "kwargs"), INITS)
@pytest.mark.parametrize("shape", [(3, 5), (40, 70), (6, 3, 3, 3)])
def test_nn_init(fn, kwargs, shape):
    seed_both(8)
    ours = getattr(tg.nn.init, fn)(tg.empty(*shape), **kwargs)
    same(ours, getattr(torch.nn.init, fn)(torch.empty(*shape), **kwargs), 1e-5)


LAYERS = [
    ("Linear", (5, 7), {}), ("Linear", (40, 30), {"bias": False}), ("Conv1d", (3, 4, 3), {}),
    ("Conv2d", (3, 8, 3), {}), ("ConvTranspose1d", (3, 4, 3), {}),
    ("ConvTranspose2d", (3, 4, 3), {}),
    ("Embedding", (27, 10), {}), ("LSTM", (4, 6), {"num_layers": 2}), ("GRU", (4, 6), {}),
    ("RNN", (4, 6), {}), ("LSTM", (4, 6), {"bidirectional": True}), ("LSTMCell", (4, 6), {}),
    ("GRUCell", (4, 6), {}), ("RNNCell", (4, 6), {}), ("MultiheadAttention", (8, 2), {}),
    ("TransformerEncoderLayer", (8, 2), {"dim_feedforward": 16}),
    ("TransformerDecoderLayer", (8, 2), {"dim_feedforward": 16}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "args", "kwargs"), LAYERS)
def test_default_layer_initialisation(name, args, kwargs):
    seed_both(9)
    ours, theirs = getattr(tg.nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    a, b = ours.state_dict(), theirs.state_dict()
    assert list(a) == list(b)
    for key in b:
        np.testing.assert_allclose(a[key].numpy(), b[key].detach().numpy(), rtol=1e-5, atol=1e-6)
    assert_aligned()


def test_distributions():
    seed_both(10)
    p = probs(3, 27)
    tD, D = torch.distributions, tg.distributions
    same(
        D.Categorical(probs=tg.tensor(p)).sample((4,)),
        tD.Categorical(probs=torch.tensor(p)).sample((4,)),
    )
    same(D.Categorical(probs=tg.tensor(p)).sample(), tD.Categorical(probs=torch.tensor(p)).sample())
    normal, t_normal = (
        D.Normal(tg.zeros(20), tg.ones(20) * 2),
        tD.Normal(torch.zeros(20), torch.ones(20) * 2),
    )
    same(normal.sample((2,)), t_normal.sample((2,)), 1e-5)
    same(
        D.Normal(tg.zeros(3), tg.ones(3)).rsample().detach(),
        tD.Normal(torch.zeros(3), torch.ones(3)).rsample().detach(),
        1e-6,
    )


@pytest.mark.parametrize("n", [2**15, 2**15 + 16, 70001, 10**6])
def test_large_sizes(n):
    seed_both(12)
    same(tg.randn(n), torch.randn(n), 1e-5)
    same(tg.rand(n), torch.rand(n))
    same(tg.randn(n // 7, dtype=tg.float64), torch.randn(n // 7, dtype=torch.float64), 1e-12)


@pytest.mark.parametrize("n", [1, 15, 16, 17, 40, 5000])
def test_float16_draws(n):
    """float16 is drawn in float32 and rounded (some uniforms round up to 1, which becomes 0)."""
    seed_both(13)
    same(tg.rand(n, dtype=tg.float16), torch.rand(n, dtype=torch.float16))
    same(tg.randn(n, dtype=tg.float16), torch.randn(n, dtype=torch.float16), 1e-3)
    ours, theirs = tg.empty(n, dtype=tg.float16), torch.empty(n, dtype=torch.float16)
    same(ours.uniform_(-1.0, 3.0), theirs.uniform_(-1.0, 3.0))


def test_fills_of_a_transposed_view_go_in_memory_order():
    """PyTorch's element-by-element kernels walk a view in memory order (and normal_ draws one
    by one when the tensor is not contiguous)."""
    seed_both(14)
    ours, theirs = tg.zeros(6, 5), torch.zeros(6, 5)
    for fill, args in [("uniform_", (-1.0, 2.0)), ("bernoulli_", (0.4,)), ("random_", (0, 9)),
                       ("exponential_", ()), ("normal_", ())]:  # fmt: skip
        getattr(ours.t(), fill)(*args)
        getattr(theirs.t(), fill)(*args)
        same(ours, theirs, 1e-6)
    ours, theirs = tg.zeros(8, 6), torch.zeros(8, 6)
    same(ours[:, ::2].normal_(), theirs[:, ::2].normal_(), 1e-6)
    same(tg.nn.init.uniform_(tg.zeros(7, 9).t()), torch.nn.init.uniform_(torch.zeros(7, 9).t()))
    same(tg.nn.init.normal_(tg.zeros(7, 9).t()), torch.nn.init.normal_(torch.zeros(7, 9).t()), 1e-6)
    x, y = tg.ones(20, 3), torch.ones(20, 3)
    F, tF = tg.nn.functional, torch.nn.functional
    same(F.dropout(x.t(), 0.3), tF.dropout(y.t(), 0.3))  # the mask laid out as the input
    same(F.dropout(x[:, ::2], 0.3), tF.dropout(y[:, ::2], 0.3))  # a contiguous mask
    same(F.dropout(x[:1].expand(4, 3), 0.3), tF.dropout(y[:1].expand(4, 3), 0.3))
    same(
        F.dropout(x.view(2, 6, 5).permute(2, 0, 1), 0.3),
        tF.dropout(y.view(2, 6, 5).permute(2, 0, 1), 0.3),
    )
    p = probs(5, 6)  # a tensor of probabilities, filling a transposed view
    same(
        tg.zeros(6, 5).t().bernoulli_(tg.tensor(p)),
        torch.zeros(6, 5).t().bernoulli_(torch.tensor(p)),
    )
    q = np.array([0.0, 0.25, 1.0])  # an expanded (stride 0) input: a contiguous result
    same(tg.bernoulli(tg.tensor(q).expand(200, 3)), torch.bernoulli(torch.tensor(q).expand(200, 3)))


def test_randperm_of_every_size_up_to_5000_on_one_stream():
    seed_both(15)
    for n in range(1, 5001):
        np.testing.assert_array_equal(tg.randperm(n).numpy(), torch.randperm(n).numpy())
    assert_aligned()


@pytest.mark.parametrize("seed", SEEDS)
def test_randperm_large_and_with_generators(seed):
    seed_both(seed)
    for n in [60000, 4999, 2, 60001]:
        same(tg.randperm(n), torch.randperm(n))
    g, h = tg.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
    same(tg.randperm(60000, generator=g), torch.randperm(60000, generator=h))
    np.testing.assert_array_equal(g.get_state().numpy(), h.get_state().numpy())
