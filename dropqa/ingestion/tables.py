"""Text rendering of tables that reads well and searches well.

Each row becomes ``header1: value1 | header2: value2`` so that a question about a
value finds the row and the answer quotes the column name next to it.
"""

from __future__ import annotations


def render_table(header: list[str], rows: list[list[str]], *, title: str | None = None) -> str:
    lines: list[str] = []
    if title:
        lines.append(title)
    clean_header = [h.strip() for h in header]
    if any(clean_header):
        lines.append(" | ".join(clean_header))
    for row in rows:
        cells = [str(c).strip() for c in row]
        if not any(cells):
            continue
        if any(clean_header) and len(clean_header) >= len(cells):
            pairs = [f"{h}: {c}" if h else c for h, c in zip(clean_header, cells, strict=False) if c]
            lines.append(" | ".join(pairs))
        else:
            lines.append(" | ".join(cells))
    return "\n".join(lines)
