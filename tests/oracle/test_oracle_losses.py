"""Losses and distances against PyTorch in float64: values and gradients, with non-default
arguments (reductions, weights, pos_weight, ignore_index, margins, beta/delta, log_target, full,
zero_infinity)."""

import numpy as np
import pytest

import tinygrad_norm as tg
import tinygrad_norm.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional
pytestmark = pytest.mark.oracle

rng = np.random.default_rng(0)
X, X2 = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
P, Y = rng.uniform(0.05, 0.95, (3, 4)), rng.uniform(0, 1, (3, 4))
SIGN = np.array([1.0, -1.0, 1.0])


def compare(name, arrays, differentiable, lib_name=None, **kw):
    """Values and the gradients of the inputs flagged in `differentiable` equal PyTorch's."""
    ours = [tg.tensor(a, requires_grad=d) for a, d in zip(arrays, differentiable)]
    theirs = [torch.tensor(a, requires_grad=d) for a, d in zip(arrays, differentiable)]
    ours_kw = {k: tg.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    theirs_kw = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    fn, tfn = (
        (getattr(tg, lib_name), getattr(torch, lib_name))
        if lib_name
        else (getattr(F, name), getattr(TF, name))
    )
    out, tout = fn(*ours, **ours_kw), tfn(*theirs, **theirs_kw)
    assert tuple(out.shape) == tuple(tout.shape)
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = rng.standard_normal(tuple(out.shape))
    (out * tg.tensor(g)).sum().backward()
    (tout * torch.tensor(g)).sum().backward()
    for a, ta, d in zip(ours, theirs, differentiable):
        if d:
            np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-9, atol=1e-12)


REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy(reduction):
    compare("binary_cross_entropy", [P, Y], [True, True], reduction=reduction)
    weight = rng.uniform(0, 1, 4)  # one per column
    compare("binary_cross_entropy", [P, Y], [True, False], weight=weight, reduction=reduction)


