"""Write the interactive backprop page of an example, or of your own script, to an HTML file.

Open the file in any browser (no server, no network): step through the backward pass with
the buttons, the arrow keys or the slider; `FILE.html#step=K` opens step K.

Examples: `layernorm` (`layer_norm` is accepted too, as by `draw`) is the LayerNorm of
`python -m tinygrad_norm steps`, composed from primitives; `mlp` a two-layer perceptron with
a squared-error loss; `attention` one causal self-attention head; `gpt-block` one GPT-2 block
(LayerNorm, attention, MLP, residuals).

`--script FILE.py` runs your file as `run` does (`import torch` gives tinygrad_norm, and the
file's folder is on the import path); it must define `loss` (the tensor to differentiate)
and may define `params` (a Module, a dict name -> Tensor, or `model.named_parameters()`) to
label the parameters with their names.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import numpy as np

from .. import nn
from ..compat.torch_import import install_as_torch, uninstall_as_torch
from ..functions.creation import randn
from ..learn.explore import explore
from ..models.gpt import Block, GPTConfig
from ..nn import functional as F
from ..random import manual_seed
from ..tensor import Tensor
from .draw import example_name, mlp_example
from .steps import layer_norm_example

HELP = "write the interactive backprop page (one HTML file) of an example or a script"


def add_arguments(parser) -> None:
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--example",
        type=example_name,
        choices=list(EXAMPLES),
        default="mlp",
        help="which example to explore (default: mlp; layer_norm is the same as layernorm)",
    )
    source.add_argument(
        "--script", metavar="FILE.py", help="a Python file that defines `loss` (and `params`)"
    )
    parser.add_argument(
        "-o", "--out", default="backprop.html", help="the HTML file to write (backprop.html)"
    )


class Head(nn.Module):
    """One causal self-attention head, written out: softmax(q k^T / sqrt(hs), causal) v."""

    def __init__(self, n_embd: int, head_size: int, n_ctx: int):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.causal = np.tril(np.ones((n_ctx, n_ctx), dtype=bool))  # row i: keys 0..i

    def forward(self, x: Tensor) -> Tensor:  # x: (B, T, C)
        T = x.shape[1]
        k, q, v = self.key(x), self.query(x), self.value(x)  # (B, T, hs) each
        scores = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5  # (B, T, T)
        scores = scores.masked_fill(Tensor(~self.causal[:T, :T]), float("-inf"))
        weights = F.softmax(scores, dim=-1)  # (B, T, T), each row sums to 1
        return weights @ v  # (B, T, hs)


def attention_example():
    """`(loss, head)`: one causal attention head (width 4, head size 2) over 3 tokens."""
    manual_seed(0)
    head = Head(n_embd=4, head_size=2, n_ctx=3)
    x = randn(1, 3, 4, requires_grad=True)  # (B, T, C)
    x.name = "x"
    target = Tensor([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]], name="target")
    loss = ((head(x) - target) ** 2).mean()
    loss.name = "loss"
    return loss, head


def gpt_block_example():
    """`(loss, block)`: one GPT-2 block (d_model 8, 2 heads) over 4 tokens, no dropout."""
    manual_seed(0)
    config = GPTConfig(vocab_size=11, n_ctx=4, d_model=8, n_layer=1, n_head=2, dropout=0.0)
    block = Block(config)
    x = randn(1, 4, 8, requires_grad=True)  # (B, T, d)
    x.name = "x"
    loss = (block(x) ** 2).mean()
    loss.name = "loss"
    return loss, block


EXAMPLES = {
    "layernorm": lambda: (layer_norm_example()[0], None),  # every tensor has its name
    "mlp": mlp_example,
    "attention": attention_example,
    "gpt-block": gpt_block_example,
}
TITLES = {
    "layernorm": "Backprop through a LayerNorm, composed from primitives",
    "mlp": "Backprop through a two-layer MLP",
    "attention": "Backprop through one attention head",
    "gpt-block": "Backprop through a GPT-2 block",
}


def _from_script(path: Path):
    """`(loss, params)` of a script run as __main__, or an error message."""
    if not path.is_file():
        return f"explore: the script {path} does not exist"
    install_as_torch()  # PyTorch code runs unchanged, as under `python -m tinygrad_norm run`
    folder = str(path.resolve().parent)
    sys.path.insert(0, folder)  # the script's own imports, as under `python FILE.py`
    try:
        namespace = runpy.run_path(str(path), run_name="__main__")
    finally:
        if folder in sys.path:
            sys.path.remove(folder)
        uninstall_as_torch()
    if "loss" not in namespace:
        return (
            f"explore: {path} defines no `loss`; end it with the tensor to differentiate, "
            "e.g. `loss = ((model(x) - y) ** 2).mean()` (and `params = model` for the names)"
        )
    return namespace["loss"], namespace.get("params")


def run(args) -> int:
    out = Path(args.out)
    if not out.parent.is_dir():
        print(f"explore: the folder {out.parent} does not exist; create it first", file=sys.stderr)
        return 1
    if args.script:
        made = _from_script(Path(args.script))
        if isinstance(made, str):
            print(made, file=sys.stderr)
            return 1
        (loss, params), title = made, f"Backprop through {Path(args.script).name}"
    else:
        loss, params = EXAMPLES[args.example]()
        title = TITLES[args.example]
    try:
        explorer = explore(loss, params=params, title=title)
    except (RuntimeError, ValueError) as error:  # no `dot`; a loss that is a leaf, ...
        print(f"explore: {error}", file=sys.stderr)
        return 1
    path = explorer.save(out).resolve()
    print(f"wrote {path}: {len(explorer)} steps of the backward pass")
    print(f"open it in a browser: {path.as_uri()}")
    return 0
