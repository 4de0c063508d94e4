"""Errors are messages for a learner (STYLE 8): each names the operation and the shapes or
values involved, and says what to do instead.

`re.escape` is used wherever a message quotes a shape, so "(2, 3)" is matched literally.
"""

import re

import numpy as np
import pytest

import tinygrad_norm as tg


def message(excinfo) -> str:
    return str(excinfo.value)


# --- broadcasting -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "op, name",
    [
        (lambda a, b: a + b, "add"),
        (lambda a, b: a * b, "mul"),
        (lambda a, b: a - b, "sub"),
        (lambda a, b: a / b, "div"),
    ],
)
def test_broadcast_mismatch_names_the_op_and_both_shapes(op, name):
    with pytest.raises(ValueError) as info:
        op(tg.ones(2, 3), tg.ones(4))
    text = message(info)
    assert text.startswith(f"{name}:")
    assert "(2, 3)" in text and "(4,)" in text
    assert "broadcast" in text


def test_broadcast_mismatch_with_a_numpy_array_on_the_left():
    with pytest.raises(ValueError, match=re.escape("add: shapes (4,) and (2, 3)")):
        np.ones(4) + tg.ones(2, 3)


def test_broadcast_mismatch_while_recording_a_graph():
    x = tg.ones(3, 2, requires_grad=True)
    with pytest.raises(ValueError, match=re.escape("mul: shapes (3, 2) and (3,)")):
        x * tg.ones(3)


# --- matmul -------------------------------------------------------------------------------------


def test_matmul_inner_size_mismatch_names_both_shapes():
    with pytest.raises(ValueError) as info:
        tg.ones(2, 3) @ tg.ones(4, 5)
    text = message(info)
    assert text.startswith("matmul:")
    assert "(2, 3)" in text and "(4, 5)" in text
    assert "(3)" in text and "(4)" in text  # the two sizes that must agree


def test_matmul_matrix_vector_mismatch():
    with pytest.raises(
        ValueError, match=re.escape("matmul: cannot multiply shapes (2, 3) and (2,)")
    ):
        tg.matmul(tg.ones(2, 3), tg.ones(2))


def test_matmul_batch_mismatch_names_both_shapes():
    with pytest.raises(ValueError) as info:
        tg.ones(2, 3, 4) @ tg.ones(5, 4, 2)
    text = message(info)
    assert "(2, 3, 4)" in text and "(5, 4, 2)" in text and "batch" in text


def test_matmul_of_a_scalar_says_to_use_mul():
    with pytest.raises(ValueError, match=r"matmul: .*use \*"):
        tg.tensor(2.0) @ tg.ones(2)


# --- autograd misuse ----------------------------------------------------------------------------


def test_backward_on_a_non_scalar_needs_gradient_or_a_reduction():
    y = tg.ones(2, 3, requires_grad=True) * 2.0
    with pytest.raises(RuntimeError) as info:
        y.backward()
    text = message(info)
    assert "(2, 3)" in text and "gradient=" in text and "sum()" in text


def test_backward_gradient_of_the_wrong_shape_names_both_shapes():
    y = tg.ones(2, 3, requires_grad=True) * 2.0
    with pytest.raises(RuntimeError, match=re.escape("gradient has shape (3,)")) as info:
        y.backward(tg.ones(3))
    assert "(2, 3)" in message(info)


def test_requires_grad_on_an_integer_tensor_names_the_dtype_and_the_fix():
    for make in (
        lambda: tg.tensor([1, 2], requires_grad=True),
        lambda: tg.tensor([1, 2]).requires_grad_(),
        lambda: tg.arange(3, requires_grad=True),
        lambda: tg.tensor([True], requires_grad=True),
    ):
        with pytest.raises(RuntimeError, match="floating") as info:
            make()
        text = message(info)
        assert "int64" in text or "bool" in text
        assert "dtype=tg.float32" in text and ".float()" in text


def test_backward_on_a_tensor_that_does_not_require_grad():
    with pytest.raises(RuntimeError, match="does not require grad") as info:
        (tg.ones(3) * 2.0).sum().backward()
    assert "requires_grad=True" in message(info)


