# ruff: noqa: E501 - one case per line reads best in these tables
"""More of the adversarial probe against PyTorch 2.13 (the first part: test_semantics_probe.py):
views and copies of every movement op, in place through views inside graphs, result dtypes of
integer division, bitwise ops, shifts, comparisons with Python numbers, out-of-range Python ints
and mixed 0-d tensors, and refusals (wrong dtypes into nn layers, indices out of range, bad
dims). Each case runs the same code on both libraries; results (values, dtypes, shapes,
gradients, exception classes) must agree: 0 silent differences."""

import itertools

import pytest

import tinygrad_norm as tg
from tinygrad_norm.testing.probe import agrees, outcome

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

CASES = {}  # "area:name" -> fn(lib) -> something comparable


# --- views: does writing into the result reach the input, and in place inside a graph -----------
MOVES = {
    "expand": lambda x: x[:, :1].expand(2, 3, 4),
    "as_strided": lambda x: x.as_strided((3, 2), (4, 1), 1),
    "narrow": lambda x: x.narrow(2, 1, 2),
    "narrow_negative_dim": lambda x: x.narrow(-1, 0, 3),
    "movedim": lambda x: x.movedim(0, -1),
    "movedim_pairs": lambda x: x.movedim((0, 1), (2, 0)),
    "moveaxis": lambda x: x.moveaxis(2, 0),
    "swapaxes": lambda x: x.swapaxes(0, 2),
    "swapdims": lambda x: x.swapdims(1, 2),
    "unflatten": lambda x: x.unflatten(2, (2, 2)),
    "unflatten_minus_one": lambda x: x.unflatten(-1, (-1, 2)),
    "view_as": lambda x: x.view_as(x.reshape(6, 4)),
    "reshape_contiguous": lambda x: x.reshape(4, 6),
    "reshape_of_permute": lambda x: x.permute(2, 1, 0).reshape(4, 6),
    "flatten_inner": lambda x: x.flatten(1),
    "flatten_of_transpose": lambda x: x.transpose(1, 2).flatten(1),
    "squeeze_dim": lambda x: x[:1].squeeze(0),
    "squeeze_dims_tuple": lambda x: x[:1, :1].squeeze((0, 1)),
    "unsqueeze_negative": lambda x: x.unsqueeze(-1),
    "permute_negative": lambda x: x.permute(-1, 0, 1),
    "mT": lambda x: x.mT,
    "mH": lambda x: x.mH,
    "split_piece": lambda x: x.split([1, 3], dim=2)[1],
    "chunk_piece": lambda x: x.chunk(2, dim=2)[1],
    "tensor_split_piece": lambda x: x.tensor_split(2, dim=1)[1],
    "unbind_piece": lambda x: x.unbind(2)[3],
    "select_negative": lambda x: x.select(-1, -1),
    "ellipsis_int": lambda x: x[..., 2],
    "none_slice": lambda x: x[None, :, 1:],
    "step_slice": lambda x: x[:, ::2, 1::2],
    "diagonal_3d": lambda x: x.diagonal(0, 1, 2),
    "diagonal_negative_offset": lambda x: x.diagonal(-1, 1, 2),
    "unfold": lambda x: x.unfold(2, 2, 2),
    "detach": lambda x: x.detach(),
    "contiguous_of_transpose": lambda x: x.transpose(0, 1).contiguous(),
    "view_dtype_same": lambda x: x.view(x.dtype),
    "reshape_as": lambda x: x.reshape_as(x.reshape(4, 6)),
    "repeat_ones": lambda x: x.repeat(1, 1, 1),
    "expand_as_same": lambda x: x.expand_as(x),
    "index_list": lambda x: x[:, [0, 2]],
    "flip_last": lambda x: x.flip(-1),
    "roll": lambda x: x.roll(1, 2),
    "t_of_row": lambda x: x[0].t(),
    "T_of_2d": lambda x: x[0].T,
}


def _write_through(move):
    """Double the result in place: does the input see it?"""

    def run(lib):
        x = lib.arange(24.0).reshape(2, 3, 4)
        out = move(x)
        out.mul_(2)
        return x, out

    return run


