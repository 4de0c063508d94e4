"""The cases of the semantics tables (`semantics_tables.py`): calls whose result may be a view,
ops whose result dtype follows the promotion rule, and bad inputs PyTorch refuses. Every case
is `fn(lib, ...)` with `lib` either tinygrad_norm or torch, so one line runs on both."""

from __future__ import annotations

import numpy as np

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")
NUMBERS = (True, 2, 2.5)

# --- views: x is arange(24.).reshape(2, 3, 4) in float64 --------------------------------------
VIEW_CALLS = {
    "view": lambda lib, x: x.view(6, 4),
    "reshape": lambda lib, x: x.reshape(6, 4),
    "reshape_of_transpose": lambda lib, x: x.transpose(0, 1).reshape(-1),
    "flatten": lambda lib, x: x.flatten(),
    "flatten_of_permute": lambda lib, x: x.permute(2, 0, 1).flatten(),
    "transpose": lambda lib, x: x.transpose(0, 2),
    "permute": lambda lib, x: x.permute(2, 0, 1),
    "T_of_matrix": lambda lib, x: x[0].T,
    "t": lambda lib, x: x[0].t(),
    "mT": lambda lib, x: x.mT,
    "squeeze": lambda lib, x: x[:1].squeeze(0),
    "unsqueeze": lambda lib, x: x.unsqueeze(1),
    "expand": lambda lib, x: x[:, :1].expand(2, 5, 4),
    "expand_as": lambda lib, x: x[:1].expand_as(x),
    "narrow": lambda lib, x: x.narrow(1, 1, 2),
    "select": lambda lib, x: x.select(1, 2),
    "getitem_int": lambda lib, x: x[1],
    "getitem_slice": lambda lib, x: x[:, 1:],
    "getitem_step": lambda lib, x: x[:, ::2],
    "getitem_none_ellipsis": lambda lib, x: x[None, ..., 1],
    "getitem_list": lambda lib, x: x[[0, 1]],
    "getitem_mask": lambda lib, x: x[x > 5],
    "diagonal": lambda lib, x: x.diagonal(0, 1, 2),
    "diagonal_offset": lambda lib, x: x[0].diagonal(1),
    "unfold": lambda lib, x: x.unfold(2, 2, 1),
    "split": lambda lib, x: x.split(2, dim=2),
    "chunk": lambda lib, x: x.chunk(3, dim=1),
    "unbind": lambda lib, x: x.unbind(1),
    "movedim": lambda lib, x: x.movedim(0, 2),
    "swapaxes": lambda lib, x: x.swapaxes(0, 1),
    "view_as": lambda lib, x: x.view_as(x),
    "unflatten": lambda lib, x: x.unflatten(2, (2, 2)),
    "detach": lambda lib, x: x.detach(),
    "contiguous_already": lambda lib, x: x.contiguous(),
    "contiguous_of_transpose": lambda lib, x: x.transpose(0, 1).contiguous(),
    "to_same_dtype": lambda lib, x: x.to(lib.float64),
    "to_other_dtype": lambda lib, x: x.to(lib.float32),
    "clone": lambda lib, x: x.clone(),
    "flip": lambda lib, x: x.flip(0),
    "fliplr": lambda lib, x: lib.fliplr(x),
    "flipud": lambda lib, x: lib.flipud(x),
    "rot90": lambda lib, x: lib.rot90(x, 1, (1, 2)),
    "rot90_k0": lambda lib, x: lib.rot90(x, 0, (1, 2)),
    "roll": lambda lib, x: x.roll(1, 0),
    "repeat": lambda lib, x: x.repeat(1, 1, 1),
    "repeat_size_one": lambda lib, x: x[:1].repeat(2, 1, 1),
    "tile": lambda lib, x: x.tile((1, 1, 1)),
    "repeat_interleave": lambda lib, x: x.repeat_interleave(1, dim=0),
    "tril": lambda lib, x: x[0].tril(),
    "squeeze_nothing": lambda lib, x: x.squeeze(),
    "cat_one": lambda lib, x: lib.cat([x]),
    "stack_one": lambda lib, x: lib.stack([x]),
    "real": lambda lib, x: x.real,
    "abs": lambda lib, x: x.abs(),
    "sum_dim": lambda lib, x: x.sum(0),
    "broadcast_to": lambda lib, x: lib.broadcast_to(x[0], (2, 3, 4)),
    "atleast_2d": lambda lib, x: lib.atleast_2d(x[0, 0]),
    "atleast_1d_of_0d": lambda lib, x: lib.atleast_1d(x[0, 0, 0]),
    "atleast_3d_of_matrix": lambda lib, x: lib.atleast_3d(x[0]),
    "as_strided": lambda lib, x: x.as_strided((3, 2), (4, 1), 1),
    "as_strided_overlapping": lambda lib, x: x.as_strided((2, 3), (1, 1)),
    "swapdims": lambda lib, x: x.swapdims(1, 2),
    "mH": lambda lib, x: x.mH,
    "tensor_split": lambda lib, x: x.tensor_split(2, dim=2),
    "tensor_split_indices": lambda lib, x: x.tensor_split([1, 3], dim=2),
    "view_dtype_same": lambda lib, x: x.view(lib.float64),
    "view_dtype_other": lambda lib, x: x.view(lib.int64),
    "movedim_pairs": lambda lib, x: x.movedim((0, 1), (2, 0)),
    "unflatten_minus_one": lambda lib, x: x.unflatten(-1, (-1, 2)),
    "narrow_negative_dim": lambda lib, x: x.narrow(-1, 1, 2),
    "select_negative": lambda lib, x: x.select(-1, -1),
    "expand_new_dims": lambda lib, x: x[0].expand(5, 3, 4),
    "flatten_of_expand": lambda lib, x: x[:, :1].expand(2, 3, 4).flatten(),
    "reshape_of_expand": lambda lib, x: x[:, :1].expand(2, 3, 4).reshape(2, 12),
    "hstack_one": lambda lib, x: lib.hstack([x]),
    "squeeze_dims_tuple": lambda lib, x: x[:1, :1].squeeze((0, 1)),
}


