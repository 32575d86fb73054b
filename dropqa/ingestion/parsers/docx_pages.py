"""Estimate on which page each paragraph of a Word document starts.

A .docx has no pages; Word lays them out when it opens the file. What the file
does say: explicit page breaks, "page break before" paragraphs, section breaks
that start a new page, and — when Word saved it — ``w:lastRenderedPageBreak``
marks where its last layout began each page. We count all of them, but one
boundary is counted once: a rendered mark written at the top of a page that an
explicit break already started does not start yet another page. A file without
rendered marks (written by a program, not saved by Word) is also laid out on its
page size, margins and font sizes (:mod:`docx_layout`), so text that overflows a
page moves the page on.
"""

from __future__ import annotations

from docx.oxml.ns import qn
from lxml import etree

from dropqa.ingestion.parsers.docx_layout import Layout
from dropqa.ingestion.parsers.docx_xml import MC_FALLBACK, W_BR, W_P, W_PPR, W_RPR, W_T, W_TXBX, W_TYPE, W_VAL

W_RENDERED = qn("w:lastRenderedPageBreak")
W_TR = qn("w:tr")
W_SECT_PR = qn("w:sectPr")
_CONTENT_TAGS = {qn("w:drawing"), qn("w:pict"), qn("w:object")}
_SKIP = {MC_FALLBACK, W_TXBX, W_PPR, W_RPR}
_PAGE_STARTS = {"nextPage", "oddPage", "evenPage"}


def section_start_types(body: etree._Element) -> list[str]:
    """Start type of every section in order (a sectPr describes how *its own* section starts)."""
    types = []
    for sect in body.iter(W_SECT_PR):
        type_el = sect.find(qn("w:type"))
        types.append(type_el.get(W_VAL, "nextPage") if type_el is not None else "nextPage")
    return types


class PageTracker:
    """Walks paragraphs in document order and keeps the current (1-based) page number."""

    def __init__(self, section_types: list[str], layout: Layout | None = None) -> None:
        """``layout``: flow the text onto pages too (a file without Word's rendered page marks)."""
        self.page = 1
        self.layout = layout
        self._section_types = section_types
        self._sections_seen = 0
        # Why the current page is still empty: "start", "explicit" or "rendered"; None once it has content.
        self._fresh: str | None = "start"

    def paragraph(self, p: etree._Element, page_break_before: bool = False) -> int:
        """Advance through one paragraph; return the page its first content is on."""
        if page_break_before and self._fresh is None:
            self._new_page("explicit")  # already at the top of a page: no extra page
        size = self.layout.paragraph_height(p) if self.layout is not None else None
        if size is not None and self.layout is not None and self.layout.starts_new_page(size[0]):
            self._new_page("layout")
        start = self._walk(p)
        if size is not None and self.layout is not None:
            self._spill(self.layout.place(size[1], size[2]))
        ppr = p.find(W_PPR)
        if ppr is not None and ppr.find(W_SECT_PR) is not None:
            self._section_break()
        return start if start is not None else self.page

    def table(self, tbl: etree._Element) -> int:
        """Advance through every paragraph of a table; return the page the table starts on."""
        if self.layout is None:
            pages = [self.paragraph(p) for p in tbl.iter(W_P)]
            return pages[0] if pages else self.page
        first_page: int | None = None
        for row in tbl.iter(W_TR):
            first, total = self.layout.row_height(row)
            if self.layout.starts_new_page(first):
                self._new_page("layout")
            starts = [s for s in (self._walk(p) for p in row.iter(W_P)) if s is not None]
            first_page = first_page or (starts[0] if starts else self.page)
            self._spill(self.layout.place(total, first))
        return first_page or self.page

    def _spill(self, pages: int) -> None:
        if pages:
            self.page += pages
            self._fresh = None

    def _walk(self, el: etree._Element) -> int | None:
        start: int | None = None
        for child in el:
            tag = child.tag
            if not isinstance(tag, str) or tag in _SKIP:
                continue
            if tag == W_BR and child.get(W_TYPE) == "page":
                self._new_page("explicit")
            elif tag == W_RENDERED:
                if self._fresh not in ("explicit", "start"):
                    self._new_page("rendered")
            elif (tag == W_T and (child.text or "").strip()) or tag in _CONTENT_TAGS:
                start = self.page if start is None else start
                self._fresh = None
            else:
                inner = self._walk(child)
                start = inner if start is None else start
        return start

    def _section_break(self) -> None:
        self._sections_seen += 1
        if self._sections_seen >= len(self._section_types):
            return
        kind = self._section_types[self._sections_seen]  # how the *next* section starts
        if kind not in _PAGE_STARTS:
            return
        self._new_page("explicit")
        if (kind == "oddPage" and self.page % 2 == 0) or (kind == "evenPage" and self.page % 2 == 1):
            self.page += 1  # Word inserts a blank page to land on the right parity

    def _new_page(self, reason: str) -> None:
        self.page += 1
        self._fresh = reason
        if self.layout is not None:
            self.layout.new_page()


def has_rendered_marks(body: etree._Element) -> bool:
    """Word saved its own layout: its page marks are exact, no estimate needed."""
    return next(body.iter(W_RENDERED), None) is not None
