"""Helpers for testing tinygrad_norm (and for checking it from the command line), and
`torch.testing.assert_close`."""

from .assert_close import assert_close
