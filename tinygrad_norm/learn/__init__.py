"""Tools for learning how backpropagation works: step through it, draw it, explore it in the
browser, find NaNs."""

from ..autograd.anomaly import detect_anomaly
from .draw import draw_graph, render
from .explore import Explorer, explore
from .steps import BackwardStep, backprop_steps

__all__ = [
    "BackwardStep",
    "Explorer",
    "backprop_steps",
    "detect_anomaly",
    "draw_graph",
    "explore",
    "render",
]
