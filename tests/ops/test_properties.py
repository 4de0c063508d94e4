"""Property-based tests: random small graphs of ops, checked by finite differences and PyTorch.

Hypothesis draws a graph: an input shape (0 to 3 axes of sizes 1 to 3) and a chain of 1 to 4
ops from `OPS` below (elementwise arithmetic with broadcasting on either side, exp, tanh,
sigmoid, log / sqrt / pow of positive values, sum / mean / var over random dims, reshapes,
permutes, softmax / log_softmax, matmul with broadcast batches, indexing with slices and
repeated integer indices, cat). Each op that takes a second tensor draws it with a shape that
broadcasts against the current one. Every input requires grad, so the gradients of the extra
operands (summed back over their broadcast axes) are checked too.

Graphs come in families (`FAMILIES`): long chains of any ops, and shorter graphs that stress
one thing (broadcasting, reductions over random dims, movement, indexing that mixes integers,
slices and lists); and every op is also tested first in a graph of its own, so none is left
out by chance.

Each graph is then checked twice:

* `tg.gradcheck` in float64: backward agrees with central differences, element by element;
* against PyTorch (`oracle`, skipped without torch): the same program run by torch gives the
  same values and the same gradients for one random upstream gradient (rtol 1e-9).

The values stay away from kinks and poles by construction: log, sqrt and negative powers only
see `x * x + 0.5`, a divisor is drawn from [0.5, 2], and `Graph.bound` (an upper bound on the
magnitudes so far) keeps exp and the growing ops from reaching sizes where finite differences
lose their digits.

The number of examples comes from the Hypothesis profile (tests/conftest.py): "ci" (the
default, fixed and small) or "fuzz" (`make fuzz`, many more).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tinygrad_norm as tg

MAX_DIMS = 4  # no intermediate result gets more axes than this
MAX_SIDE = 3
GROWTH_LIMIT = 50.0  # ops that multiply the magnitude only run below this bound
EXP_LIMIT = 4.0  # exp only of values with |x| <= 4: at most e^4 ~ 55


@dataclass
class Operand:
    """A second input of the graph: its shape and where its values are drawn from."""

    shape: tuple
    positive: bool = False  # values in [0.5, 2] (a divisor, the base of a power), else [-2, 2]


@dataclass
class Graph:
    """A program: the input's shape, the extra operands, and the ops in order."""

    shape: tuple
    operands: list = field(default_factory=list)
    steps: list = field(default_factory=list)  # (op name, dict of arguments)
    out_shape: tuple = ()  # the shape the ops must produce, worked out while drawing

    def __repr__(self) -> str:
        ops = " -> ".join(f"{name}({args})" for name, args in self.steps)
        shapes = [o.shape for o in self.operands]
        return f"Graph(x{self.shape}, operands {shapes}: {ops})"


def run(graph: Graph, x, operands, index_list):
    """Run `graph` on `x` and `operands` (tg or torch tensors: the calls are the same).

    `index_list` turns a Python list of indices into what the library indexes with (a list for
    tg, a LongTensor for torch: both mean an integer-array index).
    """
    for name, a in graph.steps:
        y = operands[a["operand"]] if "operand" in a else None
        if name == "add":
            x = x + y
        elif name == "radd":
            x = y + x
        elif name == "sub":
            x = x - y
        elif name == "rsub":
            x = y - x
        elif name == "mul":
            x = x * y
        elif name == "div":
            x = x / y  # y in [0.5, 2]
        elif name == "scalar":
            x = (a["a"] * x + a["b"]) / a["c"] + (a["d"] - x) * 0.5
        elif name == "exp":
            x = x.exp()
        elif name == "tanh":
            x = x.tanh()
        elif name == "sigmoid":
            x = x.sigmoid()
        elif name == "log":
            x = (x * x + 0.5).log()
        elif name == "sqrt":
            x = (x * x + 0.5).sqrt()
        elif name == "pow":
            x = (x * x + 0.5) ** a["p"] if a["p"] < 0 or a["p"] % 1 else x ** a["p"]
        elif name == "rpow":
            x = y**x  # base in [0.5, 2]: d/dbase and d/dexponent (log(base)) both finite
        elif name in ("sum", "mean"):
            x = getattr(x, name)(dim=a["dim"], keepdim=a["keepdim"])
        elif name == "var":
            x = x.var(dim=a["dim"], correction=a["correction"], keepdim=a["keepdim"])
        elif name in ("softmax", "log_softmax"):
            x = getattr(x, name)(a["dim"])
        elif name == "reshape":
            x = x.reshape(a["shape"])
        elif name == "permute":
            x = x.permute(*a["dims"])
        elif name == "transpose":
            x = x.transpose(a["dim0"], a["dim1"])
        elif name == "unsqueeze":
            x = x.unsqueeze(a["dim"])
        elif name == "matmul":
            x = x @ y
        elif name == "rmatmul":
            x = y @ x
        elif name in ("getitem", "getitem_mixed"):
            x = x[tuple(index_list(i) if isinstance(i, list) else i for i in a["index"])]
        elif name == "cat":
            pieces = (x, y) if a["first"] else (y, x)
            x = type_cat(x)(pieces, a["dim"])
        else:  # pragma: no cover - a name in OPS without a rule here
            raise AssertionError(name)
    return x


