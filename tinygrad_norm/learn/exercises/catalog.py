"""The twenty exercises, in the order of the track."""

from __future__ import annotations

from .catalog_elementwise import ELEMENTWISE
from .catalog_norm import NORM
from .catalog_reduce import REDUCE
from .catalog_softmax import SOFTMAX
from .catalog_windows import WINDOWS
from .exercise import Exercise

ORDER = (
    "mul add tanh exp log relu sum mean matmul linear softmax log_softmax cross_entropy "
    "layer_norm batch_norm embedding max_pool2d conv2d attention gelu"
).split()

BY_NAME: dict[str, Exercise] = {
    e.name: e
    for e in sorted(
        ELEMENTWISE + REDUCE + SOFTMAX + NORM + WINDOWS, key=lambda e: ORDER.index(e.name)
    )
}
EXERCISES: tuple[Exercise, ...] = tuple(BY_NAME.values())


def get(name: str) -> Exercise:
    """The exercise called `name`."""
    if name not in BY_NAME:
        raise KeyError(f"no exercise {name!r}; the exercises are: {', '.join(BY_NAME)}")
    return BY_NAME[name]
