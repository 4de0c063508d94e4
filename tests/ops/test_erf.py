"""erf and erfc on NumPy arrays: agree with `math.erf` / `math.erfc` to 1e-15 relative, erf is
exactly odd, and both keep dtypes and shapes."""

import math

import numpy as np
import pytest

from tinygrad_norm.ops.erf_numpy import FLOAT32_BLOCK, FLOAT32_Q, LARGE, SMALL, erf, erfc

REQUIRED_ABS_ERROR = 1e-13  # what callers may rely on
DOCUMENTED_ABS_ERROR = 1e-15  # the module docstring reports 6.4e-16 relative measured
RELATIVE_ERROR = 1e-15  # erf, where the result is a normal number
ERFC_RELATIVE_ERROR = 1.5e-15  # measured 1.03e-15 against math.erfc, itself off by 3e-16
TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
SMALLEST_SUBNORMAL = 5e-324
SMALLEST_NORMAL = 2.2250738585072014e-308


def reference(x):
    """`math.erf` applied to every element, as a float64 array of the same shape."""
    x = np.asarray(x, dtype=np.float64)
    return np.array([math.erf(v) for v in x.ravel()]).reshape(x.shape)


def max_abs_error(x):
    return np.max(np.abs(erf(x) - reference(x)))


def test_dense_grid_matches_math_erf():
    x = np.linspace(-10.0, 10.0, 200_001)
    error = max_abs_error(x)
    assert error <= REQUIRED_ABS_ERROR
    assert error <= DOCUMENTED_ABS_ERROR


def test_random_points_where_the_methods_meet_match_math_erf():
    # Random points hit the three ranges (|x| <= 0.46875, up to 4, above) and the rounding to
    # exactly 1 near |x| = 6 at places a grid does not.
    x = np.random.default_rng(0).uniform(-6.5, 6.5, 200_000)
    assert max_abs_error(x) <= DOCUMENTED_ABS_ERROR


def million_points():
    """10^6 points: normal, uniform on [-30, 30], log-spaced tails from 1e-300 up, both signs."""
    rng = np.random.default_rng(4)
    tails = np.logspace(-300, np.log10(30.0), 200_000)
    return np.concatenate(
        [rng.normal(0.0, 2.0, 300_000), rng.uniform(-30, 30, 300_000), tails, -tails, [0.0]]
    )


def test_a_million_points_have_relative_error_below_1e_15():
    x = million_points()
    want = reference(x)
    got = erf(x)
    normal = np.abs(want) >= SMALLEST_NORMAL  # all but 0
    relative = np.abs(got[normal] - want[normal]) / np.abs(want[normal])
    assert relative.max() <= RELATIVE_ERROR
    assert got[~normal].tolist() == want[~normal].tolist()


def test_erfc_has_small_relative_error_also_where_it_is_tiny():
    # erfc(x) = 1 - erf(x), but computed without the cancellation: erfc(10) = 2.1e-45, where
    # 1 - erf(10) is 0. Where erfc is a normal number its relative error stays below 1.5e-15.
    x = million_points()
    want = np.array([math.erfc(v) for v in x])
    got = erfc(x)
    normal = want >= SMALLEST_NORMAL
    relative = np.abs(got[normal] - want[normal]) / want[normal]
    assert relative.max() <= ERFC_RELATIVE_ERROR
    assert np.max(np.abs(got[~normal] - want[~normal])) <= 2 * SMALLEST_SUBNORMAL  # underflow


@pytest.mark.filterwarnings("error")
def test_erfc_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e308, -1e308, 27.0, -27.0])
    got = erfc(x)
    assert got[:4].tolist() == [1.0, 1.0, 0.0, 2.0]
    assert np.isnan(got[4])
    assert got[5:7].tolist() == [0.0, 2.0]
    assert got[7] == pytest.approx(math.erfc(27.0), rel=1e-6)  # subnormal: few digits
    assert got[8] == 2.0


def test_erfc_keeps_shape_and_float32():
    x = np.linspace(-5.0, 5.0, 24, dtype=np.float32).reshape(2, 3, 4)
    got = erfc(x)
    assert got.shape == x.shape and got.dtype == np.float32
    want = np.array([math.erfc(v) for v in x.ravel().astype(np.float64)]).reshape(x.shape)
    np.testing.assert_allclose(got, want.astype(np.float32), rtol=2**-23, atol=0)


