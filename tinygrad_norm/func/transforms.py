"""`torch.func` derivatives: grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian.

Each transform takes a function and returns one; the derivatives come from the same engine as
`backward()`:

- reverse mode (`grad`, `vjp`, `jacrev`): `autograd.grad` at fresh leaves made from the
  arguments, one backward pass per vector (a Jacobian: one per output element);
- forward mode (`jvp`, `jacfwd`) by the **double-vjp identity**, not by tangent rules per op:
  g(u) = Jᵀu is linear in u, so the vector-Jacobian product of g with the tangent t is
  (Jᵀ)ᵀt = J t. It costs two backward passes and needs every backward on the way to be
  differentiable (ours are; a custom Function marked @once_differentiable is not).

Nesting works (`jacfwd(jacrev(f))`, `grad(grad(f))`, `vmap(grad(f))`): inside another
transform, gradients are computed with `create_graph=True`, so the outer one can differentiate
them. At the outermost level results are plain Tensors, unless an argument itself required
grad. Tensors a function closes over are constants to the transform.
"""

from __future__ import annotations

import threading

import numpy as np

from ..autograd.grad import grad as autograd_grad
from ..autograd.grad_mode import enable_grad
from ..ops.shape import stack
from ..tensor import Tensor
from .pytree import tree_flatten, tree_unflatten


class _Depth(threading.local):
    value = 0  # how many transforms are running (nested), in this thread


_depth = _Depth()


class _Level:
    """One more transform running: inside, gradients are made differentiable."""

    def __enter__(self):
        _depth.value += 1
        self.grad_mode = enable_grad()
        self.grad_mode.__enter__()

    def __exit__(self, *exc_info):
        self.grad_mode.__exit__(*exc_info)
        _depth.value -= 1


def _differentiable_copies(leaves: list) -> tuple[list, bool]:
    """Leaves to differentiate at (an argument that already requires grad is used as it is,
    so an outer transform or the caller can go on differentiating), and whether the results
    must stay differentiable (nested, or an argument required grad)."""
    copies = [_as_leaf(x) for x in leaves]
    nested = _depth.value > 1 or any(isinstance(x, Tensor) and x.requires_grad for x in leaves)
    return copies, nested


def _as_leaf(x):
    if not isinstance(x, Tensor):
        raise TypeError(
            f"torch.func: can only differentiate with respect to Tensors, got {type(x).__name__}"
        )
    return x if x.requires_grad else x.detach().requires_grad_()


def _gradients(outputs: list, inputs: list, cotangents: list, create_graph: bool) -> list:
    """d(Σ cotangent · output)/d input for each input (zeros where there is no dependence)."""
    pairs = [(o, v) for o, v in zip(outputs, cotangents) if o.requires_grad]
    if not pairs:
        return [_zeros(x) for x in inputs]
    grads = autograd_grad(
        [o for o, _ in pairs], inputs, [v for _, v in pairs],
        retain_graph=True, create_graph=create_graph, allow_unused=True,
    )  # fmt: skip
    return [_zeros(x) if g is None else g for x, g in zip(inputs, grads)]


def _zeros(x: Tensor) -> Tensor:
    return Tensor._make(np.zeros_like(x.array))


def _plain(x, keep: bool):
    """A result at the outermost level is a plain Tensor (no history)."""
    return x if keep or not isinstance(x, Tensor) else x.detach()


def _argnums(argnums, n_args: int) -> tuple:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for n in nums:
        if not -n_args <= n < n_args:
            raise RuntimeError(
                f"torch.func: argnums {n} is out of range for a function called with {n_args} "
                "positional arguments"
            )
    return tuple(n % n_args for n in nums)


class _Prepared:
    """The arguments with the differentiated ones (`argnums`) replaced by leaves."""

    def __init__(self, args: tuple, argnums):
        self.nums = _argnums(argnums, len(args))
        self.single = isinstance(argnums, int)
        self.args = list(args)
        self.specs, self.leaves = [], []
        originals = []
        for n in self.nums:
            flat, spec = tree_flatten(args[n])
            copies, _ = _differentiable_copies(flat)
            originals += flat
            self.args[n] = tree_unflatten(copies, spec)
            self.specs.append((spec, len(copies)))
            self.leaves += copies
        self.keep = _differentiable_copies(originals)[1]

    def rebuild(self, flat: list):
        """Per-leaf results in the structure of the differentiated arguments."""
        trees, start = [], 0
        for spec, n in self.specs:
            trees.append(tree_unflatten(flat[start : start + n], spec))
            start += n
        return trees[0] if self.single else tuple(trees)


