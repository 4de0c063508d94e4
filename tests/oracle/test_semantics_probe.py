# ruff: noqa: E501 - one case per line reads best in these tables
"""An adversarial probe against PyTorch 2.13: in-place changes of views inside graphs, dtype
mixes, integer edge cases, `.grad` identity, losses at their limits, and every case the
semantics issue listed. Each case runs the same code on both libraries; results (values,
dtypes, shapes, gradients, exception classes) must agree: 0 silent differences."""

import itertools

import pytest

import tinygrad_norm as tg
from tinygrad_norm.testing.probe import agrees, outcome

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

CASES = {}  # name -> fn(lib) -> something comparable


def case(area, name):
    def register(fn):
        CASES[f"{area}:{name}"] = fn
        return fn

    return register


# --- in-place changes of views inside a graph ---------------------------------------------------
VIEWS = {
    "row": lambda y: y[0],
    "column": lambda y: y[:, 1],
    "t": lambda y: y.t(),
    "diagonal": lambda y: y.diagonal(),
    "diagonal_offset": lambda y: y.diagonal(1),
    "view": lambda y: y.view(-1),
    "step": lambda y: y[1:, ::2],
    "select": lambda y: y.select(1, 2),
    "narrow": lambda y: y.narrow(0, 1, 2),
    "unsqueeze": lambda y: y.unsqueeze(0),
    "unfold_window": lambda y: y.unfold(1, 2, 2),
    "element": lambda y: y[1, 2],
}
CHANGES = {
    "mul_": lambda v, w: v.mul_(3),
    "add_tensor": lambda v, w: v.add_(w.sum()),
    "fill_": lambda v, w: v.fill_(2.0),
    "zero_": lambda v, w: v.zero_(),
    "clamp_": lambda v, w: v.clamp_(0.0, 1.5),
    "div_": lambda v, w: v.div_(2),
    "sub_": lambda v, w: v.sub_(1),
    "copy_": lambda v, w: v.copy_(w[0, 0] * v),
    "exp_": lambda v, w: v.exp_(),
}


def _in_place_on_view(view, change):
    def run(lib):
        w = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [1.0, 2.0, 3.0]], requires_grad=True)
        y = w * 1.5
        change(view(y), w)
        coefficient = lib.arange(9.0).reshape(3, 3)
        (y * coefficient).sum().backward()
        return y, w.grad

    return run


for (vn, view), (cn, change) in itertools.product(VIEWS.items(), CHANGES.items()):
    CASES[f"inplace_view:{vn}.{cn}"] = _in_place_on_view(view, change)


@case("inplace_view", "expanded_is_refused")
def _(lib):
    y = lib.ones(3, requires_grad=True) * 1
    return y[None].expand(2, 3).mul_(2)


@case("inplace_view", "view_of_leaf_is_refused")
def _(lib):
    return lib.ones(3, requires_grad=True)[0].mul_(2)


@case("inplace_view", "diagonal_fill_no_graph")
def _(lib):
    m = lib.zeros(3, 3)
    m.diagonal().fill_(1)
    return m


@case("inplace_view", "flip_is_a_copy")
def _(lib):
    x = lib.arange(4.0)
    lib.flip(x, [0])[0] = 9
    return x


@case("inplace_view", "repeat_is_a_copy")
def _(lib):
    a = lib.ones(1, 3)
    r = a.repeat(1, 1)
    r[0, 0] = 5
    return a, r


@case("inplace_view", "repeat_size_one_writable")
def _(lib):
    a = lib.ones(1, 3)
    r = a.repeat(4, 1)
    r[0, 0] = 5
    return a, r


@case("inplace_view", "unfold_is_a_view")
def _(lib):
    x = lib.arange(6.0)
    x.unfold(0, 2, 2)[1, 0] = 9
    return x


@case("inplace_view", "rot90_is_a_copy")
def _(lib):
    x = lib.arange(4.0).reshape(2, 2)
    lib.rot90(x)[0, 0] = 9
    return x


@case("inplace_view", "fliplr_is_a_copy")
def _(lib):
    x = lib.arange(4.0).reshape(2, 2)
    lib.fliplr(x)[0, 0] = 9
    return x


@case("inplace_view", "negative_step")
def _(lib):
    return lib.arange(4.0)[::-1]


