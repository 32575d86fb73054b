"""Shared logic of the spreadsheet parsers (xlsx, csv).

Cell values are formatted as people read them, then a sheet's rows — a stream of
``(row_number, [cell text, ...])`` — are cut into nodes:

- rows above the header (a merged title such as ``2024年度绩效考核结果``) become paragraphs,
  and the last title-like one names the table;
- the header is the first mostly-non-empty text row followed by data; two header rows are
  combined when the upper one has merged (repeated) cells;
- data rows become ``table`` nodes of ``rows_per_chunk`` rows (fewer when the rows are wide: a
  range's text stays under ``ingestion.chunk_max_chars``), each repeating the header and carrying
  ``row_range`` (spreadsheet row numbers);
- notes under the table (``备注：…``, ``审批人：…``) end it and become paragraphs; whatever follows
  is read the same way (so a second table further down gets its own header).

Only a short look-ahead and one chunk are buffered, so a 100,000-row sheet streams through.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from dropqa.ingestion.document import ParsedNode, paragraph, table_node

Row = tuple[int, list[str]]

LOOKAHEAD_ROWS = 30
TITLE_MAX_CHARS = 60
NOTE_RE = re.compile(r"^\s*[*※#]?\s*[^\s:：\d]{1,12}\s*[:：]")  # 备注：… 审批人：… Note: …
DATE_RE = re.compile(
    r"^\d{4}[-/.年]\d{1,2}([-/.月]\d{1,2}日?)?([ T]\d{1,2}:\d{2}(:\d{2})?)?$|^\d{1,2}:\d{2}(:\d{2})?$"
)
_FMT_NOISE = re.compile(r'"[^"]*"|\[[^\]]*\]|\\.|_.|\*.')


# ---------------------------------------------------------------- value formatting


def format_value(value: Any, number_format: str | None = None) -> str:
    """A cell value as Excel would show it: ``2024-03-08``, ``95%``, ``93``, ``0.3``, ``TRUE``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, datetime):
        return _format_datetime(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, time):
        return value.strftime("%H:%M:%S" if value.second else "%H:%M")
    if isinstance(value, timedelta):
        minutes, seconds = divmod(round(value.total_seconds()), 60)
        hours, minutes = divmod(minutes, 60)
        return f"{hours}:{minutes:02d}:{seconds:02d}" if seconds else f"{hours}:{minutes:02d}"
    if isinstance(value, int | float | Decimal):
        return format_number(float(value) if isinstance(value, Decimal) else value, number_format)
    return str(value).strip()


def _format_datetime(value: datetime) -> str:
    if value.microsecond:  # Excel stores times as day fractions; drop the float noise
        value = (value + timedelta(microseconds=500_000)).replace(microsecond=0)
    if value.time() == time(0):
        return value.date().isoformat()
    return value.strftime("%Y-%m-%d %H:%M:%S" if value.second else "%Y-%m-%d %H:%M")


def format_number(value: float, number_format: str | None = None) -> str:
    fmt = _numeric_section(number_format)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if "%" in fmt:
        return _fixed(value * 100, fmt) + "%"
    if any(ch in fmt for ch in "0#?") and "E" not in fmt.upper() and "/" not in fmt:
        return _fixed(value, fmt)
    return _plain(value)


def _numeric_section(number_format: str | None) -> str:
    """The positive part of a number format without literals and colours; '' for General/text."""
    if not number_format or number_format in ("General", "@"):
        return ""
    return _FMT_NOISE.sub("", number_format.split(";")[0])


def _fixed(value: float, fmt: str) -> str:
    """Format with the format's decimals (``0.0#`` → 1 to 2 decimals) and ``,`` grouping."""
    integer, _, fraction = fmt.partition(".")
    min_d = fraction.count("0")
    max_d = sum(fraction.count(ch) for ch in "0#?")
    text = f"{value:{',' if ',' in integer else ''}.{max_d}f}"
    while max_d > min_d and text.endswith("0"):
        text, max_d = text[:-1], max_d - 1
    text = text.removesuffix(".")
    return text[1:] if text.startswith("-") and not text.strip("-0.,") else text  # no "-0"


def _plain(value: float) -> str:
    if isinstance(value, int):
        return str(value)
    if value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return f"{value:.15g}"  # 0.1 + 0.2 → 0.3


def looks_numeric(text: str) -> bool:
    """Numbers, percentages, amounts and dates — what a header row does not contain."""
    t = text.strip().lstrip("¥$€£+-").rstrip("%").replace(",", "").strip()
    if not t or t.isalpha():
        return False
    try:
        float(t)
        return True
    except ValueError:
        return bool(DATE_RE.match(text.strip()))