# --- dtypes -------------------------------------------------------------------------------------
def operands() -> list[tuple]:
    """Tensors with dimensions and 0-d tensors of every dtype, and Python numbers."""
    out = [("t", d) for d in DTYPES] + [("0d", d) for d in DTYPES]
    return out + [("py", n) for n in NUMBERS]


def describe(spec: tuple) -> str:
    kind, what = spec
    return f"{kind}:{what}" if kind != "py" else f"py:{type(what).__name__}"


def make(lib, spec: tuple):
    """The operand `spec` for `lib`: values 1 and 2 (True for bool), never 0 (no division by
    zero in the dtype table: that is a refusal case)."""
    kind, what = spec
    if kind == "py":
        return what
    values = [True, True] if what == "bool" else [1, 2]
    return lib.tensor(values if kind == "t" else values[0], dtype=getattr(lib, what))


BINARY = {
    "add": lambda lib, a, b: a + b,
    "sub": lambda lib, a, b: a - b,
    "mul": lambda lib, a, b: a * b,
    "truediv": lambda lib, a, b: a / b,
    "floordiv": lambda lib, a, b: a // b,
    "remainder": lambda lib, a, b: a % b,
    "pow": lambda lib, a, b: a**b,
    "lt": lambda lib, a, b: a < b,
    "eq": lambda lib, a, b: a == b,
    "ge": lambda lib, a, b: a >= b,
    "and": lambda lib, a, b: a & b,
    "xor": lambda lib, a, b: a ^ b,
    "lshift": lambda lib, a, b: a << b,
    "rshift": lambda lib, a, b: a >> b,
    "fmod": lambda lib, a, b: lib.fmod(a, b),
    "minimum": lambda lib, a, b: lib.minimum(a, b),
    "maximum": lambda lib, a, b: lib.maximum(a, b),
    "where": lambda lib, a, b: lib.where(lib.tensor([True, False]), a, b),
    "cat": lambda lib, a, b: lib.cat([a.reshape(-1), b.reshape(-1)]),
    "stack": lambda lib, a, b: lib.stack([a, b]),
    "clamp_min": lambda lib, a, b: lib.clamp(a, min=b),
    "clamp_both": lambda lib, a, b: lib.clamp(a, b, b),
    "lerp_scalar_weight": lambda lib, a, b: lib.lerp(a, b, 0.5),
    "matmul": lambda lib, a, b: a.reshape(1, -1) @ b.reshape(-1, 1),
    "tensor_of_values": lambda lib, a, b: lib.tensor([a, b]) if a.ndim == b.ndim == 0 else a,
}


