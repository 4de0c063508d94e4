"""How a tensor prints: like PyTorch, `tensor([[0.2000, 0.1000]], requires_grad=True)`.

The rules follow PyTorch's (`torch/_tensor_str.py`): floats get `precision` decimals (4 by
default); floats that are all whole numbers print as `1.`; scientific notation when the values
span more than three orders of magnitude or are very large or very small; every element padded
to the width of the widest finite non-zero one (nan, inf and 0 never widen a column); a row
holds as many elements as fit in `linewidth`; a tensor with more than `threshold` elements
shows only `edgeitems` at each end of every axis, with `...` between.
"""

import numpy as np

from .. import dtypes

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
    """Pick one format for all elements, from the finite non-zero values among them.

    Returns `(show, width)`: `show(x)` is the text of one element, padded to `width`.
    """
    precision = _options["precision"]
    finite = values[np.isfinite(values)].astype(np.float64)
    nonzero = finite[finite != 0]
    magnitude = np.abs(nonzero)
    whole = bool(np.all(nonzero == np.ceil(nonzero)))
    big = nonzero.size > 0 and (magnitude.max() / magnitude.min() > 1000 or magnitude.max() > 1e8)
    small = nonzero.size > 0 and magnitude.min() < 1e-4
    sci = _options["sci_mode"]
    if sci is None:
        sci = big or (small and not whole)
    if sci:
        fmt = f"{{:.{precision}e}}"
    elif whole:
        fmt = "{:.0f}."
    else:
        fmt = f"{{:.{precision}f}}"

    def text(x: float) -> str:
        if np.isfinite(x):
            return fmt.format(x)
        return f"{x:.0f}" if not sci and whole else fmt.format(x)  # nan, inf: never "nan."

    width = max((len(text(x)) for x in nonzero.tolist()), default=1)
    return (lambda x: text(x).rjust(width)), width


def _summarized(data: np.ndarray, edge: int) -> np.ndarray:
    """Only the corners that will be printed: `edge` items at each end of every axis."""
    if data.ndim == 0:
        return data
    if data.shape[0] > 2 * edge:
        data = np.concatenate([data[:edge], data[-edge:]])
    if data.ndim == 1:
        return data
    return np.stack([_summarized(row, edge) for row in data]) if len(data) else data


def _vector_str(values: list, indent: int, summarize: bool, show, width: int) -> str:
    """One innermost row: as many elements per line as fit in `linewidth`, as PyTorch."""
    edge = _options["edgeitems"]
    per_line = max(1, (_options["linewidth"] - indent) // (width + 2))
    if summarize and len(values) > 2 * edge:
        items = [show(v) for v in values[:edge]] + [" ..."] + [show(v) for v in values[-edge:]]
    else:
        items = [show(v) for v in values]
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _array_str(data: np.ndarray, indent: int, summarize: bool, show, width: int) -> str:
    if data.ndim == 0:
        return show(data.item())
    if data.ndim == 1:
        return _vector_str(data.tolist(), indent, summarize, show, width)
    edge = _options["edgeitems"]
    rows = range(len(data))
    if summarize and len(data) > 2 * edge:
        rows = [*range(edge), None, *range(len(data) - edge, len(data))]
    parts = [
        "..." if i is None else _array_str(data[i], indent + 1, summarize, show, width)
        for i in rows
    ]
    # Between blocks of a 3-d tensor one blank line, of a 4-d tensor two, as PyTorch prints.
    return "[" + ("," + "\n" * (data.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def format_tensor(tensor) -> str:
    data = tensor.array
    prefix = "tensor("
    summarize = data.size > _options["threshold"]
    if data.size == 0:
        body = "[]"
    else:
        # Only the printed corners decide the format, as in PyTorch.
        shown = _summarized(data, _options["edgeitems"]) if summarize else data
        if data.dtype.kind == "f":
            show, width = _float_formatter(shown)
        else:
            width = max(len(str(x)) for x in shown.ravel().tolist())
            show = lambda x: str(x).rjust(width)
        body = _array_str(data, len(prefix), summarize, show, width)
    extras = []
    if data.size == 0 and data.ndim != 1:
        extras.append(f"size={data.shape}")
    # An empty tensor shows no element from which int64 or bool could be read, so it says.
    plain = (
        (dtypes.get_default_dtype(),)
        if data.size == 0
        else (dtypes.get_default_dtype(), dtypes.int64, dtypes.bool)
    )
    if data.dtype not in plain:
        extras.append(f"dtype={dtypes.of(data.dtype)!r}")
    if tensor.grad_fn is not None:
        extras.append(f"grad_fn={tensor.grad_fn!r}")
    elif tensor.requires_grad:
        extras.append("requires_grad=True")
    return _add_suffixes(prefix + body, extras, len(prefix))


def _add_suffixes(text: str, extras: list, indent: int) -> str:
    """`, dtype=...` and the like after the values; one that would pass `linewidth` goes on a
    line of its own (PyTorch's rule, including its count of the last line's length)."""
    line_length = len(text) - text.rfind("\n") + 1
    for extra in extras:
        if line_length + len(extra) + 2 > _options["linewidth"]:
            text += ",\n" + " " * indent + extra
            line_length = indent + len(extra)
        else:
            text += ", " + extra
            line_length += len(extra) + 2
    return text + ")"