def grad_and_value(func, argnums=0, has_aux=False):
    """`(gradient, value)` of a function returning a one-element Tensor (with `has_aux`:
    `(gradient, (value, aux))`)."""

    def wrapper(*args, **kwargs):
        with _Level():
            prepared = _Prepared(args, argnums)
            returned = func(*prepared.args, **kwargs)
            value, aux = _split_aux(returned, has_aux, "grad_and_value")
            if not isinstance(value, Tensor) or value.numel() != 1:
                shape = tuple(value.shape) if isinstance(value, Tensor) else type(value).__name__
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                    f"{shape}. Maybe you wanted to use the vjp or jacrev APIs instead?"
                )
            seed = Tensor._make(np.ones_like(value.array))
            grads = _gradients([value], prepared.leaves, [seed], prepared.keep)
        keep = prepared.keep
        grads = prepared.rebuild([_plain(g, keep) for g in grads])
        value = _plain(value, keep)
        return (grads, (value, aux)) if has_aux else (grads, value)

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a function returning a one-element Tensor, with respect to argument
    `argnums` (an int, or a tuple for several); with `has_aux`: `(gradient, aux)`."""
    both = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        grads, value = both(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return wrapper


def _split_aux(returned, has_aux: bool, name: str):
    if not has_aux:
        return returned, None
    if not isinstance(returned, tuple) or len(returned) != 2:
        raise RuntimeError(f"{name}(f, ...)(*args): with has_aux=True, f must return (output, aux)")
    return returned


def vjp(func, *primals, has_aux=False):
    """`(output, vjp_fn)`: vjp_fn(cotangents) is the tuple of vector-Jacobian products, one per
    primal (with `has_aux`: `(output, vjp_fn, aux)`)."""
    with _Level():
        prepared = _Prepared(primals, tuple(range(len(primals))))
        returned = func(*prepared.args)
        output, aux = _split_aux(returned, has_aux, "vjp")
    outputs, spec = tree_flatten(output)
    keep = prepared.keep

    def vjp_fn(cotangents):
        vectors, _ = tree_flatten(cotangents)
        if len(vectors) != len(outputs):
            raise RuntimeError(
                f"vjp_fn: expected cotangents shaped like the output ({len(outputs)} Tensors), "
                f"got {len(vectors)}"
            )
        with enable_grad():
            grads = _gradients(outputs, prepared.leaves, vectors, keep)
        grads = prepared.rebuild([_plain(g, keep) for g in grads])
        return grads if isinstance(grads, tuple) else (grads,)

    output = tree_unflatten([_plain(o, keep) for o in outputs], spec)
    return (output, vjp_fn, aux) if has_aux else (output, vjp_fn)


def _forward_products(outputs: list, leaves: list, tangents_per_column, keep: bool):
    """J t for each set of tangents `t` (one per leaf), by the double-vjp identity: with
    u = 0 requiring grad, g(u) = Jᵀu; then d(Σ g·t)/du = J t. Yields one list (a product per
    output) per set of tangents."""
    us = [Tensor._make(np.zeros_like(o.array)).requires_grad_() for o in outputs]
    transposed = _gradients(outputs, leaves, us, True)  # Jᵀu, linear in u
    for tangents in tangents_per_column:
        terms = [(g * t).sum() for g, t in zip(transposed, tangents) if g.requires_grad]
        if not terms:
            yield [_zeros(o) for o in outputs]
            continue
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        yield _gradients([total], us, [Tensor._make(np.ones_like(total.array))], keep)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """`(output, J·tangents)` of `func(*primals)`, by the double-vjp identity."""
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise RuntimeError(
            f"jvp(f, primals, tangents): Expected primals and tangents to have the same length, "
            f"got {len(primals)} and {len(tangents)}"
        )
    with _Level():
        prepared = _Prepared(primals, tuple(range(len(primals))))
        returned = func(*prepared.args)
        output, aux = _split_aux(returned, has_aux, "jvp")
        outputs, spec = tree_flatten(output)
        flat_tangents = tree_flatten(tangents)[0]
        (products,) = _forward_products(outputs, prepared.leaves, [flat_tangents], prepared.keep)
    keep = prepared.keep
    output = tree_unflatten([_plain(o, keep) for o in outputs], spec)
    product = tree_unflatten([_plain(p, keep) for p in products], spec)
    return (output, product, aux) if has_aux else (output, product)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian by reverse mode: one backward pass per output element. Shape
    `output.shape + input.shape`; tuples for several outputs or `argnums`."""

    def wrapper(*args, **kwargs):
        with _Level():
            prepared = _Prepared(args, argnums)
            returned = func(*prepared.args, **kwargs)
            output, aux = _split_aux(returned, has_aux, "jacrev")
            outputs, spec = tree_flatten(output)
            blocks = []
            for o in outputs:
                rows = []
                for k in range(o.numel()):
                    unit = np.zeros_like(o.array)
                    unit.flat[k] = 1
                    rows.append(
                        _gradients([o], prepared.leaves, [Tensor._make(unit)], prepared.keep)
                    )
                blocks.append(_jacobian_blocks(o, prepared.leaves, rows, rows_first=True))
        return _assemble(blocks, prepared, spec, aux, has_aux)

    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian by forward mode (the double-vjp identity, one product per input element).
    Same shapes as `jacrev`."""

    def wrapper(*args, **kwargs):
        with _Level():
            prepared = _Prepared(args, argnums)
            returned = func(*prepared.args, **kwargs)
            output, aux = _split_aux(returned, has_aux, "jacfwd")
            outputs, spec = tree_flatten(output)
            leaves = prepared.leaves
            columns = list(_forward_products(outputs, leaves, _basis(leaves), prepared.keep))
            blocks = [
                _jacobian_blocks(o, leaves, [col[i] for col in columns], rows_first=False)
                for i, o in enumerate(outputs)
            ]
        return _assemble(blocks, prepared, spec, aux, has_aux)

    return wrapper


def _basis(leaves: list):
    """Every unit tangent: one per element of each leaf (zeros for the other leaves)."""
    for p, x in enumerate(leaves):
        for j in range(x.numel()):
            tangents = [_zeros(y) for y in leaves]
            tangents[p].array.flat[j] = 1
            yield tangents


def _jacobian_blocks(out: Tensor, leaves: list, pieces: list, rows_first: bool) -> list:
    """One Jacobian block per leaf, shaped out.shape + leaf.shape, from per-row gradients
    (reverse mode: pieces[k][p]) or per-column products (forward mode: pieces in leaf order)."""
    blocks = []
    if rows_first:
        for p, x in enumerate(leaves):
            rows = [row[p].reshape(-1) for row in pieces]
            flat = stack(rows) if rows else _zeros(out).reshape(0, x.numel())
            blocks.append(flat.reshape(*out.shape, *x.shape))
        return blocks
    start = 0
    for x in leaves:
        columns = [c.reshape(-1) for c in pieces[start : start + x.numel()]]
        start += x.numel()
        flat = stack(columns, dim=1) if columns else Tensor._make(np.zeros((out.numel(), 0)))
        blocks.append(flat.reshape(*out.shape, *x.shape))
    return blocks


def _assemble(blocks: list, prepared: _Prepared, spec, aux, has_aux: bool):
    """Per output: the Jacobians in the arguments' structure; then the outputs' structure."""
    keep = prepared.keep
    per_output = [prepared.rebuild([_plain(b, keep) for b in bs]) for bs in blocks]
    result = tree_unflatten(per_output, spec)
    return (result, aux) if has_aux else result


def hessian(func, argnums=0):
    """The matrix of second derivatives: `jacfwd(jacrev(func, argnums), argnums)`."""
    return jacfwd(jacrev(func, argnums), argnums)
