"""Word (.docx) parser: headings → nested sections, lists, tables, pictures, estimated pages.

The body XML is walked in order (paragraphs and tables interleaved). Headings
come from heading styles / outline levels, or — for authors who format headings
by hand — from bold short lines numbered like ``第3章``, ``3.2``, ``一、``.
Headers and footers are never read as body text.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from pathlib import PurePath
from typing import TYPE_CHECKING

from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.oxml.ns import qn
from lxml import etree

from dropqa.ingestion.builder import TreeBuilder
from dropqa.ingestion.document import ParsedDocument, ParsedNode, paragraph, section, table_node
from dropqa.ingestion.parsers.base import ParseContext, ParseError
from dropqa.ingestion.parsers.docx_layout import Layout
from dropqa.ingestion.parsers.docx_pages import PageTracker, has_rendered_marks, section_start_types
from dropqa.ingestion.parsers.docx_styles import ParagraphInfo, StyleBook
from dropqa.ingestion.parsers.docx_xml import (
    W_P,
    W_PPR,
    W_TBL,
    W_VAL,
    iter_blocks,
    paragraph_text,
    picture_rids,
    table_grid,
)
from dropqa.ingestion.parsers.ooxml import ImageExtractor, guard_container
from dropqa.text.headings import classify_heading, looks_like_heading_text, title_rank

if TYPE_CHECKING:
    from docx.document import Document

_TABLE_CAPTION = re.compile(r"^(?:表|table)\s*[\d一二三四五六七八九十]", re.IGNORECASE)
_RUNNING_NOISE = re.compile(r"[\d\s第页頁共/|\-—–·.,，:：]+", re.IGNORECASE)


class DocxParser:

    def parse(self, data: bytes, ctx: ParseContext) -> ParsedDocument:
        guard_container(data, ctx, legacy_ext="doc", label="Word")
        document = _open(data)
        doc = ParsedDocument(title=PurePath(ctx.filename).stem, file_type="docx")
        builder = _Builder(document, ctx, doc.warnings)
        builder.run()
        doc.children = builder.outline.root
        doc.metadata.update(pages=builder.pages.page, page_estimated=True)
        return doc


def _open(data: bytes) -> Document:
    import docx

    try:
        return docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises KeyError/ValueError/lxml errors on broken files
        reason = f"{type(exc).__name__}: {exc}"
        raise ParseError(f"the Word file is damaged or is not a .docx document ({reason})") from exc


def _running_key(text: str) -> str:
    """Header/footer text without page numbers, so "第 3 页" and "第 4 页" compare equal."""
    return _RUNNING_NOISE.sub("", text)


def _centered(p: etree._Element) -> bool:
    jc = p.find(f"{W_PPR}/{qn('w:jc')}")
    return jc is not None and jc.get(W_VAL) == "center"


class _Builder:
    """One pass over the body, feeding the outline; small state for lists and table captions."""

    def __init__(self, document: Document, ctx: ParseContext, warnings: list[str]) -> None:
        self.part = document.part
        self.body = document.element.body
        self.ctx = ctx
        self.warnings = warnings
        self.book = StyleBook(document.styles.element)
        layout = None if has_rendered_marks(self.body) else \
            Layout(self.body, document.styles.element, self.book.body_size)
        self.pages = PageTracker(section_start_types(self.body), layout)
        self.outline = TreeBuilder()
        self.images = ImageExtractor(ctx, warnings)
        self.running = self._running_texts()
        self._list: ParsedNode | None = None
        self._caption: ParsedNode | None = None
        self._chars = 0

    def run(self) -> None:
        for block in iter_blocks(self.body):
            if block.tag == W_TBL:
                self._table(block)
            elif block.tag == W_P:
                self._paragraph(block)
            if self._chars > self.ctx.max_chars or self.pages.page > self.ctx.max_pages:
                self.warnings.append(
                    f"document truncated at page {self.pages.page}: over the limit of "
                    f"{self.ctx.max_chars} characters or {self.ctx.max_pages} pages"
                )
                break
        self._flush_caption()

    # -- blocks -------------------------------------------------------------------------------

    def _paragraph(self, p: etree._Element) -> None:
        info = self.book.describe(p)
        page = self.pages.paragraph(p, info.page_break_before)
        text = paragraph_text(p)
        if info.is_toc or (text and _running_key(text) in self.running):
            text = ""
        if text:
            self._chars += len(text)
            self._text(text, info, page, p)
        for rid in picture_rids(p):
            self._image(rid, page)

    def _text(self, text: str, info: ParagraphInfo, page: int, p: etree._Element) -> None:
        if self._heading(text, info, page):
            return
        if info.list_level is not None:
            self._list_item(text, info.list_level, page)
            return
        self._list = None
        self._flush_caption()
        node = paragraph(text, page=page, page_estimated=True)
        if info.is_title:
            node.metadata["role"] = "title"
        captionish = info.is_caption or _TABLE_CAPTION.match(text) or (info.emphasized and _centered(p))
        if captionish and len(text) <= 80:
            self._caption = node  # becomes the title of a table that follows right away
            return
        self.outline.add(node)

    def _heading(self, text: str, info: ParagraphInfo, page: int) -> bool:
        """Open a section if this paragraph is a heading; True when it was one."""
        level, rank = self._heading_level(text, info)
        if level is None and rank is None:
            return False
        self._list = None
        self._flush_caption()
        node = section(" ".join(text.split()), page=page, page_estimated=True)
        if level is not None:
            self.outline.open(node, level)
        else:
            self.outline.open_relative(node, rank or 1, title_rank)
        return True

    def _heading_level(self, text: str, info: ParagraphInfo) -> tuple[int | None, int | None]:
        """(fixed level, relative rank) of a heading paragraph; (None, None) for body text.

        Styles win. Numbering patterns count only on short lines that look like
        headings (bold or large), so numbered sentences in the body stay paragraphs.
        """
        if info.heading_level is not None:
            return info.heading_level, None
        if info.is_title:
            # On the cover the title is a paragraph; a Title line later on acts as a part heading.
            return (1 if self.outline.has_sections else None), None
        if info.list_level is not None or not info.emphasized or not looks_like_heading_text(text):
            return None, None
        heading = classify_heading(text)
        return (heading.level, heading.rank) if heading else (None, None)

    def _list_item(self, text: str, level: int, page: int) -> None:
        self._flush_caption()
        line = "  " * min(level, 8) + "- " + text.replace("\n", " ")
        if self._list is None:
            self._list = ParsedNode("list", content=line, metadata={"page": page, "page_estimated": True})
            self.outline.add(self._list)
        else:
            self._list.content += "\n" + line

    def _table(self, tbl: etree._Element) -> None:
        page = self.pages.table(tbl)
        self._list = None
        grid = [[" ".join(cell.split()) for cell in row] for row in table_grid(tbl)]
        grid = [row for row in grid if any(row)]
        caption, self._caption = self._caption, None
        if not grid:
            if caption:
                self.outline.add(caption)
        elif len(grid) == 1 and len(grid[0]) == 1:
            # A one-cell "table" is a framed note or call-out, not data.
            if caption:
                self.outline.add(caption)
            self.outline.add(paragraph(grid[0][0], page=page, page_estimated=True))
        else:
            title = caption.content if caption else None
            self.outline.add(table_node(grid[0], grid[1:], title=title, page=page, page_estimated=True))
        self._chars += sum(len(c) for row in grid for c in row)
        for rid in picture_rids(tbl):
            self._image(rid, page)

    def _image(self, rid: str, page: int) -> None:
        rel = self.part.rels.get(rid)
        if rel is None or rel.is_external:
            return
        target = rel.target_part
        mime = getattr(target, "content_type", "") or ""
        if not mime.startswith("image/"):
            return
        self._list = None
        self._flush_caption()
        self.outline.add(self.images.node(target.blob, mime, page=page, page_estimated=True))

    def _flush_caption(self) -> None:
        """A caption-like line not followed by a table is an ordinary paragraph."""
        if self._caption is not None:
            self.outline.add(self._caption)
            self._caption = None

    # -- headers / footers --------------------------------------------------------------------

    def _running_texts(self) -> set[str]:
        """Header/footer lines that also recur in the body (e.g. pasted from a PDF), to drop there.

        Header and footer parts themselves are never read. A line must repeat in
        the body to be dropped, so a cover page that shows the company name once
        (the same name as the header) keeps it.
        """
        keys: set[str] = set()
        for rel in self.part.rels.values():
            if rel.is_external or rel.reltype not in (RT.HEADER, RT.FOOTER):
                continue
            lines = (paragraph_text(p) for p in rel.target_part.element.iter(W_P))
            keys.update(key for key in map(_running_key, lines) if key)
        if not keys:
            return keys
        in_body = Counter(_running_key(paragraph_text(p)) for p in self.body.iter(W_P))
        return {key for key in keys if in_body[key] >= 2}