# ---------------------------------------------------------------- row helpers


def _values(cells: list[str]) -> list[str]:
    """Distinct non-empty values in order (a merged cell repeated across a row counts once)."""
    return list(dict.fromkeys(c for c in cells if c))


def _span(rows: Iterable[list[str]]) -> tuple[int, int]:
    firsts, lasts = [], []
    for cells in rows:
        idx = [i for i, c in enumerate(cells) if c]
        if idx:
            firsts.append(idx[0])
            lasts.append(idx[-1] + 1)
    return (min(firsts), max(lasts)) if firsts else (0, 0)


def _row_text(cells: list[str]) -> str:
    return " ".join(_values(cells))


def _is_title_like(cells: list[str]) -> bool:
    values = _values(cells)
    return len(values) == 1 and len(values[0]) <= TITLE_MAX_CHARS and not NOTE_RE.match(values[0])


def _is_header(cells: list[str], following: list[list[str]]) -> bool:
    """Mostly non-empty distinct text, and the next non-blank row holds data."""
    data = [c for c in following if any(c)][:10]
    values = [c for c in cells if c]
    if not data or not values:
        return False
    first, last = _span([cells, *data])
    width = last - first
    text_ratio = sum(not looks_numeric(v) for v in values) / len(values)
    if width == 1:  # a one-column list: short text header over short entries, not a read-me sheet
        entries = [_row_text(c) for c in data]
        return (
            text_ratio == 1
            and _is_title_like(cells)
            and len(values[0]) <= 20
            and all(len(e) <= 40 and not NOTE_RE.match(e) for e in entries)
        )
    return (
        len(set(values)) >= 2
        and len(values) * 2 >= width
        and text_ratio >= 0.6
        and sum(1 for c in data[0] if c) >= 2
    )


def _combine_headers(upper: list[str], lower: list[str]) -> list[str]:
    width = max(len(upper), len(lower))
    upper, lower = _pad(upper, width), _pad(lower, width)
    return [_join_header(u, low) for u, low in zip(upper, lower, strict=True)]


def _join_header(upper: str, lower: str) -> str:
    """``考核`` over ``得分`` → ``考核 得分``; a cell merged down both rows is kept once."""
    if not lower or upper == lower:
        return upper
    return f"{upper} {lower}" if upper else lower


def _has_merged_cells(cells: list[str]) -> bool:
    return any(a and a == b for a, b in itertools.pairwise(cells))


def _is_two_row_header(upper: list[str], lower: list[str], following: list[list[str]]) -> bool:
    values = [c for c in lower if c]
    return (
        _has_merged_cells(upper)
        and bool(values)
        and all(not looks_numeric(v) for v in values)
        and _is_header(lower, following)
    )


def _pad(cells: list[str], width: int) -> list[str]:
    return cells + [""] * (width - len(cells)) if len(cells) < width else cells


def _table_cells(cells: list[str]) -> list[str]:
    """Cells of a data row: one line each; a group label merged across the row kept once."""
    flat = [" ".join(c.split()) if "\n" in c or "\r" in c else c for c in cells]
    values = [c for c in flat if c]
    if len(values) > 1 and len(set(values)) == 1:
        first = next(i for i, c in enumerate(flat) if c)
        flat = [c if i == first else "" for i, c in enumerate(flat)]
    return flat


# ---------------------------------------------------------------- streaming


@dataclass
class Budget:
    """How many characters of cell text may still be indexed (``ParseContext.max_chars``)."""

    remaining: int
    exhausted: bool = False

    def take(self, cells: list[str]) -> bool:
        self.remaining -= sum(len(c) for c in cells)
        self.exhausted = self.exhausted or self.remaining < 0
        return not self.exhausted


class _RowStream:
    """An iterator of rows that allows pushing rows back after a look-ahead."""

    def __init__(self, rows: Iterable[Row]) -> None:
        self._rows = iter(rows)
        self._back: deque[Row] = deque()

    def next(self) -> Row | None:
        if self._back:
            return self._back.popleft()
        return next(self._rows, None)

    def push_back(self, rows: list[Row]) -> None:
        self._back.extendleft(reversed(rows))

    def take_lookahead(self, limit: int) -> list[Row]:
        """Up to ``limit`` non-blank rows (blank rows in between are kept, leading ones dropped)."""
        out: list[Row] = []
        nonblank = 0
        while nonblank < limit and (row := self.next()) is not None:
            if any(row[1]):
                nonblank += 1
            if out or any(row[1]):
                out.append(row)
        return out