@pytest.mark.filterwarnings("ignore:divide by zero encountered in log")  # log(0) on purpose
def test_binary_cross_entropy_clamps_the_log_at_minus_100():
    p, y = np.array([0.0, 1.0, 0.5]), np.array([1.0, 0.0, 1.0])
    out = F.binary_cross_entropy(tg.tensor(p), tg.tensor(y), reduction="none")
    tout = TF.binary_cross_entropy(torch.tensor(p), torch.tensor(y), reduction="none")
    np.testing.assert_allclose(out.numpy(), tout.numpy())
    assert out.tolist()[:2] == [100.0, 100.0]


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_with_logits(reduction):
    arrays, grads = [X * 20, Y], [True, True]
    compare("binary_cross_entropy_with_logits", arrays, grads, reduction=reduction)
    compare(
        "binary_cross_entropy_with_logits",
        arrays,
        grads,
        reduction=reduction,
        weight=rng.uniform(0, 1, (3, 1)),
        pos_weight=rng.uniform(0.5, 3, 4),
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_losses(reduction):
    compare("l1_loss", [X, X2], [True, True], reduction=reduction)
    compare("smooth_l1_loss", [X, X2], [True, True], reduction=reduction, beta=0.7)
    compare("smooth_l1_loss", [X, X2], [True, True], reduction=reduction, beta=0.0)
    compare("huber_loss", [X, X2], [True, True], reduction=reduction, delta=0.6)
    compare("soft_margin_loss", [X, np.sign(X2)], [True, False], reduction=reduction)


@pytest.mark.filterwarnings("ignore::UserWarning")  # PyTorch's note on reduction="mean"
@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
def test_kl_div(reduction):
    log_q = np.log(rng.dirichlet(np.ones(4), 3))
    target = rng.dirichlet(np.ones(4), 3)
    target[0, 1] = 0.0  # 0 · log 0 counts as 0
    compare("kl_div", [log_q, target], [True, False], reduction=reduction)
    compare(
        "kl_div", [log_q, np.log(target + 0.1)], [True, True], reduction=reduction, log_target=True
    )


def test_poisson_and_gaussian_nll():
    counts = rng.poisson(2, (3, 4)).astype(float)
    compare("poisson_nll_loss", [X, counts], [True, False])
    compare(
        "poisson_nll_loss",
        [np.abs(X) + 0.1, counts],
        [True, False],
        log_input=False,
        full=True,
        reduction="sum",
    )
    for var in [rng.uniform(0.5, 2, (3, 4)), rng.uniform(0.5, 2, (3, 1)), rng.uniform(0.5, 2, 3)]:
        compare("gaussian_nll_loss", [X, X2, var], [True, True, True], full=True)
    tiny = np.array([1e-9, 1.0, 1e-7])  # clamped at eps for the value, not for the gradient
    compare("gaussian_nll_loss", [X, X2, tiny], [True, True, True], eps=1e-3, reduction="none")


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_margin_losses(reduction):
    compare(
        "margin_ranking_loss",
        [X[:, 0], X2[:, 0], SIGN],
        [True, True, False],
        margin=0.3,
        reduction=reduction,
    )
    compare(
        "hinge_embedding_loss", [X, np.sign(X2)], [True, False], margin=0.5, reduction=reduction
    )
    compare(
        "cosine_embedding_loss", [X, X2, SIGN], [True, True, False], margin=0.2, reduction=reduction
    )


def test_similarities_and_distances():
    compare("cosine_similarity", [X, X2], [True, True], dim=0)
    compare("cosine_similarity", [rng.standard_normal((2, 3, 4)), X2], [True, True], dim=-1)
    tiny = np.array([[1e-9, 2e-9], [3.0, 4.0]])  # norm below eps: clamped for the value only
    compare("cosine_similarity", [tiny, X2[:2, :2]], [True, True])
    compare("pairwise_distance", [X, X2], [True, True], p=3.0, keepdim=True)
    compare("pairwise_distance", [X, X2], [True, True], p=1.0, eps=0.0)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5, 4))
    compare("cdist", [a, b], [True, True], lib_name="cdist")
    compare("cdist", [a[0], b[0]], [True, True], lib_name="cdist", p=1.0)


@pytest.mark.parametrize("ignore_index", [-100, 2])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_with_weight_and_ignore_index(reduction, ignore_index):
    log_p = np.log(rng.dirichlet(np.ones(4), 5))
    target = np.array([0, 2, 3, 2, 1])
    compare(
        "nll_loss",
        [log_p, target],
        [True, False],
        weight=rng.uniform(0.5, 2, 4),
        ignore_index=ignore_index,
        reduction=reduction,
    )


T, N, C = 6, 3, 5
LOGITS = rng.standard_normal((T, N, C))
TARGETS, TARGET_LENGTHS = np.array([[1, 2, 2], [3, 1, 0], [4, 0, 0]]), np.array([3, 2, 1])


def ctc_both(logits, targets, input_lengths, **kw):
    """Our and PyTorch's CTC loss of log_softmax(logits), and the logits' gradients."""
    a = tg.tensor(logits, requires_grad=True)
    b = torch.tensor(logits, requires_grad=True)
    lengths = [np.asarray(input_lengths), TARGET_LENGTHS]
    out = F.ctc_loss(F.log_softmax(a, 2), tg.tensor(targets), *lengths, **kw)
    tout = TF.ctc_loss(
        TF.log_softmax(b, 2), torch.tensor(targets), *map(torch.tensor, lengths), **kw
    )
    g = rng.standard_normal(tuple(out.shape))
    (out * tg.tensor(g)).sum().backward()
    (tout * torch.tensor(g)).sum().backward()
    return out, tout, a.grad, b.grad


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("concatenated", [False, True])
def test_ctc_loss(reduction, concatenated):
    targets = TARGETS
    if concatenated:
        targets = np.concatenate([row[:n] for row, n in zip(TARGETS, TARGET_LENGTHS)])
    out, tout, grad, tgrad = ctc_both(LOGITS, targets, [6, 5, 4], reduction=reduction)
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(grad.numpy(), tgrad.numpy(), rtol=1e-9, atol=1e-12)


