"""NumPy has no bfloat16, so a draw asked for one stops with an error that names the op and
says what to use instead (never a silent float32 tensor)."""

import pytest

import tinygrad_norm as tg

DRAWS = {
    "randn": lambda dtype: tg.randn(3, dtype=dtype),
    "rand": lambda dtype: tg.rand(3, dtype=dtype),
    "randint": lambda dtype: tg.randint(0, 5, (3,), dtype=dtype),
    "randperm": lambda dtype: tg.randperm(3, dtype=dtype),
    "normal": lambda dtype: tg.normal(0.0, 1.0, (3,), dtype=dtype),
    "rand_like": lambda dtype: tg.rand_like(tg.zeros(3), dtype=dtype),
    "randn_like": lambda dtype: tg.randn_like(tg.zeros(3), dtype=dtype),
    "randint_like": lambda dtype: tg.randint_like(tg.zeros(3), 5, dtype=dtype),
}


@pytest.mark.parametrize("op", DRAWS)
def test_bfloat16_draws_name_the_op_and_the_way_out(op):
    with pytest.raises(TypeError, match=rf"^{op}: torch.bfloat16 is not supported.*tg.float32"):
        DRAWS[op](tg.bfloat16)
    assert DRAWS[op](tg.float32 if op not in ("randint", "randperm") else tg.int64).shape == (3,)
