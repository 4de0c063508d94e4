"""Oracle: small versions of course programs whose output depends on the random stream:
makemore's bigram sampling and an MLP's initial loss, and minGPT's adder train/test split."""

import numpy as np
import pytest

import tinygrad_norm as tg

pytestmark = pytest.mark.oracle
torch = pytest.importorskip("torch")

WORDS = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia", "harper"]


def bigram_names(lib, count=8):
    """makemore part 1: count bigrams, normalise, then sample names with a seeded generator."""
    chars = sorted(set("".join(WORDS)))
    stoi = {c: i + 1 for i, c in enumerate(chars)}
    stoi["."] = 0
    itos = {i: c for c, i in stoi.items()}
    counts = lib.zeros((len(stoi), len(stoi)), dtype=lib.int32)
    for w in WORDS:
        letters = ["."] + list(w) + ["."]
        for a, b in zip(letters, letters[1:]):
            counts[stoi[a], stoi[b]] += 1
    probs = (counts + 1).float()
    probs /= probs.sum(1, keepdims=True)
    g = lib.Generator().manual_seed(2147483647)
    names = []
    for _ in range(count):
        ix, out = 0, []
        while True:
            ix = lib.multinomial(probs[ix], num_samples=1, replacement=True, generator=g).item()
            if ix == 0:
                break
            out.append(itos[ix])
        names.append("".join(out))
    return names


def test_makemore_bigram_samples_pytorchs_names():
    assert bigram_names(tg) == bigram_names(torch)


def mlp_initial_loss(lib):
    """makemore part 2: a seeded embedding + MLP; the loss before training."""
    g = lib.Generator().manual_seed(2147483647)
    C = lib.randn((27, 10), generator=g)
    W1 = lib.randn((30, 200), generator=g) * 0.2
    b1 = lib.randn(200, generator=g) * 0.01
    W2 = lib.randn((200, 27), generator=g) * 0.01
    b2 = lib.randn(27, generator=g) * 0
    X = lib.randint(0, 27, (32, 3), generator=g)
    Y = lib.randint(0, 27, (32,), generator=g)
    h = lib.tanh(C[X].view(32, 30) @ W1 + b1)
    return lib.nn.functional.cross_entropy(h @ W2 + b2, Y).item()


def test_makemore_mlp_initial_loss_is_pytorchs():
    assert mlp_initial_loss(tg) == pytest.approx(mlp_initial_loss(torch), rel=1e-5)


def adder_split(lib, ndigit=2):
    """minGPT's adder: all (a, b) pairs, split with randperm from a seeded generator."""
    rng = lib.Generator()
    rng.manual_seed(1337)
    num = (10**ndigit) ** 2
    perm = lib.randperm(num, generator=rng)
    num_test = min(int(num * 0.2), 500)
    return perm[:num_test].tolist(), perm[num_test:].tolist()


@pytest.mark.parametrize("ndigit", [2, 3])
def test_mingpt_adder_split_is_pytorchs(ndigit):
    test, train = adder_split(tg, ndigit)
    assert (test, train) == adder_split(torch, ndigit)
    assert sorted(test + train) == list(range(10 ** (2 * ndigit)))


def test_a_training_step_draws_the_same_minibatch():
    """makemore's loop: ix = randint(0, n, (32,)) each step, from the global stream."""
    tg.manual_seed(42)
    torch.manual_seed(42)
    for _ in range(5):
        np.testing.assert_array_equal(
            tg.randint(0, 1000, (32,)).numpy(), torch.randint(0, 1000, (32,)).numpy()
        )