def test_autograd_grad_of_an_input_that_does_not_require_grad():
    x = tg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="input 1 does not require grad"):
        tg.autograd.grad((x * 2.0).sum(), [x, tg.ones(2)])


def test_custom_function_returning_too_many_gradients_names_the_op():
    class Twice(tg.Function):
        @staticmethod
        def forward(ctx, a):
            return 2 * a

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * 2.0, grad_output

    with pytest.raises(RuntimeError, match="TwiceBackward: backward returned 2 gradients"):
        Twice.apply(tg.ones(2, requires_grad=True)).sum().backward()


# --- shapes, indices and dims -------------------------------------------------------------------


def test_reshape_to_an_incompatible_size_names_both_shapes():
    with pytest.raises(ValueError) as info:
        tg.ones(2, 3).reshape(4, 2)
    text = message(info)
    assert text.startswith("reshape:")
    assert "(2, 3)" in text and "(4, 2)" in text and "6 elements" in text


def test_reshape_with_two_inferred_sizes():
    with pytest.raises(ValueError, match="-1"):
        tg.ones(2, 3).reshape(-1, -1)


@pytest.mark.parametrize("index", [5, (0, 7), -3])
def test_index_out_of_range_names_the_shape(index):
    with pytest.raises(IndexError) as info:
        tg.ones(2, 3)[index]
    text = message(info)
    assert "shape (2, 3)" in text and "out of bounds" in text


def test_array_index_out_of_range_names_the_shape():
    with pytest.raises(IndexError, match=re.escape("shape (2, 3)")):
        tg.ones(2, 3)[tg.tensor([0, 5])]


@pytest.mark.parametrize(
    "call, op",
    [
        (lambda t: t.sum(dim=2), "sum"),
        (lambda t: t.mean(dim=-3), "mean"),
        (lambda t: t.var(dim=(0, 5)), "var"),
        (lambda t: t.softmax(4), "softmax"),
        (lambda t: t.transpose(0, 3), "transpose"),
        (lambda t: t.amax(dim=2), "amax"),
    ],
)
def test_dim_out_of_range_names_the_op_the_dim_and_the_valid_range(call, op):
    with pytest.raises(IndexError) as info:
        call(tg.ones(2, 3))
    text = message(info)
    assert text.startswith(f"{op}:")
    assert "out of range" in text and "2 dimensions" in text and "-2 to 1" in text


def test_unsqueeze_dim_out_of_range():
    with pytest.raises(IndexError, match="unsqueeze: dim 4 .* -3 to 2"):
        tg.ones(2, 3).unsqueeze(4)


def test_cat_of_mismatched_shapes_names_both():
    with pytest.raises(ValueError) as info:
        tg.cat([tg.ones(2, 3), tg.ones(2, 3), tg.ones(2, 4)])
    text = message(info)
    assert text.startswith("cat:")
    assert "tensor 2" in text and "(2, 4)" in text and "(2, 3)" in text and "dim 0" in text


def test_stack_of_different_shapes():
    with pytest.raises(ValueError, match=re.escape("stack: all tensors must have the same shape")):
        tg.stack([tg.ones(2), tg.ones(3)])


def test_split_sizes_that_do_not_add_up():
    with pytest.raises(ValueError) as info:
        tg.ones(5, 2).split([2, 2])
    text = message(info)
    assert text.startswith("split:")
    assert "[2, 2]" in text and "add up to 4" in text and "(5, 2)" in text and "size 5" in text


def test_expand_to_an_incompatible_size():
    with pytest.raises(ValueError, match=re.escape("expand: cannot expand shape (2, 3) to (4, 3)")):
        tg.ones(2, 3).expand(4, 3)


def test_item_of_a_tensor_with_several_elements():
    with pytest.raises(ValueError, match=re.escape("shape (2, 2)")):
        tg.ones(2, 2).item()


def test_truth_value_of_a_tensor_with_several_elements():
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(tg.ones(3) > 0)


@pytest.mark.parametrize("data", [[[1.0, 2.0], [3.0]], "abc", None, [object()]])
def test_tensor_from_data_that_is_not_numbers(data):
    with pytest.raises(TypeError, match="nested list of numbers of equal lengths") as info:
        tg.tensor(data)
    assert type(data).__name__ in message(info)
