"""Helpers for testing tinygrad_norm (and for checking it from the command line)."""
