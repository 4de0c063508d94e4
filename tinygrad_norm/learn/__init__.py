"""Tools for learning how backpropagation works: step through it, draw it, find NaNs."""

from ..autograd.anomaly import detect_anomaly
from .draw import draw_graph, render
from .steps import BackwardStep, backprop_steps

__all__ = ["BackwardStep", "backprop_steps", "detect_anomaly", "draw_graph", "render"]