def test_float32_million_points_round_to_the_nearest_or_next_float32():
    x = million_points().astype(np.float32)
    got = erf(x)
    want = reference(x).astype(np.float32)
    assert got.dtype == np.float32
    assert np.all(np.abs(got - want) <= np.spacing(np.abs(want)))


@pytest.mark.parametrize("edge", [SMALL, LARGE, 6.0])
def test_both_sides_of_each_switch_match_math_erf(edge):
    below, above = [edge], [edge]
    for _ in range(20):  # the 20 doubles on each side of the switch
        below.append(np.nextafter(below[-1], 0.0))
        above.append(np.nextafter(above[-1], np.inf))
    x = np.array(below[::-1] + above[1:])
    assert max_abs_error(x) <= DOCUMENTED_ABS_ERROR
    assert max_abs_error(-x) <= DOCUMENTED_ABS_ERROR


SPECIAL_VALUES = [
    0.0,
    1e-300,
    1e-20,
    1e-8,
    SMALLEST_SUBNORMAL,
    1e-310,
    SMALLEST_NORMAL,
    0.5,
    SMALL,
    1.0,
    2.0,
    LARGE,
    5.9,
    6.0,
    27.0,
    1e308,
    math.inf,
]


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("value", SPECIAL_VALUES + [-v for v in SPECIAL_VALUES])
def test_special_values(value):
    got = erf(np.array([value]))[0]
    want = math.erf(value)
    assert abs(got - want) <= DOCUMENTED_ABS_ERROR
    assert math.copysign(1.0, got) == math.copysign(1.0, value)  # also for -0.0


@pytest.mark.filterwarnings("error")
def test_infinities_give_plus_minus_one_and_nan_gives_nan():
    got = erf(np.array([np.inf, -np.inf, np.nan, -np.nan]))
    assert got[0] == 1.0 and got[1] == -1.0
    assert np.isnan(got[2]) and np.isnan(got[3])


def test_signed_zero_is_kept():
    got = erf(np.array([0.0, -0.0]))
    assert got[0] == 0.0 and not np.signbit(got[0])
    assert got[1] == 0.0 and np.signbit(got[1])


def test_tiny_values_have_small_relative_error():
    assert erf(np.array(1e-20)) == pytest.approx(TWO_OVER_SQRT_PI * 1e-20, rel=4e-16)
    x = np.logspace(-300, -1, 3_001)
    relative_error = np.abs(erf(x) / reference(x) - 1.0)
    assert relative_error.max() <= 4e-16


def test_subnormals_match_math_erf():
    x = np.array([SMALLEST_SUBNORMAL, 2 * SMALLEST_SUBNORMAL, 1e-320, 1e-310])
    np.testing.assert_array_equal(erf(x), reference(x))


def test_odd_symmetry_is_exact():
    x = np.concatenate(
        [np.linspace(0.0, 10.0, 100_001), np.random.default_rng(1).uniform(0.0, 7.0, 10_000)]
    )
    np.testing.assert_array_equal(erf(-x), -erf(x))


def test_float32_in_float32_out():
    x = np.linspace(-8.0, 8.0, 20_001, dtype=np.float32)
    got = erf(x)
    assert got.dtype == np.float32
    want = reference(x).astype(np.float32)
    one_ulp = np.spacing(np.abs(want))
    assert np.all(np.abs(got - want) <= one_ulp)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_floating_dtypes_are_kept(dtype):
    assert erf(np.array([0.5, -3.0], dtype=dtype)).dtype == dtype


def test_integer_and_bool_inputs_give_float64():
    got = erf(np.array([-2, 0, 3]))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, [math.erf(-2), 0.0, math.erf(3)], rtol=0, atol=1e-15)
    assert erf(np.array([True, False])).dtype == np.float64


