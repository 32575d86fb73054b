"""CSV files: decoded in whatever encoding they were saved in, delimiter sniffed, rows kept as
table chunks in one section named after the file (same header detection and row-range
splitting as the xlsx parser, see :mod:`.sheet_common`)."""

from __future__ import annotations

import csv
import io
import itertools
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import PurePath

from dropqa.ingestion.document import ParsedDocument, ParsedNode, section
from dropqa.ingestion.encoding import decode_text
from dropqa.ingestion.parsers.base import ParseContext, ParseError
from dropqa.ingestion.parsers.sheet_common import Budget, Row, sheet_nodes

DELIMITERS = ",;\t|"
SNIFF_CHARS = 64_000


class CsvParser:

    def parse(self, data: bytes, ctx: ParseContext) -> ParsedDocument:
        title = PurePath(ctx.filename).stem
        doc = ParsedDocument(title=title, file_type="csv")
        text = decode_text(data).replace("\x00", "")
        if not text.strip():
            doc.warnings.append("the file is empty")
            return doc
        delimiter = sniff_delimiter(text[:SNIFF_CHARS])
        doc.metadata["delimiter"] = delimiter
        field_limit = ctx.csv_max_field_chars
        try:
            nodes, budget = _parse_rows(text, delimiter, ctx, field_limit, quoting=csv.QUOTE_MINIMAL)
        except csv.Error as exc:
            # Usually one stray quote that swallows the rest of the file into a gigantic field.
            doc.warnings.append(f"quotes ignored: {exc} (probably an unbalanced quote)")
            try:
                nodes, budget = _parse_rows(text, delimiter, ctx, field_limit, quoting=csv.QUOTE_NONE)
            except csv.Error as again:
                raise ParseError(f"the CSV file cannot be read: {again}") from again
        if budget.exhausted:
            doc.warnings.append(f"truncated: the text limit of {ctx.max_chars} characters was reached")
        if nodes:
            doc.children.append(section(title, nodes))
        else:
            doc.warnings.append("the file holds no rows")
        return doc


def _parse_rows(
    text: str, delimiter: str, ctx: ParseContext, field_limit: int, quoting: int
) -> tuple[list[ParsedNode], Budget]:
    budget = Budget(ctx.max_chars)
    rows_per_chunk, chunk_chars = ctx.rows_per_chunk, ctx.chunk_max_chars
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quoting=quoting)
    with _field_size_limit(field_limit):
        nodes = sheet_nodes(
            _records(reader),
            fallback_title=PurePath(ctx.filename).stem,
            rows_per_chunk=rows_per_chunk, max_chars=chunk_chars,
            budget=budget,
        )
    return nodes, budget


def _records(reader: Iterator[list[str]]) -> Iterator[Row]:
    """Records numbered from 1 as a spreadsheet would show them (a quoted newline is one row)."""
    for number, record in enumerate(reader, start=1):
        yield number, [field.strip() for field in record]


@contextmanager
def _field_size_limit(limit: int) -> Iterator[None]:
    """csv's limit is process-wide; raise it for this parse only (the default is 131,072)."""
    previous = csv.field_size_limit(limit)
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def sniff_delimiter(sample: str) -> str:
    """``csv.Sniffer`` when its answer splits the sample consistently, else the most consistent."""
    if "\n" in sample:
        sample = sample[: sample.rfind("\n")]
    try:
        sniffed = csv.Sniffer().sniff(sample, delimiters=DELIMITERS).delimiter
        if _consistency(sample, sniffed) >= 0.8:
            return sniffed
    except csv.Error:
        pass
    scores = {d: _consistency(sample, d) for d in DELIMITERS}
    best = max(DELIMITERS, key=lambda d: scores[d])
    return best if scores[best] > 0 else ","


def _consistency(sample: str, delimiter: str) -> float:
    """Share of the first rows having the most common field count (0 when that count is 1)."""
    reader = csv.reader(io.StringIO(sample, newline=""), delimiter=delimiter)
    try:
        counts = Counter(len(r) for r in itertools.islice(reader, 50) if any(f.strip() for f in r))
    except csv.Error:
        return 0.0
    if not counts:
        return 0.0
    width, freq = counts.most_common(1)[0]
    return 0.0 if width < 2 else freq / sum(counts.values()) + min(width, 20) / 1000