def _in_graph(move):
    """Multiply the result in place inside a graph: PyTorch's values and gradient (or error)."""

    def run(lib):
        w = (lib.arange(24.0).reshape(2, 3, 4) / 10).requires_grad_()
        y = w * 1.5
        move(y).mul_(3)
        (y * lib.arange(24.0).reshape(2, 3, 4)).sum().backward()
        return y, w.grad

    return run


for name, move in MOVES.items():
    CASES[f"views:{name}.write"] = _write_through(move)
    if name != "view_dtype_same":  # PyTorch: its in-place change skips the base's gradient
        CASES[f"views:{name}.graph"] = _in_graph(move)


def _stale_save(lib):
    """A value saved for backward (exp's output through a view) changed in place afterwards."""
    w = lib.ones(2, 3, requires_grad=True)
    y = w * 1
    z = y[0].exp()
    z.mul_(2)
    return z.sum().backward()


def _view_of_view(lib):
    w = lib.arange(12.0).reshape(3, 4).requires_grad_()
    y = w * 2
    y.t()[1:].diagonal().add_(100)
    (y * y).sum().backward()
    return y, w.grad


def _base_changed_after_view(lib):
    w = lib.arange(6.0).reshape(2, 3).requires_grad_()
    y = w * 1
    v = y[:, 1]
    y.mul_(2)
    (v * 3).sum().backward()
    return v, w.grad


def _two_views_overlap(lib):
    w = lib.arange(6.0).requires_grad_()
    y = w * 1
    y[1:4].mul_(2)
    y[2:5].add_(y[0:3].detach())
    y.sum().backward()
    return y, w.grad


def _no_grad_leaf_view(lib):
    x = lib.ones(2, requires_grad=True)
    with lib.no_grad():
        x[0:1].mul_(2)
    return x


OTHER_VIEWS = {
    "saved_output_changed": _stale_save,
    "view_of_view_in_graph": _view_of_view,
    "base_changed_after_view": _base_changed_after_view,
    "overlapping_views": _two_views_overlap,
    "expand_then_clone_write": lambda lib: [e := lib.ones(1, 3).expand(2, 3).clone(), e.mul_(2)][0],
    "as_strided_overlap_read": lambda lib: lib.arange(6.0).as_strided((2, 3), (1, 1)) * 2,
    "as_strided_out_of_bounds": lambda lib: lib.arange(6.0).as_strided((2, 3), (3, 2)),
    "as_strided_offset_write": lambda lib: [x := lib.arange(6.0), x.as_strided((2,), (2,), 1).mul_(10), x][-1],
    "data_shares": lambda lib: [x := lib.ones(2, requires_grad=True), x.data.mul_(3), x][-1],
    "leaf_view_in_place": lambda lib: lib.ones(2, 3, requires_grad=True)[0].mul_(2),
    "no_grad_leaf_view_in_place": _no_grad_leaf_view,
}  # fmt: skip
for name, fn in OTHER_VIEWS.items():
    CASES[f"views:{name}"] = fn


# --- result dtypes (and values) -------------------------------------------------------------------
def _t(values, dtype):
    return lambda lib: lib.tensor(values, dtype=getattr(lib, dtype))


def _s(value, dtype):
    return lambda lib: lib.tensor(value, dtype=getattr(lib, dtype))


INTS = {
    "u8": _t([7, 200, 3], "uint8"),
    "i8": _t([-7, 100, 3], "int8"),
    "i16": _t([-7, 300, 3], "int16"),
    "i32": _t([-7, 5, -3], "int32"),
    "i64": _t([-7, 5, 3], "int64"),
    "i64_0d": _s(-2, "int64"),
    "u8_0d": _s(3, "uint8"),
    "b": _t([True, False, True], "bool"),
    "py_neg": lambda lib: -2,
    "py_true": lambda lib: True,
}
INT_OPS = {
    "floordiv": lambda a, b: a // b,
    "remainder": lambda a, b: a % b,
    "and": lambda a, b: a & b,
    "xor": lambda a, b: a ^ b,
    "lshift": lambda a, b: a << b,
}
for (an, a), (bn, b), (on, op) in itertools.product(INTS.items(), INTS.items(), INT_OPS.items()):
    if an.startswith("py") or an == bn:
        continue
    if (an, bn) not in {
        ("u8", "i8"), ("i8", "u8_0d"), ("u8", "i64_0d"), ("u8", "py_neg"), ("i32", "i64"),
        ("b", "py_true"), ("b", "i8"), ("i16", "i8"), ("i64_0d", "u8"),
    }:  # fmt: skip
        continue
    CASES[f"dtypes:{an}.{on}.{bn}"] = lambda lib, a=a, b=b, op=op: op(a(lib), b(lib))

