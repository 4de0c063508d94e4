"""Step through the backward pass one node at a time: `tg.backprop_steps(loss)`.

These steps are the engine's own (`autograd.engine.backward_steps`, the loop that
`loss.backward()` runs to the end), so what you step through is exactly what runs. Each step
is one op node: the gradient that reached its output, the local rule, what it sent to each
input, and what each input has gathered so far. Leaves get no step of their own; what they
receive shows in `accumulated`, and their `.grad` is filled in once all of it has arrived.

>>> import tinygrad_norm as tg
>>> a = tg.tensor([2.0, 3.0], requires_grad=True, name="a")
>>> b = tg.tensor([4.0, 5.0], requires_grad=True, name="b")
>>> loss = (a * b).sum()
>>> for step in tg.backprop_steps(loss):
...     print(step.op, step.formula)
SumBackward grad_a = grad_out broadcast back over the summed axes
MulBackward grad_a = grad_out * b;  grad_b = grad_out * a
>>> a.grad, b.grad
(tensor([4., 5.]), tensor([2., 3.]))
"""

from __future__ import annotations

import numpy as np

from ..autograd import engine
from .draw import draw_graph


def _preview(tensor, max_elements: int = 6) -> str:
    """`(2, 3) [0.1000, -1.2000, ...]`: a shape and a few values."""
    if tensor is None:
        return "None"
    if isinstance(tensor, tuple):  # a node with several outputs: one gradient each
        return "; ".join(_preview(t, max_elements) for t in tensor)
    flat = np.asarray(tensor.array).ravel()
    values = ", ".join(f"{v:.4g}" for v in flat[:max_elements])
    more = ", ..." if flat.size > max_elements else ""
    return f"{tuple(tensor.shape)} [{values}{more}]"


def _label(tensor, index: int) -> str:
    name = getattr(tensor, "name", None)
    return f"input {index}" + (f" '{name}'" if name else "")


class BackwardStep:
    """What happened at one node of the backward pass.

    index: position in the order the engine runs (0 = the node that made the output);
    op: the node's name, e.g. "MulBackward"; formula: its local rule in words;
    grad_output: the gradient of the node's output, summed over all its uses;
    inputs: the op's input Tensors; grad_inputs: what this node sent to each (None: nothing);
    accumulated: each input's gradient so far; node: the graph node itself.
    """

    def __init__(self, step: engine.Step, root):
        self.index, self.node = step.index, step.node
        self.grad_output, self.grad_inputs = step.grad_output, step.grad_inputs
        self.inputs, self.accumulated = step.inputs, step.so_far()
        self._root = root

    @property
    def op(self) -> str:
        return self.node.name

    @property
    def formula(self) -> str:
        return self.node.formula

    def __str__(self) -> str:
        lines = [
            f"step {self.index}: {self.op}",
            f"  rule:        {self.formula or '(no formula given)'}",
            f"  grad_out:    {_preview(self.grad_output)}",
        ]
        for i, (x, sent, total) in enumerate(
            zip(self.inputs or (), self.grad_inputs, self.accumulated)
        ):
            lines.append(f"  {_label(x, i)} {tuple(x.shape)}:")
            lines.append(f"    sent:        {_preview(sent)}")
            lines.append(f"    accumulated: {_preview(total)}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<BackwardStep {self.index}: {self.op}>"

    def draw(self, **options):
        """The graph with this node highlighted and the gradients it sent on its edges."""
        return draw_graph(self._root, highlight=self, **options)


def backprop_steps(root, gradient=None, retain_graph: bool = False):
    """Run `root`'s backward pass one node at a time, yielding a `BackwardStep` per node.

    Running every step leaves exactly the `.grad` values `root.backward(gradient)` would.
    """
    seed = root._initial_gradient("backprop_steps", gradient)
    for step in engine.backward_steps([root], [seed], retain_graph=retain_graph):
        yield BackwardStep(step, root)
