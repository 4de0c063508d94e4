"""Tensor methods that course code reaches for and that change no maths: `W.t()`, `x.mT`,
`.int()`, `.half()`, `clamp_min`, `stride()`, the in-place unary ops (`exp_`, `sigmoid_`,
`relu_`, ...) and the in-place updates hand-written optimizers use (`addcmul_`, `addcdiv_`,
`lerp_`).

Each is one line on top of an existing op, so its gradient is that op's; the in-place ones go
through `_change_in_place` (tensor_methods/inplace.py), so they are checked and recorded as
every other in-place change.

>>> import tinygrad_norm as tg
>>> w = tg.tensor([[1.0, 2.0, 3.0]])
>>> w.t().shape, w.mT.shape, w.int().dtype
(torch.Size([3, 1]), torch.Size([3, 1]), torch.int32)
>>> m = tg.zeros(2)
>>> m.addcmul_(tg.tensor([1.0, 2.0]), tg.tensor([3.0, 4.0]), value=0.5)
tensor([1.5000, 4.0000])
"""

from __future__ import annotations

import numpy as np

from .. import dtypes


def _refuse_integer_division(op: str, tensor1, tensor2) -> None:
    """PyTorch's RuntimeError for an addcdiv of two integer (or bool) tensors: it used to
    divide them rounding toward zero, and now refuses rather than silently change the result."""
    dtype1, dtype2 = (
        np.asarray(t.array if hasattr(t, "array") else t).dtype for t in (tensor1, tensor2)
    )
    if dtype1.kind in "biu" and dtype2.kind in "biu":
        raise RuntimeError(
            f"{op}: tensor1 ({dtype1}) and tensor2 ({dtype2}) are both integers (or bools), and "
            "addcdiv of integers is not supported (as in PyTorch); convert one to float "
            f"first, e.g. x.{op}(tensor1.float(), tensor2)"
        )


def _in_place(op: str, out_of_place):
    """The method `x.op()` of no arguments: `out_of_place(x)`, written back into x."""

    def method(self):
        return self._change_in_place(op, out_of_place)

    method.__name__, method.__qualname__ = op, f"Tensor.{op}"
    return method


class CourseMethods:
    __slots__ = ()

    # --- transposes ----------------------------------------------------------------------------
    def t(self):
        """The transpose of a matrix; a 0-d or 1-d tensor is returned as it is (PyTorch's t)."""
        if self.ndim > 2:
            raise RuntimeError(
                f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D "
                f"(shape {tuple(self.shape)}); use transpose(dim0, dim1) or .mT"
            )
        return self if self.ndim < 2 else self.transpose(0, 1)

    @property
    def mT(self):  # noqa: N802 - PyTorch's name
        """The last two dimensions swapped: a batch of matrices, each transposed."""
        if self.ndim < 2:
            raise RuntimeError(
                f"tensor.mT is only supported on matrices or batches of matrices, got a "
                f"{self.ndim}-D tensor"
            )
        return self.transpose(-2, -1)

    def unbind(self, dim=0):
        """The slices along `dim`, as a tuple (each without that dimension)."""
        if self.ndim == 0:
            raise IndexError("unbind: a 0-d tensor has no dimension to unbind")
        dim = dim % self.ndim
        return tuple(self[(slice(None),) * dim + (i,)] for i in range(self.shape[dim]))

    # --- dtype shorthands (as .float(), .double(), .long(), .bool()) ----------------------------
    def int(self):
        return self.to(dtypes.int32)

    def short(self):
        return self.to(dtypes.int16)

    def byte(self):
        return self.to(dtypes.uint8)

    def char(self):
        return self.to(dtypes.int8)

    def half(self):
        return self.to(dtypes.float16)

    # --- clamps with one bound ------------------------------------------------------------------
    def clamp_min(self, min):  # noqa: A002 - PyTorch's name
        return self.clamp(min=min)

    def clamp_max(self, max):  # noqa: A002 - PyTorch's name
        return self.clamp(max=max)

    # --- memory layout ------------------------------------------------------------------------
    def stride(self, dim=None):
        """Steps in elements (not bytes) between neighbours along each dimension."""
        steps = tuple(s // self.array.itemsize for s in self.array.strides)
        return steps if dim is None else steps[dim]

    # --- in place: out-of-place op, written back -------------------------------------------
    exp_ = _in_place("exp_", lambda t: t.exp())
    log_ = _in_place("log_", lambda t: t.log())
    sqrt_ = _in_place("sqrt_", lambda t: t.sqrt())
    abs_ = _in_place("abs_", lambda t: t.abs())
    neg_ = _in_place("neg_", lambda t: -t)
    sigmoid_ = _in_place("sigmoid_", lambda t: t.sigmoid())
    tanh_ = _in_place("tanh_", lambda t: t.tanh())
    relu_ = _in_place("relu_", lambda t: t.relu())

    def clamp_min_(self, min):  # noqa: A002 - PyTorch's name
        return self._change_in_place("clamp_min_", lambda t: t.clamp(min=min), min)

    def clamp_max_(self, max):  # noqa: A002 - PyTorch's name
        return self._change_in_place("clamp_max_", lambda t: t.clamp(max=max), max)

    def addcmul_(self, tensor1, tensor2, *, value=1):
        """self += value * tensor1 * tensor2 (Adam's second moment: `v.addcmul_(g, g, 1 - b2)`)."""
        return self._change_in_place(
            "addcmul_", lambda t: t + value * (tensor1 * tensor2), tensor1, tensor2
        )

    def addcdiv_(self, tensor1, tensor2, *, value=1):
        """self += value * tensor1 / tensor2 (Adam's update: `p.addcdiv_(m, denom, value=-lr)`)."""
        _refuse_integer_division("addcdiv_", tensor1, tensor2)
        return self._change_in_place(
            "addcdiv_", lambda t: t + value * (tensor1 / tensor2), tensor1, tensor2
        )

    def lerp_(self, end, weight):
        """self += weight * (end - self) (an exponential moving average: `m.lerp_(g, 1 - b1)`)."""
        return self._change_in_place("lerp_", lambda t: t.lerp(end, weight), end, weight)

    def addcmul(self, tensor1, tensor2, *, value=1):
        return self + value * (tensor1 * tensor2)

    def addcdiv(self, tensor1, tensor2, *, value=1):
        _refuse_integer_division("addcdiv", tensor1, tensor2)
        return self + value * (tensor1 / tensor2)
