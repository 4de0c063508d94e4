"""Grad modes as PyTorch has them: tg.set_grad_enabled as a plain call, a `with` block and a
decorator; no_grad, inference_mode and enable_grad as context managers and decorators (with or
without parentheses)."""

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