def test_complex_input_is_rejected():
    with pytest.raises(TypeError):
        erf(np.array([1 + 1j]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_zero_dimensional_array(dtype):
    got = erf(np.array(0.5, dtype=dtype))
    assert isinstance(got, np.ndarray)
    assert got.shape == () and got.dtype == dtype
    assert abs(float(got) - math.erf(0.5)) <= np.finfo(dtype).eps


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_empty_arrays(shape, dtype):
    got = erf(np.zeros(shape, dtype=dtype))
    assert got.shape == shape and got.dtype == dtype


def test_shape_is_kept_and_input_is_not_modified():
    x = np.random.default_rng(2).normal(0.0, 3.0, (4, 5, 6))
    before = x.copy()
    got = erf(x)
    assert got.shape == x.shape
    np.testing.assert_array_equal(x, before)
    assert np.max(np.abs(got - reference(x))) <= DOCUMENTED_ABS_ERROR


def test_non_contiguous_input():
    x = np.random.default_rng(3).normal(0.0, 3.0, (6, 8)).T[::2]
    got = erf(x)
    assert got.shape == x.shape
    assert np.max(np.abs(got - reference(x))) <= DOCUMENTED_ABS_ERROR


# float32 takes the float32 polynomial (`_erf_float32`): x + x Q(x^2) where |x| < 1, the
# float64 ranges 2 and 3 elsewhere. Its result is the float64 erf rounded to float32 or one of
# that value's two neighbours (a few percent of the values below 1 are; module docstring).


def ulps_apart(a, b):
    """How many float32 steps lie between a and b (float32 arrays, no NaN)."""

    def ordered(v):  # float32 bit patterns as integers that increase with the value
        i = v.view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFFFFFF), i)

    return np.abs(ordered(a) - ordered(b))


def rounded_float64_erf(x):
    """The float64 erf (Cody's ranges) of float32 values, rounded once to float32."""
    return erf(x.astype(np.float64)).astype(np.float32)


def float32_points():
    rng = np.random.default_rng(5)
    return np.concatenate(
        [
            rng.normal(0.0, 2.0, 400_000),
            rng.uniform(-5.0, 5.0, 400_000),
            np.geomspace(1e-30, 5.0, 200_000),
            -np.geomspace(1e-38, 1e-30, 1_000),
        ]
    ).astype(np.float32)


def test_float32_is_the_rounded_float64_erf_or_a_neighbour():
    x = float32_points()
    got = erf(x)
    apart = ulps_apart(got, rounded_float64_erf(x))
    assert apart.max() <= 1
    assert np.mean(apart > 0) <= 0.05  # 2.8% here (module docstring: over all float32)
    assert np.all(apart[np.abs(x) >= 1] == 0)  # the float64 ranges, rounded once


def test_every_float32_in_the_hardest_binades():
    # [0.5, 1) and [1, 2): there the correction x Q(x^2) is largest against erf(x) (module
    # docstring), and |x| = 1 is where the polynomial hands over to the float64 ranges.
    bits = np.arange(0x3F000000, 0x40000000, dtype=np.uint32)  # all 2^24 of them
    x = bits.view(np.float32)
    assert ulps_apart(erf(x), rounded_float64_erf(x)).max() <= 1
    np.testing.assert_array_equal(erf(-x[::97]), -erf(x[::97]))


def test_float32_in_every_binade_both_signs():
    # Each exponent's first, last and a random mantissa, both signs: the polynomial and the
    # float64 ranges from the subnormals up to the largest float32.
    exponents = np.arange(256, dtype=np.uint32)[:-1] << 23
    mantissas = np.array([0, 1, 0x7FFFFF, 0x400000, 0x2B3C4D], dtype=np.uint32)
    bits = (exponents[:, None] | mantissas).ravel()
    bits = np.concatenate([bits, bits | 0x80000000])
    x = bits.view(np.float32)
    got = erf(x)
    assert ulps_apart(got, rounded_float64_erf(x)).max() <= 1
    assert np.array_equal(np.signbit(got), np.signbit(x))


def test_float32_around_the_switch_at_one():
    x = np.float32(1.0) + np.arange(-3000, 3000, dtype=np.float32) * np.float32(2.0**-24)
    x = np.concatenate([x, -x])
    assert ulps_apart(erf(x), rounded_float64_erf(x)).max() <= 1


def test_float32_polynomial_is_the_fit_and_its_error_is_small():
    fitted, error = fit_float32_polynomial()
    np.testing.assert_allclose(
        FLOAT32_Q[::-1], fitted, rtol=1e-6
    )  # a few float32 steps (BLAS may differ)
    assert error <= 2e-9  # relative error of x + x Q(x^2) from the fit, exact arithmetic