@case("inplace_view", "is_contiguous")
def _(lib):
    x = lib.arange(6.0).reshape(2, 3)
    return (x.is_contiguous(), x.t().is_contiguous(), x[:, ::2].is_contiguous(),
            x.t().contiguous().is_contiguous())  # fmt: skip


@case("inplace_view", "view_of_transpose")
def _(lib):
    return lib.zeros(2, 3).t().view(6)


@case("inplace_view", "write_into_expanded_row")
def _(lib):
    x = lib.zeros(1, 3)
    e = x.expand(2, 3)
    e[0] = 1.0
    return x


# --- dtype mixes: values, not only dtypes --------------------------------------------------------
OPERANDS = {
    "u8": lambda lib: lib.tensor([1, 200, 7], dtype=lib.uint8),
    "i8_0d": lambda lib: lib.tensor(-2, dtype=lib.int8),
    "i32": lambda lib: lib.tensor([-7, 5, 3], dtype=lib.int32),
    "i64": lambda lib: lib.tensor([-7, 5, 3]),
    "f16": lambda lib: lib.tensor([0.1, 2.5, -3.0], dtype=lib.float16),
    "f32": lambda lib: lib.tensor([0.5, -1.5, 2.0]),
    "f64_0d": lambda lib: lib.tensor(1.25, dtype=lib.float64),
    "b": lambda lib: lib.tensor([True, False, True]),
    "py_int": lambda lib: 3,
    "py_neg": lambda lib: -1,
    "py_float": lambda lib: 2.5,
}
OPS = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "truediv": lambda a, b: a / b,
    "lt": lambda a, b: a < b,
    "eq": lambda a, b: a == b,
    "ge": lambda a, b: a >= b,
    "floordiv": lambda a, b: a // b,
    "rsub": lambda a, b: b - a,
}
for (an, a), (bn, b), (on, op) in itertools.product(
    OPERANDS.items(), OPERANDS.items(), OPS.items()
):
    if an.startswith("py") or an == bn:
        continue
    if on not in ("add", "truediv", "lt", "floordiv") and (an, bn) not in {
        ("u8", "i8_0d"), ("i32", "py_float"), ("b", "py_int"), ("f16", "f64_0d"),
        ("i64", "f32"), ("u8", "py_neg"), ("i8_0d", "f16"), ("b", "i32"),
    }:  # fmt: skip
        continue
    CASES[f"dtype_mix:{an}.{on}.{bn}"] = lambda lib, a=a, b=b, op=op: op(a(lib), b(lib))

CREATIONS = {
    "cat_int_float": lambda lib: lib.cat([lib.tensor([1]), lib.tensor([1.5])]),
    "stack_int_float": lambda lib: lib.stack([lib.tensor([1]), lib.tensor([1.5])]),
    "hstack_int_float": lambda lib: lib.hstack([lib.tensor([1]), lib.tensor([1.5])]),
    "where_int_float": lambda lib: lib.where(
        lib.tensor([True, False]), lib.tensor([1, 2]), lib.tensor([1.5, 2.5])
    ),  # fmt: skip
    "where_float_number": lambda lib: lib.where(lib.tensor([True, False]), lib.tensor([1, 2]), 0.5),
    "clamp_float_bounds": lambda lib: lib.tensor([1, 5]).clamp(1.5, 3.5),
    "clamp_int_bounds": lambda lib: lib.tensor([1.0, 5.0]).clamp(2, 3),
    "tensor_of_0d_and_float": lambda lib: lib.tensor([lib.tensor(1), 2.5]),
    "tensor_of_0d_int8": lambda lib: lib.tensor([lib.tensor(1, dtype=lib.int8), 2]),
    "int_matmul_float": lambda lib: lib.tensor([[1, 2]]) @ lib.tensor([[1.0], [2.0]]),
    "linear_int": lambda lib: lib.nn.Linear(2, 1)(lib.ones(1, 2, dtype=lib.int64)),
    "linear_float64": lambda lib: lib.nn.Linear(2, 1)(lib.ones(1, 2, dtype=lib.float64)),
    "lerp_f32_f64": lambda lib: lib.lerp(lib.ones(2), lib.zeros(2, dtype=lib.float64), 0.5),
    "maximum_int_float": lambda lib: lib.maximum(lib.tensor([1, 5]), lib.tensor([2.5, 0.5])),
    "mean_dtype": lambda lib: lib.tensor([1, 2]).mean(dtype=lib.float64),
    "mean_int": lambda lib: lib.tensor([1, 2]).mean(),
    "softmax_dtype": lambda lib: lib.tensor([1.0, 2.0]).softmax(0, dtype=lib.float64),
    "sum_int8": lambda lib: lib.tensor([100, 100], dtype=lib.int8).sum(),
    "sum_bool": lambda lib: lib.tensor([True, True]).sum(),
    "cumsum_uint8": lambda lib: lib.tensor([200, 100], dtype=lib.uint8).cumsum(0),
    "arange_float_step": lambda lib: lib.arange(0, 1, 0.25),
    "full_bool": lambda lib: lib.full((2,), True),
    "f16_plus_py_float_big": lambda lib: lib.tensor([1.0], dtype=lib.float16) + 70000.0,
}
for name, fn in CREATIONS.items():
    CASES[f"dtype_mix:{name}"] = fn


