"""Tools for learning how backpropagation works: step through it, draw it, explore it in the
browser, find NaNs, compare a gradient written by hand with autograd's."""

from ..autograd.anomaly import detect_anomaly
from .compare import Comparison, compare
from .draw import draw_graph, render
from .explore import Explorer, explore
from .steps import BackwardStep, backprop_steps

__all__ = [
    "BackwardStep",
    "Comparison",
    "Explorer",
    "backprop_steps",
    "compare",
    "detect_anomaly",
    "draw_graph",
    "explore",
    "render",
]
