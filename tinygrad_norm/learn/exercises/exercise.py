"""One exercise of the track: what it asks, its given forward, the hints and the solution.

An exercise is a `Function` whose forward is written and whose backward the learner writes.
The solution class carries both: its forward is the one handed out (copied, as source, into
the learner's file by `template`), its backward is the answer, written for the exercise: every
gradient at its input's shape, broadcasts summed back by hand (the package's own ops leave that
to the engine; a learner's backward is called directly, so it may not).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

# A case is (label, args): forward's inputs after ctx. Float arrays are the inputs that need a
# gradient; any other argument (integer indices, class labels) is passed as it is.
Case = tuple[str, tuple]


@dataclass(frozen=True)
class Exercise:
    """An exercise: its name, statement, three hints, solution and the inputs it is tried on.

    name: the exercise's name (`tg.exercises.check(name, ...)`).
    statement: the forward in maths and in NumPy, with the shapes.
    hints: three, in order: the rule in words, the derivation's first line, the answer's shape.
    solution: a `tg.Function` subclass: the given forward and a backward that passes.
    inputs: the names of forward's arguments after ctx, in order.
    cases: `cases(rng)` -> a list of `Case`: shapes that broadcast, edge values.
    reference: the package's own op on Tensors (same arguments), to test the solution with.
    """

    name: str
    statement: str
    hints: tuple[str, str, str]
    solution: type
    inputs: tuple[str, ...]
    cases: Callable[[np.random.Generator], list[Case]]
    reference: Callable

    @property
    def class_name(self) -> str:
        """The learner's class name: `layer_norm` -> `LayerNorm`, `max_pool2d` -> `MaxPool2d`."""
        return "".join(part[:1].upper() + part[1:] for part in self.name.split("_"))

    def template(self) -> str:
        """The learner's starting file: the statement, the forward, a backward to write."""
        forward = inspect.getsource(self.solution.forward).rstrip()
        imports = "import math\n\n" if "math." in forward else ""
        return TEMPLATE.format(
            name=self.name,
            statement=self.statement.strip(),
            imports=imports,
            cls=self.class_name,
            forward=forward,
            returned=", ".join(self.returned()),
        )

    def returned(self) -> list[str]:
        """What backward returns, by name: `grad_x` for a float input, `None` for another."""
        _, args = self.cases(np.random.default_rng(0))[0]
        floats = [isinstance(a, np.ndarray) and a.dtype.kind == "f" for a in args]
        return [f"grad_{n}" if f else "None" for n, f in zip(self.inputs, floats)]

    def solution_source(self) -> str:
        """The solution class, as source."""
        return inspect.getsource(self.solution)


TEMPLATE = '''"""Exercise `{name}`: write the backward.

{statement}

backward(ctx, grad_output) receives dL/dy, a Tensor of y's shape (`grad_output.numpy()` is its
array), and returns one gradient per input of forward, in order,

    return {returned}

each with exactly its input's shape (None for an integer input: it has no gradient). Check it
with

    python -m tinygrad_norm exercises check {name}

and ask for a hint with `python -m tinygrad_norm exercises hint {name}`.
"""

{imports}import numpy as np
import tinygrad_norm as tg


class {cls}(tg.Function):
{forward}

    @staticmethod
    def backward(ctx, grad_output):
        raise NotImplementedError("{name}: write the backward")


if __name__ == "__main__":
    print(tg.exercises.check("{name}", {cls}))
'''


def normal(rng: np.random.Generator, *shape: int, scale: float = 1.0) -> np.ndarray:
    """Float64 values from N(0, scale²), of `shape`."""
    return rng.normal(0.0, scale, size=shape)


def positive(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Float64 values in [0.1, 3), of `shape`: inputs of log and friends."""
    return rng.uniform(0.1, 3.0, size=shape)