UNARY = {
    "sum": lambda lib, a: a.sum(),
    "mean": lambda lib, a: a.mean(),
    "prod": lambda lib, a: a.prod(),
    "amax": lambda lib, a: a.amax(),
    "max": lambda lib, a: a.max(),
    "argmax": lambda lib, a: a.argmax(),
    "cumsum": lambda lib, a: a.reshape(-1).cumsum(0),
    "std": lambda lib, a: a.reshape(-1).std(),
    "neg": lambda lib, a: -a,
    "abs": lambda lib, a: a.abs(),
    "exp": lambda lib, a: a.exp(),
    "sqrt": lambda lib, a: a.sqrt(),
    "sigmoid": lambda lib, a: a.sigmoid(),
    "softmax": lambda lib, a: a.reshape(-1).softmax(0),
    "mean_dtype64": lambda lib, a: a.mean(dtype=lib.float64),
    "sum_dtype": lambda lib, a: a.sum(dtype=lib.float32),
    "floor": lambda lib, a: a.floor(),
    "invert": lambda lib, a: ~a,
    "float": lambda lib, a: a.float(),
    "zeros_like": lambda lib, a: lib.zeros_like(a),
    "full_like": lambda lib, a: lib.full_like(a, 2),
}


CREATION = {
    "tensor_float": lambda lib: lib.tensor(2.5),
    "tensor_int": lambda lib: lib.tensor(2),
    "tensor_bool": lambda lib: lib.tensor(True),
    "tensor_mixed_list": lambda lib: lib.tensor([1, 2.5]),
    "tensor_bool_int_list": lambda lib: lib.tensor([True, 2]),
    "tensor_of_int_tensor_and_float": lambda lib: lib.tensor([lib.tensor(1), 2.5]),
    "tensor_of_float64_and_int": lambda lib: lib.tensor([lib.tensor(1.0, dtype=lib.float64), 2]),
    "tensor_of_int8_and_int": lambda lib: lib.tensor([lib.tensor(1, dtype=lib.int8), 2]),
    "tensor_numpy_float64": lambda lib: lib.tensor(np.zeros(2)),
    "tensor_numpy_int32": lambda lib: lib.tensor(np.zeros(2, dtype=np.int32)),
    "full_int": lambda lib: lib.full((2,), 3),
    "full_float": lambda lib: lib.full((2,), 3.0),
    "full_bool": lambda lib: lib.full((2,), True),
    "arange_int": lambda lib: lib.arange(3),
    "arange_float": lambda lib: lib.arange(3.0),
    "arange_float_step": lambda lib: lib.arange(0, 3, 0.5),
    "linspace": lambda lib: lib.linspace(0, 1, 3),
    "zeros": lambda lib: lib.zeros(2),
    "eye": lambda lib: lib.eye(2),
    "randint": lambda lib: lib.randint(0, 3, (2,)),
    "ones_dtype_int": lambda lib: lib.ones(2, dtype=lib.int32),
    "scalar_tensor_sum": lambda lib: lib.tensor([1, 2]).sum() + 0.5,
}


# --- refusals: bad inputs PyTorch refuses ------------------------------------------------------
def _linear(lib, dtype):
    layer = lib.nn.Linear(2, 1)
    return layer(lib.ones(1, 2, dtype=dtype))


def _set(lib, target, index, value):
    target[index] = value


