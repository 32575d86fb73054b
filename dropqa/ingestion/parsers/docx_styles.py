"""What a Word paragraph *is* (heading, title, list item, emphasised line), from its style chain.

Heading-ness lives in several places: the paragraph's own ``w:outlineLvl``, the
style's name (``heading 2``, ``标题 2`` in WPS, ``Überschrift 2`` …) and the
style's outline level inherited through ``w:basedOn``. Bold and font size are
resolved the same way so bold-text headings can be told from bold sentences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from docx.oxml.ns import qn
from lxml import etree

from dropqa.ingestion.parsers.docx_xml import W_PPR, W_RPR, W_T, W_VAL, is_on

W_R, W_STYLE = qn("w:r"), qn("w:style")
_HEADING_NAME = re.compile(
    r"^(?:heading|标题|標題|überschrift|titre|título|titolo|kop|rubrik|nagłówek|заголовок|見出し|제목)\s*([1-9])$",
    re.IGNORECASE,
)
_TITLE_NAMES = frozenset({"title", "标题", "標題", "titel", "titre", "título", "titolo", "表題"})
_TOC_NAME = re.compile(r"^(?:toc|目录|目錄)\s*\d", re.IGNORECASE)
_CAPTION_NAMES = frozenset({"caption", "题注", "題注"})
_LIST_NAME = re.compile(r"^(?:list(?! paragraph)|列表)\D*(\d)?", re.IGNORECASE)
DEFAULT_SIZE = 20  # half-points: Word's 10 pt when nothing says otherwise


@dataclass(frozen=True)
class StyleProps:
    """Properties of a style after following its ``basedOn`` chain."""

    name: str = ""
    outline_level: int | None = None  # 0-based as in OOXML; 9 means body text
    page_break_before: bool = False
    numbered: bool = False
    bold: bool | None = None
    size: int | None = None  # half-points


@dataclass(frozen=True)
class ParagraphInfo:
    style_name: str
    heading_level: int | None  # 1-based, from styles or outline level
    is_title: bool
    list_level: int | None  # 0-based nesting of a list item
    emphasized: bool  # every run bold, or clearly larger than body text
    page_break_before: bool
    is_toc: bool
    is_caption: bool


def _own_props(el: etree._Element | None, name: str = "") -> dict[str, Any]:
    """Properties set directly in a ``w:style`` or paragraph/run properties element."""
    props: dict[str, Any] = {"name": name} if name else {}
    if el is None:
        return props
    ppr = el if el.tag == W_PPR else el.find(W_PPR)
    rpr = el if el.tag == W_RPR else el.find(W_RPR)
    if ppr is not None:
        lvl = ppr.find(qn("w:outlineLvl"))
        if lvl is not None and (lvl.get(W_VAL) or "").isdigit():
            props["outline_level"] = int(lvl.get(W_VAL))
        pbb = ppr.find(qn("w:pageBreakBefore"))
        if pbb is not None:
            props["page_break_before"] = is_on(pbb)
        num_id = ppr.find(f"{qn('w:numPr')}/{qn('w:numId')}")
        if num_id is not None:
            props["numbered"] = num_id.get(W_VAL) not in (None, "0")
    if rpr is not None:
        bold = rpr.find(qn("w:b"))
        if bold is not None:
            props["bold"] = is_on(bold)
        size = rpr.find(qn("w:sz"))
        if size is not None and (size.get(W_VAL) or "").isdigit():
            props["size"] = int(size.get(W_VAL))
    return props


class StyleBook:
    """Resolved paragraph and character styles of one document."""

    def __init__(self, styles: etree._Element | None) -> None:
        self._raw: dict[str, etree._Element] = {}
        self._resolved: dict[str, StyleProps] = {}
        self._default_para: str | None = None
        self._doc_size = DEFAULT_SIZE
        if styles is not None:
            for st in styles.iter(W_STYLE):
                sid = st.get(qn("w:styleId"))
                if sid:
                    self._raw[sid] = st
                    if st.get(qn("w:type")) == "paragraph" and st.get(qn("w:default")) in ("1", "true", "on"):
                        self._default_para = sid
            doc_rpr = styles.find(f"{qn('w:docDefaults')}/{qn('w:rPrDefault')}/{qn('w:rPr')}")
            self._doc_size = _own_props(doc_rpr).get("size", DEFAULT_SIZE)
        self._base = StyleProps()
        self.body_size: int = self.style(None).size or self._doc_size

    def style(self, style_id: str | None) -> StyleProps:
        """Resolved properties of a style id (the default paragraph style for None)."""
        sid = style_id or self._default_para
        if sid is None or sid not in self._raw:
            return self._base
        if sid not in self._resolved:
            self._resolved[sid] = self._base  # guards against basedOn cycles
            el = self._raw[sid]
            based = el.find(qn("w:basedOn"))
            parent = self.style(based.get(W_VAL)) if based is not None else self._base
            name_el = el.find(qn("w:name"))
            own = _own_props(el, name_el.get(W_VAL, "") if name_el is not None else sid)
            self._resolved[sid] = replace(parent, **{"name": "", **own})
        return self._resolved[sid]

    def describe(self, p: etree._Element) -> ParagraphInfo:
        ppr = p.find(W_PPR)
        style_el = ppr.find(qn("w:pStyle")) if ppr is not None else None
        style = self.style(style_el.get(W_VAL) if style_el is not None else None)
        own = _own_props(ppr)
        name = style.name.strip().lower()
        return ParagraphInfo(
            style_name=style.name,
            heading_level=self._heading_level(own.get("outline_level"), style),
            is_title=name in _TITLE_NAMES,
            list_level=self._list_level(ppr, own, style),
            emphasized=self._emphasized(p, style),
            page_break_before=bool(own.get("page_break_before", style.page_break_before)),
            is_toc=bool(_TOC_NAME.match(name)),
            is_caption=name in _CAPTION_NAMES,
        )

    @staticmethod
    def _heading_level(own_outline: int | None, style: StyleProps) -> int | None:
        if own_outline is not None:
            return own_outline + 1 if own_outline < 9 else None
        m = _HEADING_NAME.match(style.name.strip())
        if m:
            return int(m.group(1))
        if style.outline_level is not None and style.outline_level < 9:
            return style.outline_level + 1
        return None

    @staticmethod
    def _list_level(ppr: etree._Element | None, own: dict[str, Any], style: StyleProps) -> int | None:
        numbered = own.get("numbered", style.numbered)
        name_match = _LIST_NAME.match(style.name.strip())
        if not numbered and not name_match:
            return None
        ilvl = ppr.find(f"{qn('w:numPr')}/{qn('w:ilvl')}") if ppr is not None else None
        if ilvl is not None and (ilvl.get(W_VAL) or "").isdigit():
            return int(ilvl.get(W_VAL))
        if name_match and name_match.group(1):
            return int(name_match.group(1)) - 1
        return 0

    def _emphasized(self, p: etree._Element, style: StyleProps) -> bool:
        """All visible runs bold, or text at least 2 pt larger than the body: how headings look."""
        bolds: list[bool] = []
        sizes: list[int] = []
        for run in p.iter(W_R):
            if not any((t.text or "").strip() for t in run.iter(W_T)):
                continue
            rpr = run.find(W_RPR)
            rstyle_el = rpr.find(qn("w:rStyle")) if rpr is not None else None
            rstyle = self.style(rstyle_el.get(W_VAL)) if rstyle_el is not None else StyleProps()
            own = _own_props(rpr)
            bolds.append(bool(own.get("bold", rstyle.bold if rstyle.bold is not None else style.bold)))
            sizes.append(own.get("size", rstyle.size or style.size or self._doc_size))
        if not bolds:
            return False
        return all(bolds) or min(sizes) >= self.body_size + 4
