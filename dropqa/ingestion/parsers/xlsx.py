"""Excel workbooks (.xlsx): one section per visible sheet, rows kept as table chunks.

Formulas are read through their cached values (``data_only=True``). Loading mode is a
trade-off: openpyxl's normal mode knows merged cells (their value is repeated into every
covered cell, so a merged department or title reads right) but holds the whole workbook in
memory (about 8 bytes of RAM per byte of sheet XML); ``read_only`` streams rows in constant
memory but cannot see merged ranges (they are stored after the rows). Workbooks whose sheet
XML exceeds ``ingestion.xlsx_read_only_bytes`` (default 10 MB, roughly 30,000 rows of
six columns) are therefore streamed and lose merged-cell filling; smaller ones are not.
"""

from __future__ import annotations

import io
import warnings
import zipfile
from collections import defaultdict
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

import openpyxl
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet._read_only import ReadOnlyWorksheet
from openpyxl.worksheet.worksheet import Worksheet

from dropqa.ingestion.document import ParsedDocument, section
from dropqa.ingestion.parsers.base import ParseContext, ParseError
from dropqa.ingestion.parsers.sheet_common import Budget, Row, format_value, sheet_nodes
from dropqa.ingestion.safety import check_zip_container

OLE_MAGIC = b"\xd0\xcf\x11\xe0"


class XlsxParser:

    def parse(self, data: bytes, ctx: ParseContext) -> ParsedDocument:
        if data.startswith(OLE_MAGIC):
            raise ParseError(
                "the file is password-protected or a legacy .xls workbook; "
                "save it as .xlsx without a password and add it again"
            )
        check_zip_container(data, ctx)
        limit = ctx.xlsx_read_only_bytes
        read_only = _sheet_xml_bytes(data) > limit
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # openpyxl warns about every unsupported extension
            wb = _load(data, read_only)
            try:
                return _parse_workbook(wb, ctx, read_only)
            except ParseError:
                raise
            except Exception as exc:  # untrusted input: any reader failure is a damaged file
                raise ParseError(f"the Excel file is damaged and cannot be read ({_describe(exc)})") from exc
            finally:
                wb.close()


def _describe(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _sheet_xml_bytes(data: bytes) -> int:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return sum(i.file_size for i in zf.infolist() if i.filename.startswith("xl/worksheets/"))


def _load(data: bytes, read_only: bool) -> Workbook:
    try:
        return openpyxl.load_workbook(
            io.BytesIO(data), read_only=read_only, data_only=True, rich_text=False, keep_links=False
        )
    except Exception as exc:  # BadZipFile, KeyError (missing part), XML errors, InvalidFileException …
        raise ParseError(f"the file is not a readable Excel workbook ({_describe(exc)})") from exc


def _parse_workbook(wb: Workbook, ctx: ParseContext, read_only: bool) -> ParsedDocument:
    doc = ParsedDocument(title=PurePath(ctx.filename).stem, file_type="xlsx")
    budget = Budget(ctx.max_chars)
    rows_per_chunk, chunk_chars = ctx.rows_per_chunk, ctx.chunk_max_chars
    for index, name in enumerate(wb.sheetnames, start=1):
        ws = wb[name]
        if not isinstance(ws, Worksheet | ReadOnlyWorksheet):
            doc.warnings.append(f"chart sheet '{name}' skipped (no cell data)")
            continue
        if ws.sheet_state != "visible":
            doc.warnings.append(f"hidden sheet '{name}' skipped")
            continue
        if budget.exhausted:
            doc.warnings.append(
                f"sheet '{name}' skipped: the text limit of {ctx.max_chars} characters was reached"
            )
            continue
        meta: dict[str, Any] = {"sheet": name, "page": index, "page_estimated": False}
        rows = _stream_rows(ws) if read_only else _rows_with_merges(ws)
        nodes = sheet_nodes(rows, fallback_title=name, rows_per_chunk=rows_per_chunk, max_chars=chunk_chars,
                            budget=budget, **meta)
        if budget.exhausted:
            doc.warnings.append(
                f"sheet '{name}' truncated: the text limit of {ctx.max_chars} characters was reached"
            )
        if nodes:
            doc.children.append(section(name, nodes, **meta))
    if read_only:
        doc.warnings.append("large workbook read in streaming mode: merged cells are not repeated")
    doc.metadata["sheets"] = [node.title for node in doc.children]
    return doc


def _stream_rows(ws: ReadOnlyWorksheet) -> Iterator[Row]:
    ws.reset_dimensions()  # the stored dimension is often wrong; trust the rows themselves
    for number, row in enumerate(ws.iter_rows(), start=1):
        yield number, [format_value(cell.value, cell.number_format) for cell in row]


def _rows_with_merges(ws: Worksheet) -> Iterator[Row]:
    """Rows of the cells that exist, merged values repeated into the cells they cover.

    ``ws.iter_rows()`` would create every cell of the used rectangle: one stray formatted cell
    at row 1,048,576 would cost a million empty rows, so the stored cells are walked instead
    and a gap of empty rows is reported as a single blank row.
    """
    covered = _merged_sources(ws)
    by_row: dict[int, dict[int, Any]] = defaultdict(dict)
    for (r, c), cell in ws._cells.items():  # the worksheet's own {(row, col): cell} store
        by_row[r][c] = covered.get((r, c), cell)
    for (r, c), source in covered.items():
        by_row[r].setdefault(c, source)
    previous = 0
    for number in sorted(by_row):
        if number > previous + 1:
            yield previous + 1, []
        cells = [""] * max(by_row[number])
        for col, cell in by_row[number].items():
            cells[col - 1] = format_value(cell.value, cell.number_format)
        yield number, cells
        previous = number


def _merged_sources(ws: Worksheet) -> dict[tuple[int, int], Any]:
    """(row, column) of every cell covered by a merge → the merge's top-left cell."""
    sources: dict[tuple[int, int], Any] = {}
    for rng in ws.merged_cells.ranges:
        top_left = ws.cell(rng.min_row, rng.min_col)
        for r in range(rng.min_row, min(rng.max_row, ws.max_row) + 1):
            for c in range(rng.min_col, min(rng.max_col, ws.max_column) + 1):
                sources[(r, c)] = top_left
    return sources