REFUSALS = {
    "linear_int_input": lambda lib: _linear(lib, lib.int64),
    "linear_float64_input": lambda lib: _linear(lib, lib.float64),
    "matmul_int_float": lambda lib: lib.tensor([[1, 2]]) @ lib.tensor([[1.0], [2.0]]),
    "matmul_float32_float64": lambda lib: lib.ones(1, 2) @ lib.ones(2, 1, dtype=lib.float64),
    "mm_int_float": lambda lib: lib.mm(lib.tensor([[1, 2]]), lib.ones(2, 1)),
    "floordiv_int_by_zero": lambda lib: lib.tensor([1, 2]) // lib.tensor([0, 1]),
    "remainder_int_by_zero": lambda lib: lib.tensor([1, 2]) % lib.tensor([0, 1]),
    "floordiv_int_by_python_zero": lambda lib: lib.tensor([1, 2]) // 0,
    "remainder_int_by_python_zero": lambda lib: lib.tensor([1, 2]) % 0,
    "floordiv_float_by_zero": lambda lib: lib.tensor([1.0]) // 0,
    "truediv_int_by_zero": lambda lib: lib.tensor([1]) / 0,
    "arange_wrong_sign": lambda lib: lib.arange(10, 0),
    "arange_wrong_sign_step": lambda lib: lib.arange(0, 10, -1),
    "arange_zero_step": lambda lib: lib.arange(0, 10, 0),
    "arange_equal_ends": lambda lib: lib.arange(3, 3),
    "negative_slice_step": lambda lib: lib.arange(4.0)[::-1],
    "zero_slice_step": lambda lib: lib.arange(4.0)[::0],
    "bce_target_above_one": lambda lib: lib.nn.functional.binary_cross_entropy(
        lib.tensor([0.5]), lib.tensor([2.0])
    ),
    "bce_target_below_zero": lambda lib: lib.nn.functional.binary_cross_entropy(
        lib.tensor([0.5]), lib.tensor([-0.5])
    ),
    "bce_input_above_one": lambda lib: lib.nn.functional.binary_cross_entropy(
        lib.tensor([1.5]), lib.tensor([1.0])
    ),
    "zeros_of_true": lambda lib: lib.zeros(True),
    "zeros_of_float": lambda lib: lib.zeros(2.0),
    "ones_negative": lambda lib: lib.ones(-1),
    "copy_wrong_shape": lambda lib: lib.zeros(3).copy_(lib.ones(2)),
    "write_into_expanded": lambda lib: _set(lib, lib.zeros(1, 3).expand(2, 3), 0, 1.0),
    "mask_assign_wrong_count": lambda lib: _set(
        lib, lib.zeros(3), lib.tensor([True, False, True]), lib.ones(3)
    ),
    "size_out_of_range": lambda lib: lib.zeros(2, 3).size(3),
    "size_negative_out_of_range": lambda lib: lib.zeros(2, 3).size(-3),
    "slice_assign_wrong_shape": lambda lib: _set(lib, lib.zeros(4), slice(0, 2), lib.ones(3)),
    "index_out_of_range": lambda lib: lib.zeros(3)[3],
    "index_float": lambda lib: lib.zeros(3)[1.0],
    "index_float_tensor": lambda lib: lib.zeros(3)[lib.tensor([1.0])],
    "reshape_wrong_size": lambda lib: lib.zeros(6).reshape(4, 2),
    "view_of_transpose": lambda lib: lib.zeros(2, 3).t().view(6),
    "add_wrong_shapes": lambda lib: lib.zeros(2) + lib.zeros(3),
    "cat_wrong_shapes": lambda lib: lib.cat([lib.zeros(2, 2), lib.zeros(2, 3)]),
    "cat_empty_list": lambda lib: lib.cat([]),
    "stack_wrong_shapes": lambda lib: lib.stack([lib.zeros(2), lib.zeros(3)]),
    "sum_dim_out_of_range": lambda lib: lib.zeros(2).sum(1),
    "softmax_dim_out_of_range": lambda lib: lib.zeros(2).softmax(1),
    "requires_grad_int": lambda lib: lib.tensor([1], requires_grad=True),
    "item_of_many": lambda lib: lib.zeros(2).item(),
    "bool_of_many": lambda lib: bool(lib.zeros(2)),
    "len_of_0d": lambda lib: len(lib.tensor(1.0)),
    "backward_non_scalar": lambda lib: lib.ones(2, requires_grad=True).mul(2).backward(),
    "backward_no_grad": lambda lib: lib.ones(2).sum().backward(),
    "leaf_in_place": lambda lib: lib.ones(2, requires_grad=True).add_(1),
    "float_into_int_in_place": lambda lib: lib.tensor([1, 2]).add_(0.5),
    "int_pow_negative": lambda lib: lib.tensor([2]) ** -1,
    "bool_sub": lambda lib: lib.tensor([True]) - lib.tensor([False]),
    "bool_neg": lambda lib: -lib.tensor([True]),
    "mean_of_int": lambda lib: lib.tensor([1, 2]).mean(),
    "where_int_condition": lambda lib: lib.where(lib.tensor([1, 0]), lib.ones(2), lib.zeros(2)),
    "masked_fill_float_mask": lambda lib: lib.zeros(2).masked_fill(lib.tensor([1.0, 0.0]), 1.0),
    "embedding_float_index": lambda lib: lib.nn.Embedding(3, 2)(lib.tensor([1.0])),
    "embedding_out_of_range": lambda lib: lib.nn.Embedding(3, 2)(lib.tensor([3])),
    "cross_entropy_float_target_wrong_shape": lambda lib: lib.nn.functional.cross_entropy(
        lib.zeros(2, 3), lib.zeros(2)
    ),
    "cross_entropy_target_out_of_range": lambda lib: lib.nn.functional.cross_entropy(
        lib.zeros(2, 3), lib.tensor([0, 3])
    ),
    "nll_int_input": lambda lib: lib.nn.functional.nll_loss(
        lib.zeros(2, 3, dtype=lib.int64), lib.tensor([0, 1])
    ),
    "mse_wrong_shapes_ok_broadcast": lambda lib: lib.nn.functional.mse_loss(
        lib.zeros(2, 1), lib.zeros(2, 1)
    ),
    "grad_assign_wrong_shape": lambda lib: setattr(
        lib.zeros(2, requires_grad=True), "grad", lib.zeros(3)
    ),
    "grad_assign_wrong_dtype": lambda lib: setattr(
        lib.zeros(2, requires_grad=True), "grad", lib.zeros(2, dtype=lib.float64)
    ),
    "grad_assign_list": lambda lib: setattr(lib.zeros(2, requires_grad=True), "grad", [1.0, 2]),
    "expand_wrong": lambda lib: lib.zeros(2, 3).expand(3, 3),
    "permute_wrong": lambda lib: lib.zeros(2, 3).permute(0),
    "transpose_out_of_range": lambda lib: lib.zeros(2, 3).transpose(0, 2),
    "squeeze_out_of_range": lambda lib: lib.zeros(2, 3).squeeze(2),
    "unsqueeze_out_of_range": lambda lib: lib.zeros(2, 3).unsqueeze(4),
    "split_zero": lambda lib: lib.zeros(4).split(0),
    "chunk_zero": lambda lib: lib.zeros(4).chunk(0),
    "randint_empty_range": lambda lib: lib.randint(3, 3, (2,)),
    "multinomial_negative": lambda lib: lib.multinomial(lib.tensor([-1.0, 1.0]), 1),
    "eye_negative": lambda lib: lib.eye(-1),
    "full_wrong_fill": lambda lib: lib.full((2,), "a"),
    "tensor_ragged": lambda lib: lib.tensor([[1, 2], [3]]),
    "tensor_string": lambda lib: lib.tensor("a"),
    "gather_wrong_dtype": lambda lib: lib.zeros(2).gather(0, lib.tensor([0.0])),
    "one_hot_negative": lambda lib: lib.nn.functional.one_hot(lib.tensor([-1]), 3),
    "dropout_p_above_one": lambda lib: lib.nn.functional.dropout(lib.zeros(2), p=1.5),
    "conv2d_wrong_channels": lambda lib: lib.nn.Conv2d(3, 2, 1)(lib.zeros(1, 2, 4, 4)),
    "layer_norm_wrong_shape": lambda lib: lib.nn.LayerNorm(3)(lib.zeros(2, 4)),
}
