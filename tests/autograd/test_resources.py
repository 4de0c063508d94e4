"""Resources: memory does not grow with training, graphs free what they saved, grad mode and
anomaly detection belong to one thread, and detect_anomaly names the op that made a NaN.

test_engine.py checks the release of one op's saved array and a simple two-thread no_grad;
here the same promises are checked over a whole model and a long training loop.
"""

from __future__ import annotations

import gc
import inspect
import os
import threading
import tracemalloc
import weakref

import numpy as np
import pytest

import tinygrad_norm as tg
import tinygrad_norm.nn.functional as F
from tinygrad_norm import nn
from tinygrad_norm.autograd.engine import topological_sort


def regression(seed=0):
    """nn.Linear + LayerNorm fitting 16 random points (4 features -> 8 targets) with Adam."""
    tg.manual_seed(seed)
    model = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8))
    optimizer = tg.optim.Adam(model.parameters(), lr=1e-2)
    rng = np.random.default_rng(seed)
    x = tg.tensor(rng.standard_normal((16, 4)).astype(np.float32))
    y = tg.tensor(np.tanh(rng.standard_normal((16, 8))).astype(np.float32))

    def step():
        loss = F.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.item()

    return model, step


# --- memory over a long training loop ----------------------------------------------------------
def test_a_1000_step_training_loop_does_not_grow_in_memory():
    """tracemalloc over steps 91 to 1000. Memory in use after step 1000 equals that after step
    100 within 32 KB, and the peak of steps 901-1000 that of steps 101-200: a graph kept
    alive by mistake holds ~10 KB of arrays per step (9 MB by step 1000), and even one leaked
    tensor per step would add ~100 KB. (gc.collect() before each reading also empties
    Python's free lists, which fill up slowly and would look like growth.)"""
    _, step = regression()
    first_loss = step()
    for _ in range(89):  # warm up: optimizer state, NumPy's and Python's caches
        step()
    tracemalloc.start()
    try:
        readings = {}
        for i in range(91, 1001):
            loss = step()
            if i in (100, 200, 900, 1000):
                gc.collect()
                readings[i] = tracemalloc.get_traced_memory()  # (current, peak since reset)
                tracemalloc.reset_peak()
    finally:
        tracemalloc.stop()
    current_100, current_1000 = readings[100][0], readings[1000][0]
    peak_101_200, peak_901_1000 = readings[200][1], readings[1000][1]
    assert current_1000 - current_100 < 32 * 1024, readings
    assert peak_901_1000 - peak_101_200 < 32 * 1024, readings
    assert np.isfinite(loss) and loss < first_loss / 2  # it did train


def test_repeated_steps_leave_no_reference_cycles():
    """Freeing a step's graph needs no garbage collector: nothing in it refers back to itself,
    so each node goes as soon as the last tensor using it does."""
    _, step = regression()
    step()
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):
            step()
            assert gc.collect() == 0  # no unreachable cycle was left behind
    finally:
        gc.enable()


# --- what a graph holds before and after backward ----------------------------------------------
def _graph_of_a_model_step():
    """A forward pass through Linear, LayerNorm, GELU, dropout and cross-entropy (fused ops and
    primitives); returns the model, the input, the loss and the graph's nodes."""
    tg.manual_seed(1)
    model = nn.Sequential(
        nn.Linear(6, 12), nn.LayerNorm(12), nn.GELU(), nn.Dropout(0.1), nn.Linear(12, 5)
    )
    x = tg.randn(8, 6, requires_grad=True)
    hidden = model[1](model[0](x))
    logits = model[4](model[3](model[2](hidden)))
    loss = F.cross_entropy(logits.log_softmax(-1), tg.randint(0, 5, size=(8,)))
    return model, x, hidden, loss


def _saved_array_refs(loss, keep):
    """Weak references to every array the graph's nodes hold for backward, except `keep` and
    the arrays of the graph's leaves: parameters and inputs, and also constants such as a
    dropout mask or the targets, which the graph keeps (as edges) so that draw_graph can show
    them after backward."""
    nodes = topological_sort([loss.grad_fn])
    leaves = [e.numpy() for n in nodes for e in n.edges if not hasattr(e, "fn")]
    keep_ids = {id(a) for a in list(keep) + leaves}
    refs = []
    for node in nodes:
        arrays = [s.numpy() for s in node.saved if s is not None and hasattr(s, "data")]
        arrays += [v for v in vars(node).values() if isinstance(v, np.ndarray)]
        refs += [weakref.ref(a) for a in arrays if id(a) not in keep_ids]
    return refs


def test_backward_frees_every_array_the_graph_saved_unless_retained():
    model, _, hidden, loss = _graph_of_a_model_step()
    refs = _saved_array_refs(loss, keep=[hidden.numpy(), loss.numpy()])  # those we still hold
    assert len(refs) >= 6  # the model really saved arrays for backward

    loss.backward(retain_graph=True)
    gc.collect()
    assert all(r() is not None for r in refs)  # retained: a second backward can run

    loss.backward()
    gc.collect()
    alive = sum(r() is not None for r in refs)
    assert alive == 0, f"{alive} of {len(refs)} saved arrays outlived backward"
    assert all(p.grad is not None for p in model.parameters())


