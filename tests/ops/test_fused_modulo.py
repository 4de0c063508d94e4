"""fmod, remainder and floor division of ops/fused/modulo.py (and fast_math.fmod) against their
references (np.fmod, np.remainder, np.floor_divide, and the primitives' nodes): the same
values bit for bit in float32 over a wide range and at edge values, the same gradients, and
PyTorch's values (a remainder of zero keeps fmod's sign, as PyTorch's)."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.gradcheck import gradcheck
from tinygrad_norm.ops.elementwise import Fmod as FmodReference
from tinygrad_norm.ops.elementwise import Remainder as RemainderReference
from tinygrad_norm.ops.fused import fast_math, modulo

SPECIALS = np.array([0, -0.0, 1, -1, np.inf, -np.inf, np.nan, 5, -5, -4, 4, 1e30, -7, 0.3])


def _wide(n=200000, seed=0):
    rng = np.random.default_rng(seed)
    sign = np.sign(rng.standard_normal((2, 3 * n)))
    a = np.concatenate(
        [rng.standard_normal(n) * 10, rng.standard_normal(n) * 1e6, np.exp(rng.uniform(-80, 80, n))]
    )
    b = np.concatenate(
        [rng.uniform(0.5, 2, n), np.exp(rng.uniform(-80, 80, n)), np.abs(rng.standard_normal(n))]
    )
    return (a * sign[0]).astype(np.float32), (b * sign[1]).astype(np.float32)


def _bits_equal(got, want):
    assert got.dtype == want.dtype
    same = (got == want) & (np.signbit(got) == np.signbit(want))
    same |= np.isnan(got) & np.isnan(want)
    assert same.all(), (got[~same][:5], want[~same][:5])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(
    ("fast", "reference"),
    [
        (fast_math.fmod, np.fmod),
        (modulo.floor_divide, np.floor_divide),
        (modulo.remainder, np.remainder),
    ],
    ids=["fmod", "floor_divide", "remainder"],
)
def test_float32_values_are_numpys(fast, reference):
    a, b = _wide()
    got, want = fast(a, b), reference(a, b)
    if fast is modulo.remainder:  # NOTE a zero: fmod's sign (PyTorch), NumPy's has b's sign
        got, want = got + 0, want + 0
    _bits_equal(got, want)
    grid_a, grid_b = np.meshgrid(SPECIALS.astype(np.float32), SPECIALS.astype(np.float32))
    got, want = fast(grid_a, grid_b), reference(grid_a, grid_b)
    if fast is modulo.remainder:
        got, want = got + 0, want + 0
    _bits_equal(got, want)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_broadcast_and_other_dtypes_fall_back_or_agree():
    a, b = _wide(1000)
    _bits_equal(fast_math.fmod(a.reshape(30, 100), b[:100]), np.fmod(a.reshape(30, 100), b[:100]))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    _bits_equal(modulo.remainder(a64, b64), np.remainder(a64, b64))
    ints = np.arange(-6, 6), np.array([4, -3] * 6)
    np.testing.assert_array_equal(modulo.floor_divide(*ints), np.floor_divide(*ints))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    ("node", "reference"), [(modulo.Fmod, FmodReference), (modulo.Remainder, RemainderReference)]
)
def test_gradients_equal_reference(node, reference, dtype):
    rng = np.random.default_rng(1)
    a0, b0 = rng.standard_normal((4, 5)) * 5, rng.uniform(0.5, 2, (5,))
    g = rng.standard_normal((4, 5))
    results = []
    for fn in (node, reference):
        a, b = (tg.tensor(v.astype(dtype), requires_grad=True) for v in (a0, b0))
        fn.apply(a, b).backward(tg.tensor(g.astype(dtype)))
        results.append((a.grad.numpy(), b.grad.numpy()))
    for x, y in zip(*results):
        np.testing.assert_array_equal(x, y)
    a, b = (tg.tensor(v, requires_grad=True) for v in (a0, b0))
    assert gradcheck(node.apply, (a, b))


def test_floor_division_node_sends_zeros():
    a = tg.tensor([7.0, -7.0], requires_grad=True)
    b = tg.tensor([2.0, 2.0], requires_grad=True)
    out = tg.div(a, b, rounding_mode="floor")
    out.sum().backward()
    assert out.tolist() == [3.0, -4.0]
    assert a.grad.tolist() == b.grad.tolist() == [0.0, 0.0]


@pytest.mark.oracle
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", ["fmod", "remainder", "floor"])
def test_against_pytorch(name):
    torch = pytest.importorskip("torch")
    a, b = _wide(20000)
    grid_a, grid_b = np.meshgrid(SPECIALS.astype(np.float32), SPECIALS.astype(np.float32))
    a, b = np.concatenate([a, grid_a.ravel()]), np.concatenate([b, grid_b.ravel()])
    if name != "floor":  # NOTE PyTorch's float32 fmod is NaN where a / b overflows float32
        with np.errstate(all="ignore"):
            keep = ~(np.abs(a.astype(np.float64) / b) > 1e38)
        a, b = a[keep], b[keep]
    if name == "floor":
        got = tg.div(tg.tensor(a), tg.tensor(b), rounding_mode="floor").numpy()
        want = torch.div(torch.tensor(a), torch.tensor(b), rounding_mode="floor").numpy()
    else:
        got = getattr(tg, name)(tg.tensor(a), tg.tensor(b)).numpy()
        want = getattr(torch, name)(torch.tensor(a), torch.tensor(b)).numpy()
    _bits_equal(got, want)
