"""Walk the backward pass of a small LayerNorm, node by node, in the terminal.

The example: a (2, 3) input `x`, normalised over its last axis and scaled and shifted by
`weight` and `bias`,

    y = (x - mean(x)) / sqrt(var(x) + eps) * weight + bias,    loss = sum(y * c),

composed from primitives (sum, division by the count, subtraction, multiplication, square
root), so the backward pass has a step for each. `c` is a fixed constant: with `loss = sum(y)`
the gradient of x would be zero, since normalised rows always sum to the same value. With
--fused, `F.layer_norm` does the normalisation in one node whose backward is derived by hand.
At the end, the gradients the steps left are compared with those of `loss.backward()` on a
fresh copy of the same graph.
"""

from __future__ import annotations

import numpy as np

from ..learn.steps import backprop_steps
from ..nn import functional as F
from ..tensor import Tensor

HELP = "step through the backward pass of a small LayerNorm, node by node"
EPS = 1e-5


def add_arguments(parser) -> None:
    parser.add_argument(
        "--fused",
        action="store_true",
        help="use the fused F.layer_norm (one node, its backward derived by hand) instead of "
        "composing LayerNorm from mean, var, sqrt, ...",
    )


def layer_norm_example(fused: bool = False):
    """`(loss, {"x": x, "weight": weight, "bias": bias})`, the same numbers on every call."""
    x = Tensor([[1.0, 2.0, 4.0], [-1.0, 0.5, 3.0]], requires_grad=True, name="x")
    weight = Tensor([1.0, 0.5, 2.0], requires_grad=True, name="weight")
    bias = Tensor([0.0, 0.1, -0.2], requires_grad=True, name="bias")
    c = Tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], name="c")
    if fused:
        y = F.layer_norm(x, (3,), weight, bias, eps=EPS)
    else:
        mean = x.mean(dim=-1, keepdim=True)  # (2, 1)
        var = x.var(dim=-1, unbiased=False, keepdim=True)  # (2, 1), divided by n as PyTorch
        centered = x - mean  # (2, 3)
        std = (var + EPS).sqrt()  # (2, 1)
        x_hat = centered / std  # (2, 3)
        y = x_hat * weight + bias  # (2, 3)
        # Names show in each step's printout and in the drawing.
        mean.name, var.name, std.name = "mean", "var", "std"
        centered.name, x_hat.name = "centered", "x_hat"
    y.name = "y"
    loss = (y * c).sum()
    loss.name = "loss"
    return loss, {"x": x, "weight": weight, "bias": bias}


def run(args) -> int:
    loss, leaves = layer_norm_example(args.fused)
    how = "F.layer_norm (fused)" if args.fused else "composed from primitives"
    print(f"LayerNorm {how}: loss = sum(y * c), loss = {loss.item():.6g}")
    print("The engine visits each node once, consumers before producers.\n")
    for step in backprop_steps(loss):
        print(step, end="\n\n")

    fresh_loss, fresh = layer_norm_example(args.fused)
    fresh_loss.backward()
    same = True
    for name, leaf in leaves.items():
        equal = np.array_equal(leaf.grad.array, fresh[name].grad.array)
        same = same and equal
        print(f"{name}.grad = {np.array2string(leaf.grad.array, precision=4)}")
    verdict = "equal" if same else "DIFFER from"
    print(f"\nThese .grad values {verdict} those of loss.backward() on a fresh copy.")
    return 0 if same else 1
