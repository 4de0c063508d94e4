"""einsum: Einstein summation, one primitive whose gradient is again an einsum.

`einsum("ij,jk->ik", a, b)` multiplies the operands elementwise over every combination of
labels and sums over the labels missing from the output. Read it as a loop nest:
out[i, k] = sum_j a[i, j] * b[j, k].

Gradient. The output is linear in each operand, so for operand A with labels `s_A`,
grad_A[s_A] = sum over the labels not in s_A of grad_out[out] * prod_{B != A} B[s_B]:
the einsum "out,s_B,...->s_A" of grad_out with the other operands. Two cases need care:

- a label only A has (summed away, e.g. j in "ij->i"): it is in neither grad_out nor any
  other operand, so the einsum cannot make it; every A[i, j] moves out[i] alike, and the
  gradient is broadcast (expanded) along that label.
- a repeated label (a diagonal, "ii->i"): only the diagonal elements A[i, i] are read, so the
  gradient lives there: the einsum gives it for the distinct labels (`i`), and a ScatterAdd
  places it on the diagonal of zeros.

Since both steps and the einsum are differentiable Tensor ops, second derivatives work.
"""

from __future__ import annotations

import string

import numpy as np

from ..autograd.function import Function
from .movement import ScatterAdd

LETTERS = string.ascii_letters  # PyTorch's labels: a-z and A-Z


class Einsum(Function):
    """out = np.einsum(equation, *operands), for an equation already normalised by `einsum`
    (explicit output, no '...', every label's size equal across operands)."""

    formula = "grad_A = einsum('out,others->A', grad_out, *others), then broadcast / diagonal"

    @staticmethod
    def forward(ctx, *operands, equation):
        ctx.save_for_backward(*operands)
        return np.asarray(np.einsum(equation, *operands, optimize=len(operands) > 1))

    @staticmethod
    def backward(ctx, grad_output):
        terms, out = split_equation(ctx.equation)
        operands = ctx.saved_tensors
        sizes = {}
        for term, shape in zip(terms, ctx.input_shapes):
            sizes.update(zip(term, shape))
        grads = []
        for k, needs in enumerate(ctx.needs_input_grad):
            grads.append(
                _operand_grad(k, terms, out, sizes, grad_output, operands) if needs else None
            )
        return tuple(grads)


def split_equation(equation: str) -> tuple[list[str], str]:
    inputs, out = equation.split("->")
    return inputs.split(","), out


def _operand_grad(k: int, terms: list, out: str, sizes: dict, grad_output, operands):
    """The gradient of operand k (see the module docstring for the three steps)."""
    term = terms[k]
    distinct = "".join(dict.fromkeys(term))  # its labels, each once, in order
    others = [(t, op) for j, (t, op) in enumerate(zip(terms, operands)) if j != k]
    reachable = set(out).union(*(t for t, _ in others))
    present = "".join(label for label in distinct if label in reachable)
    equation = ",".join([out] + [t for t, _ in others]) + "->" + present
    grad = Einsum.apply(grad_output, *(op for _, op in others), equation=equation)
    if len(present) < len(distinct):  # labels only this operand has: broadcast along them
        grad = grad.reshape(tuple(sizes[c] if c in present else 1 for c in distinct))
        grad = grad.expand(tuple(sizes[c] for c in distinct))
    if len(distinct) < len(term):  # repeated labels: the gradient goes on the diagonal
        axes = {
            c: np.arange(sizes[c]).reshape([-1 if d == c else 1 for d in distinct])
            for c in distinct
        }
        grad = ScatterAdd.apply(
            grad, index=tuple(axes[c] for c in term), shape=tuple(sizes[c] for c in term)
        )
    return grad