DTYPES = {
    "shift_by_width": lambda lib: lib.tensor([1], dtype=lib.int8) << 8,
    "shift_by_negative": lambda lib: lib.tensor([16]) >> -1,
    "rshift_negative_value": lambda lib: lib.tensor([-16], dtype=lib.int32) >> 2,
    "lshift_overflow_int8": lambda lib: lib.tensor([100], dtype=lib.int8) << 1,
    "or_bool_int": lambda lib: lib.tensor([True, False]) | 2,
    "and_float_refused": lambda lib: lib.tensor([1.0]) & 1,
    "invert_int8": lambda lib: ~lib.tensor([0, -1, 5], dtype=lib.int8),
    "invert_float_refused": lambda lib: ~lib.tensor([1.0]),
    "bitwise_not_uint8": lambda lib: lib.bitwise_not(lib.tensor([0, 255], dtype=lib.uint8)),
    "xor_bool_bool": lambda lib: lib.tensor([True, False]) ^ lib.tensor([True, True]),
    "u8_lt_negative": lambda lib: lib.tensor([0, 200], dtype=lib.uint8) < -1,
    "f16_eq_big": lambda lib: lib.tensor([65504.0], dtype=lib.float16) == 65520.0,
    "bool_eq_2": lambda lib: lib.tensor([True]) == 2,
    "bool_lt_half": lambda lib: lib.tensor([True, False]) < 0.5,
    "int_eq_float_fraction": lambda lib: lib.tensor([1, 2]) == 1.5,
    "i64_eq_big_float": lambda lib: lib.tensor([2**53 + 1]) == float(2**53 + 1),
    "u8_minus_py_neg": lambda lib: lib.tensor([1], dtype=lib.uint8) - (-3),
    "u8_fill_256": lambda lib: lib.zeros(2, dtype=lib.uint8).fill_(256),
    "i8_full_200": lambda lib: lib.full((2,), 200, dtype=lib.int8),
    "u8_setitem_300": lambda lib: [x := lib.zeros(2, dtype=lib.uint8), x.__setitem__(0, 300), x][-1],
    "tensor_u8_of_300": lambda lib: lib.tensor([300], dtype=lib.uint8),
    "tensor_i8_of_minus_200": lambda lib: lib.tensor([-200], dtype=lib.int8),
    "f64_0d_plus_i32": lambda lib: lib.tensor(1.5, dtype=lib.float64) + lib.tensor([1, 2], dtype=lib.int32),
    "i64_0d_plus_u8": lambda lib: lib.tensor(300) + lib.tensor([1], dtype=lib.uint8),
    "f16_0d_plus_i64": lambda lib: lib.tensor(1.5, dtype=lib.float16) + lib.tensor([1, 2]),
    "two_0d_mixed": lambda lib: lib.tensor(1, dtype=lib.int8) + lib.tensor(2.5, dtype=lib.float64),
    "bool_0d_plus_i8": lambda lib: lib.tensor(True) + lib.tensor([1], dtype=lib.int8),
    "f32_0d_times_f16": lambda lib: lib.tensor(3.0) * lib.tensor([1.0], dtype=lib.float16),
    "u8_0d_div_i8": lambda lib: lib.tensor(200, dtype=lib.uint8) / lib.tensor([2], dtype=lib.int8),
    "where_0d_branches": lambda lib: lib.where(lib.tensor([True, False]), lib.tensor(1, dtype=lib.int8), lib.tensor(2.5, dtype=lib.float64)),
    "where_number_branches": lambda lib: lib.where(lib.tensor([True, False]), 1, 2.5),
    "i32_floordiv_negative_py": lambda lib: lib.tensor([7, -7], dtype=lib.int32) // -2,
    "i32_remainder_negative_py": lambda lib: lib.tensor([7, -7], dtype=lib.int32) % -3,
    "f32_remainder_negative": lambda lib: lib.tensor([5.5, -5.5]) % -2,
    "i64_div_floor_mode": lambda lib: lib.tensor([-7, 7]).div(2, rounding_mode="floor"),
    "i64_div_trunc_mode": lambda lib: lib.tensor([-7, 7]).div(2, rounding_mode="trunc"),
    "i64_div_trunc_by_zero": lambda lib: lib.tensor([1]).div(0, rounding_mode="trunc"),
    "u8_floordiv_py_neg": lambda lib: lib.tensor([7], dtype=lib.uint8) // -2,
    "i16_remainder_0d_i64": lambda lib: lib.tensor([-7, 9], dtype=lib.int16) % lib.tensor(4),
    "sum_u8_dtype": lambda lib: lib.tensor([200, 100], dtype=lib.uint8).sum(),
    "prod_i8": lambda lib: lib.tensor([100, 3], dtype=lib.int8).prod(),
    "cumprod_bool": lambda lib: lib.tensor([True, True]).cumprod(0),
    "max_u8_0d_with_neg": lambda lib: lib.maximum(lib.tensor([3], dtype=lib.uint8), lib.tensor(-1)),
    "eq_u8_i8_0d": lambda lib: lib.tensor([255], dtype=lib.uint8) == lib.tensor(-1, dtype=lib.int8),
    "sign_bool": lambda lib: lib.tensor([True, False]).sign(),
    "round_int": lambda lib: lib.tensor([3]).round(),
    "ceil_bool_refused": lambda lib: lib.tensor([True]).ceil(),
    "trunc_bool_refused": lambda lib: lib.tensor([True]).trunc(),
    "round_bool_refused": lambda lib: lib.tensor([True]).round(),
    "frac_bool_refused": lambda lib: lib.tensor([True]).frac(),
    "argmin_bool_refused": lambda lib: lib.tensor([True, False]).argmin(),
    "dot_bool_refused": lambda lib: lib.tensor([True]).dot(lib.tensor([True])),
    "mv_bool_refused": lambda lib: lib.mv(lib.tensor([[True]]), lib.tensor([True])),
    "bool_pow_false": lambda lib: lib.tensor([True, False]) ** False,
    "bool_pow_int": lambda lib: lib.tensor([True, False]) ** 2,
    "int_pow_bool_tensor": lambda lib: 2 ** lib.tensor([True, False]),
    "clamp_bool_int_bounds": lambda lib: lib.tensor([True, False]).clamp(0, 1),
    "clamp_max_bool_refused": lambda lib: lib.tensor([True, False]).clamp(max=True),
    "clamp_bool_tensor_max": lambda lib: lib.tensor([True, False]).clamp(max=lib.tensor(False)),
}  # fmt: skip
for name, fn in DTYPES.items():
    CASES[f"dtypes:{name}"] = fn