def type_cat(x):
    """`tg.cat` or `torch.cat`, whichever library `x` comes from."""
    if isinstance(x, tg.Tensor):
        return tg.cat
    import torch

    return torch.cat


# --- drawing a graph, one op at a time ----------------------------------------------------------
# Each draw_* takes (draw, graph, shape, bound) and returns (args, new shape, new bound), or None
# when the op does not apply to this shape.


def _operand(draw, graph, shape, positive=False, max_dims=MAX_DIMS):
    """A new operand whose shape broadcasts against `shape`; returns its index and shape."""
    other = draw(
        hnp.broadcastable_shapes(
            shape, min_dims=0, max_dims=max_dims, min_side=1, max_side=max((MAX_SIDE,) + shape)
        )
    )
    graph.operands.append(Operand(other, positive))
    return len(graph.operands) - 1, other


def draw_binary(positive=False, growth=lambda bound: bound + 2.0):
    def draw_op(draw, graph, shape, bound):
        if bound > GROWTH_LIMIT:
            return None
        index, other = _operand(draw, graph, shape, positive)
        return {"operand": index}, np.broadcast_shapes(shape, other), growth(bound)

    return draw_op


def draw_scalar(draw, graph, shape, bound):
    if bound > GROWTH_LIMIT:
        return None
    a, b, d = (draw(st.sampled_from([-1.5, -0.5, 0.25, 2.0])) for _ in range(3))
    c = draw(st.sampled_from([0.5, 3.0, -2.0]))  # Python numbers on both sides of each op
    new_bound = (abs(a) * bound + abs(b)) * 2 + abs(d) + bound / 2
    return {"a": a, "b": b, "c": c, "d": d}, shape, new_bound


def draw_unary(new_bound):
    def draw_op(draw, graph, shape, bound):
        result = new_bound(bound)
        return None if result is None else ({}, shape, result)

    return draw_op


def draw_pow(draw, graph, shape, bound):
    p = draw(st.sampled_from([2, 3, 0.5, 1.5, -0.5, -1.5]))
    if isinstance(p, int):
        return None if bound > 8 else ({"p": p}, shape, bound**p)
    return {"p": p}, shape, (bound * bound + 0.5) ** abs(p) + 2.0**1.5


def draw_rpow(draw, graph, shape, bound):
    if bound > EXP_LIMIT:
        return None
    index, other = _operand(draw, graph, shape, positive=True)
    return {"operand": index}, np.broadcast_shapes(shape, other), 2.0**bound


def _dims(draw, ndim):
    """None, one dim or a tuple of distinct dims, each possibly negative."""
    if ndim == 0:
        return None
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none":
        return None
    axes = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
    dims = [d - ndim if draw(st.booleans()) else d for d in axes]  # some counted from the end
    return dims[0] if kind == "int" else tuple(dims)


def _reduced(shape, dim, keepdim):
    dims = range(len(shape)) if dim is None else [dim] if isinstance(dim, int) else dim
    dims = {d % len(shape) for d in dims} if shape else set()
    count = math.prod(shape[d] for d in dims)
    if keepdim:
        return tuple(1 if i in dims else n for i, n in enumerate(shape)), count
    return tuple(n for i, n in enumerate(shape) if i not in dims), count


def draw_reduction(name):
    def draw_op(draw, graph, shape, bound):
        dim, keepdim = _dims(draw, len(shape)), draw(st.booleans())
        new_shape, count = _reduced(shape, dim, keepdim)
        if name == "sum":
            return ({"dim": dim, "keepdim": keepdim}, new_shape, count * bound)
        if name == "mean":
            return ({"dim": dim, "keepdim": keepdim}, new_shape, bound)
        # Unbiased variance of one element divides by zero (a NaN; see
        # test_numerical_edge_cases.py).
        correction = draw(st.sampled_from([0, 1])) if count > 1 else 0
        args = {"dim": dim, "correction": correction, "keepdim": keepdim}
        return args, new_shape, 2 * bound * bound

    return draw_op


