"""A plain-text table for the terminal."""


def format_table(headers: list[str], rows: list[list], right: set[int] = frozenset()) -> str:
    """Columns padded to their widest cell; columns in `right` are right-aligned (numbers)."""
    cells = [[str(c) for c in row] for row in [headers, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row):
        return "  ".join(
            c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))
        ).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), rule, *(line(r) for r in cells[1:])])