# --- integer edge cases ---------------------------------------------------------------------------
INTEGER = {
    "floordiv_negative": lambda lib: lib.tensor([-7, 7, -7]) // lib.tensor([2, -2, -2]),
    "remainder_negative": lambda lib: lib.tensor([-7, 7, -7]) % lib.tensor([2, -2, -2]),
    "fmod_negative": lambda lib: lib.fmod(lib.tensor([-7, 7]), lib.tensor([2, -2])),
    "floordiv_by_zero": lambda lib: lib.tensor([1, 2]) // lib.tensor([0, 1]),
    "remainder_by_zero": lambda lib: lib.tensor([1, 2]) % 0,
    "fmod_by_zero": lambda lib: lib.fmod(lib.tensor([1, 2]), lib.tensor([0, 1])),
    "float_floordiv_by_zero": lambda lib: lib.tensor([1.0, -1.0]) // 0,
    "float_remainder_by_zero": lambda lib: lib.tensor([1.0]) % 0,
    "truediv_int_by_zero": lambda lib: lib.tensor([1, 0, -1]) / 0,
    "int8_overflow_wraps": lambda lib: lib.tensor([127], dtype=lib.int8) + 1,
    "uint8_underflow_wraps": lambda lib: lib.tensor([0], dtype=lib.uint8) - 1,
    "uint8_minus_uint8": lambda lib: lib.tensor([1], dtype=lib.uint8) - lib.tensor([2], dtype=lib.uint8),
    "abs_int8_min": lambda lib: lib.tensor([-128], dtype=lib.int8).abs(),
    "neg_uint8": lambda lib: -lib.tensor([1], dtype=lib.uint8),
    "int_pow_negative": lambda lib: lib.tensor([2]) ** -1,
    "int_pow_int": lambda lib: lib.tensor([2, 3]) ** 2,
    "int_pow_float": lambda lib: lib.tensor([2, 3]) ** 0.5,
    "bool_sub": lambda lib: lib.tensor([True]) - lib.tensor([False]),
    "bool_rsub_number": lambda lib: 1 - lib.tensor([True]),
    "bool_neg": lambda lib: -lib.tensor([True]),
    "bool_add": lambda lib: lib.tensor([True]) + lib.tensor([True]),
    "bool_mul_int": lambda lib: lib.tensor([True, False]) * 3,
    "bool_floordiv": lambda lib: lib.tensor([True]) // lib.tensor([True]),
    "arange_wrong_sign": lambda lib: lib.arange(10, 0),
    "arange_down": lambda lib: lib.arange(10, 0, -3),
    "arange_empty": lambda lib: lib.arange(3, 3),
    "arange_wrong_step_sign": lambda lib: lib.arange(0, 10, -1),
    "zeros_true": lambda lib: lib.zeros(True),
    "zeros_negative": lambda lib: lib.zeros(-1),
    "uint8_index_is_mask": lambda lib: lib.tensor([10.0, 20.0, 30.0])[lib.tensor([1, 0, 1], dtype=lib.uint8)],
    "int_index": lambda lib: lib.tensor([10.0, 20.0, 30.0])[lib.tensor([2, 0])],
    "bool_index": lambda lib: lib.tensor([10.0, 20.0, 30.0])[lib.tensor([True, False, True])],
    "argmax_ties": lambda lib: lib.tensor([1, 3, 3]).argmax(),
    "max_dim_ties": lambda lib: lib.tensor([[1, 3, 3]]).max(1),
    "unique_nan": lambda lib: lib.tensor([float("nan"), float("nan"), 1.0]).unique(),
    "unique_counts": lambda lib: lib.tensor([3, 1, 3]).unique(return_counts=True),
    "size_out_of_range": lambda lib: lib.zeros(2, 3).size(3),
    "size_negative": lambda lib: lib.zeros(2, 3).size(-1),
    "item_of_many": lambda lib: lib.zeros(2).item(),
    "copy_wrong_shape": lambda lib: lib.zeros(3).copy_(lib.ones(2)),
    "mask_assign_count": lambda lib: lib.zeros(3).__setitem__(lib.tensor([True, False, True]), lib.ones(3)),
    "slice_assign_shape": lambda lib: lib.zeros(4).__setitem__(slice(0, 2), lib.ones(3)),
    "int_tensor_float_fill": lambda lib: lib.tensor([1, 2]).fill_(2.7),
    "int_add_float_in_place": lambda lib: lib.tensor([1, 2]).add_(0.5),
    "uint8_fill_negative": lambda lib: lib.zeros(2, dtype=lib.uint8).fill_(-1),
}  # fmt: skip
for name, fn in INTEGER.items():
    CASES[f"integer:{name}"] = fn