def draw_softmax(name):
    def draw_op(draw, graph, shape, bound):
        rank = max(len(shape), 1)
        dim = draw(st.integers(-rank, rank - 1))
        n = shape[dim] if shape else 1
        return {"dim": dim}, shape, 1.0 if name == "softmax" else 2 * bound + math.log(n)

    return draw_op


def draw_reshape(draw, graph, shape, bound):
    numel = math.prod(shape)
    targets = {(numel,), (1, numel), tuple(reversed(shape)), shape + (1,)}
    if len(shape) >= 2:
        targets.add((shape[0] * shape[1],) + shape[2:])
        targets.add((-1,) + shape[2:])
    targets = sorted(t for t in targets if len(t) <= MAX_DIMS)
    target = draw(st.sampled_from(targets))
    resolved = tuple(numel // max(math.prod(shape[2:]), 1) if s == -1 else s for s in target)
    return {"shape": target}, resolved, bound


def draw_permute(draw, graph, shape, bound):
    if not shape:
        return None
    order = draw(st.permutations(range(len(shape))))
    dims = tuple(d - len(shape) if draw(st.booleans()) else d for d in order)
    return {"dims": dims}, tuple(shape[d] for d in order), bound


def draw_transpose(draw, graph, shape, bound):
    if not shape:
        return None
    n = len(shape)
    d0, d1 = draw(st.integers(-n, n - 1)), draw(st.integers(-n, n - 1))
    new = list(shape)
    new[d0], new[d1] = new[d1], new[d0]
    return {"dim0": d0, "dim1": d1}, tuple(new), bound


def draw_unsqueeze(draw, graph, shape, bound):
    if len(shape) >= MAX_DIMS:
        return None
    dim = draw(st.integers(-len(shape) - 1, len(shape)))
    at = dim % (len(shape) + 1)
    return {"dim": dim}, shape[:at] + (1,) + shape[at:], bound


def _batch_shapes(batch):
    """Batch shapes (up to 2 axes) that broadcast against `batch`."""
    side = max((2,) + batch)
    return hnp.broadcastable_shapes(batch, min_dims=0, max_dims=2, min_side=1, max_side=side)


def draw_matmul(draw, graph, shape, bound):
    """x @ y with y a vector (k,) or a batch of matrices (..., k, m) broadcast against x's."""
    if not shape or bound > GROWTH_LIMIT:
        return None
    k = shape[-1]
    if draw(st.booleans()):
        other = (k,)
        result = shape[:-1]
    else:
        batch = shape[:-2]
        other_batch = draw(_batch_shapes(batch))
        m = draw(st.integers(1, MAX_SIDE))
        other = other_batch + (k, m)
        rows = shape[-2:-1]  # () when x is a vector
        result = np.broadcast_shapes(batch, other_batch) + rows + (m,)
    if len(result) > MAX_DIMS:
        return None
    graph.operands.append(Operand(other))
    return {"operand": len(graph.operands) - 1}, tuple(result), 2 * k * bound


def draw_rmatmul(draw, graph, shape, bound):
    """y @ x with x at least a matrix: y is (..., p, n) for x of shape (..., n, c)."""
    if len(shape) < 2 or bound > GROWTH_LIMIT:
        return None
    n = shape[-2]
    batch = shape[:-2]
    other_batch = draw(_batch_shapes(batch))
    p = draw(st.integers(1, MAX_SIDE))
    result = np.broadcast_shapes(batch, other_batch) + (p, shape[-1])
    if len(result) > MAX_DIMS:
        return None
    graph.operands.append(Operand(other_batch + (p, n)))
    return {"operand": len(graph.operands) - 1}, tuple(result), 2 * n * bound


def draw_getitem(draw, graph, shape, bound, mixed=False):
    """Per axis: all, a slice (with a step, from either end), an int, or (once) a list of ints
    with repeats, whose gradients must add up. `mixed`: the first three axes get an int, a
    slice and a list in a random order (PyTorch and NumPy order such results differently)."""
    if len(shape) < (3 if mixed else 1):
        return None
    kinds = ["all", "slice", "int", "int", "list", "list"]
    if mixed:
        first = draw(st.permutations(["int", draw(st.sampled_from(["all", "slice"])), "list"]))
        rest = [draw(st.sampled_from(kinds)) for _ in shape[3 : draw(st.integers(3, len(shape)))]]
        chosen = list(first) + rest
    else:  # trailing axes may be left out
        chosen = [draw(st.sampled_from(kinds)) for _ in range(draw(st.integers(1, len(shape))))]
    index, used_list = [], False
    for n, kind in zip(shape, chosen):
        if kind == "list" and not used_list:
            used_list = True
            index.append(draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=4)))
        elif kind == "int":
            index.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            start = draw(st.integers(0, n - 1))
            stop = draw(st.integers(start + 1, n))
            step = draw(st.integers(1, 2))
            if draw(st.booleans()):  # the same slice counted from the end
                start, stop = start - n, (stop - n) or None
            index.append(slice(start, stop, step))
        else:
            index.append(slice(None))
    new_shape = _index_shape(shape, index)
    return {"index": tuple(index)}, new_shape, bound


