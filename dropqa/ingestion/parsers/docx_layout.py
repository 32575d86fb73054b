"""Lay text out on the page when Word did not say where its pages begin.

A .docx saved by Word carries ``w:lastRenderedPageBreak`` marks: those pages are
exact and used as they are (:mod:`docx_pages`). A file written by a program
(python-docx, pandoc, an export) has none: without this, every paragraph up to
the first explicit break is on page 1. Here the body is flowed onto the
document's page — size and margins from its ``w:sectPr``, each paragraph's font
size (run, style, document default), line spacing and spacing before / after —
with CJK characters one em wide and other characters half an em, and a line
``1.3`` (CJK) or ``1.22`` (Latin) times the font size, Word's single spacing for
SimSun / Calibri. Pages that overflow start a new page; explicit breaks still
start one. The result is an estimate (``page_estimated``), good to about a page.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from docx.oxml.ns import qn
from lxml import etree

from dropqa.ingestion.parsers.docx_xml import W_P, W_PPR, W_RPR, W_T, W_VAL

TWIP = 1 / 20  # points
_CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]")
W_SPACING = qn("w:spacing")
W_SZ = qn("w:sz")


def _int(el: etree._Element | None, attr: str) -> int | None:
    if el is None:
        return None
    value = el.get(qn(attr))
    return int(value) if value is not None and value.lstrip("-").isdigit() else None


@dataclass(frozen=True)
class Page:
    width: float = 595.3  # A4 in points
    height: float = 841.9
    top: float = 72.0
    bottom: float = 72.0
    left: float = 90.0
    right: float = 90.0

    @property
    def text_width(self) -> float:
        return max(72.0, self.width - self.left - self.right)

    @property
    def text_height(self) -> float:
        return max(72.0, self.height - self.top - self.bottom)

    @classmethod
    def of(cls, body: etree._Element) -> Page:
        """The body's last ``w:sectPr`` (the document's own section properties)."""
        sect = body.find(qn("w:sectPr"))
        if sect is None:
            found = list(body.iter(qn("w:sectPr")))
            sect = found[-1] if found else None
        if sect is None:
            return cls()
        size, mar = sect.find(qn("w:pgSz")), sect.find(qn("w:pgMar"))
        d = cls()
        w, h = _int(size, "w:w"), _int(size, "w:h")
        return cls(
            width=w * TWIP if w else d.width, height=h * TWIP if h else d.height,
            top=abs(_int(mar, "w:top") or d.top / TWIP) * TWIP,
            bottom=abs(_int(mar, "w:bottom") or d.bottom / TWIP) * TWIP,
            left=(_int(mar, "w:left") or d.left / TWIP) * TWIP, right=(_int(mar, "w:right") or d.right / TWIP) * TWIP,
        )


@dataclass(frozen=True)
class Spacing:
    before: float = 0.0  # points
    after: float = 0.0
    line: float = 1.0  # multiple of single spacing

    @classmethod
    def of(cls, ppr: etree._Element | None, base: Spacing) -> Spacing:
        sp = ppr.find(W_SPACING) if ppr is not None else None
        if sp is None:
            return base
        before, after, line = _int(sp, "w:before"), _int(sp, "w:after"), _int(sp, "w:line")
        rule = sp.get(qn("w:lineRule"), "auto")
        return cls(
            before=before * TWIP if before is not None else base.before,
            after=after * TWIP if after is not None else base.after,
            line=line / 240 if line is not None and rule == "auto" else base.line,
        )


class Layout:
    """Flows paragraphs and table rows onto pages; ``cursor`` is the height used on the current page."""

    def __init__(self, body: etree._Element, styles: etree._Element | None, body_size: int) -> None:
        self.page = Page.of(body)
        self.body_size = body_size  # half-points
        self.cursor = 0.0
        self._styles: dict[str, tuple[Spacing, int | None]] = {}
        self.default = Spacing()
        if styles is not None:
            ppr = styles.find(f"{qn('w:docDefaults')}/{qn('w:pPrDefault')}/{W_PPR}")
            self.default = Spacing.of(ppr, Spacing())
            for st in styles.iter(qn("w:style")):
                sid = st.get(qn("w:styleId"))
                if sid and st.get(qn("w:type")) == "paragraph":
                    rpr = st.find(W_RPR)
                    size = _int(rpr.find(W_SZ) if rpr is not None else None, "w:val")
                    self._styles[sid] = (Spacing.of(st.find(W_PPR), self.default), size)

    def new_page(self) -> None:
        self.cursor = 0.0

    def _style(self, ppr: etree._Element | None) -> tuple[Spacing, float]:
        style_el = ppr.find(qn("w:pStyle")) if ppr is not None else None
        spacing, size = self._styles.get(style_el.get(W_VAL, "") if style_el is not None else "Normal",
                                         (self.default, None))
        return Spacing.of(ppr, spacing), (size or self.body_size) / 2

    def paragraph_height(self, p: etree._Element, width: float | None = None) -> tuple[float, float, float]:
        """``(first line, whole paragraph, line height)`` in points."""
        ppr = p.find(W_PPR)
        spacing, size = self._style(ppr)
        for sz in p.iter(W_SZ):
            if sz.getparent() is not None and sz.getparent().getparent() is not None \
                    and sz.getparent().getparent().tag != W_PPR:
                value = _int(sz, "w:val")
                size = value / 2 if value else size
                break
        text = "".join(t.text or "" for t in p.iter(W_T))
        cjk = len(_CJK.findall(text))
        ems = cjk + (len(text) - cjk) * 0.5
        per_line = max(1.0, (width or self.page.text_width) / size)
        lines = max(1, math.ceil(ems / per_line - 1e-9))
        line = size * (1.3 if cjk * 3 >= len(text) and cjk else 1.22) * spacing.line
        return spacing.before + line, spacing.before + lines * line + spacing.after, line

    def starts_new_page(self, first: float) -> bool:
        """The block's first line does not fit below what the page already holds."""
        return self.cursor > 0 and self.cursor + first > self.page.text_height + 1e-6

    def place(self, total: float, line: float) -> int:
        """Put ``total`` points below the cursor; returns the pages it spilled onto."""
        avail = self.page.text_height
        spills = 0
        while self.cursor + total > avail + 1e-6 and total > line:
            fit = max(line, math.floor((avail - self.cursor) / line + 1e-6) * line)
            total -= fit
            self.cursor = 0.0
            spills += 1
        self.cursor += total
        return spills

    def row_height(self, row: etree._Element) -> tuple[float, float]:
        cells = row.findall(qn("w:tc"))
        width = self.page.text_width / max(1, len(cells))
        heights, first = [], 0.0
        for tc in cells:
            parts = [self.paragraph_height(p, width) for p in tc.findall(W_P)] or [(0.0, 0.0, 0.0)]
            heights.append(sum(h for _, h, _ in parts) + 4.0)  # cell margins
            first = max(first, parts[0][0] + 4.0)
        return first, max(heights, default=0.0)