# --- refusals: wrong dtypes into nn layers, indices out of range, bad dims ----------------------
def _layer(make, x):
    return lambda lib: make(lib)(x(lib))


REFUSALS = {
    "conv2d_int_input": _layer(lambda lib: lib.nn.Conv2d(1, 1, 1), lambda lib: lib.ones(1, 1, 2, 2, dtype=lib.int64)),
    "conv2d_float64_input": _layer(lambda lib: lib.nn.Conv2d(1, 1, 1), lambda lib: lib.ones(1, 1, 2, 2, dtype=lib.float64)),
    "conv1d_3d_weight_on_2d": _layer(lambda lib: lib.nn.Conv1d(2, 1, 1), lambda lib: lib.ones(3, 2, 2, 2)),
    "linear_bool_input": _layer(lambda lib: lib.nn.Linear(2, 1), lambda lib: lib.ones(1, 2, dtype=lib.bool)),
    "linear_wrong_features": _layer(lambda lib: lib.nn.Linear(3, 1), lambda lib: lib.ones(1, 2)),
    "embedding_int32_ok": lambda lib: lib.nn.functional.embedding(lib.tensor([1, 2], dtype=lib.int32), lib.arange(6.0).reshape(3, 2)),
    "embedding_uint8_index": _layer(lambda lib: lib.nn.Embedding(3, 2), lambda lib: lib.tensor([1], dtype=lib.uint8)),
    "embedding_negative_index": _layer(lambda lib: lib.nn.Embedding(3, 2), lambda lib: lib.tensor([-1])),
    "embedding_bool_index": _layer(lambda lib: lib.nn.Embedding(3, 2), lambda lib: lib.tensor([True])),
    "layer_norm_int_input": _layer(lambda lib: lib.nn.LayerNorm(2), lambda lib: lib.ones(1, 2, dtype=lib.int64)),
    "batch_norm_int_input": _layer(lambda lib: lib.nn.BatchNorm1d(2), lambda lib: lib.ones(3, 2, dtype=lib.int64)),
    "batch_norm_wrong_channels": _layer(lambda lib: lib.nn.BatchNorm1d(3), lambda lib: lib.ones(4, 2)),
    "lstm_float64_input": _layer(lambda lib: lib.nn.LSTM(2, 3), lambda lib: lib.ones(4, 1, 2, dtype=lib.float64)),
    "lstm_wrong_features": _layer(lambda lib: lib.nn.LSTM(2, 3), lambda lib: lib.ones(4, 1, 5)),
    "max_pool_int_input": lambda lib: lib.nn.functional.max_pool2d(lib.ones(1, 1, 2, 2, dtype=lib.int64), 2),
    "softmax_int_input": lambda lib: lib.ones(3, dtype=lib.int64).softmax(0),
    "log_softmax_bool": lambda lib: lib.tensor([True]).log_softmax(0),
    "dropout_int_input": lambda lib: lib.nn.functional.dropout(lib.ones(3, dtype=lib.int64), 0.5),
    "cross_entropy_int32_target": lambda lib: lib.nn.functional.cross_entropy(lib.zeros(2, 3), lib.tensor([0, 1], dtype=lib.int32)),
    "cross_entropy_int_input": lambda lib: lib.nn.functional.cross_entropy(lib.zeros(2, 3, dtype=lib.int64), lib.tensor([0, 1])),
    "nll_float_target": lambda lib: lib.nn.functional.nll_loss(lib.zeros(2, 3), lib.tensor([0.0, 1.0])),
    "nll_target_negative": lambda lib: lib.nn.functional.nll_loss(lib.zeros(2, 3), lib.tensor([-1, 1])),
    "mse_int_inputs": lambda lib: lib.nn.functional.mse_loss(lib.tensor([1, 2]), lib.tensor([1, 3])),
    "mse_float_int": lambda lib: lib.nn.functional.mse_loss(lib.tensor([1.0, 2.0]), lib.tensor([1, 3])),
    "l1_float64_float32": lambda lib: lib.nn.functional.l1_loss(lib.ones(2, dtype=lib.float64), lib.ones(2)),
    "bce_logits_wrong_shape": lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(lib.zeros(2), lib.zeros(3)),
    "gather_out_of_range": lambda lib: lib.arange(3.0).gather(0, lib.tensor([3])),
    "gather_negative": lambda lib: lib.arange(3.0).gather(0, lib.tensor([-1])),
    "index_select_out_of_range": lambda lib: lib.arange(3.0).index_select(0, lib.tensor([5])),
    "index_select_float_index": lambda lib: lib.arange(3.0).index_select(0, lib.tensor([1.0])),
    "scatter_out_of_range": lambda lib: lib.zeros(3).scatter(0, lib.tensor([4]), lib.ones(1)),
    "index_tensor_out_of_range": lambda lib: lib.arange(3.0)[lib.tensor([3])],
    "index_negative_out_of_range": lambda lib: lib.arange(3.0)[-4],
    "index_list_out_of_range": lambda lib: lib.arange(3.0)[[0, 5]],
    "setitem_out_of_range": lambda lib: lib.zeros(3).__setitem__(3, 1.0),
    "narrow_too_long": lambda lib: lib.arange(3.0).narrow(0, 2, 2),
    "narrow_negative_length": lambda lib: lib.arange(3.0).narrow(0, 0, -1),
    "select_out_of_range": lambda lib: lib.zeros(2, 3).select(1, 3),
    "index_fill_out_of_range": lambda lib: lib.zeros(3).index_fill_(0, lib.tensor([3]), 1.0),
    "take_out_of_range": lambda lib: lib.take(lib.arange(3.0), lib.tensor([3])),
    "one_hot_too_small": lambda lib: lib.nn.functional.one_hot(lib.tensor([3]), 3),
    "one_hot_float": lambda lib: lib.nn.functional.one_hot(lib.tensor([1.0]), 3),
    "sum_dim_repeated": lambda lib: lib.zeros(2, 3).sum((0, 0)),
    "mean_dim_out_of_range": lambda lib: lib.zeros(2, 3).mean(-3),
    "max_dim_out_of_range": lambda lib: lib.zeros(2, 3).max(2),
    "argmax_dim_out_of_range": lambda lib: lib.zeros(2, 3).argmax(5),
    "cat_dim_out_of_range": lambda lib: lib.cat([lib.zeros(2), lib.zeros(2)], 1),
    "stack_dim_out_of_range": lambda lib: lib.stack([lib.zeros(2), lib.zeros(2)], 3),
    "movedim_out_of_range": lambda lib: lib.zeros(2, 3).movedim(0, 2),
    "movedim_repeated": lambda lib: lib.zeros(2, 3, 4).movedim((0, 0), (1, 2)),
    "unflatten_wrong_sizes": lambda lib: lib.zeros(2, 6).unflatten(1, (4, 2)),
    "flatten_start_after_end": lambda lib: lib.zeros(2, 3, 4).flatten(2, 1),
    "squeeze_tuple_out_of_range": lambda lib: lib.zeros(1, 3).squeeze((0, 2)),
    "topk_dim_out_of_range": lambda lib: lib.zeros(3).topk(1, dim=1),
    "softmax_no_dim_3d_ok": lambda lib: lib.nn.functional.softmax(lib.zeros(2, 3, 4), dim=-1),
    "var_dim_out_of_range": lambda lib: lib.zeros(2, 3).var(2),
    "diagonal_dim_out_of_range": lambda lib: lib.zeros(2, 3).diagonal(0, 0, 2),
    "split_sizes_wrong_sum": lambda lib: lib.zeros(5).split([2, 2]),
    "chunk_dim_out_of_range": lambda lib: lib.zeros(4).chunk(2, dim=1),
    "roll_dim_out_of_range": lambda lib: lib.zeros(4).roll(1, 1),
    "flip_dim_out_of_range": lambda lib: lib.zeros(4).flip(1),
    "tril_1d": lambda lib: lib.zeros(4).tril(),
    "norm_dim_out_of_range": lambda lib: lib.zeros(2, 3).norm(dim=2),
    "randn_int_dtype": lambda lib: lib.randn(2, dtype=lib.int64),
    "rand_bool_dtype": lambda lib: lib.rand(2, dtype=lib.bool),
    "arange_bool_dtype": lambda lib: lib.arange(3, dtype=lib.bool),
    "normal_int_dtype": lambda lib: lib.normal(0.0, 1.0, (2,), dtype=lib.int64),
    "linspace_int_dtype": lambda lib: lib.linspace(0, 1, 3, dtype=lib.int64),
    "cat_empty": lambda lib: lib.cat([]),
    "stack_empty": lambda lib: lib.stack([]),
    "hstack_empty": lambda lib: lib.hstack([]),
    "vstack_empty": lambda lib: lib.vstack([]),
    "atleast_1d_number": lambda lib: lib.atleast_1d(2),
    "atleast_2d_many": lambda lib: lib.atleast_2d(lib.tensor(1.0), lib.ones(3)),
    "atleast_3d_list": lambda lib: lib.atleast_3d([lib.tensor(1.0), lib.ones(3), lib.ones(2, 3), lib.ones(1, 2, 3)]),
    "unique_consecutive_dim0": lambda lib: lib.unique_consecutive(lib.tensor([[1, 2], [1, 2], [3, 4], [1, 2]]), dim=0, return_inverse=True, return_counts=True),
    "unique_consecutive_dim1": lambda lib: lib.tensor([[1, 1, 2], [3, 3, 4]]).unique_consecutive(dim=1, return_inverse=True, return_counts=True),
    "unique_consecutive_dim_negative": lambda lib: lib.tensor([[1.0, 1.0], [2.0, 2.0]]).unique_consecutive(dim=-1),
    "unique_consecutive_dim_out_of_range": lambda lib: lib.tensor([1, 1]).unique_consecutive(dim=1),
    "unique_consecutive_empty_rows": lambda lib: lib.zeros(0, 3).unique_consecutive(dim=0, return_inverse=True, return_counts=True),
    "fill_diagonal_wrap": lambda lib: lib.zeros(7, 3).fill_diagonal_(5.0, wrap=True),
    "fill_diagonal_wrap_narrow": lambda lib: lib.zeros(7, 2).fill_diagonal_(5.0, wrap=True),
    "fill_diagonal_wrap_wide": lambda lib: lib.zeros(3, 7).fill_diagonal_(5.0, wrap=True),
    "fill_diagonal_wrap_square": lambda lib: lib.zeros(3, 3).fill_diagonal_(5.0, wrap=True),
    "fill_diagonal_wrap_cube": lambda lib: lib.zeros(2, 2, 2).fill_diagonal_(5.0, wrap=True),
    "fill_diagonal_no_wrap_tall": lambda lib: lib.zeros(5, 2).fill_diagonal_(5.0),
}  # fmt: skip
for name, fn in REFUSALS.items():
    CASES[f"refusals:{name}"] = fn