def draw_getitem_mixed(draw, graph, shape, bound):
    return draw_getitem(draw, graph, shape, bound, mixed=True)


def _index_shape(shape, index):
    """The result shape, by PyTorch's rule: integers select first, then the one list indexes.

    (NumPy alone would treat an integer next to a list as a second array index.)
    """
    out, list_len = [], None
    for i, n in enumerate(shape):
        entry = index[i] if i < len(index) else slice(None)
        if isinstance(entry, list):
            list_len = len(entry)
            out.append("list")
        elif isinstance(entry, slice):
            out.append(len(range(*entry.indices(n))))
    return tuple(list_len if s == "list" else s for s in out)


def draw_cat(draw, graph, shape, bound):
    if not shape:
        return None
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    other = list(shape)
    other[dim] = draw(st.integers(1, MAX_SIDE))
    graph.operands.append(Operand(tuple(other)))
    new_shape = list(shape)
    new_shape[dim] += other[dim]
    return (
        {"operand": len(graph.operands) - 1, "dim": dim, "first": draw(st.booleans())},
        tuple(new_shape),
        max(bound, 2.0),
    )


OPS = {
    "add": draw_binary(),
    "radd": draw_binary(),
    "sub": draw_binary(),
    "rsub": draw_binary(),
    "mul": draw_binary(growth=lambda bound: 2 * bound),
    "div": draw_binary(positive=True, growth=lambda bound: 2 * bound),
    "scalar": draw_scalar,
    "exp": draw_unary(lambda bound: math.exp(bound) if bound <= EXP_LIMIT else None),
    "tanh": draw_unary(lambda bound: 1.0),
    "sigmoid": draw_unary(lambda bound: 1.0),
    "log": draw_unary(lambda bound: max(math.log(bound * bound + 0.5), -math.log(0.5))),
    "sqrt": draw_unary(lambda bound: math.sqrt(bound * bound + 0.5)),
    "pow": draw_pow,
    "rpow": draw_rpow,
    "sum": draw_reduction("sum"),
    "mean": draw_reduction("mean"),
    "var": draw_reduction("var"),
    "softmax": draw_softmax("softmax"),
    "log_softmax": draw_softmax("log_softmax"),
    "reshape": draw_reshape,
    "permute": draw_permute,
    "transpose": draw_transpose,
    "unsqueeze": draw_unsqueeze,
    "matmul": draw_matmul,
    "rmatmul": draw_rmatmul,
    "getitem": draw_getitem,
    "getitem_mixed": draw_getitem_mixed,
    "cat": draw_cat,
}


FAMILIES = {
    # name: (ops, min and max number of ops, min and max axes of the input)
    "chains": (sorted(OPS), 1, 4, 0, 3),
    "broadcasting": (
        ["add", "radd", "sub", "rsub", "mul", "div", "rpow", "matmul", "rmatmul"],
        1,
        2,
        0,
        4,
    ),
    "reductions": (["sum", "mean", "var", "softmax", "log_softmax"], 1, 2, 0, 4),
    "movement": (["reshape", "permute", "transpose", "unsqueeze", "getitem", "cat"], 2, 4, 1, 3),
    "indexing": (["getitem", "getitem_mixed"], 1, 2, 3, 4),
}


@st.composite
def graphs(draw, family="chains", first=None):
    """A random graph of the ops of `family` (see FAMILIES), starting with op `first` if given
    (on an input of 3 axes, where every op applies)."""
    ops, min_ops, max_ops, min_dims, max_dims = FAMILIES[family]
    if first is not None:
        min_dims, max_dims = 3, 3
    shape = tuple(draw(st.lists(st.integers(1, MAX_SIDE), min_size=min_dims, max_size=max_dims)))
    graph = Graph(shape)
    bound = 2.0  # the input is drawn from [-2, 2]
    for step in range(draw(st.integers(min_ops, max_ops))):
        for _attempt in range(20):  # an op that does not apply to this shape: draw another
            name = first if step == 0 and first is not None else draw(st.sampled_from(ops))
            drawn = OPS[name](draw, graph, shape, bound)
            if drawn is not None:
                break
        else:  # e.g. a growing op after the bound was reached: end the chain with tanh
            name, drawn = "tanh", ({}, shape, 1.0)
        args, shape, bound = drawn
        graph.steps.append((name, args))
    graph.out_shape = tuple(shape)
    return graph