def einsum(equation, *operands):
    """Einstein summation with PyTorch's rules: `einsum("bij,bjk->bik", a, b)`.

    The equation names each operand's axes with letters (a-z, A-Z); a letter repeated across
    operands is multiplied along, one repeated within an operand takes the diagonal, one
    missing from the output is summed over. Without "->" the output is every letter that
    appears once, in alphabetical order (upper case first). "..." stands for the axes not
    named (broadcast between operands; kept in front of an implicit output). Spaces are
    ignored. Operands may also be passed as one list, or in PyTorch's sublist format
    `einsum(a, [0, 1], b, [1, 2], [0, 2])`.

    >>> import tinygrad_norm as tg
    >>> tg.einsum("ii", tg.tensor([[1.0, 2.0], [3.0, 4.0]])).item()
    5.0
    """
    if not isinstance(equation, str):
        equation, operands = _from_sublists((equation,) + operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    tensors = list(operands)  # Tensors: tg.einsum converts NumPy arrays
    if len({t.dtype for t in tensors}) > 1:
        raise RuntimeError(
            f"einsum(): all operands must have the same dtype, got "
            f"{', '.join(str(t.dtype) for t in tensors)}; convert them with .to(...)"
        )
    terms, out = _parse(equation, [t.shape for t in tensors])
    sizes = _label_sizes(terms, [t.shape for t in tensors])
    tensors = [  # a size-1 axis broadcast against a larger one is expanded (summed back in grad)
        t.expand(tuple(sizes[c] for c in term)) if t.shape != tuple(sizes[c] for c in term) else t
        for t, term in zip(tensors, terms)
    ]
    return Einsum.apply(*tensors, equation=",".join(terms) + "->" + out)


def _parse(equation: str, shapes: list) -> tuple[list[str], str]:
    """The equation with explicit output and every '...' replaced by unused letters."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        more = "more" if len(shapes) > len(terms) else "fewer"
        raise RuntimeError(
            f"einsum(): {more} operands were provided ({len(shapes)}) than specified in the "
            f"equation {equation!r} ({len(terms)})"
        )
    for i, ch in enumerate(eq):
        if ch not in LETTERS and ch not in ".,->":
            raise RuntimeError(
                f"einsum(): invalid subscript {ch!r} at index {i} of {equation!r}; "
                "subscripts must be letters in [a-zA-Z]"
            )
    spare = [c for c in LETTERS if c not in eq]
    widths = []
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        named = len(term.replace("...", ""))
        if "..." in term:
            widths.append(len(shape) - named)
        elif named != len(shape):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({named}) does not match "
                f"the number of dimensions ({len(shape)}) for operand {k} and no ellipsis was given"
            )
        else:
            widths.append(0)
        if widths[-1] < 0 or term.replace("...", "").count(".") or term.count("...") > 1:
            raise RuntimeError(
                f"einsum(): operand {k} has subscripts {term!r} that do not fit its shape {shape}"
            )
    ellipsis = "".join(spare[: max(widths, default=0)])
    terms = [t.replace("...", ellipsis[len(ellipsis) - w :]) for t, w in zip(terms, widths)]
    if not arrow:  # implicit output: the broadcast axes, then the letters seen exactly once
        letters = "".join(terms)
        once = sorted(c for c in set(letters) if letters.count(c) == 1 and c not in ellipsis)
        return terms, ellipsis + "".join(once)
    out = rhs.replace("...", ellipsis)
    for c in out:
        if out.count(c) > 1:
            raise RuntimeError(
                f"einsum(): output subscript {c} appears more than once in the output"
            )
        if not any(c in t for t in terms):
            raise RuntimeError(
                f"einsum(): output subscript {c} does not appear in the equation for any "
                "input operand"
            )
    return terms, out


def _label_sizes(terms: list, shapes: list) -> dict:
    """Each label's size; sizes of 1 broadcast, any other disagreement is an error."""
    sizes = {}
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        seen = {}
        for c, n in zip(term, shape):
            if c in seen and seen[c] != n:
                raise RuntimeError(
                    f"einsum(): subscript {c} is repeated for operand {k} but the sizes don't "
                    f"match, {n} != {seen[c]}"
                )
            seen[c] = n
            if sizes.get(c, 1) != 1 and n not in (1, sizes[c]):
                raise RuntimeError(
                    f"einsum(): subscript {c} has size {n} for operand {k} which does not "
                    f"broadcast with previously seen size {sizes[c]}"
                )
            if n != 1 or c not in sizes:
                sizes[c] = n
    return sizes


def _from_sublists(args: tuple) -> tuple[str, tuple]:
    """PyTorch's sublist format, einsum(a, [0, 1], b, [1, 2], [0, 2]), as an equation."""
    pairs = len(args) // 2
    operands, sublists = args[0 : 2 * pairs : 2], args[1 : 2 * pairs : 2]
    equation = ",".join(_letters(s) for s in sublists)
    if len(args) % 2:  # a last sublist names the output
        equation += "->" + _letters(args[-1])
    return equation, tuple(operands)


def _letters(sublist) -> str:
    """[0, 1, Ellipsis] as "ab..."."""
    return "".join("..." if s is Ellipsis else LETTERS[s] for s in sublist)