@dataclass
class _Table:
    header: list[str]
    title: str | None
    rows_per_chunk: int
    meta: dict[str, Any]
    max_chars: int  # 0: no character cap

    def rendered_length(self, cells: list[str]) -> int:
        """About how long the row's ``header: value | …`` rendering is."""
        return sum(len(h) + len(c) + 4 for h, c in zip(self.header, cells, strict=False) if c) + len(cells)

    def chunk(self, rows: list[Row]) -> ParsedNode:
        left, right = _span([self.header, *(cells for _, cells in rows)])
        header = _pad(self.header[left:right], right - left)
        body = [_pad(cells[left:right], right - left) for _, cells in rows]
        row_range = [rows[0][0], rows[-1][0]]
        return table_node(header, body, title=self.title, row_range=row_range, **self.meta)


def sheet_nodes(
    rows: Iterable[Row], *, fallback_title: str | None, rows_per_chunk: int, budget: Budget,
    max_chars: int, **meta: Any
) -> list[ParsedNode]:
    """Cut a sheet's rows into paragraphs and table chunks (at most ``rows_per_chunk`` rows and about
    ``max_chars`` characters each; 0 = no character cap); ``meta`` goes on every node."""
    stream = _RowStream(rows)
    nodes: list[ParsedNode] = []
    while not budget.exhausted and (buf := stream.take_lookahead(LOOKAHEAD_ROWS)):
        preamble, header, rest = _split_lookahead(buf)
        nodes.extend(_paragraphs(preamble, meta, budget))
        if header is None and not rest:
            continue
        titles = [_row_text(c) for _, c in preamble if _is_title_like(c)]
        header_cells = header[1] if header else []
        table = _Table(header_cells, titles[-1] if titles else fallback_title, max(1, rows_per_chunk), meta,
                       max_chars or 1 << 62)
        stream.push_back(rest)
        chunks = list(_stream_table(stream, table, budget))
        if not chunks and header:  # a header-looking row with nothing under it
            chunks = [_paragraph(header, meta)]
        nodes.extend(chunks)
    return nodes


def _split_lookahead(buf: list[Row]) -> tuple[list[Row], Row | None, list[Row]]:
    """(rows above the table, the header row or None, rows from the first data row on)."""
    cells = [c for _, c in buf]
    h = next((i for i in range(len(buf)) if _is_header(cells[i], cells[i + 1 :])), None)
    if h is not None:
        header, rest = cells[h], buf[h + 1 :]
        if rest and _is_two_row_header(header, rest[0][1], [c for _, c in rest[1:]]):
            header, rest = _combine_headers(header, rest[0][1]), rest[1:]
        return buf[:h], (buf[h][0], header), rest
    multi = [i for i, c in enumerate(cells) if len(_values(c)) >= 2]
    if len(multi) * 2 <= sum(1 for c in cells if any(c)):
        return buf, None, []  # free text (a read-me sheet), not a table
    return buf[: multi[0]], None, buf[multi[0] :]  # a table without a header row


def _stream_table(stream: _RowStream, table: _Table, budget: Budget) -> Iterator[ParsedNode]:
    chunk: list[Row] = []
    chars = 0
    after_blank = False
    left = _span([table.header])[0] if any(table.header) else 0
    while (row := stream.next()) is not None:
        number, cells = row
        if not any(cells):
            after_blank = True
            continue
        if _ends_table(cells, after_blank, left):
            stream.push_back([row])
            break
        after_blank = False
        if not budget.take([*cells, *table.header]):  # the rendering repeats the header per row
            break
        cells = _table_cells(cells)
        chunk.append((number, cells))
        chars += table.rendered_length(cells)
        if len(chunk) >= table.rows_per_chunk or chars >= table.max_chars:
            yield table.chunk(chunk)
            chunk, chars = [], 0
    if chunk:
        yield table.chunk(chunk)


def _ends_table(cells: list[str], after_blank: bool, left: int) -> bool:
    """A lone note in the table's first column after a gap, or a ``备注：`` style label."""
    values = _values(cells)
    if len(values) != 1 or _span([cells])[0] > left:
        return False
    return after_blank or bool(NOTE_RE.match(values[0]))


def _paragraphs(rows: list[Row], meta: dict[str, Any], budget: Budget) -> Iterator[ParsedNode]:
    for row in rows:
        if any(row[1]) and budget.take(row[1]):
            yield _paragraph(row, meta)


def _paragraph(row: Row, meta: dict[str, Any]) -> ParsedNode:
    number, cells = row
    return paragraph(_row_text(cells), segment_type="text", row_range=[number, number], **meta)