def test_ctc_loss_zero_infinity():
    """Two frames cannot hold three labels: an infinite loss, or 0 with zero_infinity."""
    out, tout, grad, tgrad = ctc_both(
        LOGITS, TARGETS, [2, 5, 4], reduction="none", zero_infinity=True
    )
    assert out.tolist()[0] == 0.0
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(grad.numpy(), tgrad.numpy(), rtol=1e-9, atol=1e-12)
    out = F.ctc_loss(
        tg.tensor(LOGITS), tg.tensor(TARGETS), [2, 5, 4], TARGET_LENGTHS, reduction="none"
    )
    assert np.isinf(out.numpy()[0])


@pytest.mark.parametrize(
    "name, kwargs, arrays",
    [
        ("BCELoss", dict(reduction="sum"), [P, Y]),
        ("BCEWithLogitsLoss", dict(pos_weight=np.array([1.0, 2.0, 0.5, 3.0])), [X, Y]),
        ("L1Loss", dict(), [X, X2]),
        ("SmoothL1Loss", dict(beta=0.5), [X, X2]),
        ("HuberLoss", dict(delta=0.5), [X, X2]),
        ("KLDivLoss", dict(reduction="batchmean"), [X, rng.dirichlet(np.ones(4), 3)]),
        ("PoissonNLLLoss", dict(full=True), [X, rng.poisson(2, (3, 4)).astype(float)]),
        ("GaussianNLLLoss", dict(), [X, X2, rng.uniform(0.5, 2, (3, 4))]),
        ("MarginRankingLoss", dict(margin=0.1), [X[:, 0], X2[:, 0], SIGN]),
        ("HingeEmbeddingLoss", dict(), [X, np.sign(X2)]),
        ("CosineEmbeddingLoss", dict(margin=0.1), [X, X2, SIGN]),
        ("SoftMarginLoss", dict(), [X, np.sign(X2)]),
        ("CosineSimilarity", dict(dim=0), [X, X2]),
        ("PairwiseDistance", dict(p=1.5), [X, X2]),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_loss_modules_match_pytorch(name, kwargs, arrays):
    ours_kw = {k: tg.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    theirs_kw = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    out = getattr(tg.nn, name)(**ours_kw)(*map(tg.tensor, arrays))
    tout = getattr(torch.nn, name)(**theirs_kw)(*map(torch.tensor, arrays))
    np.testing.assert_allclose(out.numpy(), tout.numpy(), rtol=1e-10, atol=1e-12)


def test_ctc_loss_module_matches_pytorch():
    lp = LOGITS - np.log(np.exp(LOGITS).sum(-1, keepdims=True))
    args = [lp, TARGETS, np.array([6, 5, 4]), TARGET_LENGTHS]
    out = tg.nn.CTCLoss(reduction="sum")(*map(tg.tensor, args))
    tout = torch.nn.CTCLoss(reduction="sum")(*map(torch.tensor, args))
    np.testing.assert_allclose(out.numpy(), tout.numpy(), rtol=1e-10)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's log of a negative, on purpose
@pytest.mark.parametrize("reduction", ["sum", "none"])
def test_kl_div_at_negative_nan_and_zero_targets(reduction):
    """PyTorch's xlogy(t, t) - t · input: NaN for a negative or NaN target and for a zero
    target against an infinite input (0 · inf); ours dropped them as if 0 (the sum of the
    sweep's case was -0.4466, PyTorch's NaN)."""
    log_q = np.array([0.5, 0.2, -np.inf, 0.3, 0.1, -1.5])
    target = np.array([-1.0, 0.0, 0.0, 0.5, np.nan, 0.25])
    compare("kl_div", [log_q, target], [True, False], reduction=reduction)
    compare("kl_div", [log_q[1:], target[1:]], [True, False], reduction=reduction)
    compare("kl_div", [log_q[3:], target[3:]], [True, True], reduction=reduction)
    # the target's gradient also matches where it is not 0 (NaN below 0); at 0 see the README
    ours, theirs = tg.tensor(target, requires_grad=True), torch.tensor(target, requires_grad=True)
    F.kl_div(tg.tensor(log_q), ours, reduction="sum").backward()
    TF.kl_div(torch.tensor(log_q), theirs, reduction="sum").backward()
    nonzero = target != 0
    np.testing.assert_allclose(ours.grad.numpy()[nonzero], theirs.grad.numpy()[nonzero])


INTEGER_REFUSED = {  # the losses PyTorch refuses an integer or bool input to
    "mse_loss": lambda lib, x: lib.nn.functional.mse_loss(x, x),
    "l1_loss": lambda lib, x: lib.nn.functional.l1_loss(x, x),
    "smooth_l1_loss": lambda lib, x: lib.nn.functional.smooth_l1_loss(x, x),
    "huber_loss": lambda lib, x: lib.nn.functional.huber_loss(x, x),
    "soft_margin_loss": lambda lib, x: lib.nn.functional.soft_margin_loss(x, x),
    "binary_cross_entropy": lambda lib, x: lib.nn.functional.binary_cross_entropy(x, x),
    "binary_cross_entropy_with_logits": lambda lib, x: (
        lib.nn.functional.binary_cross_entropy_with_logits(x, x)
    ),
    "kl_div": lambda lib, x: lib.nn.functional.kl_div(x, x, reduction="sum"),
    "hinge_embedding_loss": lambda lib, x: lib.nn.functional.hinge_embedding_loss(x, x),
    "nll_loss": lambda lib, x: lib.nn.functional.nll_loss(x, lib.tensor([0, 1])),
    "cross_entropy": lambda lib, x: lib.nn.functional.cross_entropy(x, lib.tensor([0, 1])),
}


@pytest.mark.filterwarnings("ignore::UserWarning")  # PyTorch's note on kl_div's reduction
@pytest.mark.parametrize("dtype", ["uint8", "int64", "bool"])
@pytest.mark.parametrize("name", list(INTEGER_REFUSED))
def test_integer_inputs_raise_pytorchs_error_class(name, dtype):
    """Ours is PyTorch's class or a subclass of it (NotImplementedError is a RuntimeError)."""
    values = np.array([[1, 0], [0, 1]]).astype(dtype)
    with pytest.raises(Exception) as theirs:
        INTEGER_REFUSED[name](torch, torch.tensor(values))
    with pytest.raises(theirs.type):
        INTEGER_REFUSED[name](tg, tg.tensor(values))


@pytest.mark.parametrize("dtype", ["uint8", "int64", "bool"])
@pytest.mark.parametrize(
    "name",
    "mse_loss l1_loss smooth_l1_loss huber_loss soft_margin_loss poisson_nll_loss "
    "hinge_embedding_loss".split(),
)
def test_float_input_with_an_integer_target_matches_pytorch(name, dtype):
    """PyTorch promotes an integer target to the input's dtype; a uint8 target used to wrap
    around in soft_margin_loss's -target (25.85 where PyTorch gives 0.6456)."""
    x = np.array([[0.5, 0.2], [-0.3, 0.9]], dtype=np.float32)
    target = np.array([[1, 0], [0, 1]]).astype(dtype)
    ours = getattr(F, name)(tg.tensor(x), tg.tensor(target))
    try:
        theirs = getattr(TF, name)(torch.tensor(x), torch.tensor(target))
    except RuntimeError:  # l1_loss and a bool target: "-" of a bool; ours takes it as 0 and 1
        theirs = getattr(TF, name)(torch.tensor(x), torch.tensor(target.astype(np.float32)))
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