def test_intermediate_gradients_are_freed_unless_retain_grad():
    """Gradients of non-leaf tensors exist only while backward needs them: every one that
    passed through the graph is gone afterwards. retain_grad() keeps (a copy of) one."""
    model, x, hidden, loss = _graph_of_a_model_step()
    refs = []
    for node in topological_sort([loss.grad_fn]):
        node.hooks.append(lambda grad, refs=refs: refs.append(weakref.ref(grad.numpy())))
    hidden.retain_grad()
    loss.backward()
    gc.collect()
    # one per node: Linear, LayerNorm, Gelu, dropout's Mul, Linear, LogSoftmax, CrossEntropy
    assert len(refs) == len(topological_sort([loss.grad_fn])) >= 7
    assert all(r() is None for r in refs)
    _, _, hidden_again, loss_again = _graph_of_a_model_step()  # the same graph, same dropout
    (expected,) = tg.autograd.grad(loss_again, hidden_again)
    np.testing.assert_array_equal(hidden.grad.numpy(), expected.numpy())
    assert x.grad is not None and x.grad.shape == x.shape


def test_dropping_the_output_frees_the_whole_graph_at_once():
    _, _, hidden, loss = _graph_of_a_model_step()
    nodes = [weakref.ref(n) for n in topological_sort([loss.grad_fn])]
    del hidden, loss
    assert all(n() is None for n in nodes)  # freed without gc.collect(): no cycles


# --- per-thread state ----------------------------------------------------------------------------
def test_no_grad_in_one_thread_while_another_trains_a_model():
    """An evaluation thread sits inside no_grad while a training thread runs a full step
    (forward, backward, optimizer) between its Events; neither sees the other's grad mode,
    and the main thread's stays on."""
    model, step = regression()
    inside, trained, done = threading.Event(), threading.Event(), threading.Event()
    results, errors = {}, []

    def evaluating():
        try:
            with tg.no_grad():
                inside.set()
                assert trained.wait(10)  # the other thread trained meanwhile
                out = model(tg.ones(2, 4))
                results["eval"] = (out.requires_grad, out.grad_fn, tg.is_grad_enabled())
                with tg.enable_grad():  # nested: records again, in this thread only
                    results["nested"] = model(tg.ones(2, 4)).requires_grad
                results["after nested"] = tg.is_grad_enabled()
            results["after"] = tg.is_grad_enabled()
        except Exception as error:  # reported below, not lost in the thread
            errors.append(error)
        finally:
            done.set()

    def training():
        try:
            assert inside.wait(10)
            before = model[0].weight.numpy().copy()
            results["train"] = (tg.is_grad_enabled(), np.isfinite(step()))
            results["moved"] = not np.array_equal(before, model[0].weight.numpy())
            results["grads"] = all(p.grad is not None for p in model.parameters())
        except Exception as error:
            errors.append(error)
        finally:
            trained.set()

    threads = [threading.Thread(target=evaluating), threading.Thread(target=training)]
    for t in threads:
        t.start()
    assert inside.wait(10)
    results["main"] = tg.is_grad_enabled()  # while the evaluator is inside no_grad
    for t in threads:
        t.join(20)
    assert not errors, errors
    assert done.is_set()
    assert results == {
        "main": True,
        "train": (True, True),
        "moved": True,
        "grads": True,
        "eval": (False, None, False),
        "nested": True,
        "after nested": False,
        "after": True,
    }


def test_detect_anomaly_in_one_thread_does_not_reach_another():
    inside, checked = threading.Event(), threading.Event()
    seen = {}

    def watching():
        with tg.detect_anomaly():
            inside.set()
            checked.wait(10)

    def other():
        inside.wait(10)
        y = tg.ones(2, requires_grad=True).exp()
        seen["site"] = hasattr(y.grad_fn, "creation_site")  # recorded only under anomaly
        checked.set()

    threads = [threading.Thread(target=watching), threading.Thread(target=other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert seen == {"site": False}


# --- detect_anomaly names the op and the line --------------------------------------------------
class ScaledBySpread(nn.Module):
    """A learner's layer: features times their spread, the standard deviation written by hand
    as sqrt(var). For a constant row the spread is sqrt(0) = 0 and d sqrt/d var =
    1 / (2 sqrt(0)) is infinite; its gradient arrives as 0, so SqrtBackward makes 0 * inf =
    NaN. That is the op detect_anomaly must name. (`h.std()` gives slope 0 there, as
    PyTorch's std does.)"""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 4)
        nn.init.zeros_(self.proj.weight)  # every output is its bias: a constant row
        nn.init.constant_(self.proj.bias, 0.5)

    def forward(self, x):
        h = self.proj(x)
        spread = h.var(dim=-1, keepdim=True).sqrt()
        self.line = inspect.currentframe().f_lineno - 1
        return (h - h.mean(dim=-1, keepdim=True)) * spread


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy on 0 / 0
def test_detect_anomaly_names_the_op_and_the_line_in_a_models_forward():
    layer = ScaledBySpread()
    x = tg.randn(2, 3)
    with tg.detect_anomaly():
        out = layer(x)
        assert np.isfinite(out.numpy()).all()  # forward is fine: the NaN is made in backward
        with pytest.raises(RuntimeError) as info:
            (out * out).sum().backward()
    message = str(info.value)
    here = os.path.basename(__file__)
    assert "SqrtBackward returned nan" in message
    assert f'{here}", line {layer.line}, in forward' in message
    assert "spread = h.var(dim=-1, keepdim=True).sqrt()" in message
    assert "grad_a = grad_out / (2 * out)" in message  # the rule that divided by 0
    # Without anomaly detection the same backward quietly fills the weights' grads with NaN:
    (layer(x) * layer(x)).sum().backward()
    assert np.isnan(layer.proj.weight.grad.numpy()).all()


def test_detect_anomaly_is_silent_for_a_clean_training_step():
    _, step = regression()
    with tg.detect_anomaly():
        for _ in range(3):
            assert np.isfinite(step())
    assert not tg.autograd.anomaly.is_anomaly_enabled()
