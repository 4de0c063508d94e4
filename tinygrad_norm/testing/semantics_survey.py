"""Refusal cases from a survey of tinygrad's `test/test_ops.py`: every bad input it checks with
`helper_test_exception` or `assertRaises`, written with PyTorch's API. The refusals table
(`semantics_tables.py`) records PyTorch's exception class for each (or "ok" where PyTorch accepts
the input and tinygrad does not), and tinygrad_norm must raise the same class.

Each case is `fn(lib)` with `lib` either tinygrad_norm or torch.
"""

from __future__ import annotations


def _x(lib, *shape):
    return lib.arange(float(_size(shape))).reshape(shape) / 7


def _size(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _index(lib, *shape):
    """An int64 index of `shape` with values 0, 1, 2 (as the survey's randint(3, ...))."""
    return (lib.arange(_size(shape)) % 3).reshape(shape)


def _backward_of_comparison(lib):
    a = lib.ones(3, requires_grad=True)
    (a != lib.zeros(3)).sum().backward()


def _f(lib):
    return lib.nn.functional


SURVEY = {
    # creation with negative sizes
    "survey_zeros_negative": lambda lib: lib.zeros(-3, 2),
    "survey_ones_negative_inner": lambda lib: lib.ones((2, -3)),
    "survey_empty_negative": lambda lib: lib.empty((2, -3, 0)),
    "survey_randn_negative": lambda lib: lib.randn(-3, 2),
    "survey_rand_negative": lambda lib: lib.rand((2, -3)),
    "survey_full_negative": lambda lib: lib.full((-3,), 2),
    "survey_full_negative_inner": lambda lib: lib.full((2, -3, 0), 4),
    "survey_eye_negative_rows": lambda lib: lib.eye(-3, 3),
    "survey_eye_negative_cols": lambda lib: lib.eye(3, -3),
    "survey_linspace_bool": lambda lib: lib.linspace(5, 10, 3, dtype=lib.bool),
    "survey_linspace_negative_steps": lambda lib: lib.linspace(1, 2, -1),
    "survey_arange_int8_overflow": lambda lib: lib.arange(129, dtype=lib.int8),
    "survey_meshgrid_bad_indexing": lambda lib: lib.meshgrid(lib.ones(3), indexing="bad"),
    # unfold
    "survey_unfold_size_too_big": lambda lib: _x(lib, 8).unfold(0, 9, 3),
    "survey_unfold_dim_out_of_range": lambda lib: _x(lib, 8).unfold(1, 8, 3),
    "survey_unfold_negative_step": lambda lib: _x(lib, 8).unfold(0, 1, -1),
    # arithmetic
    "survey_div_rounding_typo": lambda lib: lib.tensor([5.0]).div(
        lib.tensor([1.0]), rounding_mode="typo"
    ),
    "survey_int_pow_negative": lambda lib: lib.tensor([-2, 0, 2]) ** -2,
    "survey_float_lshift": lambda lib: lib.tensor([1.0]) << 2,
    "survey_lshift_by_float_tensor": lambda lib: (
        lib.tensor([1, 2], dtype=lib.int32) << lib.tensor([1.0])
    ),
    "survey_lshift_by_float": lambda lib: lib.tensor([1, 2], dtype=lib.int32) << 1.0,
    "survey_float_rshift": lambda lib: lib.tensor([4.0]) >> 1,
    "survey_rshift_by_float_tensor": lambda lib: (
        lib.tensor([1, 2], dtype=lib.int32) >> lib.tensor([1.0])
    ),
    "survey_backward_of_comparison": _backward_of_comparison,
    "survey_clip_no_bounds": lambda lib: _x(lib, 4, 5).clip(None, None),
    # scans and reductions with dims out of range
    "survey_cumsum_0d_dim1": lambda lib: lib.cumsum(lib.tensor(1.0), dim=1),
    "survey_cumsum_dim1": lambda lib: lib.cumsum(_x(lib, 20), dim=1),
    "survey_cumsum_dim_minus2": lambda lib: lib.cumsum(_x(lib, 20), dim=-2),
    "survey_cumprod_0d_dim1": lambda lib: lib.cumprod(lib.tensor(1.0), dim=1),
    "survey_cumprod_dim_minus2": lambda lib: lib.cumprod(_x(lib, 20), dim=-2),
    "survey_cummax_0d_dim1": lambda lib: lib.cummax(lib.tensor(1.0), dim=1),
    "survey_cummax_dim1": lambda lib: lib.cummax(_x(lib, 5), dim=1),
    "survey_cummin_dim_minus2": lambda lib: lib.cummin(_x(lib, 5), dim=-2),
    "survey_topk_k_too_big": lambda lib: _x(lib, 4).topk(5),
    "survey_sum_dim5_of_4d": lambda lib: _x(lib, 3, 4, 5, 6).sum(5),
    "survey_sum_0d_dim1": lambda lib: lib.tensor(1.0).sum(1),
    "survey_sum_0d_dims_tuple": lambda lib: lib.tensor(1.0).sum((1,)),
    "survey_sum_dtype_string": lambda lib: lib.tensor([1.0, 2.0]).sum(dtype=""),
    # einsum
    "survey_einsum_two_ellipses": lambda lib: lib.einsum(
        "...ik..., ...jk ->", _x(lib, 2, 3, 4), _x(lib, 2, 3, 4)
    ),
    "survey_einsum_ellipses_not_broadcast": lambda lib: lib.einsum(
        "i...j,ji...->...", _x(lib, 2, 3, 4), _x(lib, 2, 3, 4)
    ),
    "survey_einsum_shape_mismatch": lambda lib: lib.einsum(
        "pqrs,tuqvr->pstuv", _x(lib, 3, 8, 10, 5), _x(lib, 11, 5, 13, 16, 8)
    ),
    "survey_einsum_too_many_operands": lambda lib: lib.einsum(
        "ij,jk->ij", _x(lib, 2, 3), _x(lib, 3, 4), _x(lib, 4, 2)
    ),
    "survey_einsum_too_few_operands": lambda lib: lib.einsum("ij,jk->ij", _x(lib, 3, 3)),
    # matrix products
    "survey_matmul_vector_matrix_mismatch": lambda lib: _x(lib, 4) @ _x(lib, 1, 2),
    "survey_matmul_matrix_vector_mismatch": lambda lib: _x(lib, 2, 1) @ _x(lib, 4),
    "survey_matmul_vectors_mismatch": lambda lib: _x(lib, 1) @ _x(lib, 4),
    "survey_matmul_matrices_mismatch": lambda lib: _x(lib, 2, 4) @ _x(lib, 1, 3),
    "survey_matmul_matrices_mismatch_2": lambda lib: _x(lib, 2, 1) @ _x(lib, 4, 3),
    "survey_matmul_0d": lambda lib: lib.tensor(3.14) @ lib.tensor(3.14),
    "survey_matmul_0d_matrix": lambda lib: lib.tensor(3.14) @ lib.ones(3, 3),
    # indexing
    "survey_index_0d": lambda lib: lib.tensor(3.14)[0],
    "survey_index_too_many": lambda lib: lib.ones(4, 3)[1, 77, 77, 77],
    "survey_index_out_of_bounds": lambda lib: lib.ones(4, 3)[1, 3],
    "survey_index_negative_out_of_bounds": lambda lib: lib.ones(4, 3)[1, -4],
    "survey_index_two_ellipses": lambda lib: lib.ones(4, 3)[..., ...],
    "survey_index_zero_step": lambda lib: lib.ones(4, 3)[::0, 1],
    "survey_slice_0d": lambda lib: lib.tensor(2.0)[:],
    "survey_index_float_tensor": lambda lib: lib.ones(10, 11, 12)[lib.tensor(1.1)],
    "survey_index_float_list": lambda lib: lib.ones(10, 11, 12)[[1.1]],
    "survey_index_short_mask_tensor": lambda lib: lib.ones(10, 11, 12)[lib.tensor([True, False])],
    "survey_index_short_mask_list": lambda lib: lib.ones(10, 11, 12)[[True, False]],
    "survey_index_tensors_not_broadcast": lambda lib: lib.ones(10, 11, 12)[
        _index(lib, 3, 1, 1, 1), _index(lib, 1, 4, 1, 1), _index(lib, 2, 4, 4, 1)
    ],
    "survey_index_tensors_too_many_dims": lambda lib: lib.ones(10, 11, 12)[
        _index(lib, 3, 1, 1, 1), _index(lib, 1, 4, 1, 1, 1)
    ],
    "survey_index_mixed_list_ok": lambda lib: _x(lib, 5, 6)[[True, False, 2]],
    # padding
    "survey_pad_uneven": lambda lib: _f(lib).pad(_x(lib, 3, 3), (2, 0, 2)),
    "survey_pad_too_many": lambda lib: _f(lib).pad(_x(lib, 3, 3), (0, 0, 0, 0, 1, 0, 3, 0)),
    "survey_pad_mode_typo": lambda lib: _f(lib).pad(_x(lib, 3, 3, 3), (3, 0), mode="typo"),
    "survey_pad_reflect_too_wide": lambda lib: _f(lib).pad(
        _x(lib, 1, 1, 5, 5), (3, 5, 0, 0), mode="reflect"
    ),
    "survey_pad_circular_twice": lambda lib: _f(lib).pad(
        _x(lib, 1, 1, 5, 5), (3, 6, 0, 0), mode="circular"
    ),
    # movement
    "survey_reshape_two_minus_ones": lambda lib: _x(lib, 3, 4).reshape((-1, -1, 2)),
    "survey_reshape_empty_shape": lambda lib: _x(lib, 4, 3, 6, 6).reshape([]),
    "survey_permute_too_few": lambda lib: _x(lib, 3, 4, 5, 6).permute((0, 2)),
    "survey_permute_too_many": lambda lib: _x(lib, 3, 4, 5, 6).permute((0, 1, 2, 3, 3, 3)),
    "survey_permute_repeated": lambda lib: _x(lib, 3, 4, 5, 6).permute((0, 0, 1, 2, 3)),
    "survey_flip_repeated": lambda lib: _x(lib, 3, 4).flip((0, 0)),
    "survey_flip_repeated_negative": lambda lib: _x(lib, 3, 4).flip((1, -1)),
    "survey_squeeze_dim50": lambda lib: _x(lib, 4, 3, 6, 6).squeeze(50),
    "survey_squeeze_0d_dim10": lambda lib: lib.tensor(1.0).squeeze(10),
    "survey_squeeze_0d_dim_minus2": lambda lib: lib.tensor(1.0).squeeze(-2),
    "survey_diagonal_same_dims": lambda lib: _x(lib, 3, 3).diagonal(dim1=0, dim2=0),
    "survey_roll_shifts_without_dims": lambda lib: _x(lib, 2, 4).roll((1, 2)),
    "survey_roll_one_shift_two_dims": lambda lib: _x(lib, 3, 3).roll(shifts=1, dims=(0, 1)),
    "survey_roll_two_shifts_one_dim": lambda lib: _x(lib, 10).roll(shifts=(1, 2), dims=0),
    "survey_expand_shrink": lambda lib: lib.ones(4, 3, 1, 6).expand(4, 1, 1, 6),
    "survey_expand_other_size": lambda lib: lib.ones(4, 3, 1, 6).expand(4, 6, 1, 6),
    "survey_expand_fewer_dims": lambda lib: lib.ones(4, 3, 1, 6).expand(3, 1, 6),
    "survey_expand_to_zero": lambda lib: lib.ones(4, 3, 2, 6).expand(4, 3, 0, 6),
    "survey_cat_0d": lambda lib: lib.cat([lib.tensor(3.14), lib.tensor(3.14)]),
    "survey_stack_dim77": lambda lib: lib.stack([_x(lib, 4, 5, 3)], dim=77),
    "survey_repeat_fewer_counts": lambda lib: _x(lib, 4, 6, 3).repeat(2, 4),
    # gather, scatter
    "survey_gather_index_fewer_dims": lambda lib: _x(lib, 4, 5, 6).gather(0, lib.tensor([1])),
    "survey_gather_index_larger": lambda lib: _x(lib, 2, 1, 1).gather(0, _index(lib, 3, 4, 5)),
    "survey_scatter_index_larger_than_src": lambda lib: _x(lib, 2, 3, 10).scatter(
        1, _index(lib, 3, 4, 5), _x(lib, 10, 10, 10)
    ),
    "survey_scatter_index_larger_than_self": lambda lib: _x(lib, 10, 3, 10).scatter(
        1, _index(lib, 3, 4, 5), _x(lib, 10, 3, 10)
    ),
    "survey_scatter_unknown_keyword": lambda lib: _x(lib, 3, 4, 5).scatter(
        1, _index(lib, 3, 4, 5), _x(lib, 3, 4, 5), mode="typo"
    ),
    "survey_scatter_src_other_dtype": lambda lib: (
        _x(lib, 3, 4, 5).half().scatter(1, _index(lib, 3, 4, 5), _x(lib, 3, 4, 5))
    ),
    "survey_scatter_reduce_invalid": lambda lib: _x(lib, 4, 5, 6).scatter_reduce(
        0, _index(lib, 3, 4, 5), _x(lib, 4, 5, 6), reduce="INVALID"
    ),
    "survey_scatter_reduce_src_other_dtype": lambda lib: (
        _x(lib, 4, 5, 6)
        .half()
        .scatter_reduce(0, _index(lib, 3, 4, 5), _x(lib, 4, 5, 6), reduce="sum")
    ),
    # nn.functional
    "survey_conv_transpose2d_three_paddings": lambda lib: _f(lib).conv_transpose2d(
        _x(lib, 2, 16, 2, 2), _x(lib, 16, 4, 3, 3), padding=(1, 1, 1)
    ),
    "survey_conv2d_dilated_kernel_too_big": lambda lib: _f(lib).conv2d(
        _x(lib, 1, 1, 6, 7), _x(lib, 6, 1, 3, 3), dilation=3
    ),
    "survey_conv2d_kernel_too_big": lambda lib: _f(lib).conv2d(
        _x(lib, 2, 16, 2, 2), _x(lib, 32, 16, 3, 3)
    ),
    "survey_conv2d_three_paddings": lambda lib: _f(lib).conv2d(
        _x(lib, 2, 16, 2, 2), _x(lib, 32, 16, 3, 3), padding=(1, 1, 1)
    ),
    "survey_max_pool2d_three_paddings": lambda lib: _f(lib).max_pool2d(
        _x(lib, 1, 2, 10, 8), kernel_size=(2, 2), padding=(1, 1, 1)
    ),
    "survey_avg_pool2d_three_paddings": lambda lib: _f(lib).avg_pool2d(
        _x(lib, 1, 2, 11, 8), kernel_size=(2, 2), padding=(1, 1, 1)
    ),
    "survey_sdpa_causal_and_mask": lambda lib: _f(lib).scaled_dot_product_attention(
        _x(lib, 2, 2, 4, 8),
        _x(lib, 2, 2, 4, 8),
        _x(lib, 2, 2, 4, 8),
        _x(lib, 2, 2, 4, 4),
        is_causal=True,
    ),
    "survey_sdpa_heads_mismatch": lambda lib: _f(lib).scaled_dot_product_attention(
        _x(lib, 2, 3, 4, 8), _x(lib, 2, 2, 4, 8), _x(lib, 2, 2, 4, 8)
    ),
    "survey_cross_entropy_target_one_column": lambda lib: _f(lib).cross_entropy(
        _x(lib, 4, 10), _x(lib, 4, 1)
    ),
    "survey_cross_entropy_reduction_typo": lambda lib: _f(lib).cross_entropy(
        _x(lib, 4, 10), _x(lib, 4, 10), reduction="typo"
    ),
    "survey_nll_loss_reduction_typo": lambda lib: _f(lib).nll_loss(
        _x(lib, 4, 10), lib.tensor([0, 1, 2, 3]), reduction="typo"
    ),
    "survey_one_hot_minus_one_ok": lambda lib: _f(lib).one_hot(lib.tensor([1, 2, 4]), -1),
}
