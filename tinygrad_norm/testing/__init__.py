"""Helpers for testing tinygrad_norm (and for checking it from the command line), and
`torch.testing.assert_close` and `make_tensor`."""

from .assert_close import assert_close
from .make_tensor import make_tensor
