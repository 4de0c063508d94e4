"""Write the graph of an example, after its backward pass, to a file.

The format comes from the file's suffix: .svg, .png or .pdf need Graphviz's `dot` program;
.dot writes the graph's source in the DOT language, which needs nothing. Tensors are boxes
(name, shape, values, gradient), ops are ellipses; arrows run the way forward ran.

Examples: `layernorm` (`layer_norm` is accepted too, as by `explore`) is the LayerNorm of
`python -m tinygrad_norm steps`; `mlp` is a two-layer perceptron with a ReLU and a
squared-error loss, its boxes labelled with the parameter names (fc1.weight, ...).
"""

from __future__ import annotations

import sys
from pathlib import Path

from .. import nn
from ..autograd.engine import topological_sort
from ..learn.draw import draw_graph, render
from ..random import manual_seed
from ..tensor import Tensor
from .steps import layer_norm_example

HELP = "write the graph of an example (after backward, with gradients) to SVG, PNG, PDF or DOT"


def add_arguments(parser) -> None:
    parser.add_argument("out", metavar="OUT", help="the file to write: .svg, .png, .pdf or .dot")
    parser.add_argument(
        "--example",
        type=example_name,
        choices=["layernorm", "mlp"],
        default="layernorm",
        help="which graph to draw (default: layernorm; layer_norm is the same)",
    )
    parser.add_argument(
        "--fused", action="store_true", help="layernorm: use the fused F.layer_norm"
    )
    parser.add_argument("--no-data", action="store_true", help="leave values out of the boxes")
    parser.add_argument("--no-grad", action="store_true", help="leave gradients out of the boxes")
    parser.add_argument(
        "--rankdir",
        choices=["TB", "LR"],
        default="TB",
        help="top to bottom (the default) or left to right",
    )


# Other spellings of an example's name that `draw` and `explore` accept.
EXAMPLE_ALIASES = {"layer_norm": "layernorm", "layer-norm": "layernorm"}


def example_name(text: str) -> str:
    """An argparse type: the example's name, with `layer_norm` read as `layernorm`."""
    return EXAMPLE_ALIASES.get(text, text)


class MLP(nn.Module):
    """x (B, 3) -> fc1 -> ReLU -> fc2 -> (B, 2)."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.fc2 = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc2(self.fc1(x).relu())


def mlp_example():
    """`(loss, model)`: a squared error of a small MLP, the same numbers on every call."""
    manual_seed(0)
    model = MLP()
    x = Tensor([[1.0, -2.0, 0.5], [0.3, 0.8, -1.0]], name="x")
    target = Tensor([[1.0, 0.0], [0.0, 1.0]], name="target")
    loss = ((model(x) - target) ** 2).mean()
    loss.name = "loss"
    return loss, model


def run(args) -> int:
    if not Path(args.out).parent.is_dir():
        print(
            f"draw: the folder {Path(args.out).parent} does not exist; create it first",
            file=sys.stderr,
        )
        return 1
    if args.example == "mlp":
        loss, params = mlp_example()
    else:
        loss, _ = layer_norm_example(args.fused)
        params = None
    loss.backward(retain_graph=True)  # keep every box's values (and names) for the picture
    graph = draw_graph(
        loss,
        show_data=not args.no_data,
        show_grad=not args.no_grad,
        params=params,
        rankdir=args.rankdir,
    )
    try:
        path = render(graph, args.out)
    except (RuntimeError, ValueError) as error:
        print(f"draw: {error}", file=sys.stderr)
        return 1
    n_ops = len(topological_sort([loss.grad_fn]))
    print(f"wrote {path}: the graph of the {args.example} example ({n_ops} ops)")
    return 0
