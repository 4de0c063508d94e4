"""Shared pytest set-up. Tests that need PyTorch use ``torch = pytest.importorskip("torch")``."""

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _restore_numpy_printoptions():
    """Undo any ``np.set_printoptions`` a test makes, so output never depends on test order."""
    with np.printoptions():
        yield