def fit_float32_polynomial(degree=6, points=2000, iterations=50):
    """The float32 polynomial's coefficients (lowest power first) and the largest relative
    error of x + x Q(x^2) they give in exact arithmetic.

    Q(z) = erf(x)/x - 1, z = x^2, on Chebyshev points of [0, 1], weighted by x / erf(x) (an
    error dQ changes y = x + x Q by x dQ, relative x dQ / erf(x)). Lawson's iteration turns
    the weighted least squares fit into (nearly) the minimax one. The coefficients are then
    rounded to float32 one at a time, lowest first, refitting the others each time."""
    z = (1 - np.cos(np.linspace(0.0, math.pi, points))) / 2
    x = np.sqrt(z)
    ratio = np.divide(reference(x), x, out=np.full_like(x, TWO_OVER_SQRT_PI), where=x > 0)
    weight = 1 / ratio
    kept = []
    for k in range(degree + 1):
        powers = z[:, None] ** np.arange(k, degree + 1)
        residual = ratio - 1 - np.polynomial.polynomial.polyval(z, kept or [0.0])
        u = np.full(points, 1.0 / points)
        for _ in range(iterations):  # Lawson: weight the largest errors more
            w = weight * np.sqrt(u)
            c = np.linalg.lstsq(powers * w[:, None], residual * w, rcond=None)[0]
            u *= np.abs(powers @ c - residual) * weight
            u /= u.sum()
        kept.append(float(np.float32(c[0])))
    z = np.linspace(0.0, 1.0, 100_001)
    x = np.sqrt(z)
    ratio = np.divide(reference(x), x, out=np.full_like(x, TWO_OVER_SQRT_PI), where=x > 0)
    error = np.abs(np.polynomial.polynomial.polyval(z, kept) - (ratio - 1)) / ratio
    return kept, error.max()


@pytest.mark.filterwarnings("error")
def test_float32_special_values():
    payload_nans = np.array([0x7F800001, 0xFF80FFFF, 0x7FC00000], dtype=np.uint32).view(np.float32)
    x = np.concatenate(
        [np.array([0.0, -0.0, np.inf, -np.inf, 1e-45, -1e-45, 3.4e38, -3.4e38, 1.0, -1.0],
                  np.float32), payload_nans]
    )  # fmt: skip
    got = erf(x)
    assert got.dtype == np.float32
    assert got[0] == 0.0 and not np.signbit(got[0])
    assert got[1] == 0.0 and np.signbit(got[1])
    assert got[2] == 1.0 and got[3] == -1.0
    tiny = np.float32(TWO_OVER_SQRT_PI * float(np.float32(1e-45)))  # erf(x) = 2/sqrt(pi) x
    assert got[4] == tiny and got[5] == -tiny
    assert got[6] == 1.0 and got[7] == -1.0
    assert got[8] == np.float32(math.erf(1.0)) and got[9] == -got[8]
    assert np.all(np.isnan(got[10:]))


def test_float32_subnormals_are_two_over_sqrt_pi_times_x():
    # x + x Q(0): the sum is exact on the subnormal grid, so the one rounding is that of
    # x * Q(0), and Q(0) is 2/sqrt(pi) - 1 rounded to float32 (off by 9.7e-10).
    x = (np.arange(1, 1 << 23, 997, dtype=np.uint32)).view(np.float32)  # subnormal float32
    want = (TWO_OVER_SQRT_PI * x.astype(np.float64)).astype(np.float32)
    apart = ulps_apart(erf(x), want)
    assert apart.max() <= 1 and np.mean(apart) <= 0.02
    np.testing.assert_array_equal(erf(-x), -erf(x))


def test_float32_odd_symmetry_and_shapes():
    x = np.random.default_rng(6).normal(0.0, 1.5, (3, 5, 7)).astype(np.float32)
    got = erf(x)
    assert got.shape == x.shape and got.dtype == np.float32
    np.testing.assert_array_equal(erf(-x), -got)
    strided = erf(x.transpose(2, 0, 1)[::2])
    np.testing.assert_array_equal(strided, got.transpose(2, 0, 1)[::2])


def test_float32_larger_than_one_block():
    x = np.linspace(-4.5, 4.5, FLOAT32_BLOCK * 2 + 123, dtype=np.float32)
    assert ulps_apart(erf(x), rounded_float64_erf(x)).max() <= 1
