"""Grad modes as PyTorch has them: tg.set_grad_enabled as a plain call, a `with` block and a
decorator; no_grad, inference_mode and enable_grad as context managers and decorators (with or
without parentheses), restored after an exception, and per thread."""

import threading

import pytest

import tinygrad_norm as tg


@pytest.fixture(autouse=True)
def recording_on_afterwards():
    yield
    tg.set_grad_enabled(True)


def test_a_plain_call_switches_recording_until_switched_back():
    x = tg.ones(2, requires_grad=True)
    tg.set_grad_enabled(False)
    assert not tg.is_grad_enabled() and not (x * 2).requires_grad
    tg.set_grad_enabled(True)
    assert tg.is_grad_enabled() and (x * 2).requires_grad


def test_with_restores_the_mode_it_found():
    with tg.no_grad():
        with tg.set_grad_enabled(True):
            assert tg.is_grad_enabled()
        assert not tg.is_grad_enabled()
    with tg.set_grad_enabled(False):
        assert not tg.is_grad_enabled()
    assert tg.is_grad_enabled()


def test_as_a_decorator_it_changes_nothing_until_called():
    x = tg.ones(2, requires_grad=True)

    @tg.set_grad_enabled(False)
    def evaluate(t):
        return t * 2

    assert tg.is_grad_enabled()
    assert not evaluate(x).requires_grad
    assert tg.is_grad_enabled()


def test_no_grad_and_enable_grad_change_nothing_when_made():
    guard = tg.no_grad()
    assert tg.is_grad_enabled()
    with guard:
        assert not tg.is_grad_enabled()
        tg.enable_grad()
        assert not tg.is_grad_enabled()


@pytest.mark.parametrize(
    "mode", [tg.no_grad, tg.inference_mode, lambda: tg.set_grad_enabled(False)]
)
def test_grad_off_as_context_manager_and_decorator(mode):
    x = tg.ones(2, requires_grad=True)
    with mode():
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad

    @mode()
    def double(t):
        return t * 2

    assert not double(x).requires_grad and tg.is_grad_enabled()


def test_inference_mode_without_parentheses_and_false_and_enable_grad():
    x = tg.ones(2, requires_grad=True)

    @tg.inference_mode
    def double(t):
        return t * 2

    assert not double(x).requires_grad
    with tg.inference_mode(False):
        assert (x * 2).requires_grad
    with tg.no_grad():
        with tg.enable_grad():
            assert (x * 2).requires_grad

        @tg.enable_grad()
        def triple(t):
            return t * 3

        assert triple(x).requires_grad


def test_no_grad_and_enable_grad_as_context_managers():
    x = tg.ones(2, requires_grad=True)
    assert tg.is_grad_enabled()
    with tg.no_grad():
        assert not tg.is_grad_enabled()
        y = x * 2.0
        with tg.enable_grad():
            assert tg.is_grad_enabled()
            w = x * 2.0
        assert not tg.is_grad_enabled()
    assert tg.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None
    assert w.requires_grad and repr(w.grad_fn) == "<MulBackward>"


def test_no_grad_and_enable_grad_as_decorators():
    x = tg.ones(2, requires_grad=True)

    @tg.no_grad()
    def evaluate(t):
        """Doc kept by functools.wraps."""
        return t * 2.0

    @tg.enable_grad()
    def train(t):
        return t * 2.0

    assert not evaluate(x).requires_grad
    assert evaluate.__name__ == "evaluate" and evaluate.__doc__.startswith("Doc kept")
    assert tg.is_grad_enabled()
    with tg.no_grad():
        assert train(x).requires_grad
        assert not tg.is_grad_enabled()


def test_grad_mode_is_restored_after_an_exception():
    with pytest.raises(KeyError), tg.no_grad():
        raise KeyError("inside no_grad")
    assert tg.is_grad_enabled()


def test_no_grad_is_per_thread():
    x = tg.ones(2, requires_grad=True)
    inside_no_grad, other_done = threading.Event(), threading.Event()
    results = {}

    def evaluating():
        with tg.no_grad():
            inside_no_grad.set()
            other_done.wait(10)  # stay inside no_grad while the other thread records
            results["evaluating"] = (x * 2.0).requires_grad

    def training():
        inside_no_grad.wait(10)
        y = x * 2.0
        results["training"] = (y.requires_grad, tg.is_grad_enabled(), y.grad_fn is not None)
        other_done.set()

    threads = [threading.Thread(target=evaluating), threading.Thread(target=training)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert results == {"evaluating": False, "training": (True, True, True)}