def inputs_of(graph: Graph, seed: int) -> list[np.ndarray]:
    """The input and every operand, as float64 arrays drawn from `seed`."""
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(-2.0, 2.0, graph.shape)]
    for operand in graph.operands:
        low, high = (0.5, 2.0) if operand.positive else (-2.0, 2.0)
        arrays.append(rng.uniform(low, high, operand.shape))
    return arrays


def run_tg(graph: Graph, arrays: list[np.ndarray]):
    leaves = [tg.tensor(a, dtype=tg.float64, requires_grad=True) for a in arrays]
    return leaves, run(graph, leaves[0], leaves[1:], list)


# --- the properties -----------------------------------------------------------------------------
SEEDS = st.integers(0, 2**32 - 1)
families = pytest.mark.parametrize("family", sorted(FAMILIES))


# Every op, first in a graph: a few examples each in the "ci" profile, a quarter of the
# profile's examples in "fuzz".
PER_OP = settings(max_examples=max(4, settings.default.max_examples // 8))
each_op = pytest.mark.parametrize("op", sorted(OPS))


def check_with_gradcheck(graph: Graph, seed: int) -> None:
    leaves, out = run_tg(graph, inputs_of(graph, seed))
    assert out.shape == graph.out_shape  # the draws meant what they produce
    fn = lambda *xs: run(graph, xs[0], xs[1:], list)  # noqa: E731
    assert tg.gradcheck(fn, tuple(leaves))


def check_with_pytorch(graph: Graph, seed: int) -> None:
    """Values and the gradient of every input, for one random upstream gradient."""
    import torch

    arrays = inputs_of(graph, seed)
    leaves, out = run_tg(graph, arrays)
    t_leaves = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    t_out = run(graph, t_leaves[0], t_leaves[1:], lambda i: torch.tensor(i, dtype=torch.long))
    assert out.shape == tuple(t_out.shape)
    np.testing.assert_allclose(out.data, t_out.detach().numpy(), rtol=1e-9, atol=1e-12)

    upstream = np.random.default_rng(seed + 1).standard_normal(out.shape)
    out.backward(tg.tensor(upstream))
    t_out.backward(torch.tensor(upstream))
    for i, (leaf, t_leaf) in enumerate(zip(leaves, t_leaves)):
        np.testing.assert_allclose(
            leaf.grad.data, t_leaf.grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=f"input {i}"
        )


@each_op
@PER_OP
@given(data=st.data(), seed=SEEDS)
def test_each_op_first_in_a_random_graph_passes_gradcheck(op, data, seed):
    check_with_gradcheck(data.draw(graphs(first=op), label="graph"), seed)


@pytest.mark.oracle
@each_op
@PER_OP
@given(data=st.data(), seed=SEEDS)
def test_each_op_first_in_a_random_graph_matches_pytorch(op, data, seed):
    pytest.importorskip("torch")
    check_with_pytorch(data.draw(graphs(first=op), label="graph"), seed)


@families
@given(data=st.data(), seed=SEEDS)
def test_random_graph_passes_gradcheck(family, data, seed):
    check_with_gradcheck(data.draw(graphs(family), label="graph"), seed)


@families
@given(data=st.data(), seed=SEEDS)
def test_random_graph_gradient_of_each_input_has_its_shape_and_dtype(family, data, seed):
    """Broadcasting is undone exactly: every leaf gets a gradient of its own shape and dtype,
    and a float32 graph stays float32 all the way back."""
    graph = data.draw(graphs(family), label="graph")
    arrays = [a.astype(np.float32) for a in inputs_of(graph, seed)]
    leaves = [tg.tensor(a, requires_grad=True) for a in arrays]
    out = run(graph, leaves[0], leaves[1:], list)
    assert out.dtype == tg.float32
    out.backward(tg.ones_like(out))
    for leaf in leaves:
        assert leaf.grad is not None
        assert leaf.grad.shape == leaf.shape and leaf.grad.dtype == tg.float32


@pytest.mark.oracle
@families
@given(data=st.data(), seed=SEEDS)
def test_random_graph_matches_pytorch_values_and_gradients(family, data, seed):
    pytest.importorskip("torch")
    check_with_pytorch(data.draw(graphs(family), label="graph"), seed)
