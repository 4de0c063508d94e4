"""How a tensor prints: like PyTorch, `tensor([[0.2000, 0.1000]], requires_grad=True)`.

The rules follow PyTorch's: floats get `precision` decimals (4 by default); floats that are
all whole numbers print as `1.`; scientific notation when the values span more than three
orders of magnitude or are very large or very small; every element padded to one width.
"""

import numpy as np

from . import dtypes

_options = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


def set_printoptions(
    precision=None, threshold=None, edgeitems=None, linewidth=None, sci_mode=None
) -> None:
    """Change how tensors print, as `torch.set_printoptions` (None leaves a setting as is)."""
    for key, value in dict(
        precision=precision, threshold=threshold, edgeitems=edgeitems, linewidth=linewidth
    ).items():
        if value is not None:
            _options[key] = value
    _options["sci_mode"] = sci_mode


def _float_formatter(values: np.ndarray):
    """Pick one format for all elements, from the finite non-zero magnitudes among them."""
    precision = _options["precision"]
    finite = np.abs(values[np.isfinite(values)]).astype(np.float64)
    nonzero = finite[finite != 0]
    whole = finite.size == 0 or bool(np.all(finite == np.ceil(finite)))
    big = nonzero.size > 0 and (nonzero.max() / nonzero.min() > 1000 or nonzero.max() > 1e8)
    small = nonzero.size > 0 and nonzero.min() < 1e-4
    sci = _options["sci_mode"]
    if sci is None:
        sci = big or (small and not whole)
    if sci:
        fmt = f"{{:.{precision}e}}"
    elif whole:
        fmt = "{:.0f}."
    else:
        fmt = f"{{:.{precision}f}}"

    def show(x):
        return fmt.format(x) if np.isfinite(x) else str(float(x))

    width = max((len(show(x)) for x in values.ravel()), default=1)
    return lambda x: show(x).rjust(width)


def _padded(values: np.ndarray, show=str):
    width = max((len(show(x)) for x in values.ravel()), default=1)
    return lambda x: show(x).rjust(width)


def format_tensor(tensor) -> str:
    data = tensor.data
    prefix = "tensor("
    shown = data
    if data.size > _options["threshold"]:
        # Only the printed corners decide the format, as in PyTorch.
        e = _options["edgeitems"]
        shown = np.concatenate([data.ravel()[:e], data.ravel()[-e:]])
    if data.dtype.kind == "f":
        formatter = {"float_kind": _float_formatter(shown)}
    elif data.dtype.kind == "b":
        formatter = {"bool": _padded(shown)}
    else:
        formatter = {"int_kind": _padded(shown)}
    body = np.array2string(
        data,
        separator=", ",
        prefix=prefix,
        formatter=formatter,
        max_line_width=_options["linewidth"],
        threshold=_options["threshold"],
        edgeitems=_options["edgeitems"],
    )
    extras = []
    if data.size == 0 and data.ndim != 1:
        extras.append(f"size={data.shape}")
    if data.dtype not in (dtypes.get_default_dtype(), dtypes.int64, dtypes.bool):
        extras.append(f"dtype={data.dtype}")
    if tensor.grad_fn is not None:
        extras.append(f"grad_fn={tensor.grad_fn!r}")
    elif tensor.requires_grad:
        extras.append("requires_grad=True")
    return prefix + body + "".join(", " + e for e in extras) + ")"
