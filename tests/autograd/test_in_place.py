"""In place, and never a silent wrong gradient: the parameter-update idioms of micrograd and
PyTorch (`.data`, `-=` under no_grad), then in-place changes, version counters and recorded
in-place ops (SPEC §1 "In place", §2 "Version counters"), each case as PyTorch behaves."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tinygrad_norm as tg
from tinygrad_norm import nn


# --- the parameter-update idioms ------------------------------------------------------------------
def trained_linear():
    tg.manual_seed(0)
    lin = nn.Linear(2, 3)
    lin(tg.ones(3, 2)).sum().backward()
    return lin


def test_data_is_a_detached_tensor_sharing_memory_as_in_pytorch():
    lin = trained_linear()
    array, before = lin.weight.numpy(), lin.weight.numpy().copy()
    for p in lin.parameters():
        p.data += -0.1 * p.grad  # micrograd's and PyTorch's update idiom
    assert lin.weight.numpy() is array  # changed in place: the same memory
    np.testing.assert_allclose(array, before - 0.1 * lin.weight.grad.numpy(), rtol=1e-6)
    data = lin.weight.data
    assert isinstance(data, tg.Tensor) and not data.requires_grad and data.grad_fn is None
    assert np.shares_memory(data.numpy(), array)
    # PyTorch's meaning of p.data.std(): the unbiased standard deviation of a Tensor
    np.testing.assert_allclose(float(data.std()), np.std(array, ddof=1), rtol=1e-6)
    lin.weight.data.normal_(0, 0.02)  # initialisation through .data, as courses write it
    assert lin.weight.numpy() is array and abs(float(array.std()) - 0.02) < 0.015
    assert lin(tg.ones(1, 2)).shape == (1, 3)  # the model still works


def test_writes_through_data_are_not_tracked_as_in_pytorch():
    x = tg.ones(3, requires_grad=True)
    w = tg.ones(3)
    y = x * w
    w.data.mul_(2)  # PyTorch does not notice this either: .data has its own version counter
    assert w._version == 0
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_assigning_data_replaces_the_values():
    p = tg.nn.Parameter(tg.zeros(2))
    p.data = tg.tensor([1.0, 2.0])
    assert p.tolist() == [1.0, 2.0] and p.requires_grad


def test_minus_equals_under_no_grad_updates_the_parameter():
    lin = trained_linear()
    weight, before = lin.weight, lin.weight.numpy().copy()
    with tg.no_grad():
        for p in lin.parameters():
            p -= 0.1 * p.grad
    assert lin.weight is weight
    np.testing.assert_allclose(weight.numpy(), before - 0.1 * weight.grad.numpy(), rtol=1e-6)


def test_in_place_on_a_leaf_that_requires_grad_while_recording_is_an_error():
    w = tg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="no_grad"):
        w += 1
    np.testing.assert_array_equal(w.numpy(), np.ones(3))


def test_other_tensors_change_in_place_as_in_pytorch():
    x = tg.ones(2)
    w = tg.ones(2, requires_grad=True)
    y = w * 2  # a non-leaf
    alias_x, alias_y = x, y
    x += 1
    y *= 3
    assert x is alias_x and x.tolist() == [2.0, 2.0] and x._version == 1
    assert y is alias_y and y.tolist() == [6.0, 6.0] and repr(y.grad_fn) == "<MulBackward>"
    y.sum().backward()
    assert w.grad.tolist() == [6.0, 6.0]


# --- version counters -----------------------------------------------------------------------------
VERSION_ERROR = "modified by an inplace operation"


def x_and_w():
    x = tg.tensor([1.0, 2.0, 3.0], dtype=tg.float64, requires_grad=True)
    w = tg.tensor([4.0, 5.0, 6.0], dtype=tg.float64)
    return x, w


@pytest.mark.parametrize(
    "change",
    [
        lambda w: w.zero_(),
        lambda w: w.__setitem__(Ellipsis, 0.0),
        lambda w: w.normal_(),
        lambda w: w.uniform_(),
        lambda w: w.fill_(2.0),
        lambda w: w.add_(1.0),
        lambda w: w.mul_(0.5),
        lambda w: w.clamp_(0.0, 4.5),
        lambda w: w.copy_(tg.zeros(3)),
        lambda w: w.masked_fill_(np.array([True, False, True]), 0.0),
        lambda w: np.multiply(w, 0, out=w),
        lambda w: w.__iadd__(1.0),
    ],
    ids=[
        "zero_",
        "setitem",
        "normal_",
        "uniform_",
        "fill_",
        "add_",
        "mul_",
        "clamp_",
        "copy_",
        "masked_fill_",
        "np.multiply(out=)",
        "+=",
    ],  # fmt: skip
)
def test_changing_a_saved_tensor_before_backward_raises_the_version_error(change):
    x, w = x_and_w()
    y = x * w  # MulBackward saves w (for x's gradient)
    change(w)
    assert w._version >= 1
    with pytest.raises(RuntimeError, match=rf"{VERSION_ERROR}: \[float64 tensor of shape \[3\]\], "
                       r"saved by MulBackward, is at version \d; expected version 0"):  # fmt: skip
        y.sum().backward()


def test_an_optimizer_step_between_forward_and_backward_is_caught():
    # Two losses (a GAN's pattern): stepping the optimizer changes parameters that the second
    # loss's graph saved, so its backward would use the new values.
    lin = tg.nn.Linear(3, 1)
    opt = tg.optim.SGD(lin.parameters(), lr=0.1)
    x = tg.randn(4, 3, requires_grad=True)
    loss1, loss2 = lin(x).sum(), (lin(x) ** 2).sum()
    loss1.backward()
    opt.step()
    with pytest.raises(RuntimeError, match=VERSION_ERROR):
        loss2.backward()


def test_a_change_after_backward_or_of_an_unsaved_tensor_is_fine():
    x, w = x_and_w()
    y = x + w  # AddBackward saves nothing
    w.add_(1.0)
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]
    z = x * w
    z.sum().backward()
    w.zero_()  # after backward: nothing is read any more
    assert x.grad.tolist() == [6.0, 7.0, 8.0]


def test_changing_an_output_that_its_node_saved_is_caught():
    x = tg.tensor([0.5, 1.0], dtype=tg.float64, requires_grad=True)
    y = x.exp()  # ExpBackward saves its output
    y.add_(1.0)
    with pytest.raises(RuntimeError, match=r"saved by AddBackward|saved by ExpBackward"):
        y.sum().backward()


def test_a_view_shares_the_version_counter_of_its_base():
    x, w = x_and_w()
    view = w.reshape(3, 1)[:, 0]
    y = x * w
    view.mul_(2.0)  # w's memory changes through the view
    assert w._version == view._version == 1
    assert w.tolist() == [8.0, 10.0, 12.0]
    with pytest.raises(RuntimeError, match=VERSION_ERROR):
        y.sum().backward()


def test_writes_through_detach_are_tracked_and_through_data_are_not():
    x, w = x_and_w()
    y = x * w
    w.detach().zero_()  # detach shares the version counter, as in PyTorch
    with pytest.raises(RuntimeError, match=VERSION_ERROR):
        y.sum().backward()


def test_in_place_on_a_leaf_that_requires_grad_is_pytorchs_error():
    w = tg.ones(3, requires_grad=True)
    for change in (lambda: w.zero_(), lambda: w.add_(1), lambda: w.__setitem__(0, 2.0)):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            change()
    with tg.no_grad():
        w.zero_()
        w[0] = 5.0
    assert w.tolist() == [5.0, 0.0, 0.0] and w._version == 2


def test_in_place_on_a_slice_is_written_back_into_its_base_as_pytorch():
    w = tg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=tg.float64, requires_grad=True)
    h = w * 1
    h[0] += tg.tensor([10.0, 20.0], dtype=tg.float64)  # x[i] += v: getitem, iadd, setitem
    row = h[1]
    row.mul_(3)  # a view made by indexing: the change is recorded in h
    assert h.tolist() == [[11.0, 22.0], [9.0, 12.0]] and row.tolist() == [9.0, 12.0]
    (h * h).sum().backward()
    assert w.grad.tolist() == [[22.0, 44.0], [54.0, 72.0]]  # PyTorch's


def test_backprop_ninja_accumulates_into_rows_of_a_zero_tensor():
    # makemore's "backprop ninja": dC[ix] += demb[k] with grad mode on
    rng = np.random.default_rng(0)
    emb = tg.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    demb = emb * 2
    ix = [1, 3, 1, 0]
    dC = tg.zeros(5, 3, dtype=tg.float64)
    for k in range(4):
        dC[ix[k]] += demb[k]
    expected = np.zeros((5, 3))
    np.add.at(expected, ix, 2 * emb.numpy())
    np.testing.assert_allclose(dC.numpy(), expected)
    (dC * dC).sum().backward()
    np.testing.assert_allclose(emb.grad.numpy(), 2 * 2 * expected[ix], rtol=1e-12)


def test_in_place_on_other_views_of_a_tensor_that_requires_grad_is_recorded():
    w = tg.ones(2, 3, requires_grad=True)
    h = w * 2
    h.T.mul_(3)  # a transposed view: written back into h through the transpose, as PyTorch
    h.sum().backward()
    assert w.grad.tolist() == [[6.0] * 3] * 2
    with pytest.raises(RuntimeError, match="leaf"):
        w[0].add_(1)  # written back into w, a leaf that requires grad


def test_recorded_in_place_ops_give_the_out_of_place_gradients():
    def run(in_place):
        x = tg.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=tg.float64,
                      requires_grad=True)  # fmt: skip
        w = tg.tensor([2.0, -3.0, 0.5], dtype=tg.float64, requires_grad=True)
        h = x * 1.0
        if in_place:
            h.mul_(w)
            h.add_(w, alpha=2.0)
            h.pow_(2)
            h.clamp_(max=20.0)
            h.div_(3.0)
            h -= x
            h[0, 1] = w[2] * 4  # an index-put: its gradient goes to w[2], none to the old h
        else:
            h = (((h * w + 2.0 * w) ** 2).clamp(max=20.0) / 3.0) - x
            mask = np.zeros((2, 3), dtype=bool)
            mask[0, 1] = True
            h = tg.where(mask, (w[2] * 4).expand(2, 3), h)
        (h * h).sum().backward()
        return h.tolist(), x.grad.tolist(), w.grad.tolist()

    ours, expected = run(True), run(False)
    for a, b in zip(ours, expected):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_backprop_ninja_setitem_minus_equals_on_a_tensor_that_requires_grad():
    # makemore's "backprop ninja": dlogits = softmax(logits); dlogits[range(n), Yb] -= 1.
    # Recorded, not refused; as in PyTorch, a backward through it would then find softmax's
    # saved output changed.
    logits = tg.randn(4, 5, dtype=tg.float64, requires_grad=True)
    targets = [1, 0, 4, 4]
    dlogits = logits.softmax(1)
    dlogits[range(4), targets] -= 1
    dlogits /= 4
    expected = (logits.softmax(1).numpy() - np.eye(5)[targets]) / 4
    np.testing.assert_allclose(dlogits.numpy(), expected, rtol=1e-12)
    assert repr(dlogits.grad_fn) == "<DivBackward>"
    with pytest.raises(RuntimeError, match="saved by SoftmaxBackward"):
        dlogits.sum().backward()
    assert tg.gradcheck(lambda t: _minus_one_at(t * 2.0, targets), logits.detach().requires_grad_())


def _minus_one_at(d, targets):
    d[range(len(targets)), targets] -= 1
    return d * d


def test_in_place_on_tensors_without_grad_changes_the_object_itself():
    lin = tg.nn.Linear(2, 2)
    before = lin.weight.numpy().copy()
    state = lin.state_dict()
    state["weight"] += 1  # an EMA into frozen weights, or editing a checkpoint in memory
    np.testing.assert_allclose(lin.weight.numpy(), before + 1)
    ema = tg.zeros(2, 2)
    alias = ema
    ema *= 0.9
    ema += 0.1 * lin.weight.detach()
    assert ema is alias


def test_in_place_result_must_keep_shape_and_dtype():
    x = tg.zeros(3)
    with pytest.raises(RuntimeError, match=r"add_: the result has shape \(2, 3\)"):
        x.add_(tg.ones(2, 3))
    i = tg.tensor([1, 2])
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type int64"):
        i.add_(0.5)
    e = tg.ones(3).expand(2, 3)
    with pytest.raises(RuntimeError, match="write into a clone"):
        e.add_(1)


# --- random graphs, random in-place changes ------------------------------------------------------
OPS = {
    "mul": lambda a, b: a * b,
    "add": lambda a, b: a + b,
    "div": lambda a, b: a / (b * b + 1),
    "exp": lambda a, b: (a * 0.1).exp() * b,
    "tanh": lambda a, b: a.tanh() + b,
    "pow": lambda a, b: (a * a + 1) ** 0.5 * b,
}
CHANGES = {
    "add_": lambda t: t.add_(0.5),
    "mul_": lambda t: t.mul_(2.0),
    "zero_": lambda t: t.zero_(),
    "setitem": lambda t: t.__setitem__(0, 3.0),
}


def _run(lib, program, values):
    """Build a small graph from `program`, change a constant or an intermediate in place,
    backpropagate; return the gradients, or the word "error"."""
    ops, change_at, change, target_is_constant = program
    x = lib.tensor(values[0], dtype=lib.float64, requires_grad=True)
    c = lib.tensor(values[1], dtype=lib.float64)
    h = x
    nodes = []
    for name in ops:
        h = OPS[name](h, c)
        nodes.append(h)
    target = c if target_is_constant else nodes[change_at % len(nodes)]
    try:
        CHANGES[change](target)
        h.sum().backward()
    except RuntimeError as error:
        return "error: " + str(error)
    return x.grad.numpy().tolist()


@given(
    ops=st.lists(st.sampled_from(sorted(OPS)), min_size=1, max_size=4),
    change_at=st.integers(0, 3),
    change=st.sampled_from(sorted(CHANGES)),
    target_is_constant=st.booleans(),
)
def test_random_in_place_changes_raise_or_give_the_out_of_place_gradients(
    ops, change_at, change, target_is_constant
):
    program = (ops, change_at, change, target_is_constant)
    values = ([0.3, -0.7, 1.1], [0.9, 1.3, -0.4])
    ours = _run(tg, program, values)
    if isinstance(ours, str):  # the only refusal these graphs can meet
        assert VERSION_ERROR in ours, ours
    else:
        assert np.isfinite(ours).all(), ours
    torch = _torch_or_none()
    if torch is not None:
        theirs = _run(torch, program, values)
        if isinstance(theirs, str):
            assert isinstance(ours, str), f"PyTorch raised ({theirs}), we gave {ours}"
        else:
            assert not isinstance(ours, str), f"we raised ({ours}), PyTorch gave {theirs}"
            np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def _torch_or_none():
    try:
        import torch
    except ImportError:
        return None
    return torch


# --- found by an outside review: each was a silent wrong number before ---------------------------
def test_a_view_taken_before_an_in_place_change_of_its_base_follows_the_change():
    """PyTorch rebuilds the view's history from its base's new one; so do we (it used to be
    refused; before that, the gradient skipped the change: a silent wrong number)."""
    w = tg.ones(3, requires_grad=True)
    y = w * 2
    v, u = y[:2], y.t()[1:]
    y.mul_(3)
    v.sum().backward(retain_graph=True)
    assert v.tolist() == [6.0, 6.0] and w.grad.tolist() == [6.0, 6.0, 0.0]
    u.sum().backward()  # a view taken by a replay (t, then a slice)
    assert w.grad.tolist() == [6.0, 12.0, 6.0]


def test_a_recorded_in_place_change_of_a_view_of_a_constant_is_recorded():
    x = tg.zeros(3, 2)
    w = tg.ones(3, requires_grad=True)
    x.T[0] = w * 2  # written into x's first column, as PyTorch
    (x * x).sum().backward()
    assert x[:, 0].tolist() == [2.0] * 3 and w.grad.tolist() == [8.0] * 3


def test_a_cast_to_integers_carries_no_gradient():
    w = tg.tensor([1.5, 2.7], requires_grad=True)
    (w.long().float() * 3 + w).sum().backward()
    assert w.grad.tolist() == [1.0, 1.0]
    x = tg.zeros(2, dtype=tg.int64)
    x.copy_(w)
    assert not x.requires_grad and x.tolist() == [1, 2]


def test_an_index_or_mask_changed_after_forward_does_not_change_the_gradient():
    x = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    idx = tg.tensor([0, 1])
    y = x[idx] * tg.tensor([10.0, 20.0])
    idx[0] = 2
    y.sum().backward()
    assert x.grad.tolist() == [10.0, 20.0, 0.0]
    m = tg.tensor([True, False, False])
    z = tg.where(m, x, 0.0)
    m.fill_(True)
    x.grad = None
    z.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 0.0]


class _Identity(tg.Function):
    @staticmethod
    def forward(ctx, a):
        return a  # the very same array: the output shares the input's memory

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


def test_an_output_that_is_its_input_array_shares_the_version_counter():
    w = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = w * 1
    s = a * a
    y = _Identity.apply(a)
    with pytest.raises(RuntimeError, match="view of another tensor"):
        y.mul_(10)
    with tg.no_grad():
        y.mul_(10)
    with pytest.raises(RuntimeError, match=VERSION_ERROR):
        s.sum().backward()


def test_retain_grad_follows_the_tensor_through_an_in_place_change():
    x = tg.ones(3, requires_grad=True)
    y = x * 1
    y.retain_grad()
    y.mul_(2)
    y.sum().backward()
    assert y.grad.tolist() == [1.0, 1.0, 1.0] and x.grad.tolist() == [2.0, 2.0, 2.0]


def test_contiguous_copies_a_transposed_view():
    x = tg.zeros(2, 3)
    c = x.T.contiguous()
    c += 1
    assert x.tolist() == [[0.0] * 3] * 2
    assert x.contiguous() is x


def test_fill_takes_a_number_or_a_0d_tensor_and_a_refusal_draws_nothing():
    with pytest.raises(RuntimeError, match="fill_ only supports a number or a 0-dimension"):
        tg.zeros(3).fill_(tg.ones(3))
    w = tg.ones(2, requires_grad=True)
    state = tg.random.get_rng_state()
    with pytest.raises(RuntimeError, match="leaf"):
        w.uniform_()
    assert np.array_equal(tg.random.get_rng_state(), state)


def test_setitem_without_a_graph_writes_only_the_places():
    big = tg.zeros(1000, 10)
    big[3] = tg.arange(10).float()
    big[5, 2] += 1
    # 3, as PyTorch: big[5, 2] is a view, += bumps the shared counter, then the write-back does
    assert big[3].tolist() == list(range(10)) and float(big[5, 2]) == 1.0 and big._version == 3


def test_cross_entropy_with_every_target_ignored_gives_zero_gradients_not_nan():
    logits = tg.randn(3, 4, dtype=tg.float64, requires_grad=True)
    loss = tg.nn.functional.cross_entropy(logits, tg.tensor([-100, -100, -100]))
    assert np.isnan(float(loss))  # the mean of nothing, as PyTorch
    loss.backward()
    assert logits.grad.tolist() == [[0.0] * 4] * 3
    tg.optim.SGD([logits], lr=0.1).step()
    assert np.isfinite(logits.numpy()).all()  # a training step does not poison the weights


class _SquareKeeping(tg.Function):
    """x^2, keeping x with save_for_backward or as a plain ctx attribute (`how`)."""

    @staticmethod
    def forward(ctx, x, how):
        if how == "saved":
            ctx.save_for_backward(x)
        else:
            ctx.x = x
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors if ctx.kwargs["how"] == "saved" else (ctx.x,)
        return grad_output * 2 * tg.tensor(x)


def test_only_what_save_for_backward_kept_is_version_checked():
    # As in PyTorch: save_for_backward's tensors are checked; a plain attribute is the
    # Function's own business (README, "Check a hand-written backward").
    b = tg.tensor([1.0, 2.0], requires_grad=True)
    x = b * 1
    y = _SquareKeeping.apply(x, how="saved")
    x.mul_(10)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    x = b * 1
    y = _SquareKeeping.apply(x, how="attribute")
    x.mul_(10)
    y.sum().backward()  # not checked: the attribute holds the changed array
    np.testing.assert_array_equal(b.grad.numpy(), [20.0, 40.0])
