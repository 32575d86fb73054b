"""What one PDF page holds: text lines, tables (with their captions) and large images.

Table cell text is rebuilt from the characters of the text layer rather than taken
from ``Table.extract()``, which splits CJK punctuation from numbers ("100\\n,000").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pymupdf

from dropqa.ingestion.ocr import BBox, join_lines
from dropqa.ingestion.parsers.pdf_layout import TextLine

TEXT_FLAGS = pymupdf.TEXT_PRESERVE_LIGATURES | pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
LARGE_IMAGE_SHARE = 0.15
MIN_TABLE_EDGES = 6  # two rows × two columns need at least 3 horizontal and 3 vertical rules
_TABLE_CAPTION = re.compile(r"^(续?表|附表|table|tab\.)\s*[\dA-Z一二三四五六七八九十]", re.I)
_FIGURE_CAPTION = re.compile(r"^(图|附图|figure|fig\.)\s*[\dA-Z一二三四五六七八九十]", re.I)


@dataclass
class TableData:
    bbox: BBox
    header: list[str]
    rows: list[list[str]]
    order: float
    caption: str | None = None


@dataclass
class ImageData:
    bbox: BBox
    xref: int
    order: float
    caption: str | None = None
    share: float = 0.0  # of the page area
    text_chars: int = 0  # characters of the text layer printed over the image


@dataclass
class PageData:
    number: int
    width: float
    height: float
    lines: list[TextLine] = field(default_factory=list)
    tables: list[TableData] = field(default_factory=list)
    images: list[ImageData] = field(default_factory=list)
    text_chars: int = 0
    image_count: int = 0


@dataclass
class _Char:
    c: str
    x: float
    y: float
    line: int


def extract_page(page: pymupdf.Page, number: int, *, with_tables: bool = True) -> PageData:
    raw = page.get_text("rawdict", flags=TEXT_FLAGS)
    lines, chars = _read_lines(raw, number)
    data = PageData(number, page.rect.width, page.rect.height, lines)
    data.text_chars = sum(len("".join(ln.text.split())) for ln in lines)
    if with_tables and data.text_chars and _may_hold_table(page):
        data.tables, covered = _tables(page, lines, chars)
        data.lines = [ln for ln in lines if ln.order not in covered]
    data.images, data.image_count = _images(page, data)
    return data


def _read_lines(raw: dict[str, Any], number: int) -> tuple[list[TextLine], list[_Char]]:
    lines: list[TextLine] = []
    chars: list[_Char] = []
    for block in raw.get("blocks", []):
        for line in block.get("lines", []):
            spans = line.get("spans", [])
            text = "".join(c["c"] for s in spans for c in s.get("chars", []))
            if not text.strip():
                continue
            sizes: Counter[float] = Counter()
            bold = 0
            for span in spans:
                n = len(span.get("chars", []))
                sizes[round(float(span["size"]), 1)] += n
                if span["flags"] & pymupdf.TEXT_FONT_BOLD or "bold" in span["font"].lower():
                    bold += n
            box = tuple(float(v) for v in line["bbox"])
            index = len(lines)
            y = (box[1] + box[3]) / 2
            for span in spans:
                for c in span.get("chars", []):
                    chars.append(_Char(c["c"], (c["bbox"][0] + c["bbox"][2]) / 2, y, index))
            size = sizes.most_common(1)[0][0]
            lines.append(TextLine(text.strip(), box, size, bold * 2 > len(text), number, index))  # type: ignore[arg-type]
    return lines, chars


def _center(box: Sequence[float]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def _height(line: TextLine) -> float:
    return line.bbox[3] - line.bbox[1]


def _inside(x: float, y: float, box: Sequence[float], tol: float = 1.0) -> bool:
    return box[0] - tol <= x <= box[2] + tol and box[1] - tol <= y <= box[3] + tol


def _cell_text(cell: Sequence[float] | None, chars: Sequence[_Char]) -> str:
    if cell is None:
        return ""
    parts: dict[int, list[str]] = {}
    for ch in chars:
        if _inside(ch.x, ch.y, cell, tol=0.5):
            parts.setdefault(ch.line, []).append(ch.c)
    return join_lines([" ".join("".join(p).split()) for _, p in sorted(parts.items())])


def _may_hold_table(page: pymupdf.Page) -> bool:
    """Cheap pre-check: a ruled table needs at least a few straight edges (find_tables is slow)."""
    try:
        paths = page.get_cdrawings()
    except Exception:
        return True
    edges = 0
    for path in paths:
        for item in path.get("items", ()):
            if item[0] in ("re", "qu"):
                edges += 4
            elif item[0] == "l" and (abs(item[1][0] - item[2][0]) < 1 or abs(item[1][1] - item[2][1]) < 1):
                edges += 1
        if edges >= MIN_TABLE_EDGES:
            return True
    return False


def _find_tables(page: pymupdf.Page) -> list[Any]:
    """Ruled tables. The optional layout model (PyMuPDF ≥ 2 with pymupdf-layout) costs ~0.5 s a page
    and finds the same ruled tables, so it is switched off where the option exists."""
    try:
        return list(page.find_tables(use_layout=False).tables)
    except TypeError:  # older PyMuPDF: no use_layout argument
        return list(page.find_tables().tables)


def _tables(page: pymupdf.Page, lines: list[TextLine], chars: list[_Char]) -> tuple[list[TableData], set[int]]:
    """Tables found by PyMuPDF, and the line numbers (``order``) of the text they cover."""
    try:
        found = _find_tables(page)
    except Exception:  # the table finder fails on some malformed pages; the text is still kept
        return [], set()
    tables: list[TableData] = []
    covered_all: set[int] = set()
    for table in found:
        if table.row_count < 2 or table.col_count < 2:
            continue  # a framed paragraph, not a table
        box = tuple(table.bbox)
        inside = [ch for ch in chars if _inside(ch.x, ch.y, box)]
        rows = [[_cell_text(cell, inside) for cell in row.cells] for row in table.rows]
        header, rows = rows[0], rows[1:]
        if table.header.external:  # a header row above the grid; a lone caption line is not one
            outside = [_cell_text(cell, chars) for cell in table.header.cells]
            if sum(1 for c in outside if c) >= 2:
                header, rows, box = outside, [header, *rows], tuple(pymupdf.Rect(box) | table.header.bbox)
        covered = [ln for ln in lines if _inside(*_center(ln.bbox), box)]
        covered_all.update(ln.order for ln in covered)
        order = min((ln.order for ln in covered), default=_order_at(lines, box[1]))
        tables.append(TableData(box, header, rows, order, _caption(lines, box)))  # type: ignore[arg-type]
    return tables, covered_all


def _caption(lines: Sequence[TextLine], box: Sequence[float]) -> str | None:
    """A line just above the table starting with 表/附表/Table; consumed unless it is also a heading."""
    above = [ln for ln in lines if not ln.consumed and -2 <= box[1] - ln.bbox[3] < 2.5 * _height(ln)]
    if not above:
        return None
    line = max(above, key=lambda ln: ln.bbox[3])
    if not _TABLE_CAPTION.match(line.text):
        return None
    line.consumed = True  # the caption goes into the table node (a caption that is a heading stays one)
    return line.text


def _order_at(lines: Sequence[TextLine], y: float) -> float:
    below = [ln.order for ln in lines if ln.bbox[1] >= y - 1]
    return min(below) - 0.5 if below else len(lines) + 0.5


def _images(page: pymupdf.Page, data: PageData) -> tuple[list[ImageData], int]:
    try:
        infos = page.get_image_info(xrefs=True)
    except Exception:
        return [], 0
    page_area = max(1.0, data.width * data.height)
    images: list[ImageData] = []
    seen: set[tuple[int, tuple[int, ...]]] = set()
    for info in infos:
        rect = pymupdf.Rect(info["bbox"]) & page.rect
        key = (int(info.get("xref", 0)), tuple(round(v) for v in rect))
        if rect.is_empty or key in seen or rect.width * rect.height < LARGE_IMAGE_SHARE * page_area:
            continue
        seen.add(key)
        box = (rect.x0, rect.y0, rect.x1, rect.y1)
        order = _order_at(data.lines, rect.y0)
        over = sum(len("".join(ln.text.split())) for ln in data.lines if _inside(*_center(ln.bbox), box))
        share = rect.width * rect.height / page_area
        images.append(ImageData(box, key[0], order, _figure_caption(data.lines, box), share, over))
    return images, len(infos)


def _figure_caption(lines: Sequence[TextLine], box: BBox) -> str | None:
    below = [ln for ln in lines if 0 <= ln.bbox[1] - box[3] < 2.5 * _height(ln)]
    for line in sorted(below, key=lambda ln: ln.bbox[1]):
        if _FIGURE_CAPTION.match(line.text):
            return line.text
    return None
