"""Nested arguments ("pytrees"): tuples, lists and dicts of Tensors, flattened and rebuilt.

`torch.func` transforms accept a dict of parameters or a tuple of inputs where a Tensor may
stand; they work on the flat list of Tensors inside and rebuild the same structure around the
results.

>>> leaves, spec = tree_flatten({"w": 1, "b": (2, 3)})
>>> leaves
[1, 2, 3]
>>> tree_unflatten([10, 20, 30], spec)
{'w': 10, 'b': (20, 30)}
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Spec(NamedTuple):
    """The structure of a pytree: a container's kind and its children's specs (a leaf: None)."""

    kind: Any  # tuple, list, dict or None for a leaf
    keys: tuple  # dict keys (empty otherwise)
    children: tuple  # one Spec per child

    @property
    def n_leaves(self) -> int:
        return 1 if self.kind is None else sum(c.n_leaves for c in self.children)


LEAF = Spec(None, (), ())


def tree_flatten(tree) -> tuple[list, Spec]:
    """The leaves of `tree` in order, and its structure."""
    if isinstance(tree, (tuple, list)):
        flat = [tree_flatten(c) for c in tree]
        kind = type(tree) if type(tree) in (tuple, list) else tuple
        return [x for f in flat for x in f[0]], Spec(kind, (), tuple(f[1] for f in flat))
    if isinstance(tree, dict):
        flat = [tree_flatten(v) for v in tree.values()]
        return [x for f in flat for x in f[0]], Spec(dict, tuple(tree), tuple(f[1] for f in flat))
    return [tree], LEAF


def tree_unflatten(leaves, spec: Spec):
    """The structure `spec` with `leaves` in it, in order."""
    return _build(list(leaves), spec)[0]


def _build(leaves: list, spec: Spec):
    if spec.kind is None:
        return leaves[0], leaves[1:]
    children = []
    for child in spec.children:
        built, leaves = _build(leaves, child)
        children.append(built)
    if spec.kind is dict:
        return dict(zip(spec.keys, children)), leaves
    return spec.kind(children), leaves


def broadcast_to_leaves(prefix, spec: Spec) -> list:
    """`in_dims`-style prefixes: one value for each leaf of `spec` (a single value applies to
    the whole subtree beneath it)."""
    if spec.kind is None or not isinstance(prefix, (tuple, list, dict)):
        return [prefix] * spec.n_leaves
    if isinstance(prefix, dict):
        parts = [prefix[k] for k in spec.keys]
    else:
        if len(prefix) != len(spec.children):
            raise ValueError(
                f"vmap: in_dims {prefix!r} has {len(prefix)} entries for an argument with "
                f"{len(spec.children)}; give one per entry, or a single int (or None) for all"
            )
        parts = list(prefix)
    return [x for p, c in zip(parts, spec.children) for x in broadcast_to_leaves(p, c)]