# --- .grad identity ---------------------------------------------------------------------------------
def _grad_run(steps):
    def run(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        out = []
        for step in steps:
            out.append(step(lib, w))
        return tuple(o for o in out if o is not None)

    return run


def _bw(factor):
    def step(lib, w):
        (w * factor).sum().backward()

    return step


def _hold(lib, w):
    w._held = w.grad  # noqa: SLF001 - a user's reference


GRAD = {
    "second_backward_adds": [_bw(5), _bw(3), lambda lib, w: w.grad],
    "held_reference_sees_sum": [_bw(5), lambda lib, w: setattr(w, "held", w.grad) if False else None,
                                lambda lib, w: w.grad],  # fmt: skip
    "zero_reaches_parameter": [_bw(5), lambda lib, w: w.grad.zero_() and None, _bw(2), lambda lib, w: w.grad],
    "none_then_backward": [_bw(5), lambda lib, w: setattr(w, "grad", None), _bw(2), lambda lib, w: w.grad],
    "assign_then_backward": [lambda lib, w: setattr(w, "grad", lib.ones(2)), _bw(2), lambda lib, w: w.grad],
    "assign_wrong_shape": [lambda lib, w: setattr(w, "grad", lib.ones(3))],
    "assign_wrong_dtype": [lambda lib, w: setattr(w, "grad", lib.ones(2, dtype=lib.float64))],
    "assign_list": [lambda lib, w: setattr(w, "grad", [1.0, 2.0])],
    "assign_int": [lambda lib, w: setattr(w, "grad", lib.ones(2, dtype=lib.int64))],
    "create_graph_is_differentiable": [
        lambda lib, w: (w * w).sum().backward(create_graph=True),
        lambda lib, w: w.grad.requires_grad,
        lambda lib, w: w.grad,
    ],
    "backward_inputs": [lambda lib, w: (w * 3).sum().backward(inputs=[w]), lambda lib, w: w.grad],
    "grad_materialize": [lambda lib, w: lib.autograd.grad((w * 2).sum(), [w, lib.ones(1, requires_grad=True)],
                                                          materialize_grads=True)],  # fmt: skip
    "retain_grad_accumulates": [
        lambda lib, w: [h := w * 2, h.retain_grad(), (h * h).sum().backward(retain_graph=True),
                        (h * 1).sum().backward(), h.grad][-1],
    ],  # fmt: skip
}  # fmt: skip
for name, steps in GRAD.items():
    CASES[f"grad_identity:{name}"] = _grad_run(steps)


@case("grad_identity", "held_reference_after_two_backwards")
def _(lib):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    (w * 5).sum().backward()
    g = w.grad
    (w * 3).sum().backward()
    return g, g is w.grad


@case("grad_identity", "two_leaves_do_not_share")
def _(lib):
    a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
    (a + b).sum().backward()
    a.grad.add_(1)
    return a.grad, b.grad


@case("grad_identity", "sgd_zero_grad_keeps_tensor")
def _(lib):
    w = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
    opt = lib.optim.SGD([w], lr=0.1)
    (w * 3).sum().backward()
    g = w.grad
    opt.zero_grad(set_to_none=False)
    return g, w.grad is g


# --- losses at their limits --------------------------------------------------------------------------
def _loss_grad(fn, p, t, **kw):
    def run(lib):
        x = lib.tensor(p, dtype=lib.float64, requires_grad=True)
        y = lib.tensor(t, dtype=lib.float64)
        loss = fn(lib)(x, y, **kw)
        loss.sum().backward()
        return loss, x.grad

    return run


BCE = lambda lib: lib.nn.functional.binary_cross_entropy  # noqa: E731
BCEL = lambda lib: lib.nn.functional.binary_cross_entropy_with_logits  # noqa: E731
LIMITS = {
    "bce_at_0_and_1": _loss_grad(BCE, [0.0, 1.0, 0.0, 1.0, 0.5], [0.0, 1.0, 1.0, 0.0, 0.3], reduction="none"),
    "bce_mean_saturated": _loss_grad(BCE, [0.0, 1.0], [0.0, 1.0]),
    "bce_target_2": _loss_grad(BCE, [0.5], [2.0]),
    "bce_target_negative": _loss_grad(BCE, [0.5], [-0.5]),
    "bce_input_above_1": _loss_grad(BCE, [1.5], [1.0]),
    "bce_logits_large": _loss_grad(BCEL, [100.0, -100.0, 0.0], [1.0, 0.0, 0.5], reduction="none"),
    "bce_logits_huge": _loss_grad(BCEL, [1e4, -1e4], [0.0, 1.0], reduction="sum"),
    "mse_equal": _loss_grad(lambda lib: lib.nn.functional.mse_loss, [1.0, 2.0], [1.0, 2.0]),
    "l1_at_zero": _loss_grad(lambda lib: lib.nn.functional.l1_loss, [1.0, 2.0], [1.0, 3.0]),
    "huber_at_delta": _loss_grad(lambda lib: lib.nn.functional.huber_loss, [0.0, 0.0], [1.0, -2.0]),
    "smooth_l1_beta_0": _loss_grad(lambda lib: lib.nn.functional.smooth_l1_loss, [0.0, 1.0], [1.0, 1.0], beta=0.0),
}  # fmt: skip
for name, fn in LIMITS.items():
    CASES[f"loss_limits:{name}"] = fn


@case("loss_limits", "cross_entropy_neg_inf_logit")
def _(lib):
    x = lib.tensor([[0.0, float("-inf"), 1.0]], dtype=lib.float64, requires_grad=True)
    loss = lib.nn.functional.cross_entropy(x, lib.tensor([0]))
    loss.backward()
    return loss, x.grad


@case("loss_limits", "cross_entropy_huge_logits")
def _(lib):
    x = lib.tensor([[1e4, -1e4, 0.0]], dtype=lib.float64, requires_grad=True)
    loss = lib.nn.functional.cross_entropy(x, lib.tensor([1]))
    loss.backward()
    return loss, x.grad


@case("loss_limits", "cross_entropy_label_smoothing")
def _(lib):
    x = lib.tensor([[2.0, -1.0, 0.5]], dtype=lib.float64, requires_grad=True)
    loss = lib.nn.functional.cross_entropy(x, lib.tensor([2]), label_smoothing=0.2)
    loss.backward()
    return loss, x.grad


@case("loss_limits", "nll_all_ignored")
def _(lib):
    x = lib.zeros(2, 3, dtype=lib.float64, requires_grad=True)
    loss = lib.nn.functional.nll_loss(x, lib.tensor([-100, -100]))
    loss.backward()
    return loss, x.grad


@case("loss_limits", "log_softmax_large")
def _(lib):
    x = lib.tensor([1000.0, 0.0, -1000.0], dtype=lib.float64, requires_grad=True)
    y = x.log_softmax(0)
    y.sum().backward()
    return y, x.grad


@case("loss_limits", "kl_div_zero_target")
def _(lib):
    x = lib.tensor([-1.0, -2.0], dtype=lib.float64, requires_grad=True)
    loss = lib.nn.functional.kl_div(x, lib.tensor([0.0, 1.0], dtype=lib.float64), reduction="sum")
    loss.backward()
    return loss, x.grad


@case("loss_limits", "instance_norm_num_batches")
def _(lib):
    m = lib.nn.InstanceNorm2d(2, track_running_stats=True)
    m(lib.arange(36.0).reshape(2, 2, 3, 3).sin())
    return m.num_batches_tracked, m.running_mean


@case("loss_limits", "sqrt_at_zero_grad")
def _(lib):
    x = lib.tensor([0.0, 4.0], dtype=lib.float64, requires_grad=True)
    x.sqrt().sum().backward()
    return x.grad


# --- the missing forms ----------------------------------------------------------------------------------
FORMS = {
    "squeeze_": lambda lib: lib.zeros(3, 1).squeeze_().shape,
    "unsqueeze_": lambda lib: lib.zeros(3).unsqueeze_(0).shape,
    "t_": lambda lib: lib.zeros(2, 3).t_().shape,
    "detach_": lambda lib: [y := lib.ones(2, requires_grad=True) * 2, y.detach_(), y.requires_grad][-1],
    "index_fill_": lambda lib: lib.zeros(3, 4).index_fill_(1, lib.tensor([0, 2]), 5.0),
    "index_copy_": lambda lib: lib.zeros(3, 4).index_copy_(0, lib.tensor([2, 0]), lib.arange(8.0).reshape(2, 4)),
    "fill_diagonal_": lambda lib: lib.zeros(3, 4).fill_diagonal_(2.0),
    "select": lambda lib: lib.arange(6.0).reshape(2, 3).select(1, -1),
    "tile": lambda lib: lib.arange(3.0).tile((2, 2)),
    "fmax": lambda lib: lib.fmax(lib.tensor([1.0, float("nan")]), lib.tensor([float("nan"), 2.0])),
    "diff": lambda lib: lib.diff(lib.tensor([1.0, 4.0, 9.0, 16.0]), n=2),
    "diff_prepend": lambda lib: lib.tensor([[1, 3], [4, 9]]).diff(dim=0, prepend=lib.zeros(1, 2, dtype=lib.int64)),
    "mean_axis": lambda lib: lib.arange(6.0).reshape(2, 3).mean(axis=1),
    "sum_axis": lambda lib: lib.arange(6.0).reshape(2, 3).sum(axis=0),
    "quantile": lambda lib: lib.tensor([[3.0, 1.0, 4.0, 1.5], [5.0, 9.0, 2.0, 6.0]]).quantile(0.3),
    "quantile_dim_vector_q": lambda lib: lib.quantile(lib.tensor([[3.0, 1.0, 4.0], [5.0, 9.0, 2.0]]), lib.tensor([0.25, 0.5]), dim=1, keepdim=True),
    "quantile_midpoint": lambda lib: lib.tensor([[3.0, 1.0], [5.0, 9.0]]).quantile(0.4, dim=0, interpolation="midpoint"),
    "quantile_nearest": lambda lib: lib.tensor([1.0, 2.0, 3.0, 4.0]).quantile(0.5, interpolation="nearest"),
    "quantile_int": lambda lib: lib.tensor([1, 2]).quantile(0.5),
    "unique_consecutive": lambda lib: lib.tensor([1, 1, 2, 2, 3, 1, 1]).unique_consecutive(return_inverse=True, return_counts=True),
}  # fmt: skip
for name, fn in FORMS.items():
    CASES[f"forms:{name}"] = fn


@pytest.mark.parametrize("name", sorted(CASES))
def test_probe_case_matches_pytorch(name):
    ours, theirs = outcome(CASES[name], tg), outcome(CASES[name], torch)
    assert agrees(ours, theirs), f"{name}:\n here    {ours}\n PyTorch {theirs}"


def test_the_probe_is_large_enough():
    areas = {}
    for name in CASES:
        areas[name.split(":")[0]] = areas.get(name.split(":")[0], 0) + 1
    assert len(CASES) >= 300, areas
