"""Turn the shapes of one PowerPoint slide into content nodes, in reading order.

Slides have no document order, only positions: shapes are read top to bottom,
then left to right, the way a person scans a slide. Groups are read as a unit
at the group's position. Bullets are usually inherited from the slide master,
so a multi-paragraph body placeholder counts as a list even without ``a:buChar``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pptx.enum.shapes import PP_PLACEHOLDER
from pptx.oxml.ns import qn
from pptx.shapes.base import BaseShape
from pptx.shapes.group import GroupShape
from pptx.shapes.picture import Picture
from pptx.text.text import TextFrame

from dropqa.ingestion.document import ParsedNode, paragraph, table_node
from dropqa.ingestion.parsers.ooxml import ImageExtractor, is_mostly_chinese

_BODY_PLACEHOLDERS = {
    PP_PLACEHOLDER.BODY,
    PP_PLACEHOLDER.OBJECT,
    PP_PLACEHOLDER.VERTICAL_BODY,
    PP_PLACEHOLDER.VERTICAL_OBJECT,
}
# Repeated on every slide from the master; indexing them adds only noise.
_RUNNING_PLACEHOLDERS = {
    PP_PLACEHOLDER.DATE,
    PP_PLACEHOLDER.FOOTER,
    PP_PLACEHOLDER.HEADER,
    PP_PLACEHOLDER.SLIDE_NUMBER,
}
_BULLET_TAGS = (qn("a:buChar"), qn("a:buAutoNum"), qn("a:buBlip"))
_NO_BULLET = qn("a:buNone")


def reading_order(shapes: Iterable[BaseShape]) -> list[BaseShape]:
    return sorted(shapes, key=lambda s: (s.top or 0, s.left or 0))


def clean(text: str) -> str:
    """python-pptx writes soft line breaks as vertical tabs; normalise them and trim."""
    lines = (" ".join(line.split()) for line in text.replace("\v", "\n").split("\n"))
    return "\n".join(line for line in lines if line)


def _placeholder_type(shape: BaseShape) -> Any:
    return shape.placeholder_format.type if shape.is_placeholder else None


def is_title_shape(shape: BaseShape) -> bool:
    return _placeholder_type(shape) in (
        PP_PLACEHOLDER.TITLE,
        PP_PLACEHOLDER.CENTER_TITLE,
        PP_PLACEHOLDER.VERTICAL_TITLE,
    )


def is_running_placeholder(shape: BaseShape) -> bool:
    return _placeholder_type(shape) in _RUNNING_PLACEHOLDERS


class ShapeReader:
    """Reads shapes into nodes carrying the slide's page metadata."""

    def __init__(self, images: ImageExtractor, meta: dict[str, Any], warnings: list[str]) -> None:
        self.images = images
        self.meta = meta
        self.warnings = warnings

    def read(self, shapes: Iterable[BaseShape]) -> list[ParsedNode]:
        nodes: list[ParsedNode] = []
        for shape in reading_order(shapes):
            nodes.extend(self._shape(shape))
        return nodes

    def _shape(self, shape: BaseShape) -> list[ParsedNode]:
        if isinstance(shape, GroupShape):
            return self.read(shape.shapes)
        if is_title_shape(shape) or is_running_placeholder(shape):
            return []  # the title becomes the section title; footers repeat on every slide
        if getattr(shape, "has_table", False):
            return self._table(shape.table)
        if getattr(shape, "has_chart", False):
            return self._chart(shape.chart)
        if isinstance(shape, Picture):
            return self._picture(shape)
        if shape.has_text_frame:
            node = self._text_frame(shape.text_frame, _placeholder_type(shape) in _BODY_PLACEHOLDERS)
            return [node] if node else []
        return []

    def _text_frame(self, frame: TextFrame, body_placeholder: bool) -> ParsedNode | None:
        items = [(p.level, clean(p.text), p._p.pPr) for p in frame.paragraphs]
        items = [(level, text, ppr) for level, text, ppr in items if text]
        if not items:
            return None
        explicit = any(_has_child(ppr, _BULLET_TAGS) for *_, ppr in items)
        no_bullets = all(_has_child(ppr, (_NO_BULLET,)) for *_, ppr in items)
        inherited = body_placeholder and len(items) > 1 and not no_bullets
        if explicit or inherited or any(level > 0 for level, *_ in items):
            lines = ["  " * level + "- " + text.replace("\n", " ") for level, text, _ in items]
            return ParsedNode("list", content="\n".join(lines), metadata=dict(self.meta))
        return paragraph("\n".join(text for _, text, _ in items), **self.meta)

    def _table(self, table: Any) -> list[ParsedNode]:
        n_rows, n_cols = len(table.rows), len(table.columns)
        grid: list[list[str | None]] = [[None] * n_cols for _ in range(n_rows)]
        for r in range(n_rows):
            for c in range(n_cols):
                cell = table.cell(r, c)
                if cell.is_spanned:
                    continue  # filled from its merge origin
                text = " ".join(clean(cell.text).split("\n"))
                height, width = (cell.span_height, cell.span_width) if cell.is_merge_origin else (1, 1)
                for dr in range(height):
                    for dc in range(width):
                        if r + dr < n_rows and c + dc < n_cols:
                            grid[r + dr][c + dc] = text
        rows = [[cell or "" for cell in row] for row in grid]
        rows = [row for row in rows if any(row)]
        if not rows:
            return []
        return [table_node(rows[0], rows[1:], **self.meta)]

    def _chart(self, chart: Any) -> list[ParsedNode]:
        """A chart's data as a small table, so "what was Q2 revenue" finds the number."""
        try:
            plots = list(chart.plots)
            categories = [str(c) for c in plots[0].categories] if plots else []
            series = [(s.name or "", list(s.values)) for plot in plots for s in plot.series]
            title = clean(chart.chart_title.text_frame.text) if chart.has_title else None
        except Exception as exc:  # unusual chart types (XY, bubble, chartex) are not worth failing for
            self.warnings.append(f"chart data could not be read: {exc}")
            return []
        if not categories or not series:
            return []
        label = "类别" if is_mostly_chinese(" ".join(categories + [n for n, _ in series])) else "Category"
        header = [label] + [name for name, _ in series]
        rows = [
            [cat] + [_number(values[i]) if i < len(values) else "" for _, values in series]
            for i, cat in enumerate(categories)
        ]
        return [table_node(header, rows, title=title or None, **{**self.meta, "segment_type": "chart"})]

    def _picture(self, shape: Picture) -> list[ParsedNode]:
        try:
            image = shape.image
            blob, mime = image.blob, image.content_type
        except Exception:  # linked (not embedded) pictures have no bytes in the file
            return []
        return [self.images.node(blob, mime, **self.meta)]


def _has_child(el: Any, tags: tuple[str, ...]) -> bool:
    return el is not None and any(el.find(tag) is not None for tag in tags)


def _number(value: float | None) -> str:
    if value is None:
        return ""
    if float(value).is_integer():
        return str(int(value))
    return format(value, ".12g")