# --- deliberate differences (README, "Numbers beyond an integer dtype" and "Integer losses"):
# PyTorch wraps a Python int around into a small integer dtype, and refuses an integer BCE
# target; here the first is an error naming the range, the second counts as float. Checked so
# that they stay what README says (never silent), not compared.
DELIBERATE = {
    "i8_floordiv_300": (lambda lib: lib.tensor([-7, 100], dtype=lib.int8) // 300, RuntimeError),
    "i8_and_300": (lambda lib: lib.tensor([-7, 100], dtype=lib.int8) & 300, RuntimeError),
    "i8_xor_300": (lambda lib: lib.tensor([-7, 100], dtype=lib.int8) ^ 300, RuntimeError),
    "i8_lshift_300": (lambda lib: lib.tensor([-7, 100], dtype=lib.int8) << 300, RuntimeError),
    "u8_eq_256": (lambda lib: lib.tensor([0], dtype=lib.uint8) == 256, RuntimeError),
    "i8_gt_1000": (lambda lib: lib.tensor([5], dtype=lib.int8) > 1000, RuntimeError),
    "u8_plus_300": (lambda lib: lib.tensor([1], dtype=lib.uint8) + 300, RuntimeError),
    "i8_times_200": (lambda lib: lib.tensor([1], dtype=lib.int8) * 200, RuntimeError),
    "bce_int_target": (lambda lib: lib.nn.functional.binary_cross_entropy(lib.tensor([0.5]), lib.tensor([1])), None),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(DELIBERATE))
def test_deliberate_differences_stay_as_readme_says(name):
    fn, error = DELIBERATE[name]
    assert outcome(fn, torch)[0] != "error" if error else outcome(fn, torch)[0] == "error"
    if error is None:
        assert outcome(fn, tg)[0] == "tensor"
    else:
        with pytest.raises(error, match="overflow"):
            fn(tg)


@pytest.mark.parametrize("name", sorted(CASES))
def test_probe_case_matches_pytorch(name):
    ours, theirs = outcome(CASES[name], tg), outcome(CASES[name], torch)
    assert agrees(ours, theirs), f"{name}:\n here    {ours}\n PyTorch {theirs}"


def test_the_probe_is_large_enough():
    areas = {}
    for name in CASES:
        areas[name.split(":")[0]] = areas.get(name.split(":")[0], 0) + 1
    assert len(CASES) >= 250 and min(areas.values()) >= 60, areas
